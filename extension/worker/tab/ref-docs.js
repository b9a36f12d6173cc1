// Which document each tab's refs come from. The content script holds the ref map
// (content/refs.js); the worker remembers, per tab, which document its last snapshot came from, so
// that a ref from before a navigation reads stale_ref rather than ref_not_found. For every
// ref-taking command (browser_read, browser_act, browser_take_screenshot, execute_javascript):
//   rememberDoc(tabId, doc)       after an answer that carries `doc` (a snapshot's).
//   forgetDoc(tabId)              once the tab is closed.
//   pageError(tab, answer, where) -> the CommandError to throw for a failed content-script answer,
//                                 with ref_not_found from another document turned into stale_ref.
import { CommandError } from "../link/errors.js";
import { tabInfo } from "./tabs.js";

const lastDoc = new Map(); // tab id -> doc of its last snapshot

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
  if (code === "ref_not_found" && remembered !== undefined && error.data?.doc !== remembered) {
    return new CommandError(
      "stale_ref",
      `Ref ${JSON.stringify(error.data?.ref)} is from an earlier page: the page navigated since that snapshot. ` +
        "Take a new snapshot.",
      { tab: where, data: error.data },
    );
  }
  return new CommandError(code, error.message ?? "the page reported a failure", { tab: where, data: error.data });
}
