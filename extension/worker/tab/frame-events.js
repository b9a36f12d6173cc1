// The main-frame events of each tab (chrome.webNavigation and chrome.tabs), for whoever waits on a
// navigation: browser_navigate (tools/navigate.js), and browser_act, which asks whether the tab's
// main frame navigated meanwhile (tools/page-act.js).

const FRAME_EVENTS = [
  "onBeforeNavigate",
  "onCommitted",
  "onDOMContentLoaded",
  "onCompleted",
  "onErrorOccurred",
  "onHistoryStateUpdated",
  "onReferenceFragmentUpdated",
];

// The main-frame events of each tab, handed to whoever follows it. The listeners are added once,
// in the worker's first turn (createCommands runs then), as Chrome wants for waking the worker.
export function createFrameEvents({ chrome, timers }) {
  const followers = new Map(); // tab id -> Set of trackers
  const tell = (tabId, name, details) => {
    for (const tracker of followers.get(tabId) ?? []) tracker.hear(name, details);
  };
  for (const name of FRAME_EVENTS) {
    chrome.webNavigation?.[name]?.addListener((d) => d.frameId === 0 && tell(d.tabId, name, d));
  }
  chrome.tabs.onUpdated.addListener((tabId, change) => tell(tabId, "tabUpdated", change));
  chrome.tabs.onRemoved.addListener((tabId) => tell(tabId, "tabRemoved", {}));

  // Follows one tab's main frame from now on. `state` says what happened; `wait(done, ms)`
  // resolves true once done(state) holds, false if `ms` pass first. With `startUrl` (http or https),
  // the follower is about to start a navigation to it: until that one starts, the events of a page
  // already on its way are not heard, nor ever those of a new tab's blank page, which may come late.
  function follow(tabId, { startUrl = null } = {}) {
    const state = {
      started: false,
      committed: false,
      domReady: false,
      loaded: false,
      sameDocument: false,
      closed: false,
      error: null,
      url: null,
      loading: false,
    };
    const waiters = new Set();
    const check = () => {
      for (const waiter of waiters) if (waiter.done(state)) waiter.finish(true);
    };
    const tracker = {
      state,
      hear(name, d) {
        const fresh = { error: null, domReady: false, loaded: false };
        // The document a load event is of: one still loading when this navigation began finishes
        // after it started, and its load is not this one's (documentId: Chrome 106+).
        const ours = () =>
          state.committed && (state.documentId == null || d.documentId == null || d.documentId === state.documentId);
        if (startUrl !== null) {
          // An http(s) navigation never ends on about:blank: such events are a new tab's blank page.
          if (typeof d.url === "string" && d.url.startsWith("about:")) return;
          const starts = (name === "onBeforeNavigate" || name === "onCommitted") && d.url === startUrl;
          if (starts) state.started = true;
          else if (!state.started && name !== "tabRemoved" && name !== "onErrorOccurred") return;
        }
        if (name === "onBeforeNavigate") Object.assign(state, { started: true, url: d.url, ...fresh });
        else if (name === "onCommitted")
          Object.assign(state, { committed: true, url: d.url, documentId: d.documentId ?? null, ...fresh });
        else if (name === "onDOMContentLoaded") state.domReady ||= ours();
        else if (name === "onCompleted") state.loaded = state.domReady ||= ours();
        else if (name === "onHistoryStateUpdated" || name === "onReferenceFragmentUpdated")
          Object.assign(state, { sameDocument: true, url: d.url });
        // A navigation that another one replaced (this command's replaced the page's own, say) ends
        // aborted: that is not this command's.
        else if (name === "onErrorOccurred" && !(d.error === "net::ERR_ABORTED" && state.url && d.url !== state.url))
          state.error = d.error;
        else if (name === "tabUpdated" && d.status === "loading") state.loading = true;
        else if (name === "tabUpdated" && d.status === "complete" && state.loading && state.committed)
          state.loaded = state.domReady = true;
        else if (name === "tabRemoved") state.closed = true;
        check();
      },
      wait(done, ms) {
        if (done(state)) return Promise.resolve(true);
        return new Promise((resolve) => {
          const waiter = {
            done,
            finish(value) {
              timers.clearTimeout(waiter.timer);
              waiters.delete(waiter);
              resolve(value);
            },
          };
          waiter.timer = timers.setTimeout(() => waiter.finish(false), Math.max(0, ms));
          waiters.add(waiter);
        });
      },
      stop() {
        followers.get(tabId)?.delete(tracker);
        for (const waiter of waiters) waiter.finish(false);
      },
    };
    const set = followers.get(tabId) ?? new Set();
    followers.set(tabId, set);
    set.add(tracker);
    return tracker;
  }

  return { follow };
}
