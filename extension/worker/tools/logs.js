// The log tools: browser_console_messages (logs-console.js) and browser_network_requests
// (logs-network.js), each answered from a ring per tab kept here in the worker, out of the page's
// reach (logs-ring.js). The page world's console log and its fetch and XHR response bodies arrive
// together, in batches from the content script, so the two logs feed each other: the console log
// hands the bodies to the network log, and a request's body asked for (include_body) first has
// the page hand over what it holds.
import { createConsoleLog } from "./logs-console.js";
import { createNetworkLog } from "./logs-network.js";

const SUMMARIES = {
  browser_console_messages: () => "read the console",
  browser_network_requests: () => "listed the network requests",
};

export function createLogsTools({ chrome, tabs, ports, pilot, timers, ruleBook, sites }) {
  const onBody = (tabId, raw) => networkLog.onBody(tabId, raw);
  // An earlier page of the tab on a ruled-out site is left out of either log (link/site-rules.js).
  const ruledOut = (url) => Boolean(sites?.active() && url && sites.check(url));
  const consoleLog = createConsoleLog({ chrome, tabs, ports, pilot, timers, onBody, ruledOut });
  const networkLog = createNetworkLog({ chrome, tabs, pilot, ruleBook, ruledOut, flushPage: (tab) => consoleLog.flush(tab) });
  return {
    handlers: {
      browser_console_messages: (params) => consoleLog.browser_console_messages(params),
      browser_network_requests: (params) => networkLog.browser_network_requests(params),
    },
    summaries: SUMMARIES,
    // Runtime messages from content scripts, by type (main.js answers them).
    messages: {
      // A batch of a page's console log (content.js); Chrome sets the sender, the page cannot.
      page_log: async (message, sender) => {
        // Nothing of a ruled-out site is kept (link/site-rules.js).
        if (sites?.active() && sites.check(String(sender?.url ?? ""))) return {};
        consoleLog.onPageLog(message, sender);
        return {};
      },
    },
    consoleLog,
  };
}
