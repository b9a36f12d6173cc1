// browser_tabs: list, open, select and close tabs (docs/protocol.md §1, "browser_tabs").
//
// It is also the way back from a tab that no script can free (a page stuck in a loop, a crashed
// renderer): close it and open a fresh one. The managed browser is headless and has no other
// way, so it never closes its last tab without opening the daemon's landing page first: a
// browser whose last tab closes shuts down.
//
// The tabs the AI opens are remembered (tab/ai-tabs.js): a close without tab_id closes only such a
// tab, browser_close closes them all. The list says which tab opened which (`opener`, from
// tab/opened-tabs.js), and browser_tabs' list adds the tabs the AI's actions opened that closed in
// the last minutes (an OAuth popup that closed itself), marked `closed`, with the url each ended on.
import { CommandError } from "../link/errors.js";
import { plural } from "../link/activity.js";
import { listTabs, listed as listedTab, siteRefusal, tabInfo, tabWithId } from "../tab/tabs.js";

const OPENABLE_URL = /^https?:\/\//i;

// What a browser_tabs command did, in words for the person at the popup.
function tabsSummary(params, result) {
  const action = params?.action ?? "list";
  if (action === "list") return "listed the tabs";
  if (action === "new") return `opened a tab${result?.result?.url ? `: ${result.result.url}` : ""}`;
  if (action === "close") return `closed tab ${params?.tab_id ?? result?.result?.closed ?? ""}`.trim();
  return `selected tab ${params?.tab_id}`;
}

const SUMMARIES = {
  // The older way to list tabs: recorded with no summary; the popup words it itself.
  list_tabs: null,
  browser_tabs: tabsSummary,
  browser_close: (_params, result) => `closed ${plural(result?.result?.closed_tabs?.length ?? 0, "tab")}`,
};

