// browser_emulate in the worker (worker/tools/emulate.js): how calls compose into what is in force,
// the DevTools commands each setting sends, and the refusal without the debugger, which sends none.
import assert from "node:assert/strict";
import test from "node:test";

import { createEmulateTools } from "../extension/worker/tools/emulate.js";
import { fakeChrome, manualTimers } from "./support/fake-chrome.js";

const TAB = { id: 7, url: "http://localhost/test", title: "Test", windowId: 1 };
const NONE = Object.fromEntries(
  ["device", "width", "height", "device_scale_factor", "mobile", "touch", "user_agent", "locale", "timezone"]
    .concat(["latitude", "longitude", "accuracy", "color_scheme", "reduced_motion", "network"])
    .concat(["latency_ms", "download_kbps", "upload_kbps", "cpu_rate", "tab_id"])
    .map((name) => [name, null]),
);

function setUp({ allowed, refuse = null }) {
  const { chrome } = fakeChrome({ tabs: [TAB] });
  const sent = [];
  const debug = {
    reload: async () => {},
    allowed: () => allowed,
    isManaged: () => allowed,
    send: async (tabId, method, params) => {
      sent.push([method, params]);
      if (refuse && method === refuse[0] && JSON.stringify(params) === JSON.stringify(refuse[1])) {
        throw new Error("Invalid timezone ID");
      }
    },
  };
  const tools = createEmulateTools({ chrome, tabs: { resolve: async () => TAB }, debug, timers: manualTimers() });
  const run = (params) => tools.handlers.browser_emulate({ ...NONE, reset: false, ...params });
  return { chrome, sent, run };
}

test("a call changes only what it names, and the answer lists what is in force", async () => {
  const { sent, run } = setUp({ allowed: true });
  const phone = await run({ device: "Pixel 7", width: 412, height: 839, device_scale_factor: 2.625, mobile: true, touch: true });
  assert.equal(phone.result.route, "debugger");
  assert.deepEqual(sent.map(([method]) => method), ["Emulation.setDeviceMetricsOverride", "Emulation.setTouchEmulationEnabled"]);
  assert.deepEqual(sent[0][1], { width: 412, height: 839, deviceScaleFactor: 2.625, mobile: true });
  sent.length = 0;
  const tokyo = await run({ timezone: "Asia/Tokyo" });
  assert.deepEqual(tokyo.result.in_force, { device: "Pixel 7", width: 412, height: 839, device_scale_factor: 2.625, mobile: true, touch: true, timezone: "Asia/Tokyo" });
  assert.deepEqual(sent, [
    ["Emulation.setTimezoneOverride", { timezoneId: "" }],
    ["Emulation.setTimezoneOverride", { timezoneId: "Asia/Tokyo" }],
  ]);
  // A metric of its own makes it no longer that device.
  const wide = await run({ width: 600, height: 800 });
  assert.equal(wide.result.in_force.device, undefined);
  assert.equal(wide.result.in_force.mobile, true);
});

test("a network preset, then a number of one's own, is a custom throttle; online and cpu_rate 1 end them", async () => {
  const { sent, run } = setUp({ allowed: true });
  await run({ network: "slow 3g", latency_ms: 2000, download_kbps: 400, upload_kbps: 400 });
  assert.deepEqual(sent.at(-1), ["Network.emulateNetworkConditions", { offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 }]);
  const custom = await run({ latency_ms: 100 });
  assert.deepEqual(custom.result.in_force, { network: "custom", latency_ms: 100, download_kbps: 400, upload_kbps: 400 });
  await run({ cpu_rate: 4 });
  const online = await run({ network: "online", cpu_rate: 1 });
  assert.deepEqual(online.result.in_force, {});
  assert.deepEqual(sent.at(-2), ["Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }]);
  assert.deepEqual(sent.at(-1), ["Emulation.setCPUThrottlingRate", { rate: 1 }]);
});

test("without the debugger anything but the viewport is refused, naming it, and nothing is sent or kept", async () => {
  const { chrome, sent, run } = setUp({ allowed: false });
  await assert.rejects(run({ width: 500, height: 400, timezone: "Asia/Tokyo", color_scheme: "dark" }), (err) => {
    assert.equal(err.code, "debugger_disabled");
    assert.deepEqual(err.data, { needs: ["timezone", "color_scheme"] });
    assert.match(err.message, /Nothing was changed/);
    return true;
  });
  assert.deepEqual(sent, []);
  assert.deepEqual(chrome.calls.sessionSet, []);
});

test("a setting Chrome refuses undoes the call's others, and is invalid_request", async () => {
  const { sent, run } = setUp({ allowed: true, refuse: ["Emulation.setTimezoneOverride", { timezoneId: "Mars/Base" }] });
  await run({ color_scheme: "dark" });
  sent.length = 0;
  await assert.rejects(run({ width: 500, height: 400, color_scheme: "light", timezone: "Mars/Base" }), (err) => {
    assert.equal(err.code, "invalid_request");
    assert.match(err.message, /timezone: Invalid timezone ID/);
    return true;
  });
  // The viewport, set before the timezone, was put back; the color scheme, after it, never sent.
  assert.deepEqual(sent.at(0), ["Emulation.setDeviceMetricsOverride", { width: 500, height: 400, deviceScaleFactor: 0, mobile: false }]);
  assert.deepEqual(sent.at(-1), ["Emulation.clearDeviceMetricsOverride", {}]);
  assert.ok(!sent.some(([method]) => method === "Emulation.setEmulatedMedia"));
  assert.deepEqual((await run({})).result.in_force, { color_scheme: "dark" });
});
