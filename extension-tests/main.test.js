// The background as a whole, as the daemon sees it over the WebSocket: hello, command -> result,
// pilot frames, unknown frames, and the popup's get_status.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { createBackground } from "../extension/worker/main.js";
import { FakeWebSocket, fakeChrome, realTimers, results, tick, until } from "./support/fake-chrome.js";

const PAGE = { id: 7, url: "https://example.test/", title: "Example", active: true, windowId: 1 };

async function start({ storage = { pilotEnabled: true }, onSend, ...options } = {}) {
  const { chrome, fetch } = fakeChrome({
    storage,
    tabs: [PAGE],
    onSend: onSend ?? ((_t, msg) => ({ ok: true, result: msg.script.length, result_type: "number", url: PAGE.url, title: "Example" })),
    ...options,
  });
  // Real timers, unref'd so that a pending reconnect or keepalive does not keep the test alive.
  const timers = {
    ...realTimers,
    setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
    setInterval: (fn, ms) => setInterval(fn, ms).unref(),
  };
  const background = createBackground({ chrome, WebSocket: FakeWebSocket, fetch, timers, userAgent: "FakeChrome/1" });
  await background.ready;
  const ws = FakeWebSocket.last();
  ws.open();
  ws.receive({ type: "hello", protocol_version: 1, daemon_version: "0.1.0" });
  return { chrome, ws, background };
}

const command = (id, params = {}, name = "execute_javascript") => ({
  type: "command",
  id,
  command: name,
  params: { script: "2 + 2", timeout_ms: 1000, await_promise: true, tab_id: null, ...params },
});

beforeEach(() => {
  FakeWebSocket.instances = [];
});

test("on open it says hello with protocol version, extension version, pilot and user agent", async () => {
  const { ws, chrome } = await start();
  assert.equal(ws.url, "ws://127.0.0.1:7878/ws");
  assert.deepEqual(ws.sent[0], {
    type: "hello",
    protocol_version: 1,
    extension_version: "0.1.0",
    pilot_enabled: true,
    user_agent: "FakeChrome/1",
    context: "chrome",
  });
  assert.deepEqual(chrome.calls.alarms, [{ name: "tabpilot-reconnect", info: { periodInMinutes: 0.5 } }]);
});

test("the stored daemonPort is used", async () => {
  const { ws } = await start({ storage: { pilotEnabled: true, daemonPort: 9123 } });
  assert.equal(ws.url, "ws://127.0.0.1:9123/ws");
});

test("the managed profile's daemon_port is used when the popup chose none", async () => {
  const { ws } = await start({ storage: {}, managed: { pilot_default: true, daemon_port: 9555 } });
  assert.equal(ws.url, "ws://127.0.0.1:9555/ws");
});

test("a port chosen in the popup wins over the managed profile's", async () => {
  const { ws } = await start({ storage: { daemonPort: 9123 }, managed: { pilot_default: true, daemon_port: 9555 } });
  assert.equal(ws.url, "ws://127.0.0.1:9123/ws");
});

test("a command comes back as one result frame with its id", async () => {
  const { ws } = await start();
  ws.receive(command("c1"));
  const [result] = await results(ws);
  assert.deepEqual(result, {
    type: "result",
    id: "c1",
    ok: true,
    result: 5,
    result_type: "number",
    tab: { id: 7, url: PAGE.url, title: "Example" },
    route: "page",
  });
});

test("many commands in flight each get exactly one result, answered by id", async () => {
  let answered = 0;
  const { ws } = await start({
    onSend: (_t, msg) =>
      new Promise((resolve) =>
        setTimeout(() => {
          answered++;
          resolve({ ok: true, result: msg.id, result_type: "string" });
        }, Math.random() * 20),
      ),
  });
  const ids = Array.from({ length: 30 }, (_, i) => `id${i}`);
  for (const id of ids) ws.receive(command(id));
  ws.receive(command("late", { timeout_ms: 10 }, "no_such_command"));
  await results(ws, 31);
  // Every tab has answered, and what its answer led to has run: no frame is still to come.
  await until(() => answered === ids.length, "every tab's answer");
  await tick();
  const got = ws.frames("result");
  assert.equal(got.length, 31);
  assert.deepEqual(new Set(got.map((r) => r.id)).size, 31);
  for (const r of got.filter((r) => r.ok)) assert.equal(r.result, r.id);
});

