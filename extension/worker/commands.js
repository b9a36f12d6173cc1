// Command routing: one `command` frame in, exactly one `result` frame out (protocol.md §1).
import { CommandError, errorPayload } from "./link/errors.js";
import { createTabPorts } from "./tab/tab-ports.js";
import { createTabWatch } from "./tab/tab-watch.js";
import { createDebugger } from "./tab/debugger.js";
import { createDialogs } from "./tab/dialogs.js";
import { createRoutes } from "./tab/script-routes.js";
import { createAiTabs, createTabActions } from "./tools/tabs.js";
import { createFrameEvents, createNavigation } from "./tools/navigate.js";
import { createInput } from "./tab/input.js";
import { createPageAct } from "./tools/page-act.js";
import { createPageRead, pageError } from "./tools/page.js";
import { assertScriptable, deliver, listTabs, reinject, tabInfo } from "./tab/tabs.js";
import { createTabCache } from "./tab/tab-cache.js";
import { createCapture } from "./tools/capture.js";
import { createConsoleLog } from "./tools/logs-console.js";
import { createNetworkLog } from "./tools/logs-network.js";
import { createFunctions } from "./tools/functions.js";
import { createStorage } from "./tools/storage.js";

const DEFAULT_TIMEOUT_MS = 5000;
// A ping runs nothing, so it answers in milliseconds unless the page is stuck.
const PING_TIMEOUT_MS = 5000;
const PING_TARGETS = new Set(["worker", "content", "page"]);
// What the page world answers when it did not run the script: its CSP forbids code from strings, or
// it is out of reach (content.js). Another route may run it (tab/script-routes.js).
const UNREACHABLE = "page_world_unreachable";
const FALLBACK_CODES = new Set(["csp_blocked", UNREACHABLE]);

const PILOT_OFF =
  "AI Web Pilot is off. The person at this browser must turn it on in the tabpilot extension popup " +
  "(toolbar icon) before scripts can run in their tabs.";

