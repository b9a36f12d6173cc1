// The sites the person rules in or out (worker/link/site-rules.js): the syntax, the matching, and
// the gate every command passes (tab-cache, tab-ports, commands.js), over the fake chrome.* APIs.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import {
  SITE_RULES_KEY,
  createSiteRules,
  hostOf,
  matchesSite,
  neverScriptable,
  parseSite,
  personRules,
  ruling,
} from "../extension/worker/link/site-rules.js";
import { fakeChrome, realTimers, tick, until } from "./support/fake-chrome.js";

const ALLOWED = { id: 7, url: "http://127.0.0.1:8000/page.html", title: "Page", active: true, windowId: 1 };
const BANK = { id: 8, url: "https://www.bank.example/accounts/123", title: "My accounts", active: false, windowId: 1 };
const answer42 = { ok: true, result: 42, result_type: "number", url: ALLOWED.url, title: "Page" };

for (const [typed, site] of [
  ["bank.example", "bank.example"],
  ["  BANK.Example. ", "bank.example"],
  ["*.example.com", "*.example.com"],
  ["https://www.bank.example/login?next=1", "www.bank.example"],
  ["http://localhost:8000/", "localhost"],
  ["127.0.0.1", "127.0.0.1"],
  ["münchen.de", "xn--mnchen-3ya.de"],
]) {
  test(`the site ${JSON.stringify(typed)} is kept as ${site}`, () => {
    assert.deepEqual(parseSite(typed), { site });
  });
}

for (const [typed, says] of [
  ["", /Type a site/],
  ["bank.example/login", /host only.*no path, no port/],
  ["bank.example:8443", /host only.*no path, no port/],
  ["exa mple.com", /host only/],
  ["*.1.2.3.4", /IP address has no subdomains/],
  ["-bad-.example", /not a host name/],
  ["a.*.example", /host only/],
]) {
  test(`the site ${JSON.stringify(typed)} is refused, saying what to write`, () => {
    const { site, error } = parseSite(typed);
    assert.equal(site, undefined);
    assert.match(error, says);
  });
}

test("a site covers itself and its subdomains, *. only the subdomains, an IP address only itself", () => {
  assert.ok(matchesSite("bank.example", "bank.example"));
  assert.ok(matchesSite("bank.example", "www.bank.example"));
  assert.ok(!matchesSite("bank.example", "notbank.example"));
  assert.ok(!matchesSite("bank.example", "bank.example.com"));
  assert.ok(matchesSite("*.example.com", "a.b.example.com"));
  assert.ok(!matchesSite("*.example.com", "example.com"));
  assert.ok(matchesSite("127.0.0.1", "127.0.0.1"));
  assert.ok(!matchesSite("1.0.0.1", "2.1.0.0.1"));
});

test("rules judge a url by its host, at any port and scheme; pages that are no site are not judged", () => {
  assert.equal(hostOf("https://WWW.Bank.example:8443/x"), "www.bank.example");
  assert.equal(hostOf("blob:https://bank.example/0d5c"), "bank.example");
  assert.equal(hostOf("file:///home/a.html"), "");
  assert.equal(hostOf("about:blank"), null);
  assert.equal(hostOf("chrome://newtab/"), null);
  const never = personRules({ mode: "never", sites: ["bank.example"] });
  assert.deepEqual(ruling("http://bank.example:81/", never), { host: "bank.example", rule: "bank.example", mode: "never", source: "popup" });
  assert.equal(ruling("https://example.com/", never), null);
  assert.equal(ruling("file:///tmp/a.html", never), null);
  const only = personRules({ mode: "only", sites: ["docs.example"] });
  assert.equal(ruling("https://api.docs.example/", only), null);
  assert.deepEqual(ruling("https://other.example/", only), { host: "other.example", rule: null, mode: "only", source: "popup" });
  assert.equal(ruling("file:///tmp/a.html", only).mode, "only");
  assert.equal(ruling("about:blank", only), null);
});

test("the daemon's rules add refusals to the person's and never lift one", () => {
  const person = personRules({ mode: "only", sites: ["a.example", "b.example"] });
  const daemon = { never: ["b.example"], only: ["b.example", "c.example"] };
  assert.equal(ruling("https://a.example/", person, daemon).source, "daemon"); // not in the daemon's only
  assert.deepEqual(ruling("https://b.example/", person, daemon), { host: "b.example", rule: "b.example", mode: "never", source: "daemon" });
  assert.equal(ruling("https://c.example/", person, daemon).source, "popup"); // the daemon cannot allow it
});

