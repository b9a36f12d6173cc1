// browser_wait_for's pure parts: the url glob and the params check (worker/tools/wait.js), the
// similar texts a timeout names (content/wait.js, loaded as the content script loads it), and when
// a tab's network is idle (worker/tools/wait-network.js).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

import { IDLE_MS, createNetworkWatch } from "../extension/worker/tools/wait-network.js";
import { checkWait, globMatcher } from "../extension/worker/tools/wait.js";

const context = vm.createContext({});
const source = readFileSync(new URL("../extension/content/wait.js", import.meta.url), "utf8");
vm.runInContext(source, context, { filename: "content/wait.js" });
const wait = context.__tabpilotWait;
const plain = (value) => JSON.parse(JSON.stringify(value));

function refusal(fn) {
  try {
    fn();
  } catch (err) {
    return { code: err.code, message: err.message };
  }
  assert.fail("expected a refusal");
}

test("a url glob matches the whole url: ** anything, * anything but /, {a,b} either", () => {
  const dash = globMatcher("**/dashboard");
  assert.equal(dash("https://a.test/dashboard"), true);
  assert.equal(dash("https://a.test/app/dashboard"), true);
  assert.equal(dash("https://a.test/dashboard?tab=1"), false);
  assert.equal(dash("https://a.test/dashboards"), false);
  const one = globMatcher("https://a.test/*/done");
  assert.equal(one("https://a.test/x/done"), true);
  assert.equal(one("https://a.test/x/y/done"), false);
  const either = globMatcher("**/{done,finished}.html");
  assert.deepEqual(["done", "finished", "other"].map((p) => either(`http://h/${p}.html`)), [true, true, false]);
  // `?` and `.` are literal: a url's query and dots are not wildcards.
  assert.equal(globMatcher("**/a.html?x=1")("http://h/a.html?x=1"), true);
  assert.equal(globMatcher("**/a.html?x=1")("http://h/aXhtml?x=1"), false);
  assert.equal(globMatcher("**/a.html?x=1")("http://h/a.htm?x=1"), false);
  // Without a wildcard: that url exactly.
  assert.equal(globMatcher("http://h/")("http://h/"), true);
  assert.equal(globMatcher("http://h/")("http://h/x"), false);
});

test("a glob with unbalanced or nested braces is refused, naming the syntax", () => {
  for (const bad of ["**/{a,b", "**/a}", "**/{a,{b,c}}"]) {
    const refused = refusal(() => globMatcher(bad));
    assert.equal(refused.code, "invalid_request");
    assert.match(refused.message, /\*\* \(any characters\), \* \(any but \/\) and \{a,b\}/);
  }
});

test("exactly one condition, with a state only for an element", () => {
  assert.deepEqual(checkWait({ text: "Saved" }), { condition: "text", value: "Saved", state: null });
  assert.deepEqual(checkWait({ ref: "e3" }), { condition: "ref", value: "e3", state: "visible" });
  assert.deepEqual(checkWait({ selector: ".x", state: "detached" }), { condition: "selector", value: ".x", state: "detached" });
  assert.deepEqual(checkWait({ network_idle: true, text: null }), { condition: "network_idle", value: true, state: null });
  assert.match(refusal(() => checkWait({})).message, /needs one condition: text, text_gone, ref, selector, url, network_idle, dom_stable, time/);
  assert.match(refusal(() => checkWait({ text: "a", url: "b" })).message, /one condition per call, not text and url/);
  assert.match(refusal(() => checkWait({ ref: "e1", state: "shown" })).message, /Unknown state "shown"; the states are visible, hidden, enabled, attached, detached/);
  assert.match(refusal(() => checkWait({ text: "a", state: "hidden" })).message, /state goes with ref or selector/);
  assert.match(refusal(() => checkWait({ time: -5 })).message, /time must be a whole number of ms from 0 to 30000; got -5/);
  assert.match(refusal(() => checkWait({ time: 1e9 })).message, /from 0 to 30000/);
  assert.match(refusal(() => checkWait({ dom_stable: 10 })).message, /dom_stable must be a whole number of ms from 50/);
  assert.match(refusal(() => checkWait({ text: "" })).message, /non-empty string/);
  assert.equal(refusal(() => checkWait({ url: "**/{a" })).code, "invalid_request");
});

