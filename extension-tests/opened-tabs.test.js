// tab/opened-tabs.js: which tab opened which, heard from tabs.onCreated and from
// webNavigation.onCreatedNavigationTarget (a noopener tab has no openerTabId), and the tabs an
// action opened that closed by themselves.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createOpenedTabs } from "../extension/worker/tab/opened-tabs.js";
import { realTimers } from "./support/fake-chrome.js";

function event() {
  const listeners = [];
  return { addListener: (fn) => listeners.push(fn), emit: (...args) => listeners.forEach((fn) => fn(...args)) };
}

function setup(tabs) {
  const session = {};
  const chrome = {
    storage: { session: { get: async (key) => ({ [key]: session[key] }), set: async (v) => Object.assign(session, v) } },
    tabs: {
      onCreated: event(),
      onUpdated: event(),
      onRemoved: event(),
      get: async (id) => {
        const tab = tabs.find((t) => t.id === id);
        if (!tab) throw new Error(`No tab with id: ${id}.`);
        return tab;
      },
    },
    windows: { get: async (id) => ({ id, type: id === 2 ? "popup" : "normal" }) },
    webNavigation: { onCreatedNavigationTarget: event(), onCommitted: event() },
  };
  const added = [];
  const opened = createOpenedTabs({ chrome, timers: realTimers, aiTabs: { add: async (tab) => added.push(tab.id) } });
  return { chrome, opened, added, session };
}

const PAGE = { id: 7, url: "https://a.test/", title: "A", status: "complete", windowId: 1 };

test("a tab opened with noopener is told by onCreatedNavigationTarget, with its title", async () => {
  const tabs = [PAGE, { id: 9, url: "https://b.test/pay", title: "Checkout", status: "complete", windowId: 1 }];
  const { chrome, opened, added } = setup(tabs);
  const watch = opened.watch(7);
  chrome.tabs.onCreated.emit({ id: 9, url: "", windowId: 1 }); // no openerTabId
  assert.equal(watch.opened.length, 0);
  chrome.webNavigation.onCreatedNavigationTarget.emit({ sourceTabId: 7, tabId: 9, url: "https://b.test/pay" });
  assert.deepEqual(await watch.settled(1000), [{ id: 9, url: "https://b.test/pay", title: "Checkout" }]);
  assert.equal(opened.openerOf(tabs[1]), 7);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(added, [9]);
  watch.stop();
});

test("a popup window's tab says so; a loading page's url is not its title", async () => {
  const tabs = [PAGE, { id: 9, url: "https://b.test/pay", title: "b.test/pay", status: "loading", windowId: 2, openerTabId: 7 }];
  const { chrome, opened } = setup(tabs);
  const watch = opened.watch(7);
  chrome.tabs.onCreated.emit(tabs[1]);
  assert.deepEqual(await watch.settled(100), [{ id: 9, url: "https://b.test/pay", title: "", popup: true }]);
  watch.stop();
});

test("a tab an action opened that closed itself is closed where it ended; one tabpilot closed is not listed", async () => {
  const tabs = [PAGE, { id: 9, url: "", title: "", windowId: 2, openerTabId: 7 }, { id: 10, url: "", title: "", windowId: 1, openerTabId: 7 }];
  const { chrome, opened } = setup(tabs);
  const watch = opened.watch(7);
  chrome.tabs.onCreated.emit(tabs[1]);
  chrome.tabs.onCreated.emit(tabs[2]);
  chrome.webNavigation.onCommitted.emit({ tabId: 9, frameId: 0, url: "https://b.test/auth" });
  chrome.webNavigation.onCommitted.emit({ tabId: 9, frameId: 0, url: "https://a.test/cb?code=1" });
  tabs.splice(1, 1);
  chrome.tabs.onRemoved.emit(9);
  opened.closingTabs([10]);
  tabs.splice(1, 1);
  chrome.tabs.onRemoved.emit(10);
  const [closed] = await watch.settled(100);
  assert.deepEqual(closed, { id: 9, url: "https://b.test/auth", title: "", closed: true, ended_url: "https://a.test/cb?code=1" });
  assert.deepEqual(opened.recentlyClosed(), [{ ...closed, opener: 7 }]);
  watch.stop();
});
