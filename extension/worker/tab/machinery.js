// The tab machinery every tool family is given (commands.js passes it to each), made once per
// worker. All of it adds its Chrome listeners here, in the worker's first turn, as Chrome wants for
// waking the worker for them.
//   ports     tab-ports.js: a port to each tab's content script.
//   tabs      tab-cache.js: the target tab (`tabs.resolve(tab_id)`); human_turn while a person
//             holds it for a handoff (handoffs.js).
//   handoffs  handoffs.js: the tabs handed to the person (browser_ask_human).
//   debug     debugger.js: chrome.debugger, where it may be used.
//   dialogs   dialogs.js: the JavaScript dialogs that block a tab.
//   aiTabs    ai-tabs.js: the tabs the AI opened.
//   openedTabs opened-tabs.js: which tab opened which; what an action opened.
//   tabWatch  tab-watch.js: what happened to a tab while a command was in it.
//   frames    frame-events.js: each tab's main-frame navigation events.
//   downloads downloads.js: the downloads the AI's acts and scripts start.
//   ruleBook  rule-book.js: the network rules, which the network log marks requests with.
//   sites     link/site-rules.js: the sites the person (and the daemon) rule out; the tab cache and
//             the ports refuse them.
//   withTimeout(promise, ms, onExpire): below.
import { createAiTabs } from "./ai-tabs.js";
import { createDebugger } from "./debugger.js";
import { createDialogs } from "./dialogs.js";
import { createDownloads } from "./downloads.js";
import { createFrameEvents } from "./frame-events.js";
import { createHandoffs } from "./handoffs.js";
import { createOpenedTabs } from "./opened-tabs.js";
import { createSiteRules } from "../link/site-rules.js";
import { createRuleBook } from "./rule-book.js";
import { createTabCache } from "./tab-cache.js";
import { createTabPorts } from "./tab-ports.js";
import { createTabWatch } from "./tab-watch.js";

export function createTabMachinery({ chrome, timers, managed }) {
  const sites = createSiteRules({ chrome });
  const ports = createTabPorts(chrome, sites);
  const handoffs = createHandoffs();
  const tabs = handoffs.guard(createTabCache(chrome, sites));
  const debug = createDebugger({ chrome, managed });
  const dialogs = createDialogs({ chrome, debug });
  const aiTabs = createAiTabs({ chrome, debug });
  const openedTabs = createOpenedTabs({ chrome, timers, aiTabs });
  const tabWatch = createTabWatch({
    chrome,
    timers,
    ping: (tabId) => ports.send(tabId, { type: "ping", to: "content" }),
  });
  const frames = createFrameEvents({ chrome, timers });
  const downloads = createDownloads({ chrome, timers });
  const ruleBook = createRuleBook({ chrome });

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

  return { ports, tabs, handoffs, debug, dialogs, aiTabs, openedTabs, tabWatch, frames, downloads, ruleBook, sites, withTimeout };
}
