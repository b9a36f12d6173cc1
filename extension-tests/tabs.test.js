// browser_tabs (background/tab-actions.js) through commands.run, and what the popup says of it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createActivity } from "../extension/worker/link/activity.js";
import { createCommands } from "../extension/worker/commands.js";
import { fakeChrome, realTimers } from "./support/fake-chrome.js";
import { workerSummaries } from "./support/worker.js";

const LANDING = "http://127.0.0.1:7878/";

function setup({ managed = false, tabs = [{ id: 7, url: "https://a.example/", title: "A", active: true, windowId: 1 }], session = {} } = {}) {
  const { chrome } = fakeChrome({ tabs, session });
  const created = [];
  const removed = [];
  let next = 100;
  chrome.tabs.create = async ({ url, active }) => {
    const tab = { id: next++, url: "", pendingUrl: url, title: "", active, windowId: 1 };
    created.push(url);
    tabs.push(tab);
    chrome.tabs.onCreated.emit(tab);
    chrome.tabs.onActivated.emit({ tabId: tab.id, windowId: 1 });
    return tab;
  };
  chrome.tabs.remove = async (ids) => {
    for (const id of [ids].flat()) {
      removed.push(id);
      tabs.splice(tabs.findIndex((t) => t.id === id), 1);
      chrome.tabs.onRemoved.emit(id, { windowId: 1, isWindowClosing: false });
    }
  };
  // A url loads as in Chrome: the tab's main frame starts, commits and completes.
  const frameEvent = () => {
    const listeners = [];
    return { addListener: (fn) => listeners.push(fn), emit: (d) => listeners.forEach((fn) => fn(d)) };
  };
  chrome.webNavigation = Object.fromEntries(
    ["onBeforeNavigate", "onCommitted", "onDOMContentLoaded", "onCompleted", "onErrorOccurred"].map((n) => [n, frameEvent()]),
  );
  const loads = [];
  chrome.tabs.update = async (id, { active, url }) => {
    const tab = tabs.find((t) => t.id === id);
    if (url !== undefined) {
      loads.push([id, url]);
      setTimeout(() => {
        const nav = chrome.webNavigation;
        nav.onBeforeNavigate.emit({ tabId: id, frameId: 0, url });
        if (url.includes("unreachable")) {
          nav.onErrorOccurred.emit({ tabId: id, frameId: 0, url, error: "net::ERR_NAME_NOT_RESOLVED" });
          return;
        }
        Object.assign(tab, { url, pendingUrl: undefined, title: `title of ${url}` });
        nav.onCommitted.emit({ tabId: id, frameId: 0, url, documentId: `doc-${url}` });
        nav.onDOMContentLoaded.emit({ tabId: id, frameId: 0, url, documentId: `doc-${url}` });
        nav.onCompleted.emit({ tabId: id, frameId: 0, url, documentId: `doc-${url}` });
      }, 5);
    }
    if (active !== undefined) tab.active = active;
    return { ...tab };
  };
  // The active tab is the last one opened, as in Chrome.
  chrome.tabs.query = async (q) => (q?.active ? tabs.slice(-1) : tabs);
  const grouped = [];
  chrome.tabs.group = async ({ tabIds, groupId }) => {
    grouped.push(...tabIds);
    return groupId ?? 3;
  };
  const groups = [];
  chrome.tabGroups = {
    query: async ({ title }) => groups.filter((g) => g.title === title),
    update: async (id, props) => groups.push({ id, ...props }),
  };
  const pilot = { ready: Promise.resolve(), isEnabled: () => true };
  const commands = createCommands({
    chrome,
    pilot,
    timers: realTimers,
    fetch: async () => ({ ok: false }),
    managed: Promise.resolve({ managed }),
    landingUrl: async () => LANDING,
  });
  const run = (params, command = "browser_tabs") => commands.run({ type: "command", id: "t1", command, params });
  return { run, created, removed, tabs, chrome, grouped, groups, commands, loads };
}

test("new opens a blank tab, makes it the AI's, and answers once the url has loaded in it", async () => {
  const { run, created, loads } = setup();
  const opened = await run({ action: "new", url: "https://b.example/" });
  assert.equal(opened.ok, true);
  assert.deepEqual(opened.result, {
    id: 100,
    url: "https://b.example/",
    title: "title of https://b.example/",
    active: true,
    window_id: 1,
  });
  await run({ action: "new" });
  assert.deepEqual(created, ["about:blank", "about:blank"]);
  assert.deepEqual(loads, [[100, "https://b.example/"], [101, LANDING]]);
});

