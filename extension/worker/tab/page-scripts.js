// What tabpilot puts in a page, and when (docs/security.md, "What runs in a page"). This module
// holds the one list of the files of the two worlds, and registers them with Chrome only while AI
// Web Pilot is on: Chrome then runs them at document_start in every frame of each page that loads
// meanwhile. When the switch goes off they are unregistered, so a page loaded while it is off gets
// nothing of tabpilot. A page loaded before the switch went on gets them on its first command
// (tabs.js, deliver). Pages keep what they got until they unload.
//
//   ISOLATED_WORLD_FILES, MAIN_WORLD_FILES   the two worlds' files, in load order
//   EXECUTOR_FILES                           what every world that runs a script loads (script-routes.js)
//   isCurrent(registered)                    whether Chrome's registration is this version's, whole
//   createPageScripts({chrome, pilot, timers}) -> {sync}: sync() makes Chrome's registration match
//                                            the switch; resolves once it does, or once a failure
//                                            is logged and a retry set (it never rejects)

// The isolated world: each family's file registers its message types, content.js (last) relays.
export const ISOLATED_WORLD_FILES = Object.freeze([
  "content/refs.js",
  "content/frames.js",
  "content/seen.js",
  "content/snapshot-format.js",
  "content/snapshot.js",
  "content/read.js",
  "shared/act-common.js",
  "content/act-keys.js",
  "content/act-editors.js",
  "content/act-hit.js",
  "content/act.js",
  "content/mouse.js",
  "content/drag.js",
  "content/wait.js",
  "content/files.js",
  "content/form.js",
  "content/content.js",
]);

// The page (MAIN) world: the serializer, the rewrite of returns and the executor; then the page's
// console log, browser_upload's hook and the channel to content.js, which takes the others off the
// page's globals.
export const MAIN_WORLD_FILES = Object.freeze([
  "page/serialize-intrinsics.js",
  "page/serialize-kinds.js",
  "page/serialize.js",
  "page/returns.js",
  "page/executor.js",
  "page/page-log.js",
  "page/files.js",
  "page/inject.js",
]);

// The page world's files that only the page world needs.
const PAGE_WORLD_ONLY = new Set(["page/page-log.js", "page/files.js", "page/inject.js"]);

// The serializer and the executor, in the page world's order: script-routes.js loads them into the
// other worlds a script may take.
export const EXECUTOR_FILES = Object.freeze(MAIN_WORLD_FILES.filter((file) => !PAGE_WORLD_ONLY.has(file)));

// As the manifest's content_scripts declared them before: every frame, about:blank, data: and
// blob: frames by their creator's origin, before any page script. They persist across browser
// restarts as the switch does (it is in storage.local), so pages a restart brings back load them
// at document_start too; sync() corrects a registration that disagrees with the switch.
const COMMON = Object.freeze({
  matches: ["<all_urls>"],
  allFrames: true,
  matchOriginAsFallback: true,
  runAt: "document_start",
  persistAcrossSessions: true,
});
export const PAGE_SCRIPTS = Object.freeze([
  { id: "tabpilot-content", js: [...ISOLATED_WORLD_FILES], world: "ISOLATED", ...COMMON },
  { id: "tabpilot-page", js: [...MAIN_WORLD_FILES], world: "MAIN", ...COMMON },
]);
const IDS = PAGE_SCRIPTS.map((script) => script.id);

// A registration that failed is tried again after these delays, the last repeating.
export const RETRY_MS = [1000, 5000, 30000];

// Whether Chrome's record of a script is the one wanted. Chrome answers every field, defaults too.
function same(have, want) {
  const list = (value) => JSON.stringify(value ?? []);
  return (
    list(have.js) === list(want.js) &&
    list(have.matches) === list(want.matches) &&
    (have.world ?? "ISOLATED") === want.world &&
    have.allFrames === want.allFrames &&
    have.matchOriginAsFallback === want.matchOriginAsFallback &&
    have.runAt === want.runAt &&
    have.persistAcrossSessions !== false
  );
}

// Whether `have` (getRegisteredContentScripts's answer) is this version's registration, whole.
export function isCurrent(have) {
  return have.length === PAGE_SCRIPTS.length && PAGE_SCRIPTS.every((want) => have.some((h) => h.id === want.id && same(h, want)));
}

export function createPageScripts({ chrome, pilot, timers }) {
  let queue = Promise.resolve();
  let waiting = null; // a sync not begun yet: it will see any change made before it begins
  let retry = null;
  let failures = 0;

  // One change at a time, each made for the switch as it is when its turn comes.
  function sync() {
    waiting ??= queue = queue.then(() => {
      waiting = null;
      return apply();
    });
    return waiting;
  }

  async function apply() {
    // Before the stored switch is read it counts as off: a restarted worker would unregister, and
    // a page loading in the managed browser meanwhile would miss its scripts.
    await pilot.ready;
    if (retry !== null) {
      timers.clearTimeout(retry);
      retry = null;
    }
    const on = pilot.isEnabled();
    try {
      await (on ? register() : unregister());
      failures = 0;
    } catch (err) {
      const delay = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
      failures += 1;
      console.warn(
        `tabpilot: could not ${on ? "register" : "unregister"} the page scripts; trying again in ${delay / 1000} s`,
        err,
      );
      retry = timers.setTimeout(() => {
        retry = null;
        return sync();
      }, delay);
    }
  }

  // A worker that restarts finds its registration in place and leaves it: registering an id twice
  // is an error, and a gap would let a page load without its scripts.
  async function register() {
    const have = await chrome.scripting.getRegisteredContentScripts({ ids: IDS });
    if (isCurrent(have)) return;
    // Another version's registration (an update changed a list), or a part of one: replaced whole.
    if (have.length > 0) await chrome.scripting.unregisterContentScripts({ ids: have.map((script) => script.id) });
    await chrome.scripting.registerContentScripts(PAGE_SCRIPTS);
  }

  async function unregister() {
    const have = await chrome.scripting.getRegisteredContentScripts({ ids: IDS });
    if (have.length > 0) await chrome.scripting.unregisterContentScripts({ ids: have.map((script) => script.id) });
  }

  return { sync };
}
