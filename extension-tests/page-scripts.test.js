// tabpilot's page scripts are registered with Chrome only while AI Web Pilot is on
// (worker/tab/page-scripts.js): on at start registers them before the daemon hears hello, off
// unregisters them, a restarted worker finds its registration and leaves it, and a failure is
// logged and tried again while the worker goes on answering.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { createBackground } from "../extension/worker/main.js";
import { PAGE_SCRIPTS, RETRY_MS } from "../extension/worker/tab/page-scripts.js";
import { FakeWebSocket, fakeChrome, manualTimers, realTimers, until } from "./support/fake-chrome.js";
import { ISOLATED_WORLD_FILES, MAIN_WORLD_FILES } from "./support/page-files.js";

const PAGE = { id: 7, url: "https://example.test/", title: "Example", active: true, windowId: 1 };
const unref = {
  ...realTimers,
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  setInterval: (fn, ms) => setInterval(fn, ms).unref(),
};

// A worker start on `chrome` (a new one, or the same one again as after Chrome stopped the worker).
function boot(chrome, fetch, timers = unref) {
  return createBackground({ chrome, WebSocket: FakeWebSocket, fetch, timers, userAgent: "FakeChrome/1" });
}

const ids = (chrome) => chrome.registered.map((s) => s.id);
const changes = (chrome) => chrome.calls.registration.filter(([op]) => op !== "get");

beforeEach(() => {
  FakeWebSocket.instances = [];
});

test("with the switch on, both worlds are registered before the worker connects", async () => {
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: true }, tabs: [PAGE] });
  const background = boot(chrome, fetch);
  assert.equal(FakeWebSocket.instances.length, 0);
  await background.ready;
  assert.equal(FakeWebSocket.instances.length, 1);
  assert.deepEqual(
    chrome.registered.map((s) => [s.id, s.world, s.js, s.allFrames, s.matchOriginAsFallback, s.runAt]),
    [
      ["tabpilot-content", "ISOLATED", ISOLATED_WORLD_FILES, true, true, "document_start"],
      ["tabpilot-page", "MAIN", MAIN_WORLD_FILES, true, true, "document_start"],
    ],
  );
});

test("the managed browser's first start registers them before its hello says the pilot is on", async () => {
  const { chrome, fetch } = fakeChrome({ storage: {}, tabs: [PAGE], managed: { pilot_default: true } });
  const background = boot(chrome, fetch);
  await background.ready;
  assert.deepEqual(ids(chrome), ["tabpilot-content", "tabpilot-page"]);
  const ws = FakeWebSocket.last();
  ws.open();
  assert.equal(ws.sent[0].pilot_enabled, true);
});

test("with the switch off, nothing is registered", async () => {
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: false }, tabs: [PAGE] });
  await boot(chrome, fetch).ready;
  assert.deepEqual(chrome.registered, []);
  assert.deepEqual(changes(chrome), []);
});

test("turning the switch off unregisters them, on registers them again; the daemon hears each after", async () => {
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: true }, tabs: [PAGE] });
  await boot(chrome, fetch).ready;
  const ws = FakeWebSocket.last();
  ws.open();
  ws.receive({ type: "hello", protocol_version: 1, daemon_version: "0.1.0" });
  await chrome.storage.local.set({ pilotEnabled: false });
  await until(() => ws.frames("pilot").length === 1, "the pilot frame");
  assert.deepEqual(chrome.registered, []);
  await chrome.storage.local.set({ pilotEnabled: true });
  await until(() => ws.frames("pilot").length === 2, "the second pilot frame");
  assert.deepEqual(ids(chrome), ["tabpilot-content", "tabpilot-page"]);
  assert.deepEqual(ws.frames("pilot"), [
    { type: "pilot", enabled: false },
    { type: "pilot", enabled: true },
  ]);
});

test("a restarted worker finds its registration in place and changes nothing", async (t) => {
  const warn = t.mock.method(console, "warn", () => {});
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: true }, tabs: [PAGE] });
  await boot(chrome, fetch).ready;
  const before = changes(chrome).length;
  await boot(chrome, fetch).ready;
  await boot(chrome, fetch).ready;
  assert.equal(changes(chrome).length, before);
  assert.deepEqual(ids(chrome), ["tabpilot-content", "tabpilot-page"]);
  assert.equal(warn.mock.callCount(), 0);
});

