// browser_network_rules (worker/tools/network-rules.js, worker/tab/rule-book.js): the glob, the
// checks of a rule, and the declarativeNetRequest rules Chrome is handed, scoped to the AI's tabs.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { compilePattern } from "../extension/worker/tab/rule-book.js";
import { dnrRule, ruleOf } from "../extension/worker/tools/network-rules.js";
import { fakeChrome, manualTimers } from "./support/fake-chrome.js";

test("a glob matches the whole url: ** any characters, * any but /", () => {
  const match = (pattern, url) => new RegExp(compilePattern(pattern).regex).test(url);
  assert.ok(match("**/api/*", "http://a.test:81/v1/api/users?x=1"));
  assert.ok(!match("**/api/*", "http://a.test/api/users/7"));
  assert.ok(match("**/api/**", "http://a.test/api/users/7"));
  assert.ok(match("https://cdn.test/*.js", "https://cdn.test/app.js"));
  assert.ok(!match("https://cdn.test/*.js", "https://cdn.test/app.json"));
  // `?` and `.` are themselves.
  assert.ok(match("**/a.js?v=1", "http://h.test/a.js?v=1"));
  assert.ok(!match("**/a.js?v=1", "http://h.test/aXjs?v=1"));
});

test("a malformed pattern says what is wrong with it", () => {
  for (const [pattern, why] of [
    ["", /empty/],
    ["example.com/ads", /starts with http/],
    ["**/a b", /no spaces/],
    ["***/x", /\*\*\*/],
    ["http://" + "a".repeat(2000), /longer than/],
  ]) {
    assert.throws(() => ruleOf({ kind: "block", pattern }, 1), (err) => err.code === "invalid_rule" && why.test(err.message), pattern);
  }
});

test("bad rules are refused with invalid_rule", () => {
  const refused = (params, why) =>
    assert.throws(() => ruleOf({ pattern: "**/x", ...params }, 1), (err) => err.code === "invalid_rule" && why.test(err.message));
  refused({ kind: "block", types: ["pictures"] }, /Unknown resource type "pictures"/);
  refused({ kind: "redirect", redirect_to: "javascript:alert(1)" }, /http or https/);
  refused({ kind: "redirect", redirect_to: "ftp://h.test/x" }, /http or https/);
  refused({ kind: "redirect", redirect_to: "http://h.test/x" }, /redirected forever/);
  refused({ kind: "headers" }, /needs set_headers or remove_headers/);
  refused({ kind: "headers", set_headers: { "Bad Name": "1" } }, /not a header name/);
  refused({ kind: "headers", set_headers: { "X-A": "1\r\nX-B: 2" } }, /one line/);
  refused({ kind: "block", body: "hi" }, /belongs to a mock rule/);
  refused({ kind: "mock", status: 99 }, /200 to 599/);
  refused({ kind: "nuke" }, /kind must be/);
});