export function createTabsTools({ chrome, tabs, debug, landingUrl, aiTabs, openedTabs, sites, call }) {
  const describe = (tab) => ({ ...listedTab(tab, sites), active: tab.active === true, window_id: tab.windowId });
  // The window in front too, where a command without tab_id runs (tab-cache.js): asked of Chrome,
  // which a headless browser ignores, and told to the tab cache.
  const focus = async (windowId) => {
    if (!Number.isInteger(windowId)) return;
    await Promise.resolve(chrome.windows?.update?.(windowId, { focused: true })).catch(() => {});
    tabs.toFront?.(windowId);
  };

  const tabById = (tabId) => tabWithId(chrome, tabId, 'browser_tabs with action "list" lists the open tabs');

  // Each open tab with the tab that opened it (null if none did or it is not known).
  async function listed() {
    await openedTabs.ready;
    const open = await chrome.tabs.query({});
    const openers = new Map(open.map((tab) => [tab.id, openedTabs.openerOf(tab)]));
    return (await listTabs(chrome, sites)).map((tab) => ({ ...tab, opener: openers.get(tab.id) ?? null }));
  }

  const actions = {
    async list() {
      // A closed tab that ended on a ruled-out site is listed as the open ones are.
      const ruledOut = (tab) => [tab.url, tab.ended_url].some((url) => url && siteRefusal(sites, { ...tab, url }));
      const closed = openedTabs
        .recentlyClosed()
        .map((tab) => ({ ...tab, ...(ruledOut(tab) ? { url: "", title: "", ended_url: "", blocked: true } : {}), active: false }));
      return { result: [...(await listed()), ...closed], result_type: "array", tab: null };
    },

    async new(params) {
      const url = params.url ?? (await landingUrl());
      if (typeof url !== "string" || !OPENABLE_URL.test(url)) {
        throw new CommandError(
          "invalid_request",
          `A new tab opens an http or https url; ${JSON.stringify(url)} is neither.`,
        );
      }
      sites.assertUrl(url, `Cannot open ${url}`);
      // Opened blank, made the AI's (its network rules then cover the first request), then loaded
      // as browser_navigate loads: the answer comes once the page has, so that the next call finds
      // the page it asked for, not the blank one or a page half parsed. It comes to the front
      // once loaded: in a headless window, a page that replaced the blank one in a tab already
      // active did not get the focus.
      const tab = await chrome.tabs.create({ url: "about:blank", active: false });
      await aiTabs.add(tab);
      let title = "";
      try {
        ({ title } = (await call("browser_navigate", { url, tab_id: tab.id })).result);
      } catch (err) {
        if (!(err instanceof CommandError)) throw err;
        err.message = `Opened tab ${tab.id}, but ${err.message} The tab stays open: pass its tab_id to retry or close it.`;
        throw err;
      } finally {
        await Promise.resolve(chrome.tabs.update(tab.id, { active: true })).catch(() => {});
        await focus(tab.windowId);
      }
      const loaded = { ...(await chrome.tabs.get(tab.id).catch(() => tab)), title };
      return { result: describe(loaded), result_type: "object", tab: tabInfo(loaded) };
    },

    async select(params) {
      const tab = await tabById(params.tab_id);
      const refused = siteRefusal(sites, tab);
      if (refused) throw refused;
      const selected = await chrome.tabs.update(tab.id, { active: true });
      await focus(tab.windowId);
      return { result: describe(selected ?? tab), result_type: "object", tab: tabInfo(selected ?? tab) };
    },

    async close(params) {
      const tab = params.tab_id == null ? await activeAiTab() : await tabById(params.tab_id);
      // The AI may close a tab of its own that went to a ruled-out site, not one of the person's.
      const refused = siteRefusal(sites, tab);
      if (refused && !(await aiTabs.has(tab.id))) throw refused;
      // Chrome closes even a tab whose page is stuck in a loop, and ends its renderer.
      const opened = await remove([tab.id]);
      const result = { closed: tab.id };
      if (opened) result.opened = describe(opened);
      return { result, result_type: "object", tab: null };
    },
  };

  // Without a tab_id, close means the tab in front, and only if the AI opened it: closing a tab the
  // person opened takes its explicit id. In the managed browser every tab is the AI's.
  async function activeAiTab() {
    const tab = await tabs.resolve(null);
    await debug.ready;
    if (debug.isManaged() || (await aiTabs.has(tab.id))) return tab;
    throw new CommandError(
      "invalid_request",
      `The active tab ${tab.id} (${tabInfo(tab).url}) was opened by the person at the browser, not by the AI; ` +
        "to close it anyway, pass its tab_id.",
      { tab: tabInfo(tab) },
    );
  }

  // Closes the tabs; the managed browser opens the daemon's landing page first when they are all it
  // has, since a browser whose last tab closes shuts down. Returns that page's tab, if opened.
  async function remove(tabIds) {
    await debug.ready;
    let opened = null;
    if (debug.isManaged() && (await chrome.tabs.query({})).every((t) => tabIds.includes(t.id))) {
      opened = await chrome.tabs.create({ url: await landingUrl(), active: true });
    }
    openedTabs.closingTabs(tabIds);
    if (tabIds.length > 0) await chrome.tabs.remove(tabIds);
    return opened;
  }

  async function browserTabs(params) {
    const action = params.action ?? "list";
    if (!Object.hasOwn(actions, action)) {
      throw new CommandError(
        "invalid_request",
        `Unknown action ${JSON.stringify(action)}; the actions are ${Object.keys(actions).join(", ")}.`,
      );
    }
    return actions[action](params);
  }

  // browser_close: the AI's tabs close, and in a person's Chrome the debugger lets go of every tab
  // (the daemon stops its managed browser itself once this answers).
  async function closeBrowser() {
    const mine = new Set(await aiTabs.list());
    const closing = (await chrome.tabs.query({})).filter((t) => mine.has(t.id)).map((t) => t.id);
    await remove(closing);
    if (!debug.isManaged()) debug.detachAll();
    return { result: { closed_tabs: closing }, result_type: "object", tab: null };
  }

  const handlers = { list_tabs: async () => ({ result: await listTabs(chrome, sites), result_type: "array", tab: null }), browser_tabs: browserTabs, browser_close: closeBrowser };
  return { handlers, summaries: SUMMARIES };
}