test("a new tab whose page does not load is an error that names the tab, which stays open", async () => {
  const { run, tabs } = setup();
  const result = await run({ action: "new", url: "https://unreachable.example/" });
  assert.equal(result.error.code, "navigation_failed");
  assert.match(result.error.message, /^Opened tab 100, but https:\/\/unreachable\.example\/ did not load: its host name/);
  assert.match(result.error.message, /The tab stays open: pass its tab_id to retry or close it\.$/);
  assert.ok(tabs.some((t) => t.id === 100));
});

test("only http and https urls open", async () => {
  const { run, created } = setup();
  for (const url of ["chrome://settings", "javascript:alert(1)", "file:///etc/passwd"]) {
    const result = await run({ action: "new", url });
    assert.equal(result.error.code, "invalid_request", url);
  }
  assert.deepEqual(created, []);
});

test("the managed browser opens its landing page before it closes its last tab", async () => {
  const { run, created, removed, tabs } = setup({ managed: true });
  const result = await run({ action: "close", tab_id: 7 });
  assert.equal(result.ok, true);
  assert.equal(result.result.closed, 7);
  assert.equal(result.result.opened.url, LANDING);
  assert.deepEqual(created, [LANDING]);
  assert.deepEqual(removed, [7]);
  assert.deepEqual(tabs.map((t) => t.id), [100]);
});

test("a person's browser closes what it is asked to, and nothing else", async () => {
  const { run, created, removed } = setup();
  const result = await run({ action: "close", tab_id: 7 });
  assert.deepEqual(result.result, { closed: 7 });
  assert.deepEqual([created, removed], [[], [7]]);
  const missing = await run({ action: "close", tab_id: 99 });
  assert.equal(missing.error.code, "tab_not_found");
});

test("select activates the tab; an unknown action is refused", async () => {
  const { run } = setup();
  assert.equal((await run({ action: "select", tab_id: 7 })).result.active, true);
  assert.equal((await run({ action: "reload", tab_id: 7 })).error.code, "invalid_request");
});

test("the popup's activity says what browser_tabs did, in words", async () => {
  const { chrome } = fakeChrome();
  const summaries = workerSummaries();
  const activity = createActivity({ chrome, summaries, now: () => 1000, timers: realTimers, saveDelayMs: 0 });
  const cases = [
    [{ action: "new" }, { ok: true, result: { url: "https://b.example/" } }, "opened a tab: https://b.example/"],
    [{ action: "close", tab_id: 7 }, { ok: true }, "closed tab 7"],
    [{ action: "select", tab_id: 7 }, { ok: true }, "selected tab 7"],
    [{ action: "list" }, { ok: true }, "listed the tabs"],
  ];
  for (const [params, result] of cases) activity.begin({ id: "x", command: "browser_tabs", params })(result);
  const entries = await activity.list();
  assert.deepEqual(entries.map((e) => e.summary), cases.map(([, , words]) => words).reverse());
});

test("the tabs the AI opens go into one group titled tabpilot, and are remembered across a worker restart", async () => {
  const { run, grouped, groups, chrome } = setup();
  await run({ action: "new", url: "https://b.example/" });
  await run({ action: "new", url: "https://c.example/" });
  assert.deepEqual(grouped, [100, 101]);
  assert.deepEqual(groups, [{ id: 3, title: "tabpilot", color: "blue" }]);
  assert.deepEqual(chrome.sessionStore.aiTabs, [100, 101]);
  // A new worker reads them back: closing the active one without tab_id still works.
  const again = setup({ session: { aiTabs: [100] }, tabs: [{ id: 7, url: "https://a.example/", active: false, windowId: 1 }, { id: 100, url: "https://b.example/", active: true, windowId: 1 }] });
  assert.deepEqual((await again.run({ action: "close" })).result, { closed: 100 });
});

test("the managed browser puts no tab into a group", async () => {
  const { run, grouped } = setup({ managed: true });
  await run({ action: "new", url: "https://b.example/" });
  assert.deepEqual(grouped, []);
});

test("close without tab_id closes the active tab only if the AI opened it", async () => {
  const { run, removed } = setup();
  const refused = await run({ action: "close" });
  assert.equal(refused.error.code, "invalid_request");
  assert.match(refused.error.message, /opened by the person at the browser.*pass its tab_id/);
  await run({ action: "new", url: "https://b.example/" });
  assert.deepEqual((await run({ action: "close" })).result, { closed: 100 });
  assert.deepEqual(removed, [100]);
});

test("browser_close closes the AI's tabs, not the person's", async () => {
  const { run, removed, tabs } = setup();
  await run({ action: "new", url: "https://b.example/" });
  await run({ action: "new", url: "https://c.example/" });
  await run({ action: "close", tab_id: 101 });
  const closed = await run({}, "browser_close");
  assert.deepEqual(closed.result, { closed_tabs: [100] });
  assert.deepEqual(removed, [101, 100]);
  assert.deepEqual(tabs.map((t) => t.id), [7]);
  assert.deepEqual((await run({}, "browser_close")).result, { closed_tabs: [] });
});

