// Storage state: this browser's cookies and its pages' localStorage, out (storage_export) and in
// (storage_import), in Playwright's storageState shape (docs/protocol.md §1, "Storage state").
//
// Exporting from a person's Chrome hands over their login sessions, HttpOnly cookies that no page
// script can read included, so there it needs its own popup switch (storage.local "exportEnabled",
// off by default; only the popup writes it). The daemon's managed browser needs none. Importing
// replaces every cookie of the browser, so it runs only in a managed browser.
//
// localStorage belongs to an origin, and only a document of that origin can write it. An origin that
// is not open is given one without a request leaving the browser: a background tab whose navigation
// to the origin is answered by the debugger (Fetch.fulfillRequest) with an empty page, so it works
// for any origin, reachable or not, through a proxy or not.
import { plural } from "../link/activity.js";
import { CommandError } from "../link/errors.js";
import { hiddenTab, tabInfo } from "../tab/tabs.js";
import { fromChromeCookie, toChromeSetDetails } from "../../shared/storage-state.js";

export const EXPORT_KEY = "exportEnabled";
// How long one tab may take to hand over its localStorage: a page stuck in a loop never answers.
export const READ_MS = 3000;
// The whole of an import, and how many origins are written at once.
export const IMPORT_MS = 30_000;
const ORIGINS_AT_ONCE = 4;
const WEB_URL = /^https?:\/\//i;
// The icon link keeps Chrome from asking the origin for /favicon.ico.
const BLANK_PAGE = '<!doctype html><link rel="icon" href="data:,">';

const EXPORT_OFF =
  "Saving this browser's cookies and storage is off. The person at this browser must turn on " +
  '"Let the AI save this browser\'s cookies" in the tabpilot popup (toolbar icon); the AI cannot turn it on.';
const IMPORT_HUMAN =
  "storage_import refused: loading a storage state replaces every cookie of the browser, so tabpilot does it " +
  "only in a managed context it created (browser_context_create with storage_state), never in a person's Chrome.";

// Runs in the page's isolated world, which shares the origin's localStorage: it is serialized, so
// it uses nothing from this module.
function readLocalStorage() {
  try {
    const items = [];
    for (let i = 0; i < localStorage.length; i += 1) {
      const name = localStorage.key(i);
      items.push({ name, value: localStorage.getItem(name) });
    }
    return { origin: location.origin, items };
  } catch (err) {
    return { origin: location.origin, error: String(err?.message ?? err) };
  }
}

// Runs in the blank page of the origin being written: what was there before is replaced.
function writeLocalStorage(origin, items) {
  if (location.origin !== origin) return { error: `the page is ${location.origin}, not ${origin}` };
  localStorage.clear();
  for (const { name, value } of items) localStorage.setItem(name, value);
  return { written: localStorage.length };
}

// What a storage command saved or loaded, for the popup's Recent activity. A failed one says what it
// tried; its code is shown beside.
function exportSummary(_params, result) {
  const state = result?.result;
  if (result?.ok !== true) return "tried to save this browser's cookies and storage";
  const cookies = plural(state?.cookies?.length ?? 0, "cookie");
  return `saved this browser's cookies and storage (${cookies}, ${plural(state?.origins?.length ?? 0, "site")})`;
}

function importSummary(_params, result) {
  const done = result?.result;
  if (result?.ok !== true) return "tried to load cookies and storage";
  const refused = done?.refused?.length ? `, ${done.refused.length} refused` : "";
  const counts = `${plural(done?.cookies ?? 0, "cookie")}, ${plural(done?.origins ?? 0, "site")}`;
  return `loaded cookies and storage (${counts}${refused})`;
}

export function createStorageTools(deps) {
  return { handlers: createStorage(deps), summaries: { storage_export: exportSummary, storage_import: importSummary } };
}

