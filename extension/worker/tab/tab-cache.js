// The target tab of a command without asking Chrome each time (protocol.md §2, "The target tab").
//
// chrome.tabs.query and chrome.tabs.get each cost a round trip to the browser process, about as
// long as the rest of a short command. Chrome reports every change that could alter their answers
// as an event, so an answer is kept until one comes:
// - a tab's own changes (url, title, status, discarded, group) arrive whole with tabs.onUpdated,
//   which replaces the kept tab;
// - anything that can change which tab is active, or a tab's window, position or existence, drops
//   what was kept, and the next command asks Chrome again.
// An answer that was on its way while such an event came is used once and not kept. A worker that
// Chrome restarts starts with nothing kept.
import { resolveTab, siteRefusal } from "./tabs.js";

// Events after which "the active tab of the last focused window" may be another tab.
const TAB_EVENTS = ["onActivated", "onCreated", "onRemoved", "onReplaced", "onAttached", "onDetached", "onMoved"];
const WINDOW_EVENTS = ["onFocusChanged", "onCreated", "onRemoved"];

// `sites` (link/site-rules.js): the one gate of every command that takes a tab. A tab that shows a
// ruled-out site is refused here with site_blocked, by its url as Chrome last reported it; the
// ports (tab-ports.js) check the document itself before anything reaches it.
export function createTabCache(chrome, sites = null) {
  const kept = new Map(); // tab id -> the tab as Chrome last described it
  let active = null; // id of the tab a command without tab_id goes to, while nothing changed
  let epoch = 0; // counts the events that drop what was kept
  // The window last brought to the front: by the person (Chrome's focus events) or by a command
  // (toFront). A headless Chromium ignores chrome.windows.update's `focused`, so after a popup
  // window had the focus, "the last focused window" stayed the popup whatever tab was opened or
  // selected since; the command's own word is kept here instead.
  let front = null;
  chrome.windows?.onFocusChanged?.addListener((windowId) => {
    if (Number.isInteger(windowId) && windowId >= 0) front = windowId;
  });
  chrome.windows?.onRemoved?.addListener((windowId) => {
    if (windowId === front) front = null;
  });

  const forget = () => {
    epoch += 1;
    kept.clear();
    active = null;
  };
  // Registered in the worker's first turn (createCommands runs then), as Chrome wants.
  for (const name of TAB_EVENTS) chrome.tabs[name]?.addListener(forget);
  for (const name of WINDOW_EVENTS) chrome.windows?.[name]?.addListener(forget);
  chrome.tabs.onUpdated.addListener((tabId, _change, tab) => {
    if (tab && kept.has(tabId)) kept.set(tabId, tab);
  });

  // The tab `tabId` names, or the active one when it is null or undefined; the errors of
  // resolveTab (tabs.js), and site_blocked.
  async function resolve(tabId) {
    if (sites) await sites.ready;
    const tab = await find(tabId);
    const refused = siteRefusal(sites, tab);
    if (refused) throw refused;
    return tab;
  }

  async function find(tabId) {
    const id = tabId ?? active;
    const tab = id === null ? undefined : kept.get(id);
    if (tab) return tab;
    const since = epoch;
    const found = await resolveTab(chrome, tabId, front);
    if (epoch === since) {
      kept.set(found.id, found);
      if (tabId === undefined || tabId === null) active = found.id;
    }
    return found;
  }

  // A command brought `windowId` to the front (browser_tabs new and select, an act's `follow`):
  // later commands without tab_id go to its active tab.
  function toFront(windowId) {
    if (!Number.isInteger(windowId)) return;
    front = windowId;
    forget();
  }

  return { resolve, toFront };
}