test("Chrome's own pages and the Web Store are named as never scriptable, about:blank is not", () => {
  assert.match(neverScriptable("https://chromewebstore.google.com/detail/abc"), /Chrome Web Store/);
  assert.match(neverScriptable("https://chrome.google.com/webstore/category"), /Chrome Web Store/);
  assert.match(neverScriptable("chrome://settings/"), /its own pages/);
  assert.match(neverScriptable("about:version"), /about: pages/);
  assert.equal(neverScriptable("about:blank"), null);
  assert.equal(neverScriptable("https://chrome.google.com/other"), null);
});

// The worker's dispatcher over a fake Chrome whose storage holds `rules`; webNavigation.getFrame
// answers each tab's current url, with a documentId that changes with it.
function setup({ rules = null, tabs = [ALLOWED, BANK], ...options } = {}) {
  const storage = rules ? { [SITE_RULES_KEY]: rules } : {};
  const { chrome } = fakeChrome({ storage, tabs: tabs.map((tab) => ({ ...tab })), ...options });
  chrome.webNavigation = {
    getFrame: async ({ tabId }) => {
      const tab = await chrome.tabs.get(tabId).catch(() => null);
      return tab ? { url: tab.url, documentId: `doc:${tab.url}` } : null;
    },
  };
  chrome.tabs.update = async (id, props) => Object.assign(await chrome.tabs.get(id), props);
  chrome.tabs.create = async () => {
    throw new Error("no tab may be created");
  };
  const pilot = { ready: Promise.resolve(), isEnabled: () => true };
  const commands = createCommands({ chrome, pilot, timers: realTimers, now: () => 1000, landingUrl: async () => ALLOWED.url });
  return { chrome, commands };
}

const run = (commands, command, params = {}) => commands.run({ type: "command", id: "r1", command, params });
const script = (tabId) => ({ script: "2 + 2", timeout_ms: 1000, await_promise: true, tab_id: tabId });
const setRules = (chrome, rules) => chrome.storage.local.set({ [SITE_RULES_KEY]: rules });

test("a script in a tab showing a ruled-out site gives site_blocked naming the rule, and reaches nothing", async () => {
  const { chrome, commands } = setup({ rules: { mode: "never", sites: ["bank.example"] }, onSend: () => answer42 });
  const result = await run(commands, "execute_javascript", script(BANK.id));
  assert.equal(result.ok, false);
  assert.equal(result.error.code, "site_blocked");
  assert.match(result.error.message, /^Tab 8 shows www\.bank\.example: the person at this browser does not let the AI act on www\.bank\.example \(rule "bank\.example" in the Sites list of the tabpilot popup\)/);
  assert.deepEqual(result.error.data, { host: "www.bank.example", rule: "bank.example", mode: "never", source: "popup" });
  // Neither the path nor the title of the person's page goes out.
  assert.deepEqual(result.tab, { id: 8, url: "https://www.bank.example", title: "" });
  assert.equal(chrome.calls.delivered.length, 0);
  assert.equal(chrome.calls.executeScript.length, 0);
  // Another site still answers.
  assert.equal((await run(commands, "execute_javascript", script(ALLOWED.id))).result, 42);
});

test("the gate is the tab's: snapshot, read, act, screenshot and the logs are refused in a ruled-out tab", async () => {
  const { chrome, commands } = setup({ rules: { mode: "never", sites: ["bank.example"] }, onSend: () => answer42 });
  for (const [command, params] of [
    ["browser_snapshot", {}],
    ["browser_read", {}],
    ["browser_act", { ref: "e1", action: "click" }],
    ["browser_take_screenshot", {}],
    ["browser_console_messages", {}],
    ["browser_network_requests", {}],
    ["browser_wait_for", { text: "x", timeout_ms: 50 }],
    ["browser_navigate", { action: "reload" }],
    ["browser_tabs", { action: "select", tab_id: BANK.id }],
    ["browser_tabs", { action: "close", tab_id: BANK.id }], // the person's tab, not the AI's
  ]) {
    const result = await run(commands, command, { tab_id: BANK.id, ...params });
    assert.equal(result.error?.code, "site_blocked", `${command}: ${JSON.stringify(result.error)}`);
  }
  assert.equal(chrome.calls.delivered.length, 0);
});

test("navigation to a ruled-out site is refused before it starts, in a tab or a new one", async () => {
  const { chrome, commands } = setup({ rules: { mode: "never", sites: ["bank.example"] } });
  const navigated = await run(commands, "browser_navigate", { url: "https://bank.example/login", tab_id: ALLOWED.id });
  assert.equal(navigated.error.code, "site_blocked");
  assert.match(navigated.error.message, /^Cannot open https:\/\/bank\.example\/login: .*rule "bank\.example"/);
  assert.equal((await chrome.tabs.get(ALLOWED.id)).url, ALLOWED.url);
  const opened = await run(commands, "browser_tabs", { action: "new", url: "https://bank.example/" });
  assert.equal(opened.error.code, "site_blocked"); // the fake's tabs.create throws if reached
});

