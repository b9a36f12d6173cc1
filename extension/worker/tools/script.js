// execute_javascript and ping (docs/protocol.md §1). A script goes to the tab's page world through
// its content script (tab/tabs.js deliver); where the page world refuses it (a strict CSP) or cannot
// be reached, another route runs it (tab/script-routes.js). A ping times each hop of that chain
// and runs nothing.
import { CommandError } from "../link/errors.js";
import { pageError } from "../tab/ref-docs.js";
import { createRoutes } from "../tab/script-routes.js";
import { deliverToRefs } from "../tab/ref-frames.js";
import { assertScriptable, assertSiteNow, deliver, reinject, tabInfo } from "../tab/tabs.js";

const DEFAULT_TIMEOUT_MS = 5000;
// How long a script's answer waits for a download it started to finish (tab/downloads.js).
const DOWNLOAD_MS = 1000;
// A ping runs nothing, so it answers in milliseconds unless the page is stuck.
const PING_TIMEOUT_MS = 5000;
const PING_TARGETS = new Set(["worker", "content", "page"]);
// What the page world answers when it did not run the script: its CSP forbids code from strings, or
// it is out of reach (content.js). Another route may run it (tab/script-routes.js).
const UNREACHABLE = "page_world_unreachable";
const FALLBACK_CODES = new Set(["csp_blocked", UNREACHABLE]);

// Recorded in the popup's Recent activity with no summary: the popup shows the script itself.
const SUMMARIES = { execute_javascript: null };

// The message the content script hands to the page world. `deadline` is carried to the tab: a
// command still waiting there when it passes is dropped, not started.
function scriptMessage(params, id, timeoutMs, deadline) {
  return {
    type: "execute",
    id,
    script: params.script,
    timeout_ms: timeoutMs,
    await_promise: params.await_promise !== false,
    dialog: params.dialog === "accept" ? "accept" : "dismiss",
    prompt_text: typeof params.prompt_text === "string" ? params.prompt_text : null,
    deadline,
    ...(typeof params.ref === "string" ? { ref: params.ref } : {}),
  };
}

function refBlocked(tab) {
  return new CommandError(
    "invalid_request",
    "The element with that ref is inside a closed shadow root, and this page refuses code in its own world, " +
      "so execute_javascript cannot reach it. browser_read and browser_act work on it.",
    { tab: tabInfo(tab) },
  );
}

// A frame of another origin whose page world runs no script: sandboxed without allow-scripts, or
// its CSP refuses code from strings.
function frameRefuses(tab, error) {
  const why = error.sandboxed ? "is sandboxed without allow-scripts" : "refuses code from strings (its Content-Security-Policy)";
  return new CommandError(
    "csp_blocked",
    `The frame that element is in ${why}, so execute_javascript cannot run there. browser_read and browser_act work on it.`,
    { tab: tabInfo(tab) },
  );
}

function noAnswer(tab) {
  return new CommandError(
    "extension_error",
    "The tab's content script gave no answer: the page navigated or closed. Retry once it has loaded.",
    { tab: tabInfo(tab) },
  );
}

