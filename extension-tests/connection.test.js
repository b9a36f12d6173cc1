// The daemon link: backoff, keepalive, close codes, port changes.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { BACKOFF_MAX_MS, KEEPALIVE_MS, createConnection } from "../extension/worker/link/connection.js";
import { FakeWebSocket, manualTimers } from "./support/fake-chrome.js";

function setup() {
  const timers = manualTimers();
  const frames = [];
  const connection = createConnection({
    WebSocket: FakeWebSocket,
    timers,
    onOpen: (send) => send({ type: "hello" }),
    onFrame: (frame, reply) => frames.push({ frame, reply }),
  });
  return { timers, frames, connection };
}

beforeEach(() => {
  FakeWebSocket.instances = [];
});

test("it connects to ws://127.0.0.1:<port>/ws and greets on open", () => {
  const { connection } = setup();
  connection.start(7878);
  const ws = FakeWebSocket.last();
  assert.equal(ws.url, "ws://127.0.0.1:7878/ws");
  ws.open();
  assert.deepEqual(ws.sent, [{ type: "hello" }]);
  assert.equal(connection.status().connected, true);
});

test("reconnect delays double from 100 ms and stop at 2 s", (t) => {
  t.mock.method(console, "warn", () => {});
  const { timers, connection } = setup();
  connection.start(7878);
  for (let i = 0; i < 8; i++) {
    FakeWebSocket.last().drop();
    timers.runAll();
  }
  assert.deepEqual(timers.delays, [100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  assert.equal(FakeWebSocket.instances.length, 9);
  assert.equal(connection.status().last_error, "daemon not reachable");
});

test("the backoff starts afresh once the daemon says hello", () => {
  const { timers, connection } = setup();
  connection.start(7878);
  FakeWebSocket.last().drop();
  timers.runAll();
  FakeWebSocket.last().drop();
  timers.runAll();
  FakeWebSocket.last().open();
  connection.healthy();
  FakeWebSocket.last().drop();
  assert.deepEqual(timers.delays, [100, 200, 100]);
});

test("close codes 4001 and 4002 are recorded for the popup and retried at the slow end", () => {
  for (const [code, pattern] of [
    [4001, /protocol mismatch/],
    [4002, /busy: another browser/],
  ]) {
    const { timers, connection } = setup();
    connection.start(7878);
    FakeWebSocket.last().open();
    FakeWebSocket.last().drop(code);
    assert.match(connection.status().last_error, pattern);
    assert.equal(connection.status().connected, false);
    assert.equal(timers.delays.at(-1), BACKOFF_MAX_MS);
  }
});

test("close codes 4005 and 4006 name the context's fate for the popup and retry at the slow end", () => {
  for (const [code, pattern] of [
    [4005, /^dropped: an agent closed this browser's context on the daemon; it is listed again when this extension reconnects$/],
    [4006, /^name taken: another browser holds this context name on the daemon; choose another name in this popup$/],
  ]) {
    const { timers, connection } = setup();
    connection.start(7878);
    FakeWebSocket.last().open();
    FakeWebSocket.last().drop(code);
    assert.match(connection.status().last_error, pattern);
    assert.equal(connection.status().connected, false);
    assert.deepEqual(timers.pendingDelays(), [BACKOFF_MAX_MS]);
  }
});

test("a close handled twice schedules one retry", () => {
  const { timers, connection } = setup();
  connection.start(7878);
  const ws = FakeWebSocket.last();
  ws.drop();
  ws.drop();
  assert.equal(timers.pendingCount(), 1);
});

test("keepalive is sent every 20 s while open", () => {
  const { timers, connection } = setup();
  connection.start(7878);
  const ws = FakeWebSocket.last();
  ws.open();
  assert.deepEqual(timers.intervals, [KEEPALIVE_MS]);
  assert.equal(KEEPALIVE_MS, 20_000);
});

test("a port change leaves the old daemon and connects to the new one", () => {
  const { connection } = setup();
  connection.start(7878);
  const old = FakeWebSocket.last();
  old.open();
  connection.setPort(9999);
  assert.equal(old.closedWith, 1000);
  assert.equal(FakeWebSocket.last().url, "ws://127.0.0.1:9999/ws");
  assert.equal(FakeWebSocket.instances.length, 2);
  old.drop(1000); // the old socket's late close event changes nothing
  assert.equal(FakeWebSocket.instances.length, 2);
});

test("replies go only to the socket the command came on", (t) => {
  t.mock.method(console, "warn", () => {});
  const { timers, frames, connection } = setup();
  connection.start(7878);
  const first = FakeWebSocket.last();
  first.open();
  first.receive({ type: "command", id: "a" });
  first.drop();
  timers.runAll();
  const second = FakeWebSocket.last();
  second.open();
  assert.equal(frames[0].reply({ type: "result", id: "a" }), false);
  assert.equal(second.frames("result").length, 0);
});

test("a frame that is not JSON is logged and the link stays up", (t) => {
  t.mock.method(console, "warn", () => {});
  const { frames, connection } = setup();
  connection.start(7878);
  FakeWebSocket.last().open();
  FakeWebSocket.last().receive("not json{");
  assert.equal(frames.length, 0);
  assert.equal(console.warn.mock.callCount(), 1);
  assert.equal(connection.status().connected, true);
});