test("the tab list hides the url's path and the title of a ruled-out tab and marks it blocked", async () => {
  const { commands } = setup({ rules: { mode: "never", sites: ["bank.example"] } });
  for (const command of ["list_tabs", "browser_tabs"]) {
    const listed = (await run(commands, command, { action: "list" })).result;
    assert.deepEqual(
      listed.map(({ id, url, title, blocked }) => ({ id, url, title, blocked })),
      [
        { id: 7, url: ALLOWED.url, title: "Page", blocked: undefined },
        { id: 8, url: "https://www.bank.example", title: "", blocked: true },
      ],
    );
  }
});

test("a page that navigates into a ruled-out site while a command runs ends it with site_blocked, its answer dropped", async () => {
  const { chrome, commands } = setup({
    rules: { mode: "never", sites: ["bank.example"] },
    onSend: async (tabId) => {
      (await chrome.tabs.get(tabId)).url = "https://bank.example/secret";
      return { ok: true, result: "read on the bank's page", result_type: "string" };
    },
  });
  const result = await run(commands, "execute_javascript", script(ALLOWED.id));
  assert.equal(result.error.code, "site_blocked");
  assert.equal(result.result, undefined);
  assert.ok(!JSON.stringify(result).includes("read on the bank"));
});

test("a port opens only to the document whose url was checked: a page that went to a ruled-out site gets nothing", async () => {
  const { chrome, commands } = setup({ rules: { mode: "never", sites: ["bank.example"] }, onSend: () => answer42 });
  assert.equal((await run(commands, "execute_javascript", script(ALLOWED.id))).result, 42);
  assert.deepEqual(chrome.calls.connect[0].options, { documentId: `doc:${ALLOWED.url}`, name: "tabpilot" });
  // Another tab, whose page has just gone to the bank: Chrome reports the tab's old url still, its
  // document is the bank's.
  const { chrome: chrome2, commands: commands2 } = setup({ rules: { mode: "never", sites: ["bank.example"] }, onSend: () => answer42 });
  chrome2.webNavigation.getFrame = async () => ({ url: "https://bank.example/", documentId: "doc:bank" });
  const result = await run(commands2, "execute_javascript", script(ALLOWED.id));
  assert.equal(result.error.code, "site_blocked");
  assert.match(result.error.message, /^Tab 7 shows bank\.example: /);
  assert.equal(chrome2.calls.connect.length, 0);
  assert.equal(chrome2.calls.delivered.length, 0);
});

test("rules the person sets take effect at the next command, and clearing them lifts them", async () => {
  const { chrome, commands } = setup({ onSend: () => answer42 });
  assert.equal((await run(commands, "execute_javascript", script(BANK.id))).result, 42);
  await setRules(chrome, { mode: "never", sites: ["bank.example"] });
  assert.equal((await run(commands, "execute_javascript", script(BANK.id))).error.code, "site_blocked");
  await setRules(chrome, { mode: "never", sites: [] });
  assert.equal((await run(commands, "execute_javascript", script(BANK.id))).result, 42);
});

