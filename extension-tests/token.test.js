// The daemon's optional token: it travels in the hello, from managed.json or the popup's field,
// and a change in the popup says hello afresh.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { createBackground } from "../extension/worker/main.js";
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

beforeEach(() => {
  FakeWebSocket.instances = [];
});

test("without a token the hello has no token field", async () => {
  const { ws } = await start();
  assert.equal(ws.sent[0].type, "hello");
  assert.equal("token" in ws.sent[0], false);
});

test("managed.json's token goes in the hello", async () => {
  const { ws } = await start({ storage: {}, managed: { pilot_default: true, token: "managed-secret" } });
  assert.equal(ws.sent[0].token, "managed-secret");
});

test("the popup's token wins over managed.json's", async () => {
  const { ws } = await start({
    storage: { daemonToken: "popup-secret" },
    managed: { pilot_default: true, token: "managed-secret" },
  });
  assert.equal(ws.sent[0].token, "popup-secret");
});

test("a token saved in the popup reconnects with a hello that carries it", async () => {
  const { chrome, ws } = await start();
  await chrome.storage.local.set({ daemonToken: "  new-secret " });
  await tick();
  const next = FakeWebSocket.last();
  assert.notEqual(next, ws);
  assert.equal(ws.closedWith, 1000); // the old socket is closed, not left to linger
  next.open();
  assert.equal(next.sent[0].token, "new-secret");
  await chrome.storage.local.set({ daemonToken: "" }); // cleared: no token any more
  await tick();
  FakeWebSocket.last().open();
  assert.equal("token" in FakeWebSocket.last().sent[0], false);
});

test("close 4004 tells the popup the daemon needs a token", async () => {
  const { chrome, ws } = await start();
  ws.drop(4004);
  const status = await new Promise((resolve) => chrome.runtime.onMessage.emit({ type: "get_status" }, {}, resolve));
  assert.equal(status.connected, false);
  assert.match(status.last_error, /unauthorized: this daemon needs a token/);
});
