// Finding the target tab and getting a message to its content script (protocol.md §2).
import { CommandError } from "../link/errors.js";
import { neverScriptable } from "../link/site-rules.js";
import { ISOLATED_WORLD_FILES, MAIN_WORLD_FILES } from "./page-scripts.js";
import { NotDelivered } from "./tab-ports.js";

// Chrome lets extensions script http(s) pages, and file pages when the user allows file access.
// chrome://, chrome-extension://, about:, view-source:, devtools:// and the like are off limits.
const SCRIPTABLE_URL = /^(https?|file):/i;

export function tabInfo(tab) {
  // url is "" while a tab's first navigation is pending; pendingUrl then says where it goes.
  return { id: tab.id, url: tab.url || tab.pendingUrl || "", title: tab.title || "" };
}

// A tab showing a ruled-out site, as an answer shows it: its url down to the origin, no title, since
// the path and the title say what the person does there.
export function hiddenTab(tab) {
  const { id, url } = tabInfo(tab);
  let origin = "";
  try {
    origin = new URL(url).origin;
  } catch {}
  return { id, url: origin === "null" ? "" : origin, title: "" };
}

// site_blocked for a tab that shows a site the rules (link/site-rules.js) refuse, else null.
export function siteRefusal(sites, tab) {
  if (!sites?.active()) return null;
  const found = sites.check(tabInfo(tab).url);
  return found ? sites.refusal(found, `Tab ${tab.id} shows ${found.host || "a file page"}`, hiddenTab(tab)) : null;
}

// The same, asked of Chrome now: for a command whose tab may have navigated since it began.
export async function assertSiteNow(chrome, sites, tab) {
  if (!sites?.active()) return;
  const now = await chrome.tabs.get(tab.id).catch(() => null);
  const refused = now && siteRefusal(sites, now);
  if (refused) throw refused;
}

function notScriptable(tab, why) {
  const { url } = tabInfo(tab);
  // Chrome's own refusals say so, so that nobody retries them.
  why = neverScriptable(url) ?? why;
  return new CommandError(
    "tab_not_scriptable",
    `Cannot run scripts in tab ${tab.id} (${url || "no url"})${why ? `: ${why}` : ""}. ` +
      // browser_navigate and browser_tabs open http and https only: a file: page is the person's.
      "Open an http or https page in it with browser_navigate, or pass tab_id of a tab that shows one.",
    { tab: tabInfo(tab) },
  );
}

// The tab with this id, or tab_not_found, whose message ends saying where the open tabs are listed.
export async function tabWithId(chrome, tabId, listed = "GET /tabs lists the open tabs") {
  try {
    if (!Number.isInteger(tabId)) throw new TypeError("not an integer");
    return await chrome.tabs.get(tabId);
  } catch {
    throw new CommandError("tab_not_found", `No tab with id ${JSON.stringify(tabId)}; ${listed}.`);
  }
}

