// The worker's side of the tools that read a page: browser_snapshot and browser_read, and the refs
// they give out. The content script holds the ref map (content/refs.js); the worker remembers, per tab,
// which document its last snapshot came from, so that a ref from before a navigation reads
// stale_ref rather than ref_not_found.
//
// For the other ref-taking commands (browser_act, execute_javascript with ref):
//   rememberDoc(tabId, doc)     after an answer that carries `doc` (a snapshot's).
//   pageError(tab, answer, where) -> the CommandError to throw for a failed content-script answer,
//                               with ref_not_found from another document turned into stale_ref.
import { CommandError } from "../link/errors.js";
import { assertScriptable, deliver, tabInfo } from "../tab/tabs.js";

const TIMEOUT_MS = 15_000;
const MAX_CHARS = { default: 20_000, min: 200, max: 1_000_000 };
const LIMIT = { default: 10_000, min: 1, max: 1_000_000 };

const lastDoc = new Map(); // tab id -> doc of its last snapshot

export function rememberDoc(tabId, doc) {
  if (typeof doc === "string") lastDoc.set(tabId, doc);
}

export function pageError(tab, answer, where = tabInfo(tab)) {
  const error = answer?.error ?? {};
  const code = typeof error.code === "string" ? error.code : "extension_error";
  const remembered = lastDoc.get(tab.id);
  if (code === "ref_not_found" && remembered !== undefined && error.data?.doc !== remembered) {
    return new CommandError(
      "stale_ref",
      `Ref ${JSON.stringify(error.data?.ref)} is from an earlier page: the page navigated since that snapshot. Take a new snapshot.`,
      { tab: where, data: error.data },
    );
  }
  return new CommandError(code, error.message ?? "the page reported a failure", { tab: where, data: error.data });
}

function intParam(params, name, { default: fallback, min, max }) {
  const value = params[name];
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CommandError("invalid_request", `${name} must be an integer from ${min} to ${max}; got ${JSON.stringify(value)}.`);
  }
  return value;
}

function refParam(params) {
  const ref = params.ref;
  if (ref === undefined || ref === null) return null;
  if (typeof ref !== "string" || ref === "") {
    throw new CommandError("invalid_request", `ref must be a ref from browser_snapshot such as "e12"; got ${JSON.stringify(ref)}.`);
  }
  return ref;
}

export function createPageRead({ chrome, tabs, ports, timers, tabWatch = null }) {
  chrome.tabs.onRemoved.addListener((tabId) => lastDoc.delete(tabId));
  // Sends one message to the tab's content script and returns {result, tab}; a failure throws.
  async function ask(params, message) {
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    if (tabWatch) await tabWatch.guard(tab);
    let expired = false;
    let timer;
    const late = new Promise((_resolve, reject) => {
      timer = timers.setTimeout(() => {
        expired = true;
        reject(
          new CommandError(
            "execution_timeout",
            `The tab did not answer within ${TIMEOUT_MS / 1000} s: the page is busy or stuck. Retry once it is free.`,
            { tab: tabInfo(tab) },
          ),
        );
      }, TIMEOUT_MS);
    });
    let answer;
    try {
      answer = await Promise.race([deliver(chrome, ports, tab, message, () => expired), late]);
    } finally {
      timers.clearTimeout(timer);
    }
    if (!answer || typeof answer !== "object") {
      throw new CommandError("extension_error", "The tab's content script gave no answer: the page navigated or closed. Retry once it has loaded.", {
        tab: tabInfo(tab),
      });
    }
    const where = typeof answer.url === "string" ? { id: tab.id, url: answer.url, title: answer.title ?? "" } : tabInfo(tab);
    if (answer.ok !== true) throw pageError(tab, answer, where);
    return { result: answer.result, tab, where };
  }

  async function snapshot(params) {
    const message = {
      type: "snapshot",
      ref: refParam(params),
      interactive_only: params.interactive_only === true,
      max_chars: intParam(params, "max_chars", MAX_CHARS),
    };
    const { result, tab, where } = await ask(params, message);
    rememberDoc(tab.id, result?.doc);
    const { snapshot: text, refs, chars, truncated } = result ?? {};
    return { result: { snapshot: text, refs, chars, truncated }, result_type: "object", tab: where };
  }

  async function read(params) {
    const message = {
      type: "read",
      ref: refParam(params),
      offset: intParam(params, "offset", { default: 0, min: 0, max: Number.MAX_SAFE_INTEGER }),
      limit: intParam(params, "limit", LIMIT),
    };
    const { result, where } = await ask(params, message);
    return { result, result_type: "object", tab: where };
  }

  return { browser_snapshot: snapshot, browser_read: read };
}