test("a rule becomes one declarativeNetRequest rule, scoped to the tabs given", () => {
  const rule = ruleOf({ kind: "headers", pattern: "**/api/*", types: ["xhr", "document"], set_headers: { "X-T": "1" }, remove_headers: ["Referer"] }, 4);
  assert.deepEqual(dnrRule(rule, [7]), {
    id: 4,
    priority: 1,
    condition: {
      regexFilter: "^.*\\/api\\/[^/]*$".replace(/\\\//g, "/"),
      isUrlFilterCaseSensitive: true,
      resourceTypes: ["xmlhttprequest", "main_frame", "sub_frame"],
      tabIds: [7],
    },
    action: {
      type: "modifyHeaders",
      requestHeaders: [
        { header: "X-T", operation: "set", value: "1" },
        { header: "Referer", operation: "remove" },
      ],
    },
  });
  // No AI tab: a tab id no tab has, since Chrome refuses an empty list; every tab: no tabIds.
  assert.deepEqual(dnrRule(rule, []).condition.tabIds, [2 ** 31 - 1]);
  // Every tab, but not the requests of no tab (the worker's own link to the daemon).
  assert.equal("tabIds" in dnrRule(rule, null).condition, false);
  assert.deepEqual(dnrRule(rule, null).condition.excludedTabIds, [-1]);
  assert.ok(dnrRule(ruleOf({ kind: "block", pattern: "**" }, 1), null).condition.resourceTypes.includes("main_frame"));
});

// A person's Chrome whose tab 7 the AI opened and tab 8 the person did; Chrome's session rules kept
// by a stub of declarativeNetRequest that refuses past `quota` rules.
function person({ quota = 50 } = {}) {
  const tabs = [
    { id: 7, url: "http://a.test/", title: "AI", active: true, windowId: 1 },
    { id: 8, url: "http://b.test/", title: "mine", active: false, windowId: 1 },
  ];
  const { chrome } = fakeChrome({ tabs, session: { aiTabs: [7] } });
  let session = [];
  chrome.declarativeNetRequest = {
    getSessionRules: async () => structuredClone(session),
    isRegexSupported: async () => ({ isSupported: true }),
    async updateSessionRules({ removeRuleIds = [], addRules = [] }) {
      const next = [...session.filter((rule) => !removeRuleIds.includes(rule.id)), ...addRules];
      if (next.length > quota) throw new Error("Session rules quota exceeded.");
      session = structuredClone(next);
    },
  };
  const event = () => {
    const listeners = [];
    return { addListener: (fn) => listeners.push(fn), emit: (...args) => listeners.forEach((fn) => fn(...args)) };
  };
  chrome.webNavigation = { onCommitted: event() };
  chrome.webRequest = Object.fromEntries(
    ["onBeforeRequest", "onBeforeRedirect", "onCompleted", "onErrorOccurred"].map((name) => [name, event()]),
  );
  const commands = createCommands({
    chrome,
    pilot: { ready: Promise.resolve(), isEnabled: () => true },
    timers: manualTimers(),
    managed: Promise.resolve({}),
    landingUrl: async () => "http://127.0.0.1:7878/",
  });
  let n = 0;
  const run = (params, command = "browser_network_rules") => commands.run({ type: "command", id: `c${++n}`, command, params });
  return { chrome, run, session: () => session, tabs };
}

test("in a person's Chrome a rule applies to the AI's tabs only, and follows them", async () => {
  const { chrome, run, session, tabs } = person();
  const added = await run({ action: "add", kind: "block", pattern: "**/ads/*", types: ["image"] });
  assert.equal(added.ok, true, JSON.stringify(added));
  assert.equal(added.result.rule.id, 1);
  assert.equal(added.result.rule.route, "dnr");
  assert.deepEqual(added.result.scope, { all_tabs: false, tabs: 1 });
  assert.deepEqual(session().map((rule) => [rule.id, rule.condition.tabIds, rule.action.type]), [[1, [7], "block"]]);
  // Tab 7 closes: it leaves the AI's set, and the rule is handed no tab.
  tabs.splice(0, 1);
  chrome.tabs.onRemoved.emit(7, {});
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(session()[0].condition.tabIds, [2 ** 31 - 1]);
  const listed = await run({ action: "list" });
  assert.deepEqual(listed.result.scope, { all_tabs: false, tabs: 0 });
  assert.deepEqual(listed.result.rules.map((rule) => rule.pattern), ["**/ads/*"]);
});

test("remove, clear, and a removed id that does not exist", async () => {
  const { run, session } = person();
  await run({ action: "add", kind: "block", pattern: "**/a" });
  await run({ action: "add", kind: "redirect", pattern: "**/b", redirect_to: "http://c.test/c" });
  const removed = await run({ action: "remove", id: 1 });
  assert.deepEqual(removed.result.removed, [1]);
  assert.deepEqual(session().map((rule) => rule.id), [2]);
  const missing = await run({ action: "remove", id: 1 });
  assert.equal(missing.error.code, "rule_not_found");
  assert.match(missing.error.message, /its rules are 2/);
  const cleared = await run({ action: "clear" });
  assert.deepEqual(cleared.result.removed, [2]);
  assert.deepEqual(session(), []);
  // Ids are never given twice.
  assert.equal((await run({ action: "add", kind: "block", pattern: "**/d" })).result.rule.id, 3);
});

test("a failing add changes nothing: Chrome's quota, a bad rule, a mock without the debugger", async () => {
  const { run, session } = person({ quota: 1 });
  await run({ action: "add", kind: "block", pattern: "**/a" });
  const full = await run({ action: "add", kind: "block", pattern: "**/b" });
  assert.equal(full.error.code, "rule_limit", JSON.stringify(full));
  const bad = await run({ action: "add", kind: "block", pattern: "ads" });
  assert.equal(bad.error.code, "invalid_rule");
  const mock = await run({ action: "add", kind: "mock", pattern: "**/api", body: "{}" });
  assert.equal(mock.error.code, "debugger_disabled");
  assert.deepEqual(session().map((rule) => rule.id), [1]);
  const listed = await run({ action: "list" });
  assert.deepEqual(listed.result.rules.map((rule) => rule.id), [1]);
});

test("the network log marks what a rule did, in the AI's tabs only", async () => {
  const { chrome, run } = person();
  await run({ action: "add", kind: "block", pattern: "**/ads/*", types: ["image"] });
  await run({ action: "add", kind: "headers", pattern: "http://a.test/**", set_headers: { "X-T": "1" } });
  const request = (requestId, tabId, url, type) =>
    chrome.webRequest.onBeforeRequest.emit({ requestId, url, method: "GET", type, tabId, frameId: 0, timeStamp: 1 });
  request("1", 7, "http://a.test/ads/cat.png", "image");
  request("2", 7, "http://b.test/ads/cat.png", "xmlhttprequest");
  request("3", 8, "http://a.test/ads/cat.png", "image");
  const log = async (tab_id) =>
    (await run({ tab_id, include_static: true }, "browser_network_requests")).result.requests.map((r) => [r.url, r.rules ?? []]);
  assert.deepEqual(await log(7), [
    ["http://a.test/ads/cat.png", [{ id: 1, did: "blocked" }, { id: 2, did: "headers" }]],
    ["http://b.test/ads/cat.png", []],
  ]);
  assert.deepEqual(await log(8), [["http://a.test/ads/cat.png", []]]);
});
