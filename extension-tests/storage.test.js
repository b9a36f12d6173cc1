// background/storage.js: storage_export and storage_import, their switch and their refusals, the
// pages skipped, and localStorage reaching an origin that is not open.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createActivity } from "../extension/worker/link/activity.js";
import { createCommands } from "../extension/worker/commands.js";
import { createStorage, READ_MS, IMPORT_MS } from "../extension/worker/tools/storage.js";
import { fakeChrome, manualTimers, realTimers, until } from "./support/fake-chrome.js";
import { workerSummaries } from "./support/worker.js";

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), emit: (...args) => listeners.forEach((fn) => fn(...args)) };
}

const SESSION = { name: "sid", value: "s3cr3t", domain: "shop.test", hostOnly: true, path: "/", secure: true, httpOnly: true, sameSite: "lax", session: true, storeId: "0" };
const CHIP = {
  name: "chip",
  value: "1",
  domain: "widget.test",
  hostOnly: true,
  path: "/",
  secure: true,
  httpOnly: false,
  sameSite: "no_restriction",
  session: false,
  expirationDate: 2_000_000_000,
  storeId: "0",
  partitionKey: { topLevelSite: "https://shop.test", hasCrossSiteAncestor: true },
};
const web = (id, url, extra = {}) => ({ id, url, title: `tab ${id}`, status: "complete", active: false, windowId: 1, ...extra });
const TABS = [
  web(1, "https://shop.test/cart"),
  web(2, "chrome://extensions/"),
  web(3, "https://shop.test/orders"),
  web(4, "https://blog.test/post"),
  web(5, "about:blank"),
  web(6, "https://private.test/", { incognito: true }),
];
const STORED = { "https://shop.test": [{ name: "token", value: "abc" }], "https://blog.test": [] };

// The page's localStorage, as readLocalStorage answers it from a tab; writeLocalStorage's writes land
// in `written`.
function pageScripts({ stored = STORED, written = {}, override = () => undefined } = {}) {
  return async (details, tab) => {
    if (tab.url === "about:blank") throw new Error('Cannot access contents of url "about:blank".');
    const custom = await override(details, tab);
    if (custom !== undefined) return custom;
    if (details.func.name === "writeLocalStorage") {
      const [origin, items] = details.args;
      written[origin] = items;
      return { written: items.length };
    }
    const origin = new URL(tab.url).origin;
    return { origin, items: stored[origin] ?? [] };
  };
}