export function createScriptTools(deps) {
  const { chrome, fetch, now, ports, tabs, debug, dialogs, tabWatch, downloads, openedTabs, sites, withTimeout } = deps;
  const routes = createRoutes({ chrome, debug, fetch, now });

  async function executeJavascript(params, id) {
    const timeoutMs = Number.isFinite(params.timeout_ms) ? params.timeout_ms : DEFAULT_TIMEOUT_MS;
    const deadline = now() + timeoutMs;
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    const answered = [];
    const before = await dialogs.settle(tab, params);
    if (before) answered.push(before);
    await tabWatch.guard(tab);
    const job = { tab, params, message: scriptMessage(params, id, timeoutMs, deadline), deadline, expired: false };
    // A download the script starts is the AI's (browser_downloads lists it), and its answer says so.
    const started = downloads.during(tab);
    // So is a tab it opens (window.open), which its answer names once it has a title.
    const opened = openedTabs.watch(tab.id);
    try {
      const answer = await within(job, timeoutMs, answered);
      const begun = started.seen.length > 0 ? await started.settle(Math.min(DOWNLOAD_MS, Math.max(0, deadline - now()))) : [];
      const tabsOpened = opened.opened.length > 0 ? await opened.settled(Math.max(0, deadline - now())) : [];
      return answerOf(tab, answer, answered, begun, tabsOpened);
    } finally {
      started.stop();
      opened.stop();
    }
  }

  // Delivery: to the page world, through the content script. Once more after injecting the page
  // world again when its channel was lost; on another route when the page world refuses the
  // script. Nothing is sent again once the command has expired.
  async function deliverScript(job) {
    const { tab, params, message, deadline } = job;
    const sent = await deliverToRefs(chrome, ports, tab, message, () => job.expired);
    let answer = sent.answer;
    // The other routes run in the top frame: a child frame's element (a ref from a frame) is not
    // theirs to reach.
    if (sent.frameId !== 0) {
      if (answer?.ok === false && FALLBACK_CODES.has(answer.error?.code)) throw frameRefuses(tab, answer.error);
      return answer;
    }
    if (answer?.ok === false && answer.error?.code === UNREACHABLE && !answer.error.sandboxed && !job.expired) {
      // Nothing reached the page world (its channel was lost: document.open(), say): inject it
      // again, and send once more.
      await reinject(chrome, tab);
      ports.forget(tab.id);
      answer = await ports.send(tab.id, message);
    }
    if (answer?.ok === false && FALLBACK_CODES.has(answer.error?.code) && !job.expired) {
      // The other routes run apart from the content script: they find the element by its path.
      const path = typeof message.ref === "string" ? answer.error.path : undefined;
      if (path === null) throw refBlocked(tab);
      // The other routes run in whatever document the tab shows now, which no port checked.
      await assertSiteNow(chrome, sites, tab);
      return routes.fallback(tab, { ...params, path, timeout_ms: Math.max(1, deadline - now()) }, answer.error);
    }
    return answer;
  }

  // Timeout handling: the delivery's answer, or execution_timeout once timeoutMs pass. A dialog the
  // page opens by itself while the script runs (a handler the script triggered, say) stops the
  // page: it is answered where the debugger may, else the command fails now rather than at the
  // timeout. A delivery given up on is left to tab-watch.js, which refuses the tab while it stays
  // stuck.
  async function within(job, timeoutMs, answered) {
    const { tab } = job;
    const dialogWatch = dialogs.answerDuring(tab, job.params, answered);
    const delivery = tabWatch.watch(tab, () => deliverScript(job));
    const abandon = () => {
      job.expired = true;
      tabWatch.abandon(tab.id, delivery);
    };
    try {
      return await withTimeout(Promise.race([delivery, dialogWatch.stuck]), timeoutMs, () => {
        abandon();
        return new CommandError(
          "execution_timeout",
          `The script did not finish within ${timeoutMs} ms. Narrow the script or raise timeout_ms, ` +
            "and check that the page is not stuck: a tab stuck in a loop answers tab_unresponsive until " +
            "the loop ends or the tab is closed.",
          { tab: tabInfo(tab) },
        );
      });
    } catch (err) {
      if (err instanceof CommandError && err.code === "dialog_open") abandon();
      throw err;
    } finally {
      dialogWatch.stop();
    }
  }

  // Answer shaping: the page world's answer as the command's result, or its failure as the
  // command's error, with the route that ran it and the dialogs answered on the way.
  async function answerOf(tab, answer, answered, begun = [], tabsOpened = []) {
    if (!answer || typeof answer !== "object") throw noAnswer(tab);
    const where = await answerTab(tab, answer);
    // The page world's answers name their route; one that does not (an older page world) ran there.
    const extra = { route: typeof answer.route === "string" ? answer.route : "page" };
    const dialogsSeen = [...answered, ...(Array.isArray(answer.dialogs) ? answer.dialogs : [])];
    if (dialogsSeen.length > 0) extra.dialogs = dialogsSeen;
    if (begun.length > 0) extra.downloads = begun;
    if (tabsOpened.length > 0) extra.opened = tabsOpened;
    if (answer.ok !== true) {
      const error = answer.error ?? {};
      if (error.code === "ref_not_found") throw pageError(tab, answer, where);
      throw new CommandError(error.code || "extension_error", error.message ?? "the page reported a failure", {
        tab: where,
        stack: error.stack,
        data: error.data,
        extra,
      });
    }
    return { result: answer.result ?? null, result_type: answer.result_type ?? "undefined", tab: where, ...extra };
  }

  // Times one more hop of the chain per target, running nothing in the page: "worker" answers here,
  // "content" in the tab's content script, "page" in its page world (protocol.md §1).
  async function ping(params, id) {
    const to = params.to;
    if (!PING_TARGETS.has(to)) {
      const targets = [...PING_TARGETS].join(", ");
      throw new CommandError("extension_error", `Cannot ping ${JSON.stringify(to)}; the targets are ${targets}.`);
    }
    if (to === "worker") return { result: "pong", result_type: "string", tab: null };
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    let expired = false;
    const asked = deliver(chrome, ports, tab, { type: "ping", id, to }, () => expired);
    const answer = await withTimeout(asked, PING_TIMEOUT_MS, () => {
      expired = true;
      return new CommandError(
        "execution_timeout",
        `The tab did not answer a ping within ${PING_TIMEOUT_MS} ms: the page is busy or stuck.`,
        { tab: tabInfo(tab) },
      );
    });
    if (answer?.ok !== true) {
      const code = answer?.error?.code === UNREACHABLE ? "extension_error" : answer?.error?.code;
      const message = answer?.error?.message ?? "The tab's content script gave no answer to a ping.";
      throw new CommandError(code || "extension_error", message, { tab: tabInfo(tab) });
    }
    return { result: answer.result, result_type: "string", tab: await answerTab(tab, answer) };
  }

  // The url and title the content script saw, which follow in-page navigation; else ask Chrome.
  async function answerTab(tab, answer) {
    if (typeof answer.url === "string") return { id: tab.id, url: answer.url, title: answer.title ?? "" };
    try {
      return tabInfo(await chrome.tabs.get(tab.id));
    } catch {
      return tabInfo(tab);
    }
  }

  return { handlers: { execute_javascript: executeJavascript, ping }, summaries: SUMMARIES };
}
