// browser_console_messages: each tab's console, kept here in the worker (logs-ring.js), out of the
// page's reach. The page world records it (page/page-log.js) and content.js hands it over in batches
// (a `page_log` runtime message, and the answer to `log_flush`, which a query sends first so that
// what the page logged just now is in the answer).
import { CommandError } from "../link/errors.js";
import { createTabLog, logAnswer, logQueryParams } from "./logs-ring.js";
import { deliver, tabInfo } from "../tab/tabs.js";

// DevTools' levels, most severe first; a query at one level answers it and those before it.
export const CONSOLE_LEVELS = ["error", "warning", "info", "debug"];
const RANK = Object.fromEntries(CONSOLE_LEVELS.map((level, i) => [level, i]));
const TYPES = new Set(["log", "info", "warn", "error", "debug", "exception", "rejection", "csp"]);
// A tab busy in a long script cannot answer the flush: the query then answers what arrived.
const FLUSH_TIMEOUT_MS = 1000;
const SCRIPTABLE_URL = /^(https?|file):/i;

// One entry as the page world sent it, kept only if it has the right shape (a page can forge
// entries into its own log, as it can call console.log, but not anything else).
function cleanEntry(raw) {
  if (
    !raw ||
    typeof raw !== "object" ||
    !TYPES.has(raw.type) ||
    !Object.hasOwn(RANK, raw.level) ||
    typeof raw.text !== "string"
  )
    return null;
  const entry = {
    type: raw.type,
    level: raw.level,
    text: raw.text.slice(0, 10_000),
    time: Number.isFinite(raw.time) ? raw.time : Date.now(),
  };
  if (typeof raw.url === "string") entry.url = raw.url.slice(0, 2048);
  if (Number.isInteger(raw.line)) entry.line = raw.line;
  if (Number.isInteger(raw.column)) entry.column = raw.column;
  if (typeof raw.stack === "string") entry.stack = raw.stack.slice(0, 4000);
  return entry;
}

// `onBody(tabId, record)` takes the fetch and XHR response bodies the page world sends beside
// its console entries (logs-network.js keeps them).
export function createConsoleLog({ chrome, tabs, ports, pilot, timers, onBody = () => {}, ruledOut = () => false }) {
  const log = createTabLog();

  // A committed navigation of the top frame (not a same-document one: Chrome reports those as
  // onHistoryStateUpdated) starts a new page.
  chrome.webNavigation?.onCommitted?.addListener((details) => {
    if (details.frameId === 0) log.pageOf(details.tabId, details.documentId ?? `nav:${details.timeStamp}`, details.url);
  });
  chrome.tabs.onRemoved.addListener((tabId) => log.drop(tabId));

  // A batch of entries (JSON text) from a tab's top frame; nothing is kept while the switch is off.
  function receive(tabId, batchJson, page) {
    if (!pilot.isEnabled() || typeof batchJson !== "string") return;
    let batch;
    try {
      batch = JSON.parse(batchJson);
    } catch {
      return;
    }
    if (Number.isInteger(batch?.dropped)) log.lost(tabId, batch.dropped);
    for (const raw of Array.isArray(batch?.entries) ? batch.entries : []) {
      if (raw?.type === "body") {
        onBody(tabId, raw);
        continue;
      }
      const entry = cleanEntry(raw);
      if (entry) log.add(tabId, entry, page ?? log.page(tabId));
    }
  }

  // The runtime message of content.js: Chrome sets the sender, and the page cannot.
  function onPageLog(message, sender) {
    const tabId = sender?.tab?.id;
    if (!Number.isInteger(tabId) || sender.frameId !== 0) return;
    receive(tabId, message?.batch, log.pageOf(tabId, sender.documentId, sender.url));
  }

  // What the page world holds now, through content.js; a tab that cannot answer is skipped.
  async function flush(tab) {
    if (!SCRIPTABLE_URL.test(tabInfo(tab).url) || tab.discarded) return;
    let timer;
    const late = new Promise((resolve) => (timer = timers.setTimeout(resolve, FLUSH_TIMEOUT_MS)));
    try {
      const answer = await Promise.race([deliver(chrome, ports, tab, { type: "log_flush" }), late]);
      for (const batch of answer?.result?.batches ?? []) receive(tab.id, batch);
    } catch {
      // not scriptable after all (an error page, say): the ring answers alone
    } finally {
      timers.clearTimeout(timer);
    }
  }

  async function query(params) {
    const level = params.level ?? "info";
    if (!Object.hasOwn(RANK, level)) {
      throw new CommandError(
        "invalid_request",
        `level must be one of ${CONSOLE_LEVELS.join(", ")}; got ${JSON.stringify(level)}.`,
      );
    }
    const options = logQueryParams(params, CommandError);
    const tab = await tabs.resolve(params.tab_id);
    await flush(tab);
    const rank = RANK[level];
    const answer = log.query(tab.id, { ...options, hidden: ruledOut, match: (entry) => RANK[entry.level] <= rank });
    const cleared = options.clear ? log.clear(tab.id) : null;
    return {
      result: { messages: answer.entries, level, all_pages: options.allPages, ...logAnswer(answer, cleared) },
      result_type: "object",
      tab: tabInfo(tab),
    };
  }

  return { browser_console_messages: query, onPageLog, flush, log };
}