// The two commands, keyed by name. `debug`: debugger.js's, whose send attaches first.
export function createStorage({ chrome, debug, managed, timers, sites = null }) {
  // A site the rules refuse (link/site-rules.js) is neither read nor written: its cookies stay out
  // of an export and out of an import, its pages are skipped.
  const ruledOut = (url) => Boolean(sites?.active() && sites.check(url));
  const cookieRuledOut = (cookie) => ruledOut(`https://${String(cookie?.domain ?? "").replace(/^\./, "")}/`);
  const fulfilling = new Map(); // tab id -> the origin whose document the debugger answers there
  const loads = new Map(); // tab id -> what hears its main frame's loads (writeOrigin)

  // Registered in the worker's first turn (createCommands runs then), like the other listeners.
  chrome.webNavigation?.onCompleted?.addListener((d) => d.frameId === 0 && loads.get(d.tabId)?.("loaded", d));
  chrome.webNavigation?.onErrorOccurred?.addListener((d) => d.frameId === 0 && loads.get(d.tabId)?.("error", d));
  chrome.tabs.onRemoved.addListener((tabId) => loads.get(tabId)?.("closed", {}));
  chrome.debugger?.onEvent?.addListener((source, method, params) => {
    if (method !== "Fetch.requestPaused" || !fulfilling.has(source.tabId)) return;
    const reply = {
      requestId: params.requestId,
      responseCode: 200,
      responseHeaders: [{ name: "Content-Type", value: "text/html; charset=utf-8" }],
      body: btoa(BLANK_PAGE),
    };
    Promise.resolve(debug.send(source.tabId, "Fetch.fulfillRequest", reply)).catch((err) =>
      console.warn("tabpilot: could not answer a storage page", err),
    );
  });

  const isManaged = async () => (await managed)?.managed === true;

  async function storageExport() {
    if (!(await isManaged())) {
      const stored = await chrome.storage.local.get(EXPORT_KEY);
      if (stored?.[EXPORT_KEY] !== true) throw new CommandError("export_disabled", EXPORT_OFF);
    }
    if (sites) await sites.ready;
    const [all, read] = await Promise.all([allCookies(), readPages()]);
    const cookies = all.filter((cookie) => !cookieRuledOut(cookie));
    if (read.pages.length === 0) throw noValidPage(read.skipped);
    return { result: { cookies: cookies.map(fromChromeCookie), ...read }, result_type: "object", tab: null };
  }

  // Every cookie of the default store. An empty partitionKey lists the partitioned (CHIPS) ones
  // with the others (Chrome 119+; checked on Chromium 156); without one, getAll lists only the
  // unpartitioned ones.
  const allCookies = () => chrome.cookies.getAll({ partitionKey: {} });

  // The localStorage of each open web page's origin, one entry per origin. Every page is asked, so
  // that each is listed as read or skipped (a crashed or stuck tab shares its origin with others);
  // the first of an origin's pages, in tab order, gives its entry. Reading takes a few ms a page.
  async function readPages() {
    // An incognito window (where the person allowed tabpilot in it) keeps other cookies and storage
    // than the default store this exports.
    const tabs = (await chrome.tabs.query({})).filter((tab) => WEB_URL.test(tabInfo(tab).url) && !tab.incognito);
    const answers = await Promise.all(
      tabs.map(async (tab) => {
        if (ruledOut(tabInfo(tab).url)) return { reason: "a site ruled out by the site rules: not read" };
        const reason = await unreadable(tab);
        return reason ? { reason } : readTab(tab);
      }),
    );
    const pages = [];
    const skipped = [];
    const origins = new Map();
    for (const [index, tab] of tabs.entries()) {
      const answer = answers[index];
      if (answer.reason) {
        const url = ruledOut(tabInfo(tab).url) ? hiddenTab(tab).url : tabInfo(tab).url;
        skipped.push({ tab_id: tab.id, url, reason: answer.reason });
        continue;
      }
      pages.push({ tab_id: tab.id, url: tabInfo(tab).url, origin: answer.origin });
      // Playwright leaves out an origin with nothing stored; its pages still count.
      if (answer.items.length > 0 && !origins.has(answer.origin))
        origins.set(answer.origin, { origin: answer.origin, localStorage: answer.items });
    }
    return { origins: [...origins.values()], pages, skipped };
  }

  // Why a tab has no document to read, told without running anything in it, or null.
  async function unreadable(tab) {
    if (tab.discarded) return "discarded by Chrome";
    // "unloaded" without being discarded: the renderer is gone ("Aw, Snap!"), or a restored tab
    // never loaded.
    if (tab.status === "unloaded") return "no page loaded: it crashed, or has not loaded since Chrome started";
    if (tab.status === "loading" && !tab.url) return "still loading, no document yet";
    const frame = await Promise.resolve(chrome.webNavigation?.getFrame?.({ tabId: tab.id, frameId: 0 })).catch(
      () => undefined,
    );
    if (frame?.errorOccurred) return "error page: the page failed to load";
    if (frame === null) return tab.status === "loading" ? "still loading, no document yet" : "no document";
    return null;
  }

  async function readTab(tab) {
    let timer;
    const late = new Promise((resolve) => {
      timer = timers.setTimeout(
        () => resolve({ reason: `did not answer within ${READ_MS} ms (the page is busy)` }),
        READ_MS,
      );
    });
    const reading = chrome.scripting
      .executeScript({
        target: { tabId: tab.id, frameIds: [0] },
        func: readLocalStorage,
        world: "ISOLATED",
        injectImmediately: true,
      })
      .then(([first] = []) => readAnswer(tab, first?.result))
      .catch((err) => ({ reason: refusal(tab, err) }));
    try {
      return await Promise.race([reading, late]);
    } finally {
      timers.clearTimeout(timer);
    }
  }

  function readAnswer(tab, answer) {
    if (!answer || typeof answer !== "object")
      return { reason: tab.status === "loading" ? "still loading, no document yet" : "the page gave no answer" };
    if (!WEB_URL.test(answer.origin))
      return { reason: `the document has no web origin (${answer.origin}): a sandboxed page has no localStorage` };
    if (answer.error)
      return {
        reason: /sandboxed/i.test(answer.error)
          ? "sandboxed page: it has no localStorage"
          : `localStorage could not be read: ${answer.error}`,
      };
    return { origin: answer.origin, items: answer.items };
  }

  async function storageImport(params) {
    if (!(await isManaged())) throw new CommandError("invalid_request", IMPORT_HUMAN);
    const { cookies, origins } = checkState(params);
    const opened = new Set();
    let cancelled = false;
    let timer;
    const expired = new Promise((_resolve, reject) => {
      timer = timers.setTimeout(() => {
        cancelled = true;
        reject(
          new CommandError(
            "execution_timeout",
            `Loading the storage state did not finish within ${IMPORT_MS / 1000} s; the browser may hold part ` +
              "of it. Retry, or create the context again.",
          ),
        );
      }, IMPORT_MS);
    });
    expired.catch(() => {});
    const work = async () => {
      await Promise.all((await allCookies()).map((cookie) => chrome.cookies.remove(removeDetails(cookie))));
      const outcomes = await Promise.all(
        cookies.map((cookie) =>
          cookieRuledOut(cookie)
            ? { name: cookie.name, domain: cookie.domain, reason: "its site is ruled out by the site rules" }
            : setCookie(cookie),
        ),
      );
      const refused = outcomes.filter((outcome) => outcome !== true);
      let written = 0;
      const queue = origins.filter((entry) => entry.localStorage.length > 0 && !ruledOut(`${entry.origin}/`));
      const worker = async () => {
        for (let entry = queue.shift(); entry && !cancelled; entry = queue.shift()) {
          await writeOrigin(entry, opened, () => cancelled);
          written += 1;
        }
      };
      await Promise.all(Array.from({ length: ORIGINS_AT_ONCE }, worker));
      return { cookies: outcomes.length - refused.length, origins: written, refused };
    };
    try {
      const result = await Promise.race([work(), expired]);
      return { result, result_type: "object", tab: null };
    } finally {
      cancelled = true;
      timers.clearTimeout(timer);
      await Promise.all([...opened].map((tabId) => closeTab(tabId, opened)));
    }
  }

  // true, or what the import's answer says of a cookie Chrome would not take.
  async function setCookie(cookie) {
    const refused = (reason) => ({ name: cookie.name, domain: cookie.domain, reason });
    try {
      const set = await chrome.cookies.set(toChromeSetDetails(cookie));
      return set ? true : refused("Chrome refused it (expired, or not valid for its domain, path or secure flag)");
    } catch (err) {
      return refused(String(err?.message ?? err));
    }
  }

  async function writeOrigin({ origin, localStorage: items }, opened, cancelled) {
    const tab = await chrome.tabs.create({ url: "about:blank", active: false });
    opened.add(tab.id);
    // The import gave up (its time ran out, another origin failed) while this tab was opening.
    if (cancelled()) return closeTab(tab.id, opened);
    const url = `${origin}/`;
    const load = loaded(tab.id, url);
    try {
      fulfilling.set(tab.id, origin);
      await debug.send(tab.id, "Fetch.enable", {
        patterns: [{ urlPattern: `${origin}/*`, resourceType: "Document", requestStage: "Request" }],
      });
      await chrome.tabs.update(tab.id, { url });
      const outcome = await load.done;
      if (outcome.what === "closed")
        throw new CommandError("extension_error", `The tab opened to write ${origin}'s localStorage was closed.`);
      if (outcome.what !== "loaded") {
        throw new CommandError(
          "extension_error",
          `The blank page of ${origin} did not load (${outcome.error ?? "no answer"}), ` +
            "so its localStorage was not written.",
        );
      }
      const [first] = await chrome.scripting.executeScript({
        target: { tabId: tab.id, frameIds: [0] },
        func: writeLocalStorage,
        args: [origin, items],
        world: "ISOLATED",
      });
      if (!first?.result || first.result.error) {
        throw new CommandError(
          "extension_error",
          `${origin}'s localStorage was not written: ${first?.result?.error ?? "the page gave no answer"}.`,
        );
      }
    } finally {
      load.stop();
      fulfilling.delete(tab.id);
      await closeTab(tab.id, opened);
    }
  }

  // The end of the tab's main-frame load of `url`: {what: "loaded" | "error" | "closed" |
  // "timeout", error?}. Only events of that url count: the tab's own about:blank reports its load
  // too, and may do so after the navigation to the origin has begun.
  function loaded(tabId, url) {
    let finish;
    const done = new Promise((resolve) => {
      const timer = timers.setTimeout(() => finish({ what: "timeout" }), IMPORT_MS);
      finish = (outcome) => {
        timers.clearTimeout(timer);
        loads.delete(tabId);
        resolve(outcome);
      };
    });
    loads.set(tabId, (what, details) => {
      if (what === "closed" || String(details.url).startsWith(url)) finish({ what, error: details.error });
    });
    return { done, stop: () => finish({ what: "closed" }) };
  }

  async function closeTab(tabId, opened) {
    if (!opened.delete(tabId)) return;
    await Promise.resolve(chrome.tabs.remove(tabId)).catch(() => {}); // closed already
  }

  return { storage_export: storageExport, storage_import: storageImport };
}

