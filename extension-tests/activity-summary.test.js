// What the popup's Recent activity says of the page tools, in words (background/activity.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { createActivity } from "../extension/worker/link/activity.js";
import { fakeChrome, manualTimers } from "./support/fake-chrome.js";
import { workerSummaries } from "./support/worker.js";

async function summaryOf(command, params, result) {
  const { chrome } = fakeChrome();
  const activity = createActivity({ chrome, summaries: workerSummaries(), timers: manualTimers() });
  await activity.ready;
  activity.begin({ type: "command", id: "c1", command, params })({ type: "result", id: "c1", tab: null, ...result });
  const [entry] = await activity.list();
  return entry?.summary;
}

const acted = (description) => ({ ok: true, result: { description, route: "dom", navigated: false, url: "", opened: [] } });

test("each page tool is recorded in words", async () => {
  const cases = [
    ["browser_navigate", { url: "https://example.com/shop?q=1" }, { ok: true }, "navigated to example.com"],
    ["browser_navigate", { action: "back" }, { ok: true }, "went back"],
    ["browser_navigate", { action: "forward" }, { ok: true }, "went forward"],
    ["browser_navigate", { action: "reload" }, { ok: true }, "reloaded the page"],
    ["browser_act", { kind: "click", ref: "e12" }, acted('Clicked button "Add to cart" (e12)'), "clicked button 'Add to cart'"],
    ["browser_act", { kind: "type", ref: "e3", text: "secret" }, acted('Typed 6 characters into textbox "Email" (e3) and pressed Enter'), "typed into textbox 'Email' and pressed Enter"],
    ["browser_act", { kind: "press", key: "ArrowDown" }, acted("Pressed ArrowDown; the page got its key events, but …"), "pressed ArrowDown"],
    ["browser_act", { kind: "scroll" }, acted("Scrolled down 120 px of the 600 asked: the page is at its bottom"), "scrolled down 120 px of the 600 asked"],
    ["browser_act", { kind: "select", ref: "e7" }, acted('Selected "Blue" in combobox "Colour" (e7)'), "selected 'Blue' in combobox 'Colour'"],
    ["browser_act", { kind: "click", ref: "e9" }, { ok: false, error: { code: "stale_ref", message: "gone" } }, "tried to click e9"],
    ["browser_snapshot", {}, { ok: true, result: { snapshot: "- button" } }, "took a snapshot"],
    ["browser_read", {}, { ok: true, result: { text: "hello" } }, "read the page"],
    ["browser_console_messages", { level: "error" }, { ok: true, result: { messages: [] } }, "read the console"],
    ["browser_network_requests", { status: "failed" }, { ok: true, result: { requests: [] } }, "listed the network requests"],
    ["browser_close", {}, { ok: true, result: { closed_tabs: [4, 5] } }, "closed 2 tabs"],
    ["browser_close", {}, { ok: true, result: { closed_tabs: [4] } }, "closed 1 tab"],
    ["browser_tabs", { action: "close" }, { ok: true, result: { closed: 8 } }, "closed tab 8"],
  ];
  for (const [command, params, result, words] of cases) {
    assert.equal(await summaryOf(command, params, result), words, `${command} ${JSON.stringify(params)}`);
  }
});

test("what was typed never reaches the activity", async () => {
  const { chrome } = fakeChrome();
  const activity = createActivity({ chrome, summaries: workerSummaries(), timers: manualTimers() });
  await activity.ready;
  const params = { kind: "type", ref: "e3", text: "hunter2" };
  activity.begin({ type: "command", id: "c1", command: "browser_act", params })({ type: "result", id: "c1", ...acted('Typed 7 characters into textbox "Password" (e3)') });
  assert.doesNotMatch(JSON.stringify(await activity.list()), /hunter2/);
});