test("a registration left from another version is replaced whole", async () => {
  const old = { ...structuredClone(PAGE_SCRIPTS[1]), js: ["page/inject.js"] };
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: true }, tabs: [PAGE], registered: [old] });
  await boot(chrome, fetch).ready;
  assert.deepEqual(changes(chrome), [
    ["unregister", ["tabpilot-page"]],
    ["register", ["tabpilot-content", "tabpilot-page"]],
  ]);
  assert.deepEqual(chrome.registered.find((s) => s.id === "tabpilot-page").js, MAIN_WORLD_FILES);
});

test("a worker that starts with the switch off takes away a registration left behind", async () => {
  const left = structuredClone(PAGE_SCRIPTS);
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: false }, tabs: [PAGE], registered: left });
  await boot(chrome, fetch).ready;
  assert.deepEqual(chrome.registered, []);
});

test("a failed registration is logged and tried again, and the worker answers meanwhile", async (t) => {
  const warn = t.mock.method(console, "warn", () => {});
  const timers = manualTimers();
  const { chrome, fetch } = fakeChrome({
    storage: { pilotEnabled: true },
    tabs: [PAGE],
    registerFails: 2,
    onSend: () => ({ ok: true, result: "pong", result_type: "string", url: PAGE.url, title: "Example" }),
  });
  const background = boot(chrome, fetch, timers);
  await background.ready;
  assert.deepEqual(chrome.registered, []);
  assert.equal(warn.mock.callCount(), 1);
  assert.match(String(warn.mock.calls[0].arguments[0]), /could not register the page scripts; trying again in 1 s/);
  assert.ok(timers.pendingDelays().includes(RETRY_MS[0]));
  // Commands still run: a tab gets the scripts on its first command all the same (tabs.js).
  const ws = FakeWebSocket.last();
  ws.open();
  ws.receive({ type: "hello", protocol_version: 1, daemon_version: "0.1.0" });
  ws.receive({ type: "command", id: "p", command: "ping", params: { to: "content", tab_id: 7, timeout_ms: 1000 } });
  await until(() => ws.frames("result").length === 1, "the ping's answer");
  assert.equal(ws.frames("result")[0].result, "pong");

  // Each retry waits longer; the second succeeds.
  await fire(timers, RETRY_MS[0]);
  assert.equal(warn.mock.callCount(), 2);
  assert.ok(timers.pendingDelays().includes(RETRY_MS[1]));
  await fire(timers, RETRY_MS[1]);
  assert.deepEqual(ids(chrome), ["tabpilot-content", "tabpilot-page"]);
  assert.equal(warn.mock.callCount(), 2);
  assert.ok(!timers.pendingDelays().includes(RETRY_MS[2]));
});

test("a failed unregistration is tried again too: pages must stop getting them", async (t) => {
  t.mock.method(console, "warn", () => {});
  const timers = manualTimers();
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: true }, tabs: [PAGE] });
  await boot(chrome, fetch, timers).ready;
  const unregister = chrome.scripting.unregisterContentScripts;
  let refusals = 1;
  chrome.scripting.unregisterContentScripts = async (filter) => {
    if (refusals-- > 0) throw new Error("Could not unregister.");
    return unregister(filter);
  };
  await chrome.storage.local.set({ pilotEnabled: false });
  await until(() => timers.pendingDelays().includes(RETRY_MS[0]), "the retry");
  assert.deepEqual(ids(chrome), ["tabpilot-content", "tabpilot-page"]);
  await fire(timers, RETRY_MS[0]);
  assert.deepEqual(chrome.registered, []);
});

// Fires the retry's timer (set for `ms`); resolves once the retry has settled.
async function fire(timers, ms) {
  await until(() => timers.pendingDelays().includes(ms), `a ${ms} ms timer`);
  await timers.fireDelay(ms);
}
