// The context a browser is on the daemon: the hello names it (managed.json's, or the popup's, or
// "chrome"), with the managed browser's context key; a new name in the popup says hello afresh.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { createBackground } from "../extension/worker/main.js";
import { isContextName, loadManaged } from "../extension/worker/link/managed.js";
import { FakeWebSocket, fakeChrome, realTimers, tick } from "./support/fake-chrome.js";

const timers = {
  ...realTimers,
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  setInterval: (fn, ms) => setInterval(fn, ms).unref(),
};

async function start({ storage = { pilotEnabled: true }, managed = null } = {}) {
  const { chrome, fetch } = fakeChrome({ storage, tabs: [], managed });
  const background = createBackground({ chrome, WebSocket: FakeWebSocket, fetch, timers });
  await background.ready;
  const ws = FakeWebSocket.last();
  ws.open();
  return { chrome, ws, background };
}

const MANAGED = { managed: true, pilot_default: true, daemon_port: 9555 };

beforeEach(() => {
  FakeWebSocket.instances = [];
});

test("a person's Chrome is the context \"chrome\" until the popup names it", async () => {
  const { ws } = await start();
  assert.equal(ws.sent[0].context, "chrome");
  assert.equal("context_key" in ws.sent[0], false);
});

test("the popup's context name goes in the hello", async () => {
  const { ws } = await start({ storage: { contextName: "work-laptop" } });
  assert.equal(ws.sent[0].context, "work-laptop");
});

test("a stored name the daemon would refuse is not sent: the hello says \"chrome\"", async () => {
  const { ws } = await start({ storage: { contextName: "-not a name" } });
  assert.equal(ws.sent[0].context, "chrome");
});

test("the managed browser says managed.json's context and key, whatever the popup's storage holds", async () => {
  const { ws } = await start({
    storage: { contextName: "ignored" },
    managed: { ...MANAGED, context: "research", context_key: "k-123", proxy_auth: { username: "u", password: "p" } },
  });
  assert.equal(ws.sent[0].context, "research");
  assert.equal(ws.sent[0].context_key, "k-123");
  // The proxy's credentials are the worker's alone: no frame carries them.
  assert.doesNotMatch(JSON.stringify(ws.sent), /"u"|"p"|proxy/);
});

test("a managed browser whose managed.json names no context names none: the daemon does", async () => {
  const { ws } = await start({ storage: {}, managed: MANAGED });
  assert.equal("context" in ws.sent[0], false);
  assert.equal("context_key" in ws.sent[0], false);
});

test("a name saved in the popup reconnects with a hello that carries it; the same name does not", async () => {
  const { chrome, ws } = await start();
  await chrome.storage.local.set({ contextName: "second" });
  await tick();
  const next = FakeWebSocket.last();
  assert.notEqual(next, ws);
  assert.equal(ws.closedWith, 1000);
  next.open();
  assert.equal(next.sent[0].context, "second");
  await chrome.storage.local.set({ contextName: "second" });
  await tick();
  assert.equal(FakeWebSocket.last(), next);
  await chrome.storage.local.set({ contextName: undefined }); // removed: back to "chrome"
  await tick();
  FakeWebSocket.last().open();
  assert.equal(FakeWebSocket.last().sent[0].context, "chrome");
});

test("close 4006 tells the popup to choose another name", async () => {
  const { chrome, ws } = await start({ storage: { contextName: "taken" } });
  ws.drop(4006);
  const status = await new Promise((resolve) => chrome.runtime.onMessage.emit({ type: "get_status" }, {}, resolve));
  assert.equal(status.connected, false);
  assert.match(status.last_error, /name taken: .*choose another name in this popup/);
});

test("context names: 1 to 40 letters, digits, '.', '_', '-', starting with a letter or digit", () => {
  for (const good of ["chrome", "a", "A1", "0day", "de.fr_x-y", "x".repeat(40)]) assert.equal(isContextName(good), true, good);
  for (const bad of ["", "-a", ".a", "_a", "a b", "é", "x".repeat(41), "a/b", null, 7, undefined]) {
    assert.equal(isContextName(bad), false, String(bad));
  }
});

test("loadManaged reads the context, its key and the proxy's credentials, and nulls what is absent or wrong", async () => {
  const load = (managed) => {
    const { chrome, fetch } = fakeChrome({ managed });
    return loadManaged({ chrome, fetch });
  };
  const full = await load({ ...MANAGED, context: "eu", context_key: "key", proxy_auth: { username: "u", password: "" } });
  assert.equal(full.context, "eu");
  assert.equal(full.contextKey, "key");
  assert.deepEqual(full.proxyAuth, { username: "u", password: "" });
  for (const body of [
    null,
    MANAGED,
    { ...MANAGED, context: "not ok", context_key: "", proxy_auth: { username: "", password: "p" } },
    { ...MANAGED, context: 3, context_key: 3, proxy_auth: { username: "u" } },
    { ...MANAGED, proxy_auth: "u:p" },
  ]) {
    const m = await load(body);
    assert.deepEqual([m.context, m.contextKey, m.proxyAuth], [null, null, null], JSON.stringify(body));
  }
});
