// The page tools, the worker's side: browser_snapshot and browser_read, and the refs they give out,
// which browser_act (page-act.js) acts on. The content script reads and acts (content/); the worker
// remembers which document each tab's refs came from (tab/ref-docs.js).
import { CommandError } from "../link/errors.js";
import { createInput } from "../tab/input.js";
import { forgetDoc, mintRefs, pageError, rememberDoc } from "../tab/ref-docs.js";
import { assertScriptable, deliver, tabInfo } from "../tab/tabs.js";
import { actSummary, createPageAct } from "./page-act.js";

const TIMEOUT_MS = 15_000;
const MAX_CHARS = { default: 20_000, min: 200, max: 1_000_000 };
const LIMIT = { default: 10_000, min: 1, max: 1_000_000 };

function intParam(params, name, { default: fallback, min, max }) {
  const value = params[name];
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CommandError(
      "invalid_request",
      `${name} must be an integer from ${min} to ${max}; got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function refParam(params) {
  const ref = params.ref;
  if (ref === undefined || ref === null) return null;
  if (typeof ref !== "string" || ref === "") {
    throw new CommandError(
      "invalid_request",
      `ref must be a ref from browser_snapshot such as "e12"; got ${JSON.stringify(ref)}.`,
    );
  }
  return ref;
}

const SUMMARIES = {
  browser_snapshot: () => "took a snapshot",
  browser_read: () => "read the page",
  browser_act: actSummary,
};

export function createPageTools({
  chrome,
  tabs,
  ports,
  timers,
  tabWatch,
  debug,
  dialogs,
  frames,
  aiTabs,
  downloads,
  withTimeout,
}) {
  chrome.tabs.onRemoved.addListener((tabId) => forgetDoc(tabId));
  const input = createInput({ debug, chrome });
  const act = createPageAct({
    chrome,
    tabs,
    ports,
    debug,
    dialogs,
    tabWatch,
    frames,
    aiTabs,
    downloads,
    input,
    withTimeout,
  });
  // Sends one message to the tab's content script and returns {result, tab}; a failure throws.
  async function ask(params, message) {
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    await tabWatch.guard(tab);
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
      throw new CommandError(
        "extension_error",
        "The tab's content script gave no answer: the page navigated or closed. Retry once it has loaded.",
        {
          tab: tabInfo(tab),
        },
      );
    }
    const where =
      typeof answer.url === "string" ? { id: tab.id, url: answer.url, title: answer.title ?? "" } : tabInfo(tab);
    if (answer.ok !== true) throw pageError(tab, answer, where);
    return { result: answer.result, tab, where };
  }

  async function snapshot(params) {
    const message = {
      type: "snapshot",
      ref: refParam(params),
      interactive_only: params.interactive_only === true,
      max_chars: intParam(params, "max_chars", MAX_CHARS),
      // browser_find's: every run written out, for a search of the lines.
      ...(params.collapse === false ? { collapse: false } : {}),
    };
    const target = await tabs.resolve(params.tab_id);
    let asked;
    await mintRefs(chrome, target.id, async (floor) => {
      asked = await ask({ ...params, tab_id: target.id }, { ...message, ref_floor: floor });
      return asked.result;
    });
    const { result, tab, where } = asked;
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

  return { handlers: { browser_snapshot: snapshot, browser_read: read, browser_act: act }, summaries: SUMMARIES };
}
