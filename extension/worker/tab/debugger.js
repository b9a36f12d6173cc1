// chrome.debugger, for what the DOM and the other extension APIs cannot do: run a script on a page
// whose Content-Security-Policy forbids it everywhere else, and answer a JavaScript dialog that
// blocks a tab.
//
// Attaching shows Chrome's "tabpilot started debugging this browser" banner, and since Chromium
// CL 2159967 the banner stays until the person closes it, even after the extension detaches. So in
// a person's Chrome the debugger is used only while they have turned on its own popup switch
// (storage.local "debuggerEnabled", off by default; only the popup writes it). The daemon's managed
// headless browser has no one to show a banner to: there it is always allowed, and it holds every
// tab from the start, so that any dialog can be answered.
import { CommandError } from "../link/errors.js";

export const DEBUGGER_KEY = "debuggerEnabled";
const PROTOCOL = "1.3";

export const DEBUGGER_SWITCH =
  'the popup switch "Strict pages: allow the debugger" (off by default; Chrome shows a banner while it is used)';

export function createDebugger({ chrome, managed }) {
  let switchOn = false;
  let isManaged = false;
  const attached = new Map(); // tab id -> Promise of the attachment (rejects if it failed)
  let onDialog = () => {};

  const ready = Promise.all([Promise.resolve(managed), chrome.storage.local.get(DEBUGGER_KEY)])
    .then(([m, stored]) => {
      isManaged = m?.managed === true;
      switchOn = stored?.[DEBUGGER_KEY] === true;
      if (isManaged && chrome.debugger) holdAll();
    })
    .catch((err) => console.warn("tabpilot: could not read the debugger switch, keeping it off", err));

  // The stored switch is the authority: read afresh before a route depends on it, since a change
  // event may still be on its way. The managed browser does not ask it.
  async function reload() {
    await ready;
    if (isManaged) return;
    const stored = await chrome.storage.local.get(DEBUGGER_KEY);
    switchOn = stored?.[DEBUGGER_KEY] === true;
  }

  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== "local" || !(DEBUGGER_KEY in changes)) return;
    switchOn = changes[DEBUGGER_KEY].newValue === true;
    if (!allowed()) detachAll();
  });

  // Registered in the worker's first turn, like every listener Chrome must wake the worker for.
  chrome.debugger?.onDetach?.addListener((source) => attached.delete(source.tabId));
  chrome.debugger?.onEvent?.addListener((source, method, params) => {
    if (method === "Page.javascriptDialogOpening") {
      onDialog(source.tabId, {
        phase: "open",
        dialog_type: params.type,
        message: params.message,
        default_prompt: params.defaultPrompt,
      });
    } else if (method === "Page.javascriptDialogClosed") {
      onDialog(source.tabId, { phase: "closed" });
    }
  });
  // In the managed browser every tab is held from its start: a dialog can only be answered through
  // a debugger session that was attached before it opened (attaching later waits on the stopped
  // page).
  chrome.tabs.onCreated?.addListener((tab) => {
    if (isManaged && allowed()) attach(tab.id).catch(() => {});
  });

  function allowed() {
    return Boolean(chrome.debugger) && (isManaged || switchOn);
  }

  function holdAll() {
    Promise.resolve(chrome.tabs.query({}))
      .then((tabs) => tabs.forEach((tab) => attach(tab.id).catch(() => {})))
      .catch(() => {});
  }

  function attach(tabId) {
    let attaching = attached.get(tabId);
    if (!attaching) {
      const target = { tabId };
      attaching = chrome.debugger
        .attach(target, PROTOCOL)
        .catch((err) => {
          // Attached already (by this worker before Chrome restarted it): use it as it is.
          if (!/already attached/i.test(String(err?.message))) throw err;
        })
        // The Page domain reports dialogs.
        .then(() => chrome.debugger.sendCommand(target, "Page.enable", {}))
        // The managed browser is headless: no window of it ever has the system's focus, so a page's
        // own focus() would move the focus without its focus events, and keyboard-driven apps
        // lose track. Emulated, every page has the focus, as Playwright does it for every page.
        .then(() => isManaged && chrome.debugger.sendCommand(target, "Emulation.setFocusEmulationEnabled", { enabled: true }))
        .then(() => undefined);
      attached.set(tabId, attaching);
      attaching.catch(() => {
        if (attached.get(tabId) === attaching) attached.delete(tabId);
      });
    }
    return attaching;
  }

  // Runs one DevTools protocol command in the tab, attaching first.
  async function send(tabId, method, params) {
    if (!allowed()) throw new CommandError("extension_error", "The debugger is not allowed in this browser.");
    try {
      await attach(tabId);
    } catch (err) {
      throw new CommandError(
        "extension_error",
        `tabpilot could not attach the debugger to tab ${tabId}: ${err?.message ?? err}. ` +
          "Another debugger (DevTools, say) may hold the tab; close it and retry.",
      );
    }
    return chrome.debugger.sendCommand({ tabId }, method, params);
  }

  // Attaches to the tab where the debugger is allowed, so that a dialog opening from now on can be
  // answered; a tab held already costs nothing. Never rejects: what needs the session says why.
  async function hold(tabId) {
    if (allowed()) await attach(tabId).catch(() => {});
  }

  // Answers the dialog open in the tab: "answered", "none" (no dialog is showing), or
  // "unreachable" when no session attached before the dialog opened holds the tab.
  async function answerDialog(tabId, accept, promptText) {
    if (!allowed() || !attached.has(tabId)) return "unreachable";
    const params = { accept };
    if (typeof promptText === "string") params.promptText = promptText;
    try {
      await send(tabId, "Page.handleJavaScriptDialog", params);
      return "answered";
    } catch (err) {
      if (/no dialog is showing/i.test(String(err?.message))) return "none";
      throw err;
    }
  }

  function detachAll() {
    for (const tabId of attached.keys()) {
      Promise.resolve(chrome.debugger.detach({ tabId })).catch(() => {});
    }
    attached.clear();
  }

  return {
    ready,
    reload,
    allowed,
    send,
    hold,
    answerDialog,
    detachAll,
    // The managed browser holds every tab again once the pilot is back on.
    holdAll: () => isManaged && allowed() && holdAll(),
    isManaged: () => isManaged,
    // dialogs.js hears the dialogs the debugger sees through this.
    onDialog: (fn) => (onDialog = fn),
  };
}
