// browser_navigate: go to a url, back, forward or reload, and wait for the page to load
// (docs/protocol.md §1, "browser_navigate"). The tab's main-frame events come from
// tab/frame-events.js.
import { CommandError } from "../link/errors.js";
import { tabInfo } from "../tab/tabs.js";

const ACTIONS = ["goto", "back", "forward", "reload"];
export const DEFAULT_NAVIGATE_MS = 30_000;
export const MAX_NAVIGATE_MS = 120_000;
// What ends an aborted navigation's wait for the one that replaced it (a redirect by script, say).
const ABORT_GRACE_MS = 500;
const OPENABLE = /^https?:$/;
// How long a script asking the page (its history, its status) may take: a page stuck in a loop
// never answers chrome.scripting.
const ASK_PAGE_MS = 2000;

// Chromium's net error names, by the reason browser_navigate gives.
const NET_REASONS = {
  "net::ERR_NAME_NOT_RESOLVED": "dns",
  "net::ERR_NAME_RESOLUTION_FAILED": "dns",
  "net::ERR_CONNECTION_REFUSED": "connection_refused",
  "net::ERR_TIMED_OUT": "timeout",
  "net::ERR_CONNECTION_TIMED_OUT": "timeout",
  "net::ERR_ABORTED": "aborted",
};

// An http(s) url, or invalid_request naming what it is instead.
export function checkUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new CommandError(
      "invalid_request",
      `${JSON.stringify(url)} is not a url; browser_navigate opens http and https urls.`,
    );
  }
  if (!OPENABLE.test(parsed.protocol)) {
    throw new CommandError(
      "invalid_request",
      `browser_navigate opens http and https urls only, not ${parsed.protocol} urls.`,
    );
  }
  return parsed.href;
}

function navigationFailed(reason, url, tab, extra = {}) {
  const why = {
    dns: `its host name could not be resolved (${extra.net_error}). Check the url's spelling`,
    connection_refused:
      `nothing accepts connections at that address (${extra.net_error}). ` + "Check that the server runs, and the port",
    timeout:
      `it did not finish loading within ${extra.ms ?? "the"} ms. The page may still be loading: ` +
      "browser_read or browser_snapshot shows what arrived; or raise timeout_ms",
    http_status: `the server answered HTTP ${extra.status}. The page did load: browser_read shows what it says`,
    aborted:
      `the navigation was stopped before the page loaded (${extra.net_error ?? "aborted"}): another ` +
      "navigation, a download, or the page itself stopped it. Retry, or see what the tab shows now",
    other: `${extra.net_error ?? "the browser gave no reason"}. Retry, or check the url`,
  }[reason];
  const data = { reason, url };
  if (extra.status !== undefined) data.status = extra.status;
  if (extra.net_error) data.net_error = extra.net_error;
  return new CommandError("navigation_failed", `${url} did not load: ${why}.`, { tab, data });
}

// What the popup's Recent activity says of a browser_navigate.
function navigateSummary(params) {
  const action = params?.action ?? "goto";
  if (action === "back") return "went back";
  if (action === "forward") return "went forward";
  if (action === "reload") return "reloaded the page";
  try {
    return `navigated to ${new URL(params.url).host}`;
  } catch {
    return "navigated";
  }
}