export function createCommands({ chrome, pilot, timers, fetch, managed, landingUrl, now = Date.now }) {
  const ports = createTabPorts(chrome);
  const tabs = createTabCache(chrome);
  const debug = createDebugger({ chrome, managed });
  const dialogs = createDialogs({ chrome, debug });
  const routes = createRoutes({ chrome, debug, fetch, now });
  const aiTabs = createAiTabs({ chrome, debug });
  const tabActions = createTabActions({ chrome, tabs, debug, landingUrl, aiTabs });
  const tabWatch = createTabWatch({ chrome, timers, ping: (tabId) => ports.send(tabId, { type: "ping", to: "content" }) });
  const pageRead = createPageRead({ chrome, tabs, ports, timers, tabWatch });
  const frames = createFrameEvents({ chrome, timers });
  const navigate = createNavigation({ chrome, tabs, frames, dialogs, withTimeout });
  const consoleLog = createConsoleLog({ chrome, tabs, ports, pilot, timers, onBody: (tabId, raw) => networkLog.onBody(tabId, raw) });
  const networkLog = createNetworkLog({ chrome, tabs, pilot, flushPage: (tab) => consoleLog.flush(tab) });
  const act = createPageAct({ chrome, tabs, ports, debug, dialogs, tabWatch, frames, aiTabs, input: createInput({ debug }), withTimeout, pageError });
  const capture = createCapture({ chrome, tabs, debug, timers, withTimeout, now });
  const storage = createStorage({ chrome, debug, managed, timers });
  const handlers = {
    execute_javascript: executeJavascript,
    browser_snapshot: pageRead.browser_snapshot,
    browser_read: pageRead.browser_read,
    list_tabs: async () => ({ result: await listTabs(chrome), result_type: "array", tab: null }),
    browser_tabs: (params) => tabActions.browserTabs(params),
    browser_navigate: (params) => navigate(params),
    browser_act: (params) => act(params),
    browser_close: () => tabActions.closeBrowser(),
    browser_take_screenshot: capture.browser_take_screenshot,
    browser_console_messages: (params) => consoleLog.browser_console_messages(params),
    browser_network_requests: (params) => networkLog.browser_network_requests(params),
    ...createFunctions(),
    ping,
    storage_export: storage.storage_export,
    storage_import: storage.storage_import,
  };

  // Never rejects: every path ends in one result frame for frame.id.
  async function run(frame) {
    const id = frame?.id ?? null;
    try {
      const handler = Object.hasOwn(handlers, frame?.command) ? handlers[frame.command] : null;
      if (!handler) {
        console.warn("tabpilot: unknown command", frame?.command);
        throw new CommandError(
          "unknown_command",
          `Unknown command ${JSON.stringify(frame?.command)}; this extension knows ${Object.keys(handlers).join(", ")}.`,
        );
      }
      // The stored switch is the authority, whatever the daemon last heard; every AI access
      // passes here, listing tabs included.
      await pilot.ready;
      if (!pilot.isEnabled()) throw new CommandError("pilot_disabled", PILOT_OFF);
      return { type: "result", id, ok: true, ...(await handler(frame.params ?? {}, id)) };
    } catch (err) {
      if (!(err instanceof CommandError)) console.error("tabpilot: command failed", err);
      const result = { type: "result", id, ok: false, error: errorPayload(err), ...(err?.extra ?? {}) };
      if (err?.tab) result.tab = err.tab;
      return result;
    }
  }

  async function executeJavascript(params, id) {
    const timeoutMs = Number.isFinite(params.timeout_ms) ? params.timeout_ms : DEFAULT_TIMEOUT_MS;
    // Carried to the tab: a command still waiting there when it passes is dropped, not started.
    const deadline = now() + timeoutMs;
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    const answered = [];
    const before = await dialogs.settle(tab, params);
    if (before) answered.push(before);
    await tabWatch.guard(tab);
    const message = {
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
    let expired = false;
    let failDuring;
    const stuck = new Promise((_resolve, reject) => (failDuring = reject));
    stuck.catch(() => {});
    // A dialog the page opens by itself while the script runs (a handler the script triggered, say)
    // stops the page: answer it where the debugger may, else say so now rather than at the timeout.
    const unwatch = dialogs.watch(tab.id, () => {
      dialogs
        .settle(tab, params, true)
        .then((record) => record && answered.push(record))
        .catch((err) => failDuring(err));
    });
    const attempt = async () => {
      let answer = await deliver(chrome, ports, tab, message, () => expired);
      if (answer?.ok === false && answer.error?.code === UNREACHABLE && !answer.error.sandboxed && !expired) {
        // Nothing reached the page world (its channel was lost: document.open(), say): inject it
        // again, and send once more.
        await reinject(chrome, tab);
        ports.forget(tab.id);
        answer = await ports.send(tab.id, message);
      }
      if (answer?.ok === false && FALLBACK_CODES.has(answer.error?.code) && !expired) {
        // The other routes run apart from the content script: they find the element by its path.
        const path = typeof message.ref === "string" ? answer.error.path : undefined;
        if (path === null) throw refBlocked(tab);
        return routes.fallback(tab, { ...params, path, timeout_ms: Math.max(1, deadline - now()) }, answer.error);
      }
      return answer;
    };
    const delivery = tabWatch.watch(tab, attempt);
    let answer;
    try {
      answer = await withTimeout(Promise.race([delivery, stuck]), timeoutMs, () => {
        expired = true;
        tabWatch.abandon(tab.id, delivery);
        return new CommandError(
          "execution_timeout",
          `The script did not finish within ${timeoutMs} ms. Narrow the script or raise timeout_ms, ` +
            "and check that the page is not stuck: a tab stuck in a loop answers tab_unresponsive until " +
            "the loop ends or the tab is closed.",
          { tab: tabInfo(tab) },
        );
      });
    } catch (err) {
      if (err instanceof CommandError && err.code === "dialog_open") {
        expired = true;
        tabWatch.abandon(tab.id, delivery);
      }
      throw err;
    } finally {
      unwatch();
    }
    if (!answer || typeof answer !== "object") {
      throw new CommandError("extension_error", "The tab's content script gave no answer: the page navigated or closed. Retry once it has loaded.", {
        tab: tabInfo(tab),
      });
    }
    const where = await answerTab(tab, answer);
    // The page world's answers name their route; one that does not (an older page world) ran there.
    const extra = { route: typeof answer.route === "string" ? answer.route : "page" };
    const dialogsSeen = [...answered, ...(Array.isArray(answer.dialogs) ? answer.dialogs : [])];
    if (dialogsSeen.length > 0) extra.dialogs = dialogsSeen;
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

  function refBlocked(tab) {
    return new CommandError(
      "invalid_request",
      "The element with that ref is inside a closed shadow root, and this page refuses code in its own world, " +
        "so execute_javascript cannot reach it. browser_read and browser_act work on it.",
      { tab: tabInfo(tab) },
    );
  }

  // Times one more hop of the chain per target, running nothing in the page: "worker" answers here,
  // "content" in the tab's content script, "page" in its page world (protocol.md §1).
  async function ping(params, id) {
    const to = params.to;
    if (!PING_TARGETS.has(to)) {
      throw new CommandError("extension_error", `Cannot ping ${JSON.stringify(to)}; the targets are ${[...PING_TARGETS].join(", ")}.`);
    }
    if (to === "worker") return { result: "pong", result_type: "string", tab: null };
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    let expired = false;
    const answer = await withTimeout(deliver(chrome, ports, tab, { type: "ping", id, to }, () => expired), PING_TIMEOUT_MS, () => {
      expired = true;
      return new CommandError("execution_timeout", `The tab did not answer a ping within ${PING_TIMEOUT_MS} ms: the page is busy or stuck.`, {
        tab: tabInfo(tab),
      });
    });
    if (answer?.ok !== true) {
      const code = answer?.error?.code === UNREACHABLE ? "extension_error" : answer?.error?.code;
      throw new CommandError(code || "extension_error", answer?.error?.message ?? "The tab's content script gave no answer to a ping.", {
        tab: tabInfo(tab),
      });
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

  // The worker's own timer is the only clock that still runs when the page is stuck in
  // `while (true) {}`: the content script shares the page's main thread. After expiry a late answer
  // settles a promise nobody reads any more, so it is dropped.
  function withTimeout(promise, ms, onExpire) {
    return new Promise((resolve, reject) => {
      const timer = timers.setTimeout(() => reject(onExpire()), ms);
      promise.then(
        (value) => {
          timers.clearTimeout(timer);
          resolve(value);
        },
        (err) => {
          timers.clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  return { run, dialogs, debug, consoleLog };
}