// A browser with chrome.cookies, webNavigation, tabs.create/update/remove and a debugger whose
// Fetch domain answers navigations only when the module fulfils them, as Chrome does.
function setup({ managed = true, storage = {}, tabs = TABS.map((t) => ({ ...t })), cookies = [SESSION, CHIP], scripts = pageScripts(), frameOf = () => undefined, timers = realTimers } = {}) {
  const { chrome } = fakeChrome({ storage, tabs, cookies: cookies.map((c) => structuredClone(c)), onScript: scripts });
  const nav = Object.fromEntries(["onBeforeNavigate", "onCommitted", "onDOMContentLoaded", "onCompleted", "onErrorOccurred", "onHistoryStateUpdated", "onReferenceFragmentUpdated"].map((n) => [n, event()]));
  chrome.webNavigation = { ...nav, getFrame: async ({ tabId }) => frameOf(tabId) ?? { errorOccurred: false, url: tabs.find((t) => t.id === tabId)?.url } };
  chrome.debugger = { onEvent: event() };
  const log = { created: [], removed: [], fulfilled: [], fetchEnabled: [] };
  let nextId = 100;
  const intercepted = new Map(); // tab id -> Fetch pattern
  chrome.tabs.create = async ({ url, active }) => {
    const tab = web(nextId++, url, { active });
    tabs.push(tab);
    log.created.push(tab.id);
    return tab;
  };
  chrome.tabs.remove = async (tabId) => {
    log.removed.push(tabId);
    tabs.splice(tabs.findIndex((t) => t.id === tabId), 1);
    chrome.tabs.onRemoved.emit(tabId, {});
  };
  // A navigation is paused while Fetch holds its origin; it loads only once it is fulfilled.
  const requests = new Map();
  chrome.tabs.update = async (tabId, { url }) => {
    const pattern = intercepted.get(tabId);
    if (!pattern || !url.startsWith(pattern.urlPattern.slice(0, -1))) throw new Error(`test: ${url} would have left the browser`);
    const requestId = `r${tabId}`;
    requests.set(requestId, { tabId, url });
    // The tab's first about:blank may report its load after the navigation to the origin began.
    nav.onBeforeNavigate.emit({ tabId, frameId: 0, url });
    nav.onCompleted.emit({ tabId, frameId: 0, url: "about:blank", documentId: `blank-${tabId}` });
    chrome.debugger.onEvent.emit({ tabId }, "Fetch.requestPaused", { requestId, request: { url }, resourceType: "Document" });
    return tabs.find((t) => t.id === tabId);
  };
  const debug = {
    async send(tabId, method, params) {
      if (method === "Fetch.enable") {
        log.fetchEnabled.push({ tabId, ...params });
        intercepted.set(tabId, params.patterns[0]);
      } else if (method === "Fetch.fulfillRequest") {
        log.fulfilled.push({ tabId, ...params });
        const { url } = requests.get(params.requestId);
        // The page commits and loads a moment after the reply, as in Chrome.
        setTimeout(() => {
          const tab = tabs.find((t) => t.id === tabId);
          if (!tab) return; // closed meanwhile
          tab.url = url;
          for (const name of ["onCommitted", "onDOMContentLoaded", "onCompleted"]) nav[name].emit({ tabId, frameId: 0, url, documentId: `doc-${tabId}` });
        }, 1);
      }
      return {};
    },
  };
  const module = createStorage({ chrome, debug, managed: Promise.resolve(managed ? { managed: true } : {}), timers });
  return { chrome, module, log, tabs };
}