test("similar texts share a word or a prefix of three letters, best first, each cut short", () => {
  const page = ["Saving\u2026", "Welcome back", "Save draft", "Saved drafts (3)", "saving\u2026", "Sa"].join("\n");
  // "Saved" whole first, then "Save" (4 letters shared), then "Saving" (3); "Sa" is too short.
  assert.deepEqual(plain(wait.similar(page, "Saved")), ["Saved drafts (3)", "Save draft", "Saving\u2026"]);
  assert.deepEqual(plain(wait.similar(page, "Goodbye")), []);
  assert.deepEqual(plain(wait.similar(page, "Saved", 1)), ["Saved drafts (3)"]);
  const long = `${"x ".repeat(100)}Order saved at noon ${"y ".repeat(100)}`;
  const [cut] = wait.similar(long, "saved");
  assert.ok(cut.length <= 62, cut);
  assert.match(cut, /^\u2026.*Order saved at noon.*\u2026$/);
  assert.equal(wait.similarNote(["Saving\u2026", "Save"]), '2 similar: "Saving\u2026", "Save"');
  assert.equal(wait.similarNote([]), "");
});

test("text compares with its whitespace collapsed, in any case", () => {
  assert.equal(wait.normalize("  Order\n\n  SAVED\t"), "order saved");
});

// A tab's requests, as webRequest reports them, and a clock and timers the test moves.
function networkWatch() {
  const event = () => {
    const listeners = [];
    return { addListener: (fn) => listeners.push(fn), emit: (d) => listeners.forEach((fn) => fn(d)) };
  };
  const web = { onBeforeRequest: event(), onCompleted: event(), onErrorOccurred: event() };
  const chrome = { webRequest: web, tabs: { onRemoved: event() }, runtime: { getURL: () => "chrome-extension://id/" } };
  const clock = { now: 10_000 };
  const pending = new Map();
  let next = 1;
  const timers = {
    setTimeout: (fn, ms) => (pending.set(next, { fn, at: clock.now + ms }), next++),
    clearTimeout: (id) => pending.delete(id),
  };
  const advance = (ms) => {
    clock.now += ms;
    for (const [id, { fn, at }] of [...pending]) {
      if (at <= clock.now) {
        pending.delete(id);
        fn();
      }
    }
  };
  const watch = createNetworkWatch({ chrome, pilot: { isEnabled: () => true }, timers, now: () => clock.now });
  const request = (requestId, type = "xmlhttprequest") => ({ tabId: 7, requestId, type, method: "GET", url: `https://a.test/${requestId}` });
  return { web, watch, advance, request };
}

test("the network is idle once nothing is under way and nothing started or ended for 500 ms", async () => {
  const { web, watch, advance, request } = networkWatch();
  assert.equal(IDLE_MS, 500);
  const quiet = watch.idle(7);
  assert.equal(quiet.already, true); // nothing seen in this tab
  web.onBeforeRequest.emit(request("1"));
  const idle = watch.idle(7);
  assert.equal(idle.already, false);
  let done = false;
  idle.promise.then(() => (done = true));
  advance(2000);
  await Promise.resolve();
  assert.equal(done, false, "a request under way");
  assert.deepEqual(watch.underWay(7), { count: 1, shown: ["GET https://a.test/1 (2.0 s)"] });
  web.onCompleted.emit(request("1"));
  advance(499);
  await Promise.resolve();
  assert.equal(done, false, "ended 499 ms ago");
  web.onBeforeRequest.emit(request("2"));
  web.onErrorOccurred.emit(request("2"));
  advance(499);
  await Promise.resolve();
  assert.equal(done, false, "another request started and failed meanwhile");
  advance(1);
  await Promise.resolve();
  assert.equal(done, true);
});

test("a WebSocket and another tab's requests do not keep a tab busy", () => {
  const { web, watch, request, advance } = networkWatch();
  web.onBeforeRequest.emit(request("ws", "websocket"));
  web.onBeforeRequest.emit({ ...request("other"), tabId: 8 });
  advance(1000);
  assert.equal(watch.idle(7).already, true);
  assert.equal(watch.idle(8).already, false);
});