// The tab `tabId` names; without one, the active tab of window `front` (tab-cache.js: the window
// last brought to the front), else of the last focused window.
export async function resolveTab(chrome, tabId, front = null) {
  if (tabId !== undefined && tabId !== null) return tabWithId(chrome, tabId);
  let [tab] = Number.isInteger(front) ? await chrome.tabs.query({ active: true, windowId: front }) : [];
  if (!tab) [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  // A headless or never-focused browser may have no "last focused" window; any normal window's
  // active tab is then the best guess.
  if (!tab) [tab] = await chrome.tabs.query({ active: true, windowType: "normal" });
  if (!tab) {
    throw new CommandError(
      "no_target_tab",
      "No active tab to run the script in: open a web page in Chrome, or pass tab_id.",
    );
  }
  return tab;
}

export function assertScriptable(tab) {
  if (tab.discarded) {
    // Chrome unloads background tabs to save memory; the tab stays in the strip with no page.
    throw new CommandError(
      "tab_discarded",
      `Tab ${tab.id} was discarded by Chrome to save memory, so no page is loaded in it. Select it ` +
        '(browser_tabs with action "select", or click it) to load it again, then retry.',
      { tab: tabInfo(tab) },
    );
  }
  const { url } = tabInfo(tab);
  if (!SCRIPTABLE_URL.test(url) || neverScriptable(url)) throw notScriptable(tab);
}

// Sends `message` to the tab's top frame over its port (tab-ports.js) and returns the content
// script's answer. Only a send that Chrome refused with "Receiving end does not exist" is repeated:
// that message was never delivered (a page loaded while AI Web Pilot was off, whose scripts were
// not registered, or a tab opened before the extension was installed or reloaded), so injecting and
// sending once more cannot run a script twice. `cancelled()` is true once the caller has given up;
// then the second send is not made. `frameId` names a child frame of the tab (ref-frames.js); the
// top frame's is 0.
export async function deliver(chrome, ports, tab, message, cancelled = () => false, frameId = 0) {
  try {
    return await ports.send(tab.id, message, frameId);
  } catch (err) {
    if (!(err instanceof NotDelivered)) throw err;
  }
  await inject(chrome, tab, frameId, frameId === 0);
  if (cancelled()) return undefined;
  return ports.send(tab.id, message, frameId);
}

// Injections under way, by tab id. Commands sent together to a fresh tab all hear "Receiving end
// does not exist"; they share one injection, or the tab would get two content scripts and every
// later script would run twice.
const injecting = new Map();

function inject(chrome, tab, frameId, childFrames) {
  const key = `${tab.id}:${frameId}`;
  let pending = injecting.get(key);
  if (!pending) {
    pending = injectFiles(chrome, tab, frameId, childFrames).finally(() => injecting.delete(key));
    injecting.set(key, pending);
  }
  return pending;
}

// Injects the page-world files and the content script again into a tab whose page-world channel
// was lost, so that they pair anew (content.js retires its earlier copy).
export function reinject(chrome, tab) {
  return inject(chrome, tab, 0, false);
}

// The page-world side first, so that it is listening when content.js opens the channel
// (protocol.md §3 pairs either way; this order pairs at once).
async function injectInto(chrome, tabId, frameIds) {
  const target = { tabId, frameIds };
  await chrome.scripting.executeScript({ target, files: MAIN_WORLD_FILES, world: "MAIN", injectImmediately: true });
  await chrome.scripting.executeScript({ target, files: ISOLATED_WORLD_FILES, world: "ISOLATED", injectImmediately: true });
}

async function injectFiles(chrome, tab, frameId, childFrames) {
  try {
    await injectInto(chrome, tab.id, [frameId]);
  } catch (err) {
    // e.g. "Cannot access contents of url", "The extensions gallery cannot be scripted",
    // a file:// page without "Allow access to file URLs", or an error page.
    throw notScriptable(tab, String(err?.message ?? err));
  }
  // A page whose top frame had no content script loaded while the switch was off: its frames did
  // too. A snapshot and a frame's ref reach each frame by its own port (ref-frames.js), so they get
  // theirs now, before the command that needs them.
  if (childFrames) await injectChildFrames(chrome, tab.id, frameId);
}

// Each frame of the tab but `done` whose isolated world has no content script gets both worlds'
// files; a frame that refuses them (an error page, one that just went) is left as it is.
async function injectChildFrames(chrome, tabId, done) {
  const answers = await Promise.resolve(
    chrome.scripting.executeScript({
      target: { tabId, allFrames: true },
      world: "ISOLATED",
      injectImmediately: true,
      func: () => globalThis.__tabpilotContent !== undefined, // content.js's mark
    }),
  ).catch(() => []);
  const missing = (answers ?? []).filter((a) => a.frameId !== done && a.result !== true).map((a) => a.frameId);
  if (missing.length === 0) return;
  try {
    await injectInto(chrome, tabId, missing);
  } catch {
    await Promise.all(missing.map((id) => injectInto(chrome, tabId, [id]).catch(() => {})));
  }
}

// Every open tab; one that shows a ruled-out site (`sites`, link/site-rules.js) is listed with
// `blocked: true` and neither its path nor its title: the rules are about acting, and the titles of
// such a site would tell what the person does there.
export async function listTabs(chrome, sites = null) {
  const tabs = await chrome.tabs.query({});
  return tabs.map((tab) => ({ ...listed(tab, sites), active: tab.active === true, window_id: tab.windowId }));
}

export function listed(tab, sites) {
  return siteRefusal(sites, tab) ? { ...hiddenTab(tab), blocked: true } : tabInfo(tab);
}
