// What happened to a tab while a command was in it (protocol.md §2, "When the tab goes away"):
// closed, navigated, crashed, or still stuck in an earlier script. Chrome reports all of the first
// three the same way, as a closed message channel (tab-ports.js), so the tab's events and a probe
// tell them apart.
import { CommandError } from "../link/errors.js";
import { tabInfo } from "./tabs.js";

// How long a tab with an unanswered script has to answer a ping before it counts as stuck. A free
// renderer answers in a millisecond; one running `while (true) {}` never does until the loop ends.
export const PROBE_MS = 1000;
// What frees a tab that no script can. Reloading a tab stuck in a loop does not: Chromium loads the
// page again in the same renderer, which the loop holds.
const WAY_BACK = 'To go on now, close the tab and open a fresh one (browser_tabs with action "close", then "new").';
// A crashed tab comes back when it loads again: a reload starts a new renderer.
const WAY_BACK_CRASHED = `${WAY_BACK.slice(0, -1)}, or reload it in the browser.`;
const CHANNEL_CLOSED = /message (channel|port) closed/i;
// What Chrome answers a probe while the whole browser closes, its tabs with it.
const SHUTTING_DOWN = /browser is shutting down/i;

// `ping(tabId)` asks the tab's content script for an answer that costs the page nothing.
export function createTabWatch({ chrome, timers, ping }) {
  const watching = new Map(); // tab id -> Set of {closed, navigated} records of commands in it
  const abandoned = new Map(); // tab id -> scripts the worker timed out that the page never answered
  const crashed = new Set();

  const mark = (tabId, what) => {
    for (const seen of watching.get(tabId) ?? []) seen[what] = true;
  };
  // Registered in the worker's first turn (createCommands runs then), so Chrome wakes it for them.
  chrome.tabs.onRemoved.addListener((tabId) => {
    crashed.delete(tabId);
    mark(tabId, "closed");
  });
  chrome.tabs.onReplaced?.addListener((_added, removed) => {
    crashed.delete(removed);
    mark(removed, "closed");
  });
  chrome.tabs.onUpdated.addListener((tabId, change) => {
    if (change.status !== "loading") return;
    crashed.delete(tabId); // a reload brings a crashed tab back
    mark(tabId, "navigated");
  });

  // Fails fast, before anything is sent, when the tab cannot answer: a crash this worker saw, or an
  // earlier script that timed out and has not finished. Sending more would queue scripts behind
  // the stuck one, to run long after their callers were told they timed out.
  async function guard(tab) {
    if (crashed.has(tab.id)) {
      throw new CommandError(
        "tab_crashed",
        `The page in tab ${tab.id} has crashed ("Aw, Snap!"), so nothing was sent. ${WAY_BACK_CRASHED}`,
        {
          tab: tabInfo(tab),
        },
      );
    }
    if (!abandoned.get(tab.id)) return;
    const pong = ping(tab.id).then(
      () => true,
      () => true, // a tab that navigated meanwhile is not stuck; the command will say what it is
    );
    let timer;
    const silent = new Promise((resolve) => (timer = timers.setTimeout(() => resolve(false), PROBE_MS)));
    const answered = await Promise.race([pong, silent]);
    timers.clearTimeout(timer);
    if (!answered) {
      throw new CommandError(
        "tab_unresponsive",
        `Tab ${tab.id} is still running an earlier script that timed out (a long loop, say), so this ` +
          `command was not sent. It clears when that script ends. ${WAY_BACK}`,
        { tab: tabInfo(tab) },
      );
    }
  }

  // Runs `deliver` while recording what happens to the tab, and turns a closed message channel
  // (or no answer at all) into tab_closed, tab_navigated or tab_crashed.
  async function watch(tab, deliver) {
    const seen = { closed: false, navigated: false };
    if (!watching.has(tab.id)) watching.set(tab.id, new Set());
    watching.get(tab.id).add(seen);
    try {
      const answer = await deliver();
      // An answer of nothing means the receiving page went away before it answered.
      if (answer === undefined || answer === null) throw new Error("the message channel closed with no answer");
      return answer;
    } catch (err) {
      if (err instanceof CommandError || !CHANNEL_CLOSED.test(String(err?.message))) throw err;
      throw await classify(tab, seen);
    } finally {
      const set = watching.get(tab.id);
      set?.delete(seen);
      if (set?.size === 0) watching.delete(tab.id);
    }
  }

  // The worker stopped waiting for `delivery` (it timed out); until the page answers it, or the page
  // goes away, the tab counts as possibly stuck.
  function abandon(tabId, delivery) {
    abandoned.set(tabId, (abandoned.get(tabId) ?? 0) + 1);
    const settle = () => {
      const left = (abandoned.get(tabId) ?? 1) - 1;
      if (left > 0) abandoned.set(tabId, left);
      else abandoned.delete(tabId);
    };
    delivery.then(settle, settle);
  }

  async function classify(tab, seen) {
    if (seen.closed) return closedError(tab);
    let now;
    try {
      now = await chrome.tabs.get(tab.id);
    } catch {
      return closedError(tab);
    }
    if (seen.navigated || now.status === "loading" || tabInfo(now).url !== tabInfo(tab).url) return navigatedError(now);
    // Same url, not loading: either a new document (a reload that already finished) or a dead
    // renderer. Only the dead one refuses a script.
    try {
      await chrome.scripting.executeScript({ target: { tabId: tab.id, frameIds: [0] }, func: () => true });
      return navigatedError(now);
    } catch (err) {
      if (seen.closed || SHUTTING_DOWN.test(String(err?.message))) return closedError(tab);
      if (seen.navigated) return navigatedError(now);
      crashed.add(tab.id);
      return crashedError(now);
    }
  }

  return { guard, watch, abandon };
}

function closedError(tab) {
  return new CommandError(
    "tab_closed",
    `Tab ${tab.id} was closed while the script ran; it may have run in part. Pick another tab from GET /tabs.`,
    { tab: tabInfo(tab) },
  );
}

function navigatedError(tab) {
  return new CommandError(
    "tab_navigated",
    `Tab ${tab.id} navigated away or reloaded while the script ran, so its answer was lost with the page. ` +
      "The script may have run in part; check the page, then retry once it has loaded.",
    { tab: tabInfo(tab) },
  );
}

function crashedError(tab) {
  return new CommandError(
    "tab_crashed",
    `The page in tab ${tab.id} crashed ("Aw, Snap!"), so the script's answer was lost; it may have run in part. ` +
      WAY_BACK_CRASHED,
    { tab: tabInfo(tab) },
  );
}
