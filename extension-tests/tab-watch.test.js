// A tab that goes away or gets stuck mid-command: each case answers its own code, never a hang.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { PROBE_MS } from "../extension/worker/tab/tab-watch.js";
import { NO_RECEIVER, fakeChrome, realTimers, tick } from "./support/fake-chrome.js";

const PAGE = { id: 7, url: "http://127.0.0.1:8000/page.html", title: "Page", active: true, windowId: 1, status: "complete" };
const CLOSED = "A listener indicated an asynchronous response by returning true, but the message channel closed before a response was received";
const answer = { ok: true, result: 1, result_type: "number", url: PAGE.url, title: "Page" };

function setup({ tabs = [{ ...PAGE }], onSend }) {
  const { chrome } = fakeChrome({ tabs, onSend: (...args) => onSend(chrome, ...args) });
  const pilot = { ready: Promise.resolve(), isEnabled: () => true };
  return { chrome, tabs, commands: createCommands({ chrome, pilot, timers: realTimers }) };
}

const execute = (id = "r1", timeout_ms = 2000) => ({
  type: "command",
  id,
  command: "execute_javascript",
  params: { script: "1", timeout_ms, await_promise: true, tab_id: 7 },
});

const executes = (chrome) => chrome.calls.delivered.filter((c) => c.message.type === "execute");

test("a tab closed mid-command gives tab_closed", async () => {
  const { commands } = setup({
    onSend(chrome) {
      chrome.tabs.onRemoved.emit(7, { isWindowClosing: false });
      throw new Error(CLOSED);
    },
  });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "tab_closed");
  assert.match(result.error.message, /closed/);
  assert.equal(result.tab.id, 7);
});

test("a send that settles with no answer as the tab closes gives tab_closed", async () => {
  const { commands } = setup({
    onSend(chrome) {
      chrome.tabs.onRemoved.emit(7, { isWindowClosing: true });
      return undefined;
    },
  });
  assert.equal((await commands.run(execute())).error.code, "tab_closed");
});

test("a tab that is gone by the time Chrome reports the closed channel gives tab_closed", async () => {
  const { commands, tabs } = setup({
    onSend() {
      tabs.length = 0;
      throw new Error(CLOSED);
    },
  });
  assert.equal((await commands.run(execute())).error.code, "tab_closed");
});

test("a replaced tab (prerendering swapped it) gives tab_closed", async () => {
  const { commands } = setup({
    onSend(chrome) {
      chrome.tabs.onReplaced.emit(8, 7);
      throw new Error(CLOSED);
    },
  });
  assert.equal((await commands.run(execute())).error.code, "tab_closed");
});

test("a tab that reloads mid-command gives tab_navigated, and the command is not sent again", async () => {
  const { chrome, commands } = setup({
    onSend(chrome) {
      chrome.tabs.onUpdated.emit(7, { status: "loading" }, PAGE);
      throw new Error(CLOSED);
    },
  });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "tab_navigated");
  assert.match(result.error.message, /navigated away or reloaded/);
  assert.equal(executes(chrome).length, 1);
});

test("a tab whose url changed, or that is loading, gives tab_navigated", async () => {
  for (const change of [{ url: "http://127.0.0.1:8000/next.html" }, { status: "loading" }]) {
    const { commands, tabs } = setup({
      onSend() {
        Object.assign(tabs[0], change);
        throw new Error(CLOSED);
      },
    });
    assert.equal((await commands.run(execute())).error.code, "tab_navigated", JSON.stringify(change));
  }
});

test("a reload that finished before the check still gives tab_navigated: the new page takes a script", async () => {
  const { commands } = setup({
    onSend() {
      throw new Error(CLOSED);
    },
  });
  assert.equal((await commands.run(execute())).error.code, "tab_navigated");
});

test("a crashed tab gives tab_crashed, then fails fast until it is reloaded", async () => {
  let crash = true;
  const { chrome, commands, tabs } = setup({
    onSend() {
      if (crash) {
        tabs[0].crashed = true;
        throw new Error(CLOSED);
      }
      return answer;
    },
  });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "tab_crashed");
  assert.match(result.error.message, /close the tab and open a fresh one \(browser_tabs/);

  const again = await commands.run(execute("r2"));
  assert.equal(again.error.code, "tab_crashed");
  assert.equal(executes(chrome).length, 1, "nothing is sent to a crashed tab");

  crash = false;
  tabs[0].crashed = false;
  chrome.tabs.onUpdated.emit(7, { status: "loading" }, tabs[0]);
  assert.equal((await commands.run(execute("r3"))).ok, true);
});

test("a tab stuck in an earlier script fails fast with tab_unresponsive, and nothing piles up", async () => {
  let finishLoop;
  const { chrome, commands } = setup({
    onSend(_chrome, _tab, message) {
      if (message.type === "ping") return new Promise(() => {}); // the main thread is busy
      if (message.id === "loop") return new Promise((resolve) => (finishLoop = () => resolve(answer)));
      return answer;
    },
  });
  const stuck = await commands.run(execute("loop", 30));
  assert.equal(stuck.error.code, "execution_timeout");
  assert.match(stuck.error.message, /tab_unresponsive until the loop ends/);

  const started = Date.now();
  const next = await commands.run(execute("next"));
  const elapsed = Date.now() - started;
  assert.equal(next.error.code, "tab_unresponsive");
  assert.match(next.error.message, /close the tab and open a fresh one \(browser_tabs/);
  // The probe's wait is the promise (README: a stuck tab refuses within about a second): not
  // sooner, and not much later, with slack for a busy machine.
  assert.ok(elapsed >= PROBE_MS - 50 && elapsed < PROBE_MS + 1000, `took ${elapsed} ms`);
  assert.deepEqual(executes(chrome).map((c) => c.message.id), ["loop"], "the second script was never sent");

  finishLoop(); // the loop ends: the page answers the old script, which is dropped
  await tick();
  const after = await commands.run(execute("after"));
  assert.equal(after.ok, true);
  assert.equal(chrome.calls.delivered.filter((c) => c.message.type === "ping").length, 1);
});

test("a tab whose timed-out script is only awaiting answers the ping, and the next command runs", async () => {
  const { chrome, commands } = setup({
    onSend(_chrome, _tab, message) {
      if (message.type === "ping") return { ok: true };
      if (message.id === "slow") return new Promise(() => {});
      return answer;
    },
  });
  assert.equal((await commands.run(execute("slow", 20))).error.code, "execution_timeout");
  const next = await commands.run(execute("next"));
  assert.equal(next.ok, true);
  assert.deepEqual(executes(chrome).map((c) => c.message.id), ["slow", "next"]);
});

test("a port the page took that closes saying 'Receiving end does not exist' is not sent again", async () => {
  // Chrome says so of a live port as the browser shuts down: the script may have run already.
  const { chrome, commands } = setup({
    tabs: [{ ...PAGE, shuttingDown: true }],
    onSend: () => new Promise((_, reject) => setTimeout(() => reject(new Error(NO_RECEIVER)), 10)),
  });
  const result = await commands.run(execute());
  assert.equal(result.error.code, "tab_closed");
  assert.equal(executes(chrome).length, 1);
  assert.equal(chrome.calls.executeScript.filter((c) => c.files).length, 0); // no re-injection
});