test('"only these sites": the listed ones answer, every other is refused saying so', async () => {
  const { commands } = setup({ rules: { mode: "only", sites: ["127.0.0.1"] }, onSend: () => answer42 });
  assert.equal((await run(commands, "execute_javascript", script(ALLOWED.id))).result, 42);
  const refused = await run(commands, "execute_javascript", script(BANK.id));
  assert.equal(refused.error.code, "site_blocked");
  assert.match(refused.error.message, /lets the AI act only on the sites in the tabpilot popup's list \(127\.0\.0\.1\), and www\.bank\.example is not one of them/);
  assert.deepEqual(refused.error.data, { host: "www.bank.example", rule: null, mode: "only", source: "popup" });
});

test("the daemon's rules from its hello refuse too, naming the daemon's setting", async () => {
  const { commands } = setup({ onSend: () => answer42 });
  commands.sites.setDaemon({ never: ["bank.example"], only: null });
  const refused = await run(commands, "execute_javascript", script(BANK.id));
  assert.equal(refused.error.code, "site_blocked");
  assert.match(refused.error.message, /this tabpilot daemon rules out www\.bank\.example \(its --block-site rule "bank\.example"\)/);
  commands.sites.setDaemon(undefined); // a hello without rules
  assert.equal((await run(commands, "execute_javascript", script(BANK.id))).result, 42);
});

test("rules that cannot be read refuse every site rather than none", async () => {
  const { chrome } = fakeChrome();
  chrome.storage.local.get = async () => {
    throw new Error("storage is unavailable");
  };
  const sites = createSiteRules({ chrome });
  await sites.ready;
  assert.equal(sites.check("https://example.com/").mode, "unreadable");
  assert.throws(() => sites.assertUrl("https://example.com/", "Cannot open it"), (err) => err.code === "site_blocked");
});

// Every command, with parameters that try to name the rules, leaves them as the person set them.
test("no command writes the site rules", async () => {
  const rules = { mode: "never", sites: ["bank.example"] };
  const { chrome, commands } = setup({ rules, onSend: () => answer42 });
  const attempts = [
    {},
    { tab_id: ALLOWED.id },
    { [SITE_RULES_KEY]: { mode: "never", sites: [] }, key: SITE_RULES_KEY, value: null, items: { [SITE_RULES_KEY]: null } },
    { action: "clear", tab_id: ALLOWED.id, script: `chrome.storage.local.set({${SITE_RULES_KEY}: null})` },
    { cookies: [], origins: [{ origin: "chrome-extension://x", localStorage: [{ name: SITE_RULES_KEY, value: "" }] }] },
  ];
  for (const command of Object.keys(commands.handlers)) {
    for (const params of attempts) {
      await Promise.race([run(commands, command, { timeout_ms: 20, ...params }), new Promise((resolve) => setTimeout(resolve, 100))]);
    }
  }
  await tick();
  assert.deepEqual(chrome.store[SITE_RULES_KEY], rules);
  assert.deepEqual(chrome.calls.storageSet.filter((items) => SITE_RULES_KEY in items), []);
});

// And no worker module could: the key is named in one module, which only reads it.
test("the site rules' key is read in one worker module and written in none", () => {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".js")) files.push(path);
    }
  };
  walk(new URL("../extension/worker", import.meta.url).pathname);
  const naming = files.filter((file) => readFileSync(file, "utf8").includes(`"${SITE_RULES_KEY}"`));
  assert.deepEqual(naming.map((file) => file.split("/extension/")[1]), ["worker/link/site-rules.js"]);
  const source = readFileSync(naming[0], "utf8");
  assert.doesNotMatch(source, /storage\.(local|sync|session)\.(set|remove|clear)\b/);
  // The one write to storage.local in the worker is the pilot switch's first value.
  const writers = files.filter((file) => /storage\.local\.(set|remove|clear)\(/.test(readFileSync(file, "utf8")));
  assert.deepEqual(writers.map((file) => file.split("/extension/")[1]), ["worker/link/pilot.js"]);
});

test("a tab's console log leaves out its pages on a ruled-out site, and keeps nothing sent from one", async () => {
  const flush = (_tabId, message) => (message.type === "log_flush" ? { ok: true, result: { batches: [] } } : undefined);
  const { chrome, commands } = setup({ tabs: [ALLOWED], onSend: flush });
  const log = (url, documentId, text) =>
    commands.messages.page_log(
      { type: "page_log", batch: JSON.stringify({ entries: [{ type: "log", level: "info", text, time: 1 }], dropped: 0 }) },
      { tab: { id: ALLOWED.id }, frameId: 0, documentId, url },
    );
  const texts = async () => {
    const { result } = await run(commands, "browser_console_messages", { tab_id: ALLOWED.id, all_pages: true });
    return result.messages.map((m) => m.text);
  };
  // The tab was on the bank's page before, with no rule set, then came to an allowed page.
  await log("https://bank.example/accounts", "bank-doc", "balance 1000");
  await log(ALLOWED.url, "page-doc", "hello");
  assert.deepEqual(await texts(), ["balance 1000", "hello"]);
  await setRules(chrome, { mode: "never", sites: ["bank.example"] });
  assert.deepEqual(await texts(), ["hello"]);
  await log("https://bank.example/accounts", "bank-doc-2", "balance 2000");
  await setRules(chrome, { mode: "never", sites: [] });
  assert.deepEqual(await texts(), ["balance 1000", "hello"]);
});

test("a storage export leaves out the cookies and the pages of ruled-out sites", async () => {
  const cookie = (domain) => ({ name: "sid", value: domain, domain, path: "/", secure: true, httpOnly: true, sameSite: "lax", session: true, storeId: "0", hostOnly: false });
  const { commands } = setup({
    rules: { mode: "never", sites: ["bank.example"] },
    storage: { [SITE_RULES_KEY]: { mode: "never", sites: ["bank.example"] }, exportEnabled: true },
    cookies: [cookie(".bank.example"), cookie("127.0.0.1")],
    onScript: (_details, tab) => ({ origin: new URL(tab.url).origin, items: [{ name: "k", value: "v" }] }),
  });
  const { result } = await run(commands, "storage_export");
  assert.deepEqual(result.cookies.map((c) => c.value), ["127.0.0.1"]);
  assert.deepEqual(result.pages.map((p) => p.tab_id), [ALLOWED.id]);
  assert.deepEqual(result.skipped, [{ tab_id: BANK.id, url: "https://www.bank.example", reason: "a site ruled out by the site rules: not read" }]);
  assert.ok(!JSON.stringify(result).includes("bank.example/accounts"));
});
