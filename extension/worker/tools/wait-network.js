// browser_wait_for's network_idle: each tab's requests under way, seen with chrome.webRequest
// (which watches without blocking), and the time of its last request start or end. The tab is idle
// once nothing is under way and nothing started or ended for IDLE_MS, as Playwright's
// "networkidle". The network log (logs-network.js) keeps each tab's history for reading; this
// keeps only what is under way, for waiting on.
export const IDLE_MS = 500;
// A tab's requests under way that are kept at most: a request whose end was missed (the worker was
// stopped meanwhile) must not hold memory for ever.
const MAX_PENDING = 500;
// A WebSocket stays open once its handshake ends; only its handshake is a request that can end.
const IGNORED_TYPES = new Set(["websocket"]);

export function createNetworkWatch({ chrome, pilot, timers, now = Date.now }) {
  const tabs = new Map(); // tab id -> {pending: Map(requestId -> {method, url, start}), last}
  const waiters = new Map(); // tab id -> Set of waiter

  const own = chrome.runtime?.getURL?.("") || null;
  const ours = (d) =>
    d.tabId >= 0 && pilot.isEnabled() && !IGNORED_TYPES.has(d.type) && !(own && String(d.url).startsWith(own));
  const stateOf = (tabId) => {
    let state = tabs.get(tabId);
    if (!state) tabs.set(tabId, (state = { pending: new Map(), last: 0 }));
    return state;
  };
  const changed = (tabId) => {
    for (const waiter of waiters.get(tabId) ?? []) waiter.arm();
  };
  const started = (d) => {
    if (!ours(d)) return;
    const state = stateOf(d.tabId);
    state.pending.set(d.requestId, { method: d.method, url: String(d.url).slice(0, 300), start: now() });
    if (state.pending.size > MAX_PENDING) state.pending.delete(state.pending.keys().next().value);
    state.last = now();
    changed(d.tabId);
  };
  const ended = (d) => {
    const state = tabs.get(d.tabId);
    if (!state?.pending.delete(d.requestId)) return;
    state.last = now();
    changed(d.tabId);
  };
  const filter = { urls: ["<all_urls>"] };
  // Registered in the worker's first turn, like every listener Chrome must wake the worker for.
  chrome.webRequest?.onBeforeRequest.addListener(started, filter);
  chrome.webRequest?.onCompleted.addListener(ended, filter);
  chrome.webRequest?.onErrorOccurred.addListener(ended, filter);
  chrome.tabs.onRemoved.addListener((tabId) => tabs.delete(tabId));

  // What is under way in the tab, oldest first, for a timeout's message: `GET https://… (2.1 s)`.
  function underWay(tabId, max = 3) {
    const pending = [...(tabs.get(tabId)?.pending.values() ?? [])];
    const shown = pending.slice(0, max).map((r) => `${r.method} ${r.url} (${((now() - r.start) / 1000).toFixed(1)} s)`);
    return { count: pending.length, shown };
  }

  // `promise` resolves once the tab is idle; `stop()` ends the watch; `already`: it was idle when
  // asked (nothing under way, and nothing started or ended for IDLE_MS).
  function idle(tabId) {
    let timer = null;
    let idleNow = false;
    let done;
    const promise = new Promise((resolve) => (done = resolve));
    const waiter = {
      arm() {
        if (timer !== null) timers.clearTimeout(timer);
        timer = null;
        const state = tabs.get(tabId);
        if (state && state.pending.size > 0) return;
        const left = (state?.last ?? 0) + IDLE_MS - now();
        if (left <= 0) finish();
        else timer = timers.setTimeout(() => waiter.arm(), left);
      },
    };
    const set = waiters.get(tabId) ?? new Set();
    waiters.set(tabId, set);
    const stop = () => {
      if (timer !== null) timers.clearTimeout(timer);
      set.delete(waiter);
      if (set.size === 0) waiters.delete(tabId);
    };
    const finish = () => {
      idleNow = true;
      stop();
      done(true);
    };
    set.add(waiter);
    waiter.arm();
    return { promise, stop, already: idleNow };
  }

  return { idle, underWay };
}
