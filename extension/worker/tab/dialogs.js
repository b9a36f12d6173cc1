// JavaScript dialogs (alert, confirm, prompt) that block a tab (docs/protocol.md §1, "Dialogs").
//
// While a command's script runs, the page world answers dialogs itself and never shows one. A
// dialog the page opens on its own (a timer, an event handler) is shown by Chrome and stops the
// page's thread until someone answers it; the page world reports it just before (content.js), the
// debugger too where it holds the tab, and this module keeps the report, so that the next command
// to the tab says what blocks it. Where the debugger holds the tab (debugger.js: always in the
// managed browser), that command answers the dialog and goes on; elsewhere only the person at the
// browser can, and the command fails with dialog_open.
import { CommandError } from "../link/errors.js";
import { DEBUGGER_SWITCH } from "./debugger.js";
import { tabInfo } from "./tabs.js";

export function createDialogs({ chrome, debug }) {
  const open = new Map(); // tab id -> {type, message, defaultPrompt}
  const watchers = new Map(); // tab id -> Set of functions called with each dialog that opens
  debug.onDialog((tabId, report) => record(tabId, report));

  chrome.tabs.onRemoved.addListener((tabId) => open.delete(tabId));
  chrome.tabs.onUpdated.addListener((tabId, change) => {
    if (change.status === "loading") open.delete(tabId);
  });

  // From content.js, through chrome.runtime messages (main.js): the page world's report; and from
  // the debugger's Page events where it holds the tab.
  function record(tabId, { phase, dialog_type: type, message, default_prompt: defaultPrompt }) {
    if (phase === "closed") {
      open.delete(tabId);
      return;
    }
    const dialog = { type: String(type ?? ""), message: String(message ?? ""), defaultPrompt };
    open.set(tabId, dialog);
    for (const watcher of watchers.get(tabId) ?? []) watcher(dialog);
  }

  function blockedError(tab, dialog, during) {
    return new CommandError(
      "dialog_open",
      `Tab ${tab.id} shows a ${dialog.type} dialog ("${dialog.message}")` +
        `${during ? " raised while the script ran" : ""}, ` +
        "which stops the page until it is answered. Answer it in the browser, then retry; or turn on " +
        `${DEBUGGER_SWITCH}, so that tabpilot answers dialogs by itself.`,
      { tab: tabInfo(tab) },
    );
  }

  // Answers a dialog left open on the tab, as `params.dialog` says, before a command is sent. Returns
  // the dialog's record, or null when none was open; throws dialog_open where only a person can.
  async function settle(tab, params, during = false) {
    const dialog = open.get(tab.id);
    if (!dialog) return null;
    await debug.ready;
    const accept = params.dialog === "accept";
    const promptText =
      dialog.type === "prompt" && accept ? (params.prompt_text ?? String(dialog.defaultPrompt ?? "")) : undefined;
    const outcome = await debug.answerDialog(tab.id, accept, promptText);
    if (outcome === "unreachable") {
      if (!open.has(tab.id)) return null; // the person answered it meanwhile
      throw blockedError(tab, dialog, during);
    }
    if (outcome === "none") {
      // Answered meanwhile (by the person, or through a second report of the same dialog).
      if (open.get(tab.id) === dialog) open.delete(tab.id);
      return null;
    }
    if (open.get(tab.id) === dialog) open.delete(tab.id);
    const answered = { type: dialog.type, message: dialog.message, action: accept ? "accepted" : "dismissed" };
    if (promptText !== undefined) answered.text = promptText;
    if (!during) answered.before = true;
    return answered;
  }

  // Calls `onOpen(dialog)` for each dialog the page opens on its own until the returned function is
  // called: the command in flight is stuck behind it.
  function watch(tabId, onOpen) {
    const set = watchers.get(tabId) ?? new Set();
    watchers.set(tabId, set);
    set.add(onOpen);
    return () => {
      set.delete(onOpen);
      if (set.size === 0) watchers.delete(tabId);
    };
  }

  // While a command runs on the tab: each dialog the page opens by itself (a handler the command
  // triggered, say) is answered as `params.dialog` says and added to `answered`; where only a person
  // can answer it, `stuck` rejects with dialog_open, so that the command fails now rather than at
  // its timeout. stop() ends the watch.
  function answerDuring(tab, params, answered) {
    let fail;
    const stuck = new Promise((_resolve, reject) => (fail = reject));
    stuck.catch(() => {});
    const stop = watch(tab.id, () => {
      settle(tab, params, true)
        .then((record) => record && answered.push(record))
        .catch((err) => fail(err));
    });
    return { stuck, stop };
  }

  return { report: record, settle, watch, answerDuring, blockedError };
}
