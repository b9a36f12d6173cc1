// The page tools, the worker's side: browser_snapshot and browser_read, and the refs they give out,
// which browser_act (page-act.js) acts on. The content script reads and acts (content/); the worker
// remembers which document each tab's refs came from (tab/ref-docs.js).
import { CommandError } from "../link/errors.js";
import { createInput } from "../tab/input.js";
import { withFrames } from "../tab/frame-snapshot.js";
import { forgetDoc, mintRefs, pageError, rememberDoc } from "../tab/ref-docs.js";
import { deliverToRefs, framePaths } from "../tab/ref-frames.js";
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
  openedTabs,
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
    openedTabs,
    downloads,
    input,
    withTimeout,
  });
  // Sends one message to the tab's content script (of the frame its ref is in) and returns
  // {result, tab, where, frameId}; a failure throws.
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
    let frameId = 0;
    try {
      const sent = deliverToRefs(chrome, ports, tab, message, () => expired).then((s) => ((frameId = s.frameId), s.answer));
      answer = await Promise.race([sent, late]);
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
    return { result: answer.result, tab, where, frameId };
  }

  // One child frame's part of a snapshot (tab/frame-snapshot.js); a failure throws.
  async function askFrame(tab, frameId, message) {
    const answer = await deliver(chrome, ports, tab, message, undefined, frameId);
    if (answer?.ok === true) return answer.result;
    throw new Error(answer?.error?.message ?? "the frame gave no answer");
  }

  const nonce = () => Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");

  async function snapshot(params) {
    const message = {
      type: "snapshot",
      ref: refParam(params),
      interactive_only: params.interactive_only === true,
      ...(params.visible_only === true ? { visible_only: true } : {}),
      max_chars: intParam(params, "max_chars", MAX_CHARS),
      // browser_find's: every run written out, for a search of the lines.
      ...(params.collapse === false ? { collapse: false } : {}),
    };
    const target = await tabs.resolve(params.tab_id);
    const mark = nonce();
    let asked;
    let whole;
    await mintRefs(chrome, target.id, async (floor) => {
      asked = await ask({ ...params, tab_id: target.id }, { ...message, ref_floor: floor, frame_mark: mark });
      const { tab, frameId } = asked;
      const frame = frameId === 0 ? null : await chrome.webNavigation.getFrame({ tabId: tab.id, frameId }).catch(() => null);
      whole = await withFrames({
        chrome,
        ports,
        tab,
        first: { ...asked.result, frameId, documentId: frame?.documentId ?? null },
        nonce: mark,
        maxChars: message.max_chars,
        ask: (id, top, room) => askFrame(tab, id, { ...message, ref: null, max_chars: Math.max(MAX_CHARS.min, room), ref_floor: top, frame_mark: mark }),
      });
      return whole;
    });
    const { tab, where, frameId } = asked;
    if (frameId === 0) rememberDoc(tab.id, asked.result?.doc);
    const { snapshot: text, refs, chars, truncated } = whole;
    return { result: { snapshot: text, refs, chars, truncated }, result_type: "object", tab: where };
  }

  async function read(params) {
    const message = {
      type: "read",
      ref: refParam(params),
      offset: intParam(params, "offset", { default: 0, min: 0, max: Number.MAX_SAFE_INTEGER }),
      limit: intParam(params, "limit", LIMIT),
      ...(params.visible_only === true ? { visible_only: true } : {}),
    };
    const { result, tab, where } = await ask(params, message);
    // The ref named an iframe of another origin: its own frame reads its document.
    if (typeof result?.frame === "string") {
      const { paths } = await framePaths(chrome, ports, tab);
      const frame = paths.get(result.frame);
      if (!frame) throw new CommandError("stale_ref", "That frame shows no page tabpilot can read now. Take a new snapshot.", { tab: where });
      const inner = await askFrame(tab, frame.frameId, { ...message, ref: null });
      return { result: inner, result_type: "object", tab: where };
    }
    return { result, result_type: "object", tab: where };
  }

  return { handlers: { browser_snapshot: snapshot, browser_read: read, browser_act: act }, summaries: SUMMARIES };
}
