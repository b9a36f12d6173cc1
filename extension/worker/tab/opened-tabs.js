// The tabs a page opens (a link with target=_blank, window.open, a popup window): which tab opened
// which (browser_tabs list's `opener`), what an action opened (browser_act's and browser_fill_form's
// `opened`, act-runner.js), and the tabs an action opened that have closed since, with the url each
// ended on: an OAuth popup opens, redirects and closes itself.
//
// Chrome names the opener in two places. tabs.onCreated's openerTabId is unset for a link with
// rel=noopener and for window.open(url, name, "noopener"); webNavigation.onCreatedNavigationTarget's
// sourceTabId is set for every tab a page opens, a little later. Both are heard; the first tells.

export const OPENERS_KEY = "openers";
// How long an answer waits for a tab the action opened to have a title (its page's first load).
export const TITLE_MS = 1500;
const POLL_MS = 50;
// A closed tab is listed by browser_tabs list for this long, the last few only.
const CLOSED_KEEP_MS = 5 * 60_000;
const CLOSED_MAX = 10;

const urlTitle = (url, title) => typeof url === "string" && (url === title || url.replace(/^[a-z-]+:\/\//i, "") === title);

export function createOpenedTabs({ chrome, timers, aiTabs, now = Date.now }) {
  const openers = new Map(); // tab id -> the id of the tab that opened it
  const watchers = new Map(); // opener tab id -> Set of functions told of each tab it opens
  const followed = new Map(); // tab id an action opened -> {id, url, title, opener, ended_url}
  let closed = []; // the followed tabs that closed: {id, url, title, opener, closed, ended_url, at}
  // Kept in storage.session, so that a worker Chrome stopped and started again still knows them.
  const ready = Promise.resolve()
    .then(() => chrome.storage.session.get(OPENERS_KEY))
    .then((stored) => {
      for (const [id, opener] of stored?.[OPENERS_KEY] ?? []) if (!openers.has(id)) openers.set(id, opener);
    })
    .catch((err) => console.warn("tabpilot: could not load which tab opened which", err));
  const save = () =>
    ready.then(() => Promise.resolve(chrome.storage.session.set({ [OPENERS_KEY]: [...openers] })).catch(() => {}));

  // Registered in the worker's first turn, like every listener Chrome must wake the worker for.
  function heard(openerId, tab) {
    if (!Number.isInteger(openerId) || !Number.isInteger(tab?.id) || openerId === tab.id) return;
    if (!openers.has(tab.id)) {
      openers.set(tab.id, openerId);
      save();
    }
    for (const told of watchers.get(openerId) ?? []) told(tab);
    // onCreated may come before the tab knows where it goes; the navigation's event says it.
    const entry = followed.get(tab.id);
    if (entry && !entry.url && tab.url) entry.url = tab.url;
  }
  chrome.tabs.onCreated?.addListener((tab) => heard(tab.openerTabId, tab));
  chrome.webNavigation?.onCreatedNavigationTarget?.addListener((d) =>
    heard(d.sourceTabId, { id: d.tabId, url: d.url, title: "" }),
  );
  const ended = (tabId, url) => {
    const entry = followed.get(tabId);
    if (!entry || typeof url !== "string" || !url) return;
    entry.url ||= url;
    entry.ended_url = url;
  };
  chrome.tabs.onUpdated?.addListener((tabId, change, tab) => {
    ended(tabId, change.url);
    const entry = followed.get(tabId);
    if (entry && tab?.title) entry.title = tab.title;
  });
  chrome.webNavigation?.onCommitted?.addListener((d) => d.frameId === 0 && ended(d.tabId, d.url));
  const closing = new Set(); // tabs tabpilot itself closes: not news for anyone
  chrome.tabs.onRemoved?.addListener((tabId) => {
    const entry = followed.get(tabId);
    if (entry && closing.delete(tabId)) followed.delete(tabId);
    else if (entry) {
      followed.delete(tabId);
      closed = [...closed.slice(1 - CLOSED_MAX), { ...entry, closed: true, at: now() }];
    }
    if (openers.delete(tabId)) save();
  });

  const closedEntry = (tabId) => closed.find((c) => c.id === tabId);
  const describeClosed = ({ id, url, title, ended_url }) => ({ id, url, title, closed: true, ended_url });

  // A tab as an answer gives it: where it is, its title, whether it sits in a popup window.
  async function describe(tabId) {
    const tab = await Promise.resolve(chrome.tabs.get(tabId)).catch(() => null);
    if (!tab) {
      const gone = closedEntry(tabId) ?? followed.get(tabId);
      return gone ? describeClosed({ ...gone, ended_url: gone.ended_url || gone.url }) : { id: tabId, url: "", title: "", closed: true };
    }
    const info = { id: tab.id, url: tab.url || tab.pendingUrl || "", title: tab.title || "" };
    // While a page loads, Chrome shows its url (without the scheme) as its title: not a title yet.
    if (tab.status !== "complete" && [tab.url, tab.pendingUrl].some((url) => urlTitle(url, info.title))) info.title = "";
    const window = await Promise.resolve(chrome.windows?.get?.(tab.windowId)).catch(() => null);
    if (window?.type === "popup") info.popup = true;
    return info;
  }

  // Watches the tabs `tabId` opens from now on; each is the AI's. `opened` lists them as Chrome
  // first named them; `add(tab)` adds one the worker opened itself.
  function watch(tabId) {
    const opened = [];
    const told = (tab) => {
      if (opened.some((t) => t.id === tab.id)) return;
      opened.push(tab);
      followed.set(tab.id, { id: tab.id, url: tab.pendingUrl || tab.url || "", title: "", opener: tabId, ended_url: "" });
      // The event of webNavigation names no window, which grouping needs.
      Promise.resolve(chrome.tabs.get(tab.id))
        .catch(() => null)
        .then((full) => full && aiTabs.add(full))
        .catch((err) => console.warn("tabpilot: could not remember a tab the AI opened", err));
    };
    const set = watchers.get(tabId) ?? new Set();
    watchers.set(tabId, set);
    set.add(told);

    // The opened tabs once each has a title, has closed or `ms` have passed.
    async function settled(ms) {
      const until = now() + Math.max(0, Math.min(ms, TITLE_MS));
      for (;;) {
        const tabs = await Promise.all(opened.map((t) => describe(t.id)));
        if (now() >= until || tabs.every((t) => t.closed || t.title)) return tabs;
        await new Promise((resolve) => timers.setTimeout(resolve, POLL_MS));
      }
    }

    return {
      opened,
      add: told,
      settled,
      stop() {
        set.delete(told);
        if (set.size === 0) watchers.delete(tabId);
      },
    };
  }

  // Which tab opened this one, if a page did.
  const openerOf = (tab) => openers.get(tab.id) ?? (Number.isInteger(tab.openerTabId) ? tab.openerTabId : null);

  // The tabs an action opened that have closed in the last minutes, for browser_tabs list.
  function recentlyClosed() {
    closed = closed.filter((c) => now() - c.at < CLOSED_KEEP_MS);
    return closed.map((c) => ({ ...describeClosed({ ...c, ended_url: c.ended_url || c.url }), opener: c.opener }));
  }

  // browser_tabs close and browser_close are about to close these tabs: they did not close
  // themselves, and browser_tabs list does not list them as closed.
  function closingTabs(tabIds) {
    for (const id of tabIds) if (followed.has(id)) closing.add(id);
  }

  return { ready, watch, openerOf, recentlyClosed, closingTabs };
}
