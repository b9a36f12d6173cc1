// The frame every action in a tab runs in, whatever it does there (browser_act, page-act.js;
// browser_fill_form, form.js): the tab made ready, a watch on what the action sets going (a
// navigation, new tabs, dialogs, downloads), the action within its timeout, then the answer once
// that has shown, saying what happened meanwhile.
import { CommandError } from "../link/errors.js";
import { DEBUGGER_SWITCH } from "./debugger.js";
import { pageError } from "./ref-docs.js";
import { deliverToRefs } from "./ref-frames.js";
import { assertScriptable, tabInfo } from "./tabs.js";

export const DEFAULT_ACT_MS = 10_000;
// How long an action's consequences get to show before the answer: a click's navigation or new tab
// reaches the worker a few milliseconds after the content script's answer. Anything that started
// within it (a navigation) is then waited for.
export const QUIET_MS = 150;
const DEAD_LINK_MS = 1000;
// How long an answer waits for a download the action started to finish (or, after a navigation
// that turned into a download, to appear): a longer one is reported in progress.
const DOWNLOAD_MS = 1000;
const CHANNEL_CLOSED = /message (channel|port) closed/i;
const OPENABLE = /^https?:\/\//i;

// Why a click on a link to these urls opened nothing, as Chrome does (tested on both routes): a
// web page may not open local files, the browser's own pages or data: urls as pages; a javascript:
// url runs in the page on a trusted click, and not at all on the DOM route's (Chrome holds an
// extension's isolated world to its own script policy); a blob: url opens only from the origin
// that made it, while it lives.
const DEAD_LINKS = {
  "javascript:": "its href is a javascript: url, which runs a script in the page instead of opening one",
  "javascript:dom":
    "its href is a javascript: url, which Chrome does not run for an extension's untrusted click; " +
    "trusted: true clicks it as a person would",
  "file:": "file: urls cannot be opened from a web page",
  "chrome:": "chrome: urls cannot be opened from a web page",
  "chrome-extension:": "another extension's pages cannot be opened from a web page",
  "about:": "about: urls other than about:blank cannot be opened from a web page",
  "data:": "Chrome does not let a web page open a data: url as a page",
  "blob:": "its blob: url was not opened (it was revoked, or belongs to another origin)",
};

// What a key's or text's answer adds when the page did not have the focus (content/act.js).
const UNFOCUSED =
  "; the page's window does not have the focus, so the page's own focus changes fire no events " +
  "and a key may not reach what it expects (bring its window to the front)";

// What the answer adds when a clicked link went nowhere: "; no navigation: …".
export function deadLink(href, route) {
  let scheme;
  try {
    scheme = new URL(href).protocol;
  } catch {
    return "";
  }
  const why = DEAD_LINKS[scheme + route] ?? DEAD_LINKS[scheme];
  return why ? `; no navigation: ${why}` : "";
}

// A refusal from act-common.js or the page (`{code, message, data}`) as the command's error.
export function asCommandError(err, tab) {
  if (err instanceof CommandError || typeof err?.code !== "string") return err;
  return new CommandError(err.code, err.message, { tab: tab ? tabInfo(tab) : null, data: err.data });
}

// Trusted input needs the debugger, which a person's browser allows only with its switch on.
export async function assertTrusted(debug) {
  await debug.reload();
  if (!debug.allowed()) {
    throw new CommandError(
      "debugger_disabled",
      `Trusted input goes through chrome.debugger, which this browser allows only with ${DEBUGGER_SWITCH}. ` +
        "Ask the person at the browser to turn it on in the tabpilot popup, or leave trusted unset to act " +
        "through the page's DOM.",
    );
  }
}

// Gets the tab ready for an action (browser_act, browser_mouse): where the debugger may be used it
// holds the tab first, since only a session attached before a dialog opens can answer it
// (debugger.js); a dialog left open is dismissed where it may be; a tab still stuck in an earlier
// script is refused (tab-watch.js). Returns the dialogs answered.
export async function readyToAct({ debug, dialogs, tabWatch }, tab) {
  await debug.reload();
  await debug.hold(tab.id);
  const answered = [];
  const before = await dialogs.settle(tab, { dialog: "dismiss" });
  if (before) answered.push(before);
  await tabWatch.guard(tab);
  return answered;
}