// withTimeout(promise, ms, onExpire): tab/machinery.js's, which rejects with onExpire() after ms.
export function createNavigateTools({ chrome, tabs, frames, dialogs, sites, withTimeout }) {
  const askPage = (tabId, func, args = []) =>
    withTimeout(
      chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, world: "ISOLATED", func, args }),
      ASK_PAGE_MS,
      () => new Error("the page did not answer"),
    );

  // The main document's HTTP status, as the page's own timing entry says, and its title (Chrome
  // may still show a tab that loaded in the background under its url); nulls where the page
  // cannot be read (an error page) or does not say.
  async function pageFacts(tabId) {
    const facts = () => ({
      status: performance.getEntriesByType("navigation")[0]?.responseStatus ?? null,
      title: document.title,
    });
    try {
      const [first] = await askPage(tabId, facts);
      const { status, title } = first?.result ?? {};
      return { status: Number.isInteger(status) && status > 0 ? status : null, title: title || null };
    } catch {
      return { status: null, title: null };
    }
  }

  // Back and forward go through the page's own history where a script can reach it: Chrome's back
  // button (chrome.tabs.goBack) skips an entry whose page navigated without a user gesture (its
  // history manipulation intervention), and a click on the DOM route has no user gesture, so the
  // page it was made on would be skipped. The page's history.go() skips nothing; the Navigation API
  // says whether there is a same-origin entry to go to, else Chrome's own way is taken.
  async function inPage(tab, step) {
    const go = (n) => {
      const can = n < 0 ? globalThis.navigation?.canGoBack : globalThis.navigation?.canGoForward;
      if (can) history.go(n);
      return can === true;
    };
    try {
      const [first] = await askPage(tab.id, go, [step]);
      return first?.result === true;
    } catch {
      return false; // not a page scripts may reach, or one stuck in a loop
    }
  }

  async function start(action, tab, url) {
    try {
      if (action === "goto") await chrome.tabs.update(tab.id, { url });
      else if (action === "back") (await inPage(tab, -1)) || (await chrome.tabs.goBack(tab.id));
      else if (action === "forward") (await inPage(tab, 1)) || (await chrome.tabs.goForward(tab.id));
      else await chrome.tabs.reload(tab.id);
    } catch (err) {
      // "Cannot find a next page in history", say.
      const why = String(err?.message ?? err).replace(/\.+$/, "");
      throw new CommandError("invalid_request", `Tab ${tab.id} cannot go ${action}: ${why}.`, { tab: tabInfo(tab) });
    }
  }

  async function browserNavigate(params) {
    const action = params.action ?? "goto";
    if (!ACTIONS.includes(action)) {
      throw new CommandError(
        "invalid_request",
        `Unknown action ${JSON.stringify(action)}; the actions are ${ACTIONS.join(", ")}.`,
      );
    }
    if (action === "goto" && typeof params.url !== "string")
      throw new CommandError("invalid_request", 'browser_navigate "goto" needs a url.');
    if (action !== "goto" && params.url != null) {
      throw new CommandError("invalid_request", `browser_navigate "${action}" takes no url; use "goto" to open one.`);
    }
    const url = action === "goto" ? checkUrl(params.url) : null;
    // A ruled-out site is refused before anything starts; back, forward and a redirect are judged
    // where they land (commands.js).
    if (url) sites.assertUrl(url, `Cannot open ${url}`);
    const timeoutMs = Number.isInteger(params.timeout_ms)
      ? Math.min(Math.max(params.timeout_ms, 1), MAX_NAVIGATE_MS)
      : DEFAULT_NAVIGATE_MS;
    const tab = await tabs.resolve(params.tab_id);
    const deadline = Date.now() + timeoutMs;
    const left = () => deadline - Date.now();
    // A goto starts a navigation to its url; a same-document one is heard without it.
    const tracker = frames.follow(tab.id, { startUrl: action === "goto" ? url : null });
    let blocked = null;
    // The page's own dialogs are dismissed, as for scripts; a "leave this page?" one is accepted,
    // since leaving is what was asked.
    const unwatch = dialogs.watch(tab.id, (dialog) => {
      dialogs.settle(tab, { dialog: dialog.type === "beforeunload" ? "accept" : "dismiss" }, true).catch((err) => {
        blocked = err;
        tracker.hear("blocked", {});
      });
    });
    try {
      // A dialog left open stops the page; answered first where the debugger may, else dialog_open.
      await dialogs.settle(tab, { dialog: "dismiss" });
      await start(action, tab, url);
      const over = (s) => s.loaded || s.sameDocument || s.closed || s.error !== null || blocked !== null;
      let done = await tracker.wait(over, left());
      // An aborted navigation may have been replaced by another: follow that one instead.
      while (done && tracker.state.error === "net::ERR_ABORTED" && !blocked) {
        Object.assign(tracker.state, { error: null, started: false, committed: false });
        const restarted = await tracker.wait(
          (s) => s.error !== null || s.loaded || s.started,
          Math.min(ABORT_GRACE_MS, left()),
        );
        if (!restarted || tracker.state.error !== null) {
          tracker.state.error ??= "net::ERR_ABORTED";
          break;
        }
        done = await tracker.wait(over, left());
      }
      // A page still loading when this navigation began may finish first (Chrome lets a navigation
      // about to commit do so, and queues this one): while the tab still has this url pending,
      // the load heard was that page's.
      const stillPending = async () => (await chrome.tabs.get(tab.id).catch(() => null))?.pendingUrl === url;
      while (done && action === "goto" && !blocked && !tracker.state.error && !tracker.state.closed && (await stillPending())) {
        Object.assign(tracker.state, { committed: false, domReady: false, loaded: false, sameDocument: false });
        done = await tracker.wait(over, left());
      }
      if (blocked) throw blocked;
      const now = tabInfo(await chrome.tabs.get(tab.id).catch(() => tab));
      const target = url ?? tracker.state.url ?? now.url;
      if (tracker.state.closed)
        throw new CommandError("tab_not_found", `Tab ${tab.id} was closed while it loaded ${target}.`);
      if (tracker.state.error) {
        const net = tracker.state.error;
        throw navigationFailed(NET_REASONS[net] ?? "other", target, now, { net_error: net, ms: timeoutMs });
      }
      if (!done) throw navigationFailed("timeout", target, now, { ms: timeoutMs });
      const sameDocument = tracker.state.sameDocument && !tracker.state.committed;
      const { status, title } = sameDocument ? { status: null, title: null } : await pageFacts(tab.id);
      if (status !== null && status >= 400) throw navigationFailed("http_status", now.url, now, { status });
      const loaded = { ...now, title: title ?? now.title };
      return { result: { url: now.url, title: loaded.title, status }, result_type: "object", tab: loaded };
    } finally {
      unwatch();
      tracker.stop();
    }
  }

  return { handlers: { browser_navigate: browserNavigate }, summaries: { browser_navigate: navigateSummary } };
}