test("a tab that answers too late gives exactly one result: execution_timeout", async () => {
  let answerLate;
  const { ws } = await start({ onSend: () => new Promise((resolve) => (answerLate = resolve)) });
  ws.receive(command("slow", { timeout_ms: 30 }));
  const got = await results(ws);
  assert.equal(got[0].error.code, "execution_timeout");
  answerLate({ ok: true, result: "late", result_type: "string" });
  await tick(); // what the late answer leads to has run
  assert.equal(ws.frames("result").length, 1);
});

test("with the pilot off, commands are refused and the hello says so", async () => {
  const { ws } = await start({ storage: { pilotEnabled: false } });
  assert.equal(ws.sent[0].pilot_enabled, false);
  ws.receive(command("c1"));
  const [result] = await results(ws);
  assert.equal(result.ok, false);
  assert.equal(result.error.code, "pilot_disabled");
});

test("an unknown frame type is logged, not fatal", async (t) => {
  t.mock.method(console, "warn", () => {});
  const { ws } = await start();
  ws.receive({ type: "mystery", x: 1 });
  assert.equal(console.warn.mock.callCount(), 1);
  assert.deepEqual(console.warn.mock.calls[0].arguments.at(-1), "mystery");
  ws.receive(command("after"));
  const [result] = await results(ws);
  assert.equal(result.ok, true);
});

test("flipping the switch sends a pilot frame and repaints the badge", async () => {
  const { ws, chrome } = await start({ storage: { pilotEnabled: false } });
  await chrome.storage.local.set({ pilotEnabled: true });
  await chrome.storage.local.set({ pilotEnabled: false });
  // Each once the page scripts' registration matches it (page-scripts.test.js).
  await until(() => ws.frames("pilot").length === 2, "two pilot frames");
  assert.deepEqual(ws.frames("pilot"), [
    { type: "pilot", enabled: true },
    { type: "pilot", enabled: false },
  ]);
  assert.equal(chrome.calls.badge.at(-1), "");
});

test("nothing the daemon sends turns the switch on", async (t) => {
  t.mock.method(console, "warn", () => {});
  const { ws, chrome, background } = await start({ storage: { pilotEnabled: false } });
  ws.receive({ type: "pilot", enabled: true });
  ws.receive({ type: "hello", protocol_version: 1, daemon_version: "0.1.0", pilot_enabled: true });
  ws.receive({ type: "set_pilot", enabled: true });
  ws.receive({ type: "command", id: "x", command: "set_pilot", params: { enabled: true } });
  ws.receive(command("y", { script: "chrome.storage.local.set({pilotEnabled: true})" }));
  await results(ws, 2);
  assert.equal(background.pilot.isEnabled(), false);
  assert.equal(chrome.store.pilotEnabled, false);
  assert.ok(chrome.calls.storageSet.every((items) => items.pilotEnabled !== true));
  assert.deepEqual(ws.frames("result").map((r) => r.error.code), ["unknown_command", "pilot_disabled"]);
});

test("managed.json turns the pilot on at first start, and the hello says so", async () => {
  const { ws } = await start({ storage: {}, managed: { pilot_default: true } });
  assert.equal(ws.sent[0].pilot_enabled, true);
});

test("get_status answers the popup with connection, port, pilot and daemon version", async () => {
  const { chrome } = await start();
  const answer = await new Promise((resolve) => {
    const keepOpen = chrome.runtime.onMessage.emit({ type: "get_status" }, {}, resolve)[0];
    assert.equal(keepOpen, true);
  });
  assert.deepEqual(answer, {
    connected: true,
    port: 7878,
    last_error: null,
    pilot_enabled: true,
    daemon_version: "0.1.0",
    daemon_site_rules: null,
    group_tabs: null, // this fake Chrome has no tab groups
  });
});

test("get_status counts the tabs in the tabpilot group of every window, for the popup's status line", async () => {
  const tabs = [
    PAGE,
    { ...PAGE, id: 8, groupId: 3, windowId: 1 },
    { ...PAGE, id: 9, groupId: 3, windowId: 1 },
    { ...PAGE, id: 10, groupId: 4, windowId: 2 },
    { ...PAGE, id: 11, groupId: 5, windowId: 2 }, // a group of the person's own
  ];
  const { chrome } = await start({ tabs });
  const groups = [
    { id: 3, title: "tabpilot", windowId: 1 },
    { id: 4, title: "tabpilot", windowId: 2 },
    { id: 5, title: "shopping", windowId: 2 },
  ];
  chrome.tabGroups = { query: async ({ title }) => groups.filter((g) => g.title === title) };
  const status = () => new Promise((resolve) => chrome.runtime.onMessage.emit({ type: "get_status" }, {}, resolve));
  assert.equal((await status()).group_tabs, 3);
  groups.length = 0;
  assert.equal((await status()).group_tabs, 0);
  chrome.tabGroups.query = async () => {
    throw new Error("No window with id: 2.");
  };
  const answer = await status();
  assert.equal(answer.group_tabs, null, "a failing count leaves the rest of the status");
  assert.equal(answer.connected, true);
});

