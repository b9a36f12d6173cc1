// background/console-log.js: browser_console_messages in the worker, fed by content scripts'
// `page_log` messages and by the `log_flush` answer a query asks for first.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { fakeChrome, realTimers } from "./support/fake-chrome.js";

const PAGE = { id: 7, url: "http://127.0.0.1:8000/page.html", title: "Page", active: true, windowId: 1 };

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), emit: (...args) => listeners.forEach((fn) => fn(...args)) };
}

const entry = (text, level = "info", type = "log") => ({ type, level, text, time: 1 });
const batch = (entries, dropped = 0) => JSON.stringify({ entries, dropped });

function setup({ flushed = [], enabled = true } = {}) {
  const { chrome } = fakeChrome({
    tabs: [PAGE],
    onSend: (_tabId, message) => (message.type === "log_flush" ? { ok: true, result: { batches: flushed.splice(0) } } : undefined),
  });
  chrome.webNavigation = { onCommitted: event() };
  const pilot = { ready: Promise.resolve(), isEnabled: () => enabled };
  const commands = createCommands({ chrome, pilot, timers: realTimers, now: () => 1000 });
  const sender = (documentId = "doc-1", url = PAGE.url) => ({ tab: { id: 7 }, frameId: 0, documentId, url });
  const send = (entries, documentId, dropped) =>
    commands.messages.page_log({ type: "page_log", batch: batch(entries, dropped) }, sender(documentId));
  const query = async (params = {}) => {
    const answer = await commands.run({ type: "command", id: "c1", command: "browser_console_messages", params: { tab_id: null, ...params } });
    return answer;
  };
  return { chrome, commands, send, query };
}

test("levels are cumulative, and the flush's entries are in the answer", async () => {
  const flushed = [batch([entry("just now", "debug", "debug")])];
  const { send, query } = setup({ flushed });
  send([entry("e", "error", "error"), entry("w", "warning", "warn"), entry("i"), entry("d", "debug", "debug")]);
  const all = await query({ level: "debug" });
  assert.equal(all.ok, true);
  assert.deepEqual(
    all.result.messages.map((m) => [m.seq, m.text]),
    [
      [1, "e"],
      [2, "w"],
      [3, "i"],
      [4, "d"],
      [5, "just now"],
    ],
  );
  assert.equal(all.tab.id, 7);
  const texts = async (level) => (await query({ level })).result.messages.map((m) => m.text);
  assert.deepEqual(await texts("error"), ["e"]);
  assert.deepEqual(await texts("warning"), ["e", "w"]);
  assert.deepEqual(await texts("info"), ["e", "w", "i"]);
  const errors = await query({ level: "error" });
  assert.equal(errors.result.matched, 1);
  assert.equal(errors.result.total, 5);
  assert.equal(errors.result.last_seq, 5);
});

test("a new document starts a new page, whether its message or its navigation comes first", async () => {
  const { chrome, send, query } = setup();
  send([entry("first page")], "doc-1");
  send([entry("second page, before its navigation event")], "doc-2");
  chrome.webNavigation.onCommitted.emit({ tabId: 7, frameId: 0, documentId: "doc-2", url: "http://127.0.0.1:8000/two.html" });
  chrome.webNavigation.onCommitted.emit({ tabId: 7, frameId: 0, documentId: "doc-3", url: "http://127.0.0.1:8000/three.html" });
  send([entry("third page")], "doc-3");
  chrome.webNavigation.onCommitted.emit({ tabId: 7, frameId: 1, documentId: "frame", url: "http://127.0.0.1:8000/frame.html" });
  const current = await query();
  assert.deepEqual(current.result.messages.map((m) => m.text), ["third page"]);
  assert.equal(current.result.page.url, "http://127.0.0.1:8000/three.html");
  const every = await query({ all_pages: true });
  assert.equal(every.result.messages.length, 3);
  assert.equal(new Set(every.result.messages.map((m) => m.page)).size, 3);
  assert.equal(every.result.pages.length, 3);
});

test("the ring keeps 1,000 of 1,500, counting what the page world dropped as evicted", async () => {
  const { send, query } = setup();
  for (let start = 0; start < 1500; start += 200) {
    send(Array.from({ length: Math.min(200, 1500 - start) }, (_, i) => entry(`m${start + i + 1}`)), "doc-1", start === 0 ? 3 : 0);
  }
  const answer = await query({ limit: 1000 });
  assert.equal(answer.result.messages.length, 1000);
  assert.equal(answer.result.messages[0].text, "m501");
  assert.equal(answer.result.evicted, 503);
  const latest = await query();
  assert.equal(latest.result.shown, 50);
  assert.equal(latest.result.matched, 1000);
});

test("since, clear, and sequence numbers that go on after a clear", async () => {
  const { send, query } = setup();
  send([entry("a"), entry("b")]);
  const first = await query();
  send([entry("c")]);
  assert.deepEqual((await query({ since: first.result.last_seq })).result.messages.map((m) => m.text), ["c"]);
  const cleared = await query({ clear: true });
  assert.equal(cleared.result.cleared, 3);
  assert.equal(cleared.result.messages.length, 3);
  send([entry("d")]);
  const after = await query();
  assert.deepEqual(after.result.messages.map((m) => [m.seq, m.text]), [[4, "d"]]);
});

test("entries of the wrong shape, of frames, and while the switch is off are not kept", async () => {
  const on = setup();
  on.send([{ type: "log", level: "loud", text: "x" }, { type: "nope", level: "info", text: "y" }, { type: "log", level: "info", text: 5 }]);
  const pageLog = on.commands.messages.page_log;
  pageLog({ batch: batch([entry("from a frame")]) }, { tab: { id: 7 }, frameId: 3, documentId: "f" });
  pageLog({ batch: "not json" }, { tab: { id: 7 }, frameId: 0, documentId: "doc-1" });
  assert.equal((await on.query({ all_pages: true })).result.total, 0);
  const off = setup({ enabled: false });
  off.send([entry("while off")]);
  assert.equal(off.commands.families.logs.consoleLog.log.query(7, { allPages: true }).total, 0);
});

test("bad params are invalid_request, and a closed tab's log is dropped", async () => {
  const { chrome, send, query } = setup();
  for (const params of [{ level: "verbose" }, { limit: 1001 }, { since: -1 }, { limit: 1.5 }]) {
    const answer = await query(params);
    assert.equal(answer.ok, false);
    assert.equal(answer.error.code, "invalid_request", JSON.stringify(params));
  }
  send([entry("a")]);
  chrome.tabs.onRemoved.emit(7);
  assert.equal((await query()).result.total, 0);
});
