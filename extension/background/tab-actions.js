// browser_tabs: list, open, select and close tabs (docs/protocol.md §1, "browser_tabs").
//
// It is also the way back from a tab that no script can free (a page stuck in a loop, a crashed
// renderer): close it and open a fresh one. The managed browser is headless and has no other
// way, so it never closes its last tab without opening the daemon's landing page first: a
// browser whose last tab closes shuts down.
import { CommandError } from "./errors.js";
import { listTabs, tabInfo } from "./tabs.js";

const OPENABLE_URL = /^https?:\/\//i;

export function createTabActions({ chrome, debug, landingUrl }) {
  const describe = (tab) => ({ ...tabInfo(tab), active: tab.active === true, window_id: tab.windowId });
  // The window in front too, so that the tab is the active tab of the last focused window, where a
  // command without tab_id runs. Best effort: a headless browser may refuse.
  const focus = (windowId) =>
    Number.isInteger(windowId) && chrome.windows?.update
      ? Promise.resolve(chrome.windows.update(windowId, { focused: true })).catch(() => {})
      : undefined;

  async function tabById(tabId) {
    try {
      if (!Number.isInteger(tabId)) throw new TypeError("not an integer");
      return await chrome.tabs.get(tabId);
    } catch {
      throw new CommandError("tab_not_found", `No tab with id ${JSON.stringify(tabId)}; browser_tabs with action "list" lists the open tabs.`);
    }
  }

  const actions = {
    async list() {
      return { result: await listTabs(chrome), result_type: "array", tab: null };
    },

    async new(params) {
      const url = params.url ?? (await landingUrl());
      if (typeof url !== "string" || !OPENABLE_URL.test(url)) {
        throw new CommandError("invalid_request", `A new tab opens an http or https url; ${JSON.stringify(url)} is neither.`);
      }
      const tab = await chrome.tabs.create({ url, active: true });
      await focus(tab.windowId);
      return { result: describe(tab), result_type: "object", tab: tabInfo(tab) };
    },

    async select(params) {
      const tab = await tabById(params.tab_id);
      const selected = await chrome.tabs.update(tab.id, { active: true });
      await focus(tab.windowId);
      return { result: describe(selected ?? tab), result_type: "object", tab: tabInfo(selected ?? tab) };
    },

    async close(params) {
      const tab = await tabById(params.tab_id);
      await debug.ready;
      let opened = null;
      if (debug.isManaged() && (await chrome.tabs.query({})).length <= 1) {
        opened = await chrome.tabs.create({ url: await landingUrl(), active: true });
      }
      // Chrome closes even a tab whose page is stuck in a loop, and ends its renderer.
      await chrome.tabs.remove(tab.id);
      const result = { closed: tab.id };
      if (opened) result.opened = describe(opened);
      return { result, result_type: "object", tab: null };
    },
  };

  return async function browserTabs(params) {
    const action = params.action ?? "list";
    if (!Object.hasOwn(actions, action)) {
      throw new CommandError("invalid_request", `Unknown action ${JSON.stringify(action)}; the actions are ${Object.keys(actions).join(", ")}.`);
    }
    return actions[action](params);
  };
}
