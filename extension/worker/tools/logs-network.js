// browser_network_requests: each tab's requests, observed with chrome.webRequest (which watches
// without blocking) and kept here in the worker, in a ring per tab (logs-ring.js). The bodies of
// fetch and XHR responses come from the page world (page/page-log.js), through logs-console.js.
import { CommandError } from "../link/errors.js";
import { LOG_CAPACITY, createTabLog, logAnswer, logQueryParams } from "./logs-ring.js";
import { tabInfo } from "../tab/tabs.js";

// webRequest's resource types as the answer names them: fetch and XHR are both "xhr".
const TYPE_NAMES = { main_frame: "document", sub_frame: "document", xmlhttprequest: "xhr" };
// The daemon's log_params.py lists the same types (RequestType).
// prettier-ignore
export const REQUEST_TYPES = [
  "document", "script", "stylesheet", "image", "font", "media",
  "xhr", "websocket", "ping", "csp_report", "object", "other",
];
// Successful requests of these types are hidden unless asked for: agents debugging an app want
// its documents, scripts and API calls.
const STATIC_TYPES = new Set(["image", "font", "stylesheet", "media"]);
// Response bodies kept per tab (each at most 64 KiB of text, cut in the page world).
const BODIES_KEPT = 50;
export const BODY_CAP = 64 * 1024;
// How much earlier than a request's end its body may seem to be read: the page's Date.now() is in
// whole ms, webRequest's timeStamp in fractions of one, both of the same system clock.
const CLOCK_SLACK_MS = 2;
const STATUS_CLASS = /^([1-5])xx$/;
const MAX_ACTIVE = 5000;

function headerValue(headers, name) {
  const found = (headers ?? []).find((h) => h.name?.toLowerCase() === name);
  return found?.value;
}