export function createActRunner(deps) {
  const { chrome, tabs, ports, debug, dialogs, tabWatch, frames, openedTabs, downloads, withTimeout } = deps;
  const quiet = new Set(); // tabs whose last DOM action started nothing (see followUp)

  // One action's way to the page: `job` is {tab, cancelled(), opened, where, frameId}; `where` keeps
  // the url and title the page last answered with; `frameId`, the frame the refs sent it to
  // (ref-frames.js), whose points the debugger route moves into the top viewport.
  async function toPage(job, message) {
    const { tab } = job;
    const { answer, frameId } = await deliverToRefs(chrome, ports, tab, message, job.cancelled);
    if (frameId !== 0) job.frameId = frameId;
    if (typeof answer?.url === "string") job.where = { id: tab.id, url: answer.url, title: answer.title ?? "" };
    if (answer?.ok === true) return answer.result ?? {};
    if (!answer || typeof answer !== "object") throw new Error("The message channel closed before the page answered.");
    throw pageError(tab, answer);
  }

  // What a DOM action's answer says of its consequences: the link a click followed and whether
  // keys went to a page without the focus (said in the answer); a link to a new tab, which an
  // untrusted click cannot open past the popup blocker, is opened here; a page that saw no
  // navigation start (content/act.js) and opened no tab needs no waiting for one (settle).
  async function followUp(job, result) {
    const { tab, opened } = job;
    if (typeof result.link === "string") job.link = result.link;
    job.unfocused = job.unfocused || result.unfocused === true;
    if (typeof result.open === "string" && OPENABLE.test(result.open)) {
      opened.add(
        await chrome.tabs.create({
          url: result.open,
          openerTabId: tab.id,
          windowId: tab.windowId,
          index: tab.index + 1,
          active: true,
        }),
      );
    }
    if (result.navigating === false && !result.open) quiet.add(tab.id);
  }

  // Waits for what the action set going: a navigation it started (until the new page's DOM is
  // there), a tab it opened. Ends after QUIET_MS when nothing started, at once when the page said
  // that nothing did.
  async function settle(tracker, opened, left, calm, quietMs = QUIET_MS) {
    const begun = Date.now();
    const remaining = () => Math.max(0, left - (Date.now() - begun));
    const moving = (s) => s.started || s.committed || s.sameDocument || s.closed || opened.opened.length > 0;
    await tracker.wait(moving, calm ? 0 : Math.min(quietMs, remaining()));
    const s = tracker.state;
    if ((s.started || s.committed) && !s.closed)
      await tracker.wait((st) => st.error !== null || st.closed || st.domReady, remaining());
  }

  // follow: true: the last tab the action opened that is still open becomes the active tab of the
  // focused window, which a call without tab_id goes to (tab-cache.js).
  async function follow(answer) {
    const target = answer.result.opened.findLast((t) => !t.closed);
    if (!target) return;
    const tab = await Promise.resolve(chrome.tabs.update(target.id, { active: true })).catch(() => null);
    if (!tab) return;
    await Promise.resolve(chrome.windows?.update?.(tab.windowId, { focused: true })).catch(() => {});
    tabs.toFront?.(tab.windowId);
    target.followed = true;
  }

  const readyTab = (tab) => readyToAct({ debug, dialogs, tabWatch }, tab);

  // The action (`action.work(job)`, which answers the result's own fields) within timeoutMs. A page
  // that went away before it answered was navigated by the action, which did its part.
  async function perform(job, action, timeoutMs, stuck) {
    const { tab, tracker } = job;
    try {
      return await withTimeout(Promise.race([action.work(job), stuck]), timeoutMs, () => {
        job.expired = true;
        return new CommandError(
          "execution_timeout",
          `${action.label} did not finish within ${timeoutMs} ms: the page is busy or stuck. ` +
            "Raise timeout_ms, or look at the tab.",
          { tab: tabInfo(tab) },
        );
      });
    } catch (err) {
      const closed = CHANNEL_CLOSED.test(String(err?.message));
      if (closed && tracker.state.closed) {
        throw new CommandError("tab_closed", `Tab ${tab.id} was closed before the ${action.label} was answered.`, {
          tab: tabInfo(tab),
        });
      }
      if (!(closed && (tracker.state.started || tracker.state.committed))) throw asCommandError(err, tab);
      return { description: `${action.gone}; the page navigated before it answered` };
    }
  }

  // The answer, once what the action set going has shown (settle): the action's own fields, then
  // where the tab is now, whether it navigated, the tabs it opened, the dialogs answered and the
  // downloads started.
  async function answerOf(job, own, answered, left) {
    const { tab, tracker, opened } = job;
    // A navigation to a response that turned into a download ends aborted, without committing.
    const aborted = tracker.state.error === "net::ERR_ABORTED" && !tracker.state.committed;
    const wait = job.downloads.seen.length > 0 || aborted ? Math.min(DOWNLOAD_MS, Math.max(0, left)) : 0;
    const started = await job.downloads.settle(wait, aborted);
    // Where the page answered from, unless something moved since: then Chrome says where it is.
    const s = tracker.state;
    const still = job.where && !(s.started || s.committed || s.sameDocument || s.closed) && opened.opened.length === 0;
    const now = still ? job.where : tabInfo(await chrome.tabs.get(tab.id).catch(() => tab));
    const navigated = s.committed || s.sameDocument || now.url !== tabInfo(tab).url;
    // The tabs it opened, each once it has a title (or has closed: an OAuth popup closes itself).
    const newTabs = await opened.settled(Math.max(0, left));
    // A link that went nowhere says why, rather than reading as a click that opened its page.
    let { description } = own;
    if (typeof description === "string") {
      if (job.link && !navigated && newTabs.length === 0) description += deadLink(job.link, job.route);
      if (job.unfocused) description += UNFOCUSED;
      if (job.unseen) description += `; the element is not visible to the person (${job.unseen})`;
    }
    const result = { ...own, description, route: job.route, navigated, url: now.url, opened: newTabs };
    if (job.unseen) result.not_visible = job.unseen;
    if (description === undefined) delete result.description;
    // The tab closed itself (a popup's window.close() once its form was sent): where it ended.
    if (s.closed) Object.assign(result, { closed: true, url: s.url ?? now.url });
    if (answered.length > 0) result.dialogs = answered;
    if (started.length > 0) result.downloads = started;
    return { result, result_type: "object", tab: now };
  }

  // Runs `action.work(job)` in the tab params.tab_id names, on `action.route` (or the one it
  // picks: a function). `label` names the action in messages ("browser_act click"); `gone` is what
  // the answer says was done when the page navigated before answering ("Did click on e5").
  async function run(params, action) {
    const timeoutMs = Number.isInteger(params.timeout_ms) && params.timeout_ms > 0 ? params.timeout_ms : DEFAULT_ACT_MS;
    const started = Date.now();
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    let route = action.route;
    try {
      if (typeof route === "function") route = await route(tab);
    } catch (err) {
      throw asCommandError(err, tab);
    }
    const answered = await readyTab(tab);
    const job = {
      tab,
      route,
      tracker: frames.follow(tab.id),
      opened: openedTabs.watch(tab.id),
      downloads: downloads.during(tab),
      where: null,
      link: null, // the url of the link a click followed, if any
      unfocused: false, // keys or text went to a page without the focus
      expired: false,
    };
    job.cancelled = () => job.expired;
    // A dialog the action raises stops the page: dismissed as for scripts where the debugger may,
    // else the action fails with dialog_open rather than at its timeout.
    const dialogWatch = dialogs.answerDuring(tab, { dialog: "dismiss" }, answered);
    quiet.delete(tab.id); // what an earlier action left, if it failed after the page answered
    try {
      const own = await perform(job, action, timeoutMs, dialogWatch.stuck);
      const calm = quiet.delete(tab.id) && answered.length === 0;
      await settle(job.tracker, job.opened, timeoutMs - (Date.now() - started), calm);
      // Before an answer says a link opened nothing, its navigation gets longer to start (a blob:
      // url's does open, late on a busy machine).
      if (job.link && deadLink(job.link, route)) {
        await settle(job.tracker, job.opened, timeoutMs - (Date.now() - started), false, DEAD_LINK_MS);
      }
      // A tab a page opened (a sign-in popup) may close itself once its new page has run: a
      // moment more to see it do so, said in the answer.
      const s = job.tracker.state;
      if (s.committed && !s.closed && openedTabs.openerOf(tab) !== null) {
        await job.tracker.wait((st) => st.closed, Math.min(QUIET_MS, timeoutMs - (Date.now() - started)));
      }
      const answer = await answerOf(job, own, answered, timeoutMs - (Date.now() - started));
      if (params.follow === true) await follow(answer);
      return answer;
    } finally {
      job.downloads.stop();
      dialogWatch.stop();
      job.opened.stop();
      job.tracker.stop();
    }
  }

  return { run, toPage, followUp };
}
