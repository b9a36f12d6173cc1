// background/page-read.js: browser_snapshot and browser_read in the worker, and what a ref's
// failure becomes (stale_ref when the page navigated since the snapshot).
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { fakeChrome, realTimers } from "./support/fake-chrome.js";

const PAGE = { id: 7, url: "http://127.0.0.1:8000/page.html", title: "Page", active: true, windowId: 1 };
const where = { url: PAGE.url, title: "Page" };

function setup(onSend) {
  const { chrome } = fakeChrome({ tabs: [PAGE], onSend });
  const pilot = { ready: Promise.resolve(), isEnabled: () => true };
  return { chrome, commands: createCommands({ chrome, pilot, timers: realTimers, now: () => 1000 }) };
}

const command = (name, params = {}) => ({ type: "command", id: "r1", command: name, params: { tab_id: null, ...params } });
const notFound = (doc, ref = "e3") => ({
  ok: false,
  error: { code: "ref_not_found", message: `No element has ref "${ref}"`, data: { ref, doc } },
  ...where,
});

test("a snapshot's answer becomes the result, without the document id", async () => {
  const snapshot = { snapshot: '- button "Go" [ref=e1]', refs: 1, chars: 23, truncated: false, doc: "d1" };
  const { chrome, commands } = setup(() => ({ ok: true, result: snapshot, ...where }));
  const result = await commands.run(command("browser_snapshot", { interactive_only: true }));
  assert.deepEqual(result, {
    type: "result",
    id: "r1",
    ok: true,
    result: { snapshot: '- button "Go" [ref=e1]', refs: 1, chars: 23, truncated: false },
    result_type: "object",
    tab: { id: 7, ...where },
  });
  const { frame_mark: mark, ...sent } = chrome.calls.delivered.at(-1).message;
  assert.deepEqual(sent, { type: "snapshot", ref: null, interactive_only: true, max_chars: 20000, ref_floor: 0 });
  assert.match(mark, /^[0-9a-f]{12}$/); // the per-snapshot nonce of a frame's line (tab/frame-snapshot.js)
});

test("a ref from the document of the last snapshot that is unknown stays ref_not_found", async () => {
  const answers = [{ ok: true, result: { snapshot: "", refs: 0, chars: 0, truncated: false, doc: "d1" }, ...where }, notFound("d1")];
  const { commands } = setup(() => answers.shift());
  await commands.run(command("browser_snapshot"));
  const result = await commands.run(command("browser_read", { ref: "e3" }));
  assert.equal(result.ok, false);
  assert.equal(result.error.code, "ref_not_found");
});

test("a ref from before a navigation is stale_ref, for read and for execute_javascript", async () => {
  const answers = [{ ok: true, result: { snapshot: "", refs: 0, chars: 0, truncated: false, doc: "d1" }, ...where }, notFound("d2"), notFound("d2")];
  const { chrome, commands } = setup(() => answers.shift());
  await commands.run(command("browser_snapshot"));
  const read = await commands.run(command("browser_read", { ref: "e3" }));
  assert.equal(read.error.code, "stale_ref");
  assert.match(read.error.message, /navigated since that snapshot/);
  const executed = await commands.run(command("execute_javascript", { ref: "e3", script: "(el) => el.id", timeout_ms: 1000 }));
  assert.equal(executed.error.code, "stale_ref");
  assert.equal(chrome.calls.delivered.at(-1).message.ref, "e3");
});

test("bad paging and sizes are refused before the page is asked", async () => {
  const { chrome, commands } = setup(() => assert.fail("the page was asked"));
  for (const [name, params] of [
    ["browser_snapshot", { max_chars: 10 }],
    ["browser_snapshot", { max_chars: 2_000_000 }],
    ["browser_snapshot", { ref: 5 }],
    ["browser_read", { offset: -1 }],
    ["browser_read", { limit: 0 }],
    ["browser_read", { limit: 1.5 }],
  ]) {
    const result = await commands.run(command(name, params));
    assert.equal(result.error.code, "invalid_request", JSON.stringify(params));
  }
  assert.equal(chrome.calls.delivered.length, 0);
});

test("execute_javascript with a ref on a page that refuses code takes the element's path to the other routes", async () => {
  const path = [1, "shadow", 0, "frame", 1, 3];
  const blocked = (extra) => ({ ok: false, error: { code: "csp_blocked", message: "refused", ...extra }, ...where });
  const { chrome, commands } = setup(() => blocked({ path }));
  chrome.userScripts = {
    configureWorld: async () => {},
    execute: async (details) => {
      chrome.calls.userScripts = details;
      return [{ frameId: 0, result: JSON.stringify({ ok: true, result: "found", result_type: "string" }) }];
    },
  };
  const params = { ref: "e1", script: "(el) => el.id", timeout_ms: 1000 };
  const result = await commands.run(command("execute_javascript", params));
  assert.equal(result.result, "found");
  assert.equal(result.route, "user_scripts");
  assert.match(chrome.calls.userScripts.js.at(-1).code, /"path":\[1,"shadow",0,"frame",1,3\]/);

  // A closed shadow root on the way: no route can reach the element, and the answer says so.
  const closed = setup(() => blocked({ path: null }));
  const refused = await closed.commands.run(command("execute_javascript", params));
  assert.equal(refused.error.code, "invalid_request");
  assert.match(refused.error.message, /closed shadow root/);
  assert.equal(closed.chrome.calls.executeScript.length, 0);
});

test("snapshots number their refs above every other document's, and a ref sent to another tab says whose it is", async () => {
  const OTHER = { ...PAGE, id: 8, active: false };
  const answers = [
    { ok: true, result: { snapshot: "", refs: 5, chars: 0, truncated: false, doc: "d1", top: 1005, minted: [1001, 1005] }, ...where },
    { ok: true, result: { snapshot: "", refs: 4, chars: 0, truncated: false, doc: "d2", top: 1009, minted: [1006, 1009] }, ...where },
    notFound("d2", "e1003"),
    notFound("d3", "e1007"),
  ];
  const { chrome } = fakeChrome({ tabs: [PAGE, OTHER], onSend: () => answers.shift() });
  const pilot = { ready: Promise.resolve(), isEnabled: () => true };
  const commands = createCommands({ chrome, pilot, timers: realTimers, now: () => 1000 });
  await commands.run(command("browser_snapshot", { tab_id: 7 }));
  await commands.run(command("browser_snapshot", { tab_id: 8 }));
  assert.equal(chrome.calls.delivered.at(-1).message.ref_floor, 1005);
  const wrongTab = await commands.run(command("browser_read", { tab_id: 8, ref: "e1003" }));
  assert.equal(wrongTab.error.code, "ref_not_found");
  assert.match(wrongTab.error.message, /is from a snapshot of tab 7, not of tab 8/);
  // The tab's own ref, after its page was replaced: stale.
  const earlier = await commands.run(command("browser_read", { tab_id: 8, ref: "e1007" }));
  assert.equal(earlier.error.code, "stale_ref");
});