test("the daemon's site rules in its hello refuse the commands that follow it, and the popup is told them", async () => {
  const { chrome, ws } = await start();
  ws.receive({ type: "hello", protocol_version: 1, daemon_version: "0.1.0", site_rules: { never: ["example.test"], only: null } });
  ws.receive(command("c1"));
  const [result] = await results(ws, 1);
  assert.equal(result.error.code, "site_blocked");
  assert.match(result.error.message, /--block-site rule "example\.test"/);
  assert.equal(chrome.calls.delivered.length, 0);
  const status = await new Promise((resolve) => chrome.runtime.onMessage.emit({ type: "get_status" }, {}, resolve));
  assert.deepEqual(status.daemon_site_rules, { never: ["example.test"], only: null });
});

test("an unknown runtime message is logged and still answered", async (t) => {
  t.mock.method(console, "warn", () => {});
  const { chrome } = await start();
  let answer;
  chrome.runtime.onMessage.emit({ type: "nope" }, {}, (a) => (answer = a));
  assert.match(answer.error, /unknown message type/);
  assert.equal(console.warn.mock.callCount(), 1);
});

test("a close 4002 shows in get_status, and a port change reconnects", async () => {
  const { chrome, ws } = await start();
  ws.drop(4002);
  const status = await new Promise((resolve) => chrome.runtime.onMessage.emit({ type: "get_status" }, {}, resolve));
  assert.equal(status.connected, false);
  assert.equal(status.daemon_version, null);
  assert.match(status.last_error, /busy: another browser/);
  await chrome.storage.local.set({ daemonPort: 9001 });
  assert.equal(FakeWebSocket.last().url, "ws://127.0.0.1:9001/ws");
});

test("the alarm reconnects a worker whose retry timer was lost", async () => {
  const { chrome, ws } = await start();
  ws.drop();
  const before = FakeWebSocket.instances.length;
  chrome.alarms.onAlarm.emit({ name: "tabpilot-reconnect" });
  assert.equal(FakeWebSocket.instances.length, before + 1);
});

test("service-worker.js wires the real globals and connects", async () => {
  const { chrome, fetch } = fakeChrome({ storage: { pilotEnabled: false } });
  Object.assign(globalThis, { chrome, WebSocket: FakeWebSocket, fetch });
  if (!globalThis.navigator) globalThis.navigator = { userAgent: "node" };
  await import("../extension/worker/main.js?as-worker");
  for (let i = 0; i < 20 && FakeWebSocket.instances.length === 0; i++) await tick();
  assert.equal(FakeWebSocket.last().url, "ws://127.0.0.1:7878/ws");
  assert.equal(chrome.runtime.onMessage.listeners.length, 1);
});

test("each wake port hears the pilot switch when it opens and whenever it flips", async () => {
  const { chrome } = await start({ storage: { pilotEnabled: true } });
  const port = (name) => {
    const heard = [];
    const onDisconnect = [];
    const opened = {
      name,
      postMessage: (message) => heard.push(message),
      disconnect: () => heard.push("disconnected"),
      onDisconnect: { addListener: (fn) => onDisconnect.push(fn) },
      close: () => onDisconnect.forEach((fn) => fn()),
    };
    chrome.runtime.onConnect.emit(opened);
    return { heard, close: opened.close };
  };
  const wake = port("tabpilot-wake");
  const other = port("something-else");
  await tick();
  assert.deepEqual(wake.heard, [{ pilot: true }]);
  assert.deepEqual(other.heard, ["disconnected"]);
  await chrome.storage.local.set({ pilotEnabled: false });
  assert.deepEqual(wake.heard, [{ pilot: true }, { pilot: false }]);
  wake.close(); // a closed port hears nothing more
  await chrome.storage.local.set({ pilotEnabled: true });
  assert.deepEqual(wake.heard, [{ pilot: true }, { pilot: false }]);
});