function refusal(tab, err) {
  const message = String(err?.message ?? err);
  if (/error page/i.test(message)) return "error page: the page failed to load";
  if (/no tab with id|tab was closed/i.test(message)) return "the tab closed";
  if (tab.status === "loading") return "still loading, no document yet";
  return `the page refused the script (${message})`;
}

function noValidPage(skipped) {
  const which =
    skipped.length === 0
      ? "No web page is open"
      : `No page could be read (${skipped.map((s) => `tab ${s.tab_id} ${s.url}: ${s.reason}`).join("; ")})`;
  return new CommandError(
    "no_valid_page",
    `${which}, and storage is saved from this browser's open pages. Open a page of the site whose storage you want ` +
      'in this browser (browser_navigate, or browser_tabs with action "new"), let it load, then save again.',
  );
}

// The cookie's url for chrome.cookies.remove: https for a secure one, its host and path.
function removeDetails(cookie) {
  const host = cookie.domain.replace(/^\.+/, "");
  const details = {
    url: `${cookie.secure ? "https" : "http"}://${host}${cookie.path || "/"}`,
    name: cookie.name,
    storeId: cookie.storeId,
  };
  if (cookie.partitionKey) details.partitionKey = cookie.partitionKey;
  return details;
}

// The daemon validated the cookies; the shapes are checked here once more, since the origins pick
// where pages open.
function checkState(params) {
  const { cookies, origins = [] } = params ?? {};
  if (!Array.isArray(cookies) || !Array.isArray(origins)) {
    throw new CommandError(
      "invalid_request",
      "storage_import takes {cookies: [...], origins: [...]}, Playwright's storageState.",
    );
  }
  for (const entry of origins) {
    let parsed = null;
    try {
      parsed = new URL(entry?.origin);
    } catch {}
    if (!parsed || !WEB_URL.test(parsed.href) || parsed.origin !== entry.origin) {
      throw new CommandError(
        "invalid_request",
        `${JSON.stringify(entry?.origin)} is not an http(s) origin such as "https://example.com".`,
      );
    }
    const items = entry.localStorage;
    if (
      !Array.isArray(items) ||
      !items.every((item) => typeof item?.name === "string" && typeof item?.value === "string")
    ) {
      throw new CommandError(
        "invalid_request",
        `The localStorage of ${entry.origin} must be a list of {name, value} strings.`,
      );
    }
  }
  return { cookies, origins };
}