// `url` as a filter: a substring, or with `*` a pattern that must match the whole url.
function urlMatcher(url) {
  if (typeof url !== "string" || url === "") return () => true;
  if (!url.includes("*")) return (candidate) => candidate.includes(url);
  const pattern = new RegExp(
    `^${url
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return (candidate) => pattern.test(candidate);
}

function statusMatcher(status) {
  if (status === undefined || status === null || status === "") return () => true;
  // What an agent means by "the request that failed": no answer (DNS, refused…), or an HTTP error.
  if (status === "failed") return (entry) => entry.failed !== null || (entry.status ?? 0) >= 400;
  const range = STATUS_CLASS.exec(String(status));
  if (range) return (entry) => Math.floor((entry.status ?? 0) / 100) === Number(range[1]);
  const exact = Number(status);
  if (Number.isInteger(exact) && exact >= 100 && exact <= 599) return (entry) => entry.status === exact;
  throw new CommandError(
    "invalid_request",
    `status must be "failed", "2xx" to "5xx", or a number such as 404; got ${JSON.stringify(status)}.`,
  );
}

export function createNetworkLog({ chrome, tabs, pilot, ruleBook, flushPage, ruledOut = () => false }) {
  const log = createTabLog();
  const active = new Map(); // webRequest requestId -> {tabId, entry} of a request under way
  const mainFrame = new Map(); // tab id -> its main_frame request that has not committed yet
  const bodies = new Map(); // tab id -> the last BODIES_KEPT bodies, oldest first

  // tabpilot's own files a page loads (the accessible-name modules a snapshot imports) are not the
  // page's requests.
  const own = chrome.runtime?.getURL?.("") || null;
  const ours = (details) => details.tabId >= 0 && pilot.isEnabled() && !(own && String(details.url).startsWith(own));
  const finish = (details, fields) => {
    const held = active.get(details.requestId);
    if (!held) return;
    Object.assign(held.entry, fields, { duration: Math.max(0, Math.round(details.timeStamp - held.entry.start)) });
    active.delete(details.requestId);
  };
  const web = chrome.webRequest;
  const filter = { urls: ["<all_urls>"] };

  web?.onBeforeRequest.addListener((details) => {
    if (!ours(details)) return;
    const type = TYPE_NAMES[details.type] ?? details.type;
    // What browser_network_rules did to it (tab/rule-book.js matches the rules' own patterns).
    const rules = ruleBook?.touched(details.tabId, String(details.url), type) ?? [];
    const entry = log.add(details.tabId, {
      request_id: details.requestId,
      method: details.method,
      url: String(details.url).slice(0, 2048),
      type,
      status: null,
      start: details.timeStamp,
      duration: null,
      size: null,
      from_cache: false,
      failed: null,
      ...(details.frameId > 0 ? { frame_id: details.frameId } : {}),
      ...(rules.length > 0 ? { rules } : {}),
    });
    active.set(details.requestId, { tabId: details.tabId, entry });
    // A request that never ends (a long poll, a stream) stays pending; the oldest such are let go.
    if (active.size > MAX_ACTIVE) active.delete(active.keys().next().value);
    if (details.type === "main_frame") mainFrame.set(details.tabId, entry);
  }, filter);
  web?.onBeforeRedirect.addListener((details) => {
    if (ours(details))
      finish(details, {
        status: details.statusCode,
        redirect_to: String(details.redirectUrl).slice(0, 2048),
        from_cache: details.fromCache === true,
      });
  }, filter);
  web?.onCompleted.addListener(
    (details) => {
      if (!ours(details)) return;
      const length = Number(headerValue(details.responseHeaders, "content-length"));
      finish(details, {
        status: details.statusCode,
        from_cache: details.fromCache === true,
        size: Number.isFinite(length) && length >= 0 ? length : null,
      });
    },
    filter,
    ["responseHeaders"],
  );
  web?.onErrorOccurred.addListener((details) => {
    if (ours(details)) finish(details, { failed: details.error ?? "failed", from_cache: details.fromCache === true });
  }, filter);

  // The page a main_frame request loads is the one it commits: its entry moves there.
  chrome.webNavigation?.onCommitted?.addListener((details) => {
    if (details.frameId !== 0) return;
    const page = log.pageOf(details.tabId, details.documentId ?? `nav:${details.timeStamp}`, details.url);
    const entry = mainFrame.get(details.tabId);
    if (entry) entry.page = page.id;
    mainFrame.delete(details.tabId);
  });
  chrome.tabs.onRemoved.addListener((tabId) => {
    log.drop(tabId);
    bodies.delete(tabId);
    mainFrame.delete(tabId);
    for (const [id, held] of active) if (held.tabId === tabId) active.delete(id);
  });

  function onBody(tabId, raw) {
    if (!pilot.isEnabled() || typeof raw?.url !== "string") return;
    const kept = bodies.get(tabId) ?? [];
    kept.push({
      source: raw.source === "xhr" ? "xhr" : "fetch",
      method: typeof raw.method === "string" ? raw.method : "GET",
      url: raw.url,
      status: Number.isInteger(raw.status) ? raw.status : null,
      time: Number.isFinite(raw.time) ? raw.time : Date.now(),
      body: typeof raw.body === "string" ? raw.body.slice(0, BODY_CAP) : null,
      size: Number.isInteger(raw.size) ? raw.size : null,
      truncated: raw.truncated === true,
      ...(typeof raw.note === "string" ? { note: raw.note.slice(0, 300) } : {}),
    });
    if (kept.length > BODIES_KEPT) kept.shift();
    bodies.set(tabId, kept);
  }

  // The body the page world read for this request. A body carries no request id, so the bodies
  // and the answered requests of the same method and url are paired one to one, the shortest lag
  // first: how long after the request's end (webRequest's timeStamp) the page read the body (its
  // Date.now(); both are ms since the epoch). A page reads a body after its response ended, so
  // two quick fetches of one url each get their own body, even when they end out of order. An
  // entry not read to its end (`size` null: cut at the page world's read cap, or not read, and
  // its note says why) is made while the response still comes: it pairs with a request under way
  // then, as if read at its end.
  function bodyOf(tabId, entry) {
    const same = (x) => x.url === entry.url && x.method === entry.method;
    const kept = (bodies.get(tabId) ?? []).filter(same);
    if (kept.length === 0) return null;
    // A request still under way has no end yet, so no body; one that failed has none either.
    const answered = (e) => e.type === "xhr" && e.failed === null && e.duration !== null && same(e);
    const requests = log.query(tabId, { allPages: true, limit: LOG_CAPACITY, match: answered }).entries;
    const pairs = [];
    for (const request of requests) {
      const end = request.start + request.duration;
      for (const body of kept) {
        const agrees = body.status === null || request.status === null || body.status === request.status;
        const early = body.size === null && body.time >= request.start - CLOCK_SLACK_MS;
        const lag = early ? Math.max(0, body.time - end) : body.time - end;
        if (agrees && lag >= -CLOCK_SLACK_MS) pairs.push({ request, body, lag });
      }
    }
    pairs.sort((a, b) => a.lag - b.lag || a.request.seq - b.request.seq);
    const taken = new Set();
    const paired = new Set();
    for (const { request, body } of pairs) {
      if (taken.has(body) || paired.has(request.seq)) continue;
      if (request.seq === entry.seq) return body;
      taken.add(body);
      paired.add(request.seq);
    }
    return null;
  }

  async function withBody(tab, seq) {
    const entry = log.find(tab.id, seq, ruledOut);
    if (!entry) {
      throw new CommandError(
        "request_not_found",
        `No request #${seq} in tab ${tab.id}'s network log: it was evicted, cleared, or never made there. ` +
          "Call browser_network_requests and pass the # of one of its requests.",
        { tab: tabInfo(tab) },
      );
    }
    if (entry.type === "xhr") await flushPage(tab);
    const found = entry.type === "xhr" ? bodyOf(tab.id, entry) : null;
    const body = found
      ? {
          text: found.body,
          size: found.size,
          truncated: found.truncated,
          cap: BODY_CAP,
          source: found.source,
          ...(found.note ? { note: found.note } : {}),
        }
      : {
          text: null,
          cap: BODY_CAP,
          note:
            entry.type === "xhr"
              ? "The page did not read this response through its own fetch or XMLHttpRequest while tabpilot " +
                "was watching (a worker's request, one made before the page loaded tabpilot, or one of the " +
                "last 50 no longer kept)."
              : `Only fetch and XHR responses have their body kept; this is a ${entry.type} request.`,
        };
    return { request: entry, body };
  }

  async function query(params) {
    const options = logQueryParams(params, CommandError);
    const types = params.type === undefined || params.type === null ? null : params.type;
    if (types !== null && !REQUEST_TYPES.includes(types)) {
      throw new CommandError(
        "invalid_request",
        `type must be one of ${REQUEST_TYPES.join(", ")}; got ${JSON.stringify(types)}.`,
      );
    }
    const byUrl = urlMatcher(params.url);
    const byStatus = statusMatcher(params.status);
    const tab = await tabs.resolve(params.tab_id);
    if (params.include_body !== undefined && params.include_body !== null) {
      if (!Number.isInteger(params.include_body) || params.include_body < 1) {
        throw new CommandError(
          "invalid_request",
          `include_body must be a request's # (a positive integer); got ${JSON.stringify(params.include_body)}.`,
        );
      }
      return { result: await withBody(tab, params.include_body), result_type: "object", tab: tabInfo(tab) };
    }
    const showStatic = params.include_static === true || types !== null;
    let hidden = 0;
    const match = (entry) => {
      if (!byUrl(entry.url) || (types !== null && entry.type !== types) || !byStatus(entry)) return false;
      if (!showStatic && STATIC_TYPES.has(entry.type) && entry.failed === null && (entry.status ?? 0) < 400) {
        hidden += 1;
        return false;
      }
      return true;
    };
    const answer = log.query(tab.id, { ...options, hidden: ruledOut, match });
    const cleared = options.clear ? log.clear(tab.id) : null;
    const result = { requests: answer.entries, all_pages: options.allPages, hidden, ...logAnswer(answer, cleared) };
    return { result, result_type: "object", tab: tabInfo(tab) };
  }

  return { browser_network_requests: query, onBody, log };
}
