// Which document each tab's refs come from. The content script holds the ref map
// (content/refs.js); the worker remembers, per tab, which document its last snapshot came from, so
// that a ref from before a navigation reads stale_ref rather than ref_not_found. For every
// ref-taking command (browser_read, browser_act, browser_take_screenshot, execute_javascript):
//   rememberDoc(tabId, doc)       after an answer that carries `doc` (a snapshot's).
//   forgetDoc(tabId)              once the tab is closed.
//   pageError(tab, answer, where) -> the CommandError to throw for a failed content-script answer,
//                                 with ref_not_found from another document turned into stale_ref.
//   mintRefs(chrome, tabId, ask)  runs a snapshot, ask(floor), so that its new refs are numbered
//                                 above every ref of every other document: a ref never names an
//                                 element of a document it did not come from (another tab's, a
//                                 frame's, or the page before a navigation). Snapshots take turns
//                                 for that. A snapshot of several frames answers `ranges`, one per
//                                 frame: {doc, first, last, frameId, documentId}.
//   mintedBy(ref)                 -> {tabId, doc, first, last, frameId, documentId} of the snapshot
//                                 that gave out `ref`, if this worker saw it (ref-frames.js routes
//                                 by it); remember(entry) adds one found otherwise.
import { CommandError } from "../link/errors.js";
import { tabInfo } from "./tabs.js";

const lastDoc = new Map(); // tab id -> doc of its last snapshot
// The highest ref number given out in this browser; chrome.storage.session keeps it across the
// worker's restarts (the documents and their refs outlive the worker).
const FLOOR_KEY = "refFloor";
let floor = null;
let turn = Promise.resolve();
// Who gave out which numbers, newest last: {tabId, doc, first, last}. Kept in memory only; after a
// worker restart a ref from another document is plain ref_not_found.
const minted = [];
const MINTED_KEPT = 500;

export function mintRefs(chrome, tabId, ask) {
  const run = turn.then(async () => {
    if (floor === null) {
      const stored = await Promise.resolve(chrome.storage?.session?.get(FLOOR_KEY)).catch(() => null);
      floor = Number.isSafeInteger(stored?.[FLOOR_KEY]) ? stored[FLOOR_KEY] : 0;
    }
    const result = await ask(floor);
    if (Number.isSafeInteger(result?.top) && result.top > floor) {
      floor = result.top;
      Promise.resolve(chrome.storage?.session?.set({ [FLOOR_KEY]: floor })).catch(() => {});
    }
    const [first, last] = Array.isArray(result?.minted) ? result.minted : [];
    const ranges = Array.isArray(result?.ranges) ? result.ranges : [{ doc: result?.doc, first, last, frameId: 0, documentId: null }];
    for (const range of ranges) remember({ tabId, ...range });
    return result;
  });
  turn = run.catch(() => {});
  return run;
}

export function remember(entry) {
  if (!Number.isSafeInteger(entry.first) || !Number.isSafeInteger(entry.last)) return;
  minted.push(entry);
  if (minted.length > MINTED_KEPT) minted.shift();
}

// The snapshot that gave out `ref`, if this worker saw it.
export function mintedBy(ref) {
  const n = typeof ref === "string" && /^e[1-9]\d*$/.test(ref) ? Number(ref.slice(1)) : NaN;
  return minted.findLast((m) => m.first <= n && n <= m.last) ?? null;
}

export function rememberDoc(tabId, doc) {
  if (typeof doc === "string") lastDoc.set(tabId, doc);
}

export function forgetDoc(tabId) {
  lastDoc.delete(tabId);
}

export function pageError(tab, answer, where = tabInfo(tab)) {
  const error = answer?.error ?? {};
  const code = typeof error.code === "string" ? error.code : "extension_error";
  const remembered = lastDoc.get(tab.id);
  const from = code === "ref_not_found" ? mintedBy(error.data?.ref) : null;
  if (from && from.tabId !== tab.id) {
    return new CommandError(
      "ref_not_found",
      `Ref ${JSON.stringify(error.data?.ref)} is from a snapshot of tab ${from.tabId}, not of tab ${tab.id}: ` +
        "refs act only in the page they came from. Pass that tab's tab_id, or take a snapshot of this tab.",
      { tab: where, data: error.data },
    );
  }
  const earlier = from ? from.doc != null && from.doc !== error.data?.doc : remembered !== undefined && error.data?.doc !== remembered;
  if (code === "ref_not_found" && earlier) {
    return new CommandError(
      "stale_ref",
      `Ref ${JSON.stringify(error.data?.ref)} is from an earlier page: the page navigated since that snapshot. ` +
        "Take a new snapshot.",
      { tab: where, data: error.data },
    );
  }
  return new CommandError(code, error.message ?? "the page reported a failure", { tab: where, data: error.data });
}