test("browser_close in the managed browser opens its landing page rather than close its last tab", async () => {
  const { run, created, tabs } = setup({ managed: true, tabs: [] });
  await run({ action: "new", url: "https://b.example/" });
  const closed = await run({}, "browser_close");
  assert.deepEqual(closed.result, { closed_tabs: [100] });
  assert.deepEqual(created, ["about:blank", LANDING]);
  assert.deepEqual(tabs.map((t) => t.id), [101]);
});

test("browser_close lets go of every tab the debugger holds in a person's browser", async () => {
  const { chrome } = fakeChrome({ tabs: [{ id: 7, url: "https://a.example/", active: true, windowId: 1 }], storage: { debuggerEnabled: true } });
  const detached = [];
  const listeners = () => ({ addListener() {} });
  chrome.debugger = {
    onDetach: listeners(),
    onEvent: listeners(),
    attach: async () => {},
    sendCommand: async () => ({}),
    detach: async ({ tabId }) => detached.push(tabId),
  };
  chrome.tabs.onCreated = listeners();
  chrome.tabs.query = async () => [];
  const commands = createCommands({
    chrome,
    pilot: { ready: Promise.resolve(), isEnabled: () => true },
    timers: realTimers,
    fetch: async () => ({ ok: false }),
    managed: Promise.resolve({ managed: false }),
    landingUrl: async () => LANDING,
  });
  await commands.debug.ready;
  await commands.debug.send(7, "Page.enable", {});
  const closed = await commands.run({ type: "command", id: "c", command: "browser_close", params: {} });
  assert.deepEqual(closed.result, { closed_tabs: [] });
  assert.deepEqual(detached, [7]);
});

test("browser_navigate is not answered by the load of a page that was still loading when it began", async () => {
  const { run, chrome, tabs } = setup();
  const nav = chrome.webNavigation;
  const tab = tabs[0];
  const event = (url) => ({ tabId: 7, frameId: 0, url, documentId: `doc-${url}` });
  chrome.tabs.get = async (id) => ({ ...tabs.find((t) => t.id === id) });
  // Chrome queues this navigation behind one about to commit: the earlier page commits and loads
  // first, while the tab still has this url pending.
  chrome.tabs.update = async (id, { url }) => {
    tab.pendingUrl = url;
    nav.onBeforeNavigate.emit(event(url));
    setTimeout(() => {
      nav.onCommitted.emit(event("https://earlier.example/"));
      nav.onCompleted.emit(event("https://earlier.example/"));
      Object.assign(tab, { url: "https://earlier.example/", title: "earlier" });
    }, 5);
    setTimeout(() => {
      Object.assign(tab, { url, pendingUrl: undefined, title: "later" });
      nav.onCommitted.emit(event(url));
      nav.onCompleted.emit(event(url));
    }, 60);
    return { ...tab };
  };
  const result = await run({ url: "https://later.example/", tab_id: 7 }, "browser_navigate");
  assert.equal(result.ok, true, JSON.stringify(result.error));
  assert.deepEqual([result.result.url, result.result.title], ["https://later.example/", "later"]);
});

test("a new tab's answer is not its blank page's load, which may end after the url was asked for", async () => {
  const { run, chrome, tabs } = setup();
  const nav = chrome.webNavigation;
  chrome.tabs.get = async (id) => ({ ...tabs.find((t) => t.id === id) });
  const event = (id, url) => ({ tabId: id, frameId: 0, url, documentId: `doc-${url}` });
  chrome.tabs.update = async (id, { active, url }) => {
    const tab = tabs.find((t) => t.id === id);
    if (active !== undefined) tab.active = active;
    if (url === undefined) return { ...tab };
    // The blank page commits and loads late, before Chrome starts the url's navigation.
    nav.onCommitted.emit(event(id, "about:blank"));
    nav.onCompleted.emit(event(id, "about:blank"));
    Object.assign(tab, { url: "about:blank", title: "about:blank" });
    setTimeout(() => {
      nav.onBeforeNavigate.emit(event(id, url));
      Object.assign(tab, { url, title: "Shop" });
      nav.onCommitted.emit(event(id, url));
      nav.onCompleted.emit(event(id, url));
    }, 30);
    return { ...tab };
  };
  const opened = await run({ action: "new", url: "https://shop.example/" });
  assert.equal(opened.ok, true, JSON.stringify(opened.error));
  assert.deepEqual([opened.result.url, opened.result.title], ["https://shop.example/", "Shop"]);
});
