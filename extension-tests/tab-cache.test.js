// The target tab kept between commands (background/tab-cache.js): asked of Chrome once, then kept
// until an event says it may have changed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createTabCache } from "../extension/worker/tab/tab-cache.js";
import { fakeChrome } from "./support/fake-chrome.js";

function setup() {
  const tabs = [
    { id: 7, url: "https://a.example/", title: "A", active: true, windowId: 1 },
    { id: 8, url: "https://b.example/", title: "B", active: false, windowId: 1 },
  ];
  const { chrome } = fakeChrome({ tabs });
  const asked = { get: 0, query: 0 };
  const { get, query } = chrome.tabs;
  chrome.tabs.get = (id) => (asked.get++, get(id));
  chrome.tabs.query = (q) => (asked.query++, query(q));
  return { chrome, tabs, asked, cache: createTabCache(chrome) };
}

test("the active tab is asked for once, and again after the person switches tabs", async () => {
  const { chrome, tabs, asked, cache } = setup();
  assert.equal((await cache.resolve(undefined)).id, 7);
  assert.equal((await cache.resolve(null)).id, 7);
  assert.equal(asked.query, 1);
  Object.assign(tabs[0], { active: false });
  Object.assign(tabs[1], { active: true });
  chrome.tabs.onActivated.emit({ tabId: 8, windowId: 1 });
  assert.equal((await cache.resolve(undefined)).id, 8);
  assert.equal(asked.query, 2);
});

test("a tab named by id is asked for once; its own changes arrive with onUpdated", async () => {
  const { chrome, tabs, asked, cache } = setup();
  await cache.resolve(8);
  const moved = { ...tabs[1], url: "https://b.example/next", title: "Next" };
  chrome.tabs.onUpdated.emit(8, { url: moved.url }, moved);
  assert.equal((await cache.resolve(8)).url, "https://b.example/next");
  assert.equal(asked.get, 1);
});

test("a closed tab is not kept: its id then answers tab_not_found", async () => {
  const { chrome, tabs, cache } = setup();
  await cache.resolve(8);
  tabs.splice(1, 1);
  chrome.tabs.onRemoved.emit(8, { windowId: 1, isWindowClosing: false });
  await assert.rejects(cache.resolve(8), { code: "tab_not_found" });
});

test("a window focus change drops the kept active tab", async () => {
  const { chrome, asked, cache } = setup();
  await cache.resolve(undefined);
  chrome.windows.onFocusChanged.emit(2);
  await cache.resolve(undefined);
  assert.equal(asked.query, 2);
});

test("an answer that was on its way while a tab event came is used, not kept", async () => {
  const { chrome, asked, cache } = setup();
  const pending = cache.resolve(undefined);
  chrome.tabs.onCreated.emit({ id: 9, url: "", active: true, windowId: 1 });
  assert.equal((await pending).id, 7);
  await cache.resolve(undefined);
  assert.equal(asked.query, 2);
});

test("a command without tab_id goes to the window last brought to the front, by a command or by the person", async () => {
  const tabs = [
    { id: 7, url: "https://a.example/", title: "A", active: true, windowId: 1 },
    { id: 9, url: "https://pay.example/", title: "Pay", active: true, windowId: 2 },
  ];
  const { chrome } = fakeChrome({ tabs });
  // Window 2, a popup window, had the focus last, and a headless Chromium keeps it so.
  chrome.tabs.query = async (q) =>
    tabs.filter((t) => t.active && (q.windowId !== undefined ? t.windowId === q.windowId : t.windowId === 2));
  const cache = createTabCache(chrome);
  assert.equal((await cache.resolve(null)).id, 9);
  cache.toFront(1);
  assert.equal((await cache.resolve(null)).id, 7);
  chrome.windows.onFocusChanged.emit(2);
  assert.equal((await cache.resolve(null)).id, 9);
  chrome.windows.onFocusChanged.emit(-1); // Chrome lost the focus to another application
  assert.equal((await cache.resolve(null)).id, 9);
  cache.toFront(1);
  tabs.splice(0, 1); // window 1 closed with its tab
  chrome.windows.onRemoved.emit(1);
  assert.equal((await cache.resolve(null)).id, 9);
});