const PLAYWRIGHT = { name: "sid", value: "new", domain: "shop.test", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" };

test("an export gives every cookie, HttpOnly and partitioned ones included, and each origin's localStorage once", async () => {
  const { chrome, module } = setup();
  const { result, result_type, tab } = await module.storage_export({});
  assert.equal(result_type, "object");
  assert.equal(tab, null);
  assert.deepEqual(chrome.calls.cookies, [["getAll", { partitionKey: {} }]]);
  assert.deepEqual(result.cookies, [
    { name: "sid", value: "s3cr3t", domain: "shop.test", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" },
    { name: "chip", value: "1", domain: "widget.test", path: "/", expires: 2_000_000_000, httpOnly: false, secure: true, sameSite: "None", partitionKey: "https://shop.test", _crHasCrossSiteAncestor: true },
  ]);
  // blog.test stores nothing: left out of origins, as Playwright does, yet a valid page.
  assert.deepEqual(result.origins, [{ origin: "https://shop.test", localStorage: [{ name: "token", value: "abc" }] }]);
  assert.deepEqual(result.pages, [
    { tab_id: 1, url: "https://shop.test/cart", origin: "https://shop.test" },
    { tab_id: 3, url: "https://shop.test/orders", origin: "https://shop.test" },
    { tab_id: 4, url: "https://blog.test/post", origin: "https://blog.test" },
  ]);
  assert.deepEqual(result.skipped, []);
  // Read in the top frame's isolated world, which a strict page's CSP does not reach.
  const reads = chrome.calls.executeScript;
  assert.deepEqual(reads.map((d) => d.target), [1, 3, 4].map((tabId) => ({ tabId, frameIds: [0] })));
  assert.ok(reads.every((d) => d.world === "ISOLATED" && d.func.name === "readLocalStorage"));
});

test("in a person's Chrome an export needs the popup switch; the managed browser needs none", async () => {
  const off = setup({ managed: false });
  const error = await off.module.storage_export({}).catch((err) => err);
  assert.equal(error.code, "export_disabled");
  assert.match(error.message, /Let the AI save this browser's cookies/);
  assert.match(error.message, /the AI cannot turn it on/);
  assert.deepEqual(off.chrome.calls.cookies, [], "no cookie was read");
  assert.deepEqual(off.chrome.calls.executeScript, [], "no page was read");

  const on = setup({ managed: false, storage: { exportEnabled: true } });
  assert.equal((await on.module.storage_export({})).result.cookies.length, 2);
  // The switch is read afresh for each export: turned off, the next one is refused.
  await on.chrome.storage.local.set({ exportEnabled: false });
  assert.equal((await on.module.storage_export({}).catch((err) => err)).code, "export_disabled");

  const managed = setup({ managed: true, storage: { exportEnabled: false } });
  assert.equal((await managed.module.storage_export({})).result.cookies.length, 2);
});

test("the commands are in the dispatcher, behind AI Web Pilot, and the switch refusal reaches the daemon", async () => {
  const { chrome } = fakeChrome({ tabs: TABS, cookies: [SESSION] });
  const frame = (command, params = {}) => ({ type: "command", id: "s1", command, params });
  const pilotOff = createCommands({ chrome, pilot: { ready: Promise.resolve(), isEnabled: () => false }, timers: realTimers });
  assert.equal((await pilotOff.run(frame("storage_export"))).error.code, "pilot_disabled");
  const commands = createCommands({ chrome, pilot: { ready: Promise.resolve(), isEnabled: () => true }, timers: realTimers });
  const refused = await commands.run(frame("storage_export"));
  assert.equal(refused.ok, false);
  assert.equal(refused.error.code, "export_disabled");
  const human = await commands.run(frame("storage_import", { cookies: [PLAYWRIGHT], origins: [] }));
  assert.equal(human.error.code, "invalid_request");
  assert.match(human.error.message, /replaces every cookie of the browser/);
  assert.match(human.error.message, /managed context/);
  assert.deepEqual(chrome.calls.cookies, [], "nothing read, nothing changed");
});

test("pages whose session is stale or broken are skipped, each with why", async () => {
  const timers = manualTimers();
  const tabs = [
    web(1, "https://shop.test/cart"),
    web(2, "https://shop.test/old", { discarded: true, status: "unloaded" }),
    web(3, "https://shop.test/crashed", { status: "unloaded" }),
    web(4, "", { pendingUrl: "https://slow.test/", status: "loading" }),
    web(5, "http://127.0.0.1:1/refused"),
    web(6, "https://locked.test/", { refuseInjection: true }),
    web(7, "https://sandbox.test/"),
    web(8, "https://stuck.test/"),
  ];
  const override = (details, tab) => {
    if (tab.id === 7) return { origin: "https://sandbox.test", error: "Failed to read the 'localStorage' property from 'Window': The document is sandboxed and lacks the 'allow-same-origin' flag." };
    if (tab.id === 8) return new Promise(() => {}); // a page stuck in a loop never answers
    return undefined;
  };
  const { module } = setup({ tabs, timers, scripts: pageScripts({ override }), frameOf: (id) => (id === 5 ? { errorOccurred: true, url: tabs[4].url } : undefined) });
  const exporting = module.storage_export({});
  // Every other read has answered; only the stuck page's timer is left.
  await until(() => timers.pendingCount() === 1 && timers.pendingDelays()[0] === READ_MS, "the stuck page's read");
  timers.runAll();
  const { result } = await exporting;
  assert.deepEqual(result.pages, [{ tab_id: 1, url: "https://shop.test/cart", origin: "https://shop.test" }]);
  assert.deepEqual(result.skipped, [
    { tab_id: 2, url: "https://shop.test/old", reason: "discarded by Chrome" },
    { tab_id: 3, url: "https://shop.test/crashed", reason: "no page loaded: it crashed, or has not loaded since Chrome started" },
    { tab_id: 4, url: "https://slow.test/", reason: "still loading, no document yet" },
    { tab_id: 5, url: "http://127.0.0.1:1/refused", reason: "error page: the page failed to load" },
    { tab_id: 6, url: "https://locked.test/", reason: 'the page refused the script (Cannot access contents of url "https://locked.test/".)' },
    { tab_id: 7, url: "https://sandbox.test/", reason: "sandboxed page: it has no localStorage" },
    { tab_id: 8, url: "https://stuck.test/", reason: `did not answer within ${READ_MS} ms (the page is busy)` },
  ]);
});

test("with no page to read, the export fails with no_valid_page, naming what was skipped and what to do", async () => {
  const { module } = setup({ tabs: [web(2, "chrome://newtab/"), web(3, "https://shop.test/", { discarded: true })] });
  const error = await module.storage_export({}).catch((err) => err);
  assert.equal(error.code, "no_valid_page");
  assert.match(error.message, /tab 3 https:\/\/shop\.test\/: discarded by Chrome/);
  assert.match(error.message, /Open a page of the site whose storage you want/);
  assert.match(error.message, /browser_navigate/);

  const empty = setup({ tabs: [web(2, "chrome://newtab/")] });
  const none = await empty.module.storage_export({}).catch((err) => err);
  assert.equal(none.code, "no_valid_page");
  assert.match(none.message, /^No web page is open/);
});

test("an import clears every cookie, partitioned ones included, before it sets the state's", async () => {
  const { chrome, module, log } = setup();
  const expired = { ...PLAYWRIGHT, name: "old", expires: 1000 };
  const partitioned = { ...PLAYWRIGHT, name: "chip", domain: "widget.test", sameSite: "None", partitionKey: "https://shop.test", _crHasCrossSiteAncestor: false };
  const { result } = await module.storage_import({ cookies: [PLAYWRIGHT, expired, partitioned], origins: [] });
  assert.deepEqual(result, { cookies: 2, origins: 0, refused: [{ name: "old", domain: "shop.test", reason: "Chrome refused it (expired, or not valid for its domain, path or secure flag)" }] });
  const ops = chrome.calls.cookies.map(([op]) => op);
  assert.deepEqual(ops, ["getAll", "remove", "remove", "set", "set", "set"]);
  assert.deepEqual(chrome.calls.cookies[2][1], { url: "https://widget.test/", name: "chip", storeId: "0", partitionKey: CHIP.partitionKey });
  assert.deepEqual(
    chrome.cookies.jar.map((c) => [c.name, c.value, c.partitionKey ?? null]),
    [
      ["sid", "new", null],
      ["chip", "new", { topLevelSite: "https://shop.test", hasCrossSiteAncestor: false }],
    ],
  );
  assert.deepEqual(log.created, [], "no origin, no tab");
});

test("localStorage reaches an origin that is not open through a blank page the debugger serves", async () => {
  const written = {};
  const { chrome, module, log, tabs } = setup({ scripts: pageScripts({ written }) });
  const origins = [
    { origin: "https://nowhere.test", localStorage: [{ name: "k", value: "v" }] },
    { origin: "http://127.0.0.1:9", localStorage: [{ name: "a", value: "1" }, { name: "b", value: "2" }] },
    { origin: "https://empty.test", localStorage: [] },
  ];
  const { result } = await module.storage_import({ cookies: [], origins });
  assert.deepEqual(result, { cookies: 0, origins: 2, refused: [] });
  assert.deepEqual(written, { "https://nowhere.test": [{ name: "k", value: "v" }], "http://127.0.0.1:9": origins[1].localStorage });
  // One background tab per origin with something to write, each closed again.
  assert.equal(log.created.length, 2);
  assert.deepEqual([...log.removed].sort(), [...log.created].sort());
  assert.ok(tabs.every((t) => !log.created.includes(t.id)));
  assert.deepEqual(
    log.fetchEnabled.map((e) => e.patterns),
    [[{ urlPattern: "https://nowhere.test/*", resourceType: "Document", requestStage: "Request" }], [{ urlPattern: "http://127.0.0.1:9/*", resourceType: "Document", requestStage: "Request" }]],
  );
  for (const reply of log.fulfilled) {
    assert.equal(reply.responseCode, 200);
    assert.deepEqual(reply.responseHeaders, [{ name: "Content-Type", value: "text/html; charset=utf-8" }]);
    assert.equal(Buffer.from(reply.body, "base64").toString(), '<!doctype html><link rel="icon" href="data:,">');
  }
  const writes = chrome.calls.executeScript.filter((d) => d.func.name === "writeLocalStorage");
  assert.deepEqual(writes.map((d) => d.args[0]).sort(), ["http://127.0.0.1:9", "https://nowhere.test"]);
});

test("an import that fails closes every tab it opened", async () => {
  const override = (details) => {
    if (details.func.name === "writeLocalStorage" && details.args[0] === "https://b.test") throw new Error("The tab was closed.");
    return undefined;
  };
  const { module, log } = setup({ scripts: pageScripts({ override }) });
  const origins = ["https://a.test", "https://b.test", "https://c.test"].map((origin) => ({ origin, localStorage: [{ name: "k", value: origin }] }));
  const error = await module.storage_import({ cookies: [], origins }).catch((err) => err);
  assert.match(String(error.message), /The tab was closed/);
  await until(() => log.removed.length === log.created.length, "every tab to close");
  assert.ok(log.created.length >= 2);
});

test("an import that runs out of time answers execution_timeout and closes its tabs", async () => {
  const timers = manualTimers();
  const { module, log, chrome } = setup({ timers });
  // The navigation is never fulfilled: no Fetch reply reaches it.
  chrome.debugger.onEvent = event();
  const importing = module.storage_import({ cookies: [], origins: [{ origin: "https://slow.test", localStorage: [{ name: "k", value: "v" }] }] }).catch((err) => err);
  await until(() => log.fetchEnabled.length === 1 && timers.pendingDelays().filter((ms) => ms === IMPORT_MS).length === 2, "the navigation's wait");
  timers.runAll();
  const error = await importing;
  assert.equal(error.code, "execution_timeout");
  await until(() => log.removed.length === 1, "the tab to close");
  assert.deepEqual(log.removed, log.created);
});

test("an import refuses a state whose origins are not http(s) origins", async () => {
  const { module, chrome } = setup();
  for (const origin of ["file:///etc", "https://shop.test/path", "not a url", null]) {
    const error = await module.storage_import({ cookies: [], origins: [{ origin, localStorage: [] }] }).catch((err) => err);
    assert.equal(error.code, "invalid_request", String(origin));
  }
  assert.equal((await module.storage_import({ cookies: "x" }).catch((err) => err)).code, "invalid_request");
  assert.deepEqual(chrome.calls.cookies, [], "a refused state changes nothing");
});

test("Recent activity says what was saved or loaded", async () => {
  const summary = async (command, result) => {
    const { chrome } = fakeChrome();
    const activity = createActivity({ chrome, summaries: workerSummaries(), timers: manualTimers() });
    await activity.ready;
    activity.begin({ type: "command", id: "c1", command, params: {} })({ type: "result", id: "c1", tab: null, ...result });
    return (await activity.list())[0]?.summary;
  };
  const saved = { ok: true, result: { cookies: new Array(12).fill({}), origins: [{}, {}], pages: [], skipped: [] } };
  assert.equal(await summary("storage_export", saved), "saved this browser's cookies and storage (12 cookies, 2 sites)");
  assert.equal(await summary("storage_export", { ok: false, error: { code: "export_disabled" } }), "tried to save this browser's cookies and storage");
  assert.equal(await summary("storage_import", { ok: true, result: { cookies: 1, origins: 1, refused: [{}] } }), "loaded cookies and storage (1 cookie, 1 site, 1 refused)");
  assert.equal(await summary("storage_import", { ok: false, error: { code: "invalid_request" } }), "tried to load cookies and storage");
});
