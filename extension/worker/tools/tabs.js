// browser_tabs: list, open, select and close tabs (docs/protocol.md §1, "browser_tabs").
//
// It is also the way back from a tab that no script can free (a page stuck in a loop, a crashed
// renderer): close it and open a fresh one. The managed browser is headless and has no other
// way, so it never closes its last tab without opening the daemon's landing page first: a
// browser whose last tab closes shuts down.
//
// The tabs the AI opens (action "new", and tabs an action of browser_act opens) are remembered: a
// close without tab_id closes only such a tab, browser_close closes them all, and in a person's
// Chrome they sit in a tab group titled "tabpilot", so that the person sees which tabs are the AI's.
import { CommandError } from "../link/errors.js";
import { listTabs, tabInfo } from "../tab/tabs.js";

const OPENABLE_URL = /^https?:\/\//i;
export const AI_TABS_KEY = "aiTabs";
export const GROUP_TITLE = "tabpilot";

// Kept in storage.session as well, so that a worker Chrome stopped and started again still knows
// them; like the activity, it is never written to disk.
export function createAiTabs({ chrome, debug }) {
  const ids = new Set();
  const ready = Promise.resolve()
    .then(() => chrome.storage.session.get(AI_TABS_KEY))
    .then((stored) => (stored?.[AI_TABS_KEY] ?? []).forEach((id) => Number.isInteger(id) && ids.add(id)))
    .catch((err) => console.warn("tabpilot: could not load the tabs the AI opened", err));
  const save = () => Promise.resolve(chrome.storage.session.set({ [AI_TABS_KEY]: [...ids] })).catch(() => {});
  chrome.tabs.onRemoved.addListener((tabId) => ids.delete(tabId) && ready.then(save));
  chrome.tabs.onReplaced?.addListener((added, removed) => {
    if (!ids.delete(removed)) return;
    ids.add(added);
    ready.then(save);
  });

  // One grouping at a time, so that two tabs opened together land in one group.
  let grouping = Promise.resolve();
  function group(tab) {
    if (typeof chrome.tabs.group !== "function" || !chrome.tabGroups) return Promise.resolve();
    grouping = grouping.then(async () => {
      try {
        const [existing] = await chrome.tabGroups.query({ title: GROUP_TITLE, windowId: tab.windowId });
        const groupId = await chrome.tabs.group({ tabIds: [tab.id], ...(existing ? { groupId: existing.id } : { createProperties: { windowId: tab.windowId } }) });
        if (!existing) await chrome.tabGroups.update(groupId, { title: GROUP_TITLE, color: "blue" });
      } catch (err) {
        // Best effort: a window that takes no groups (a popup window, say), or a tab closed meanwhile.
        console.warn("tabpilot: could not put a tab into the tabpilot group", err);
      }
    });
    return grouping;
  }

  async function add(tab) {
    await ready;
    ids.add(tab.id);
    await save();
    await debug.ready;
    // The managed browser has no one to show the group to.
    if (!debug.isManaged()) await group(tab);
  }

  return {
    ready,
    add,
    has: (tabId) => ready.then(() => ids.has(tabId)),
    list: () => ready.then(() => [...ids]),
  };
}

export function createTabActions({ chrome, tabs, debug, landingUrl, aiTabs }) {
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
      await aiTabs.add(tab);
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
      const tab = params.tab_id == null ? await activeAiTab() : await tabById(params.tab_id);
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
      `The active tab ${tab.id} (${tabInfo(tab).url}) was opened by the person at the browser, not by the AI; to close it anyway, pass its tab_id.`,
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
    if (tabIds.length > 0) await chrome.tabs.remove(tabIds);
    return opened;
  }

  async function browserTabs(params) {
    const action = params.action ?? "list";
    if (!Object.hasOwn(actions, action)) {
      throw new CommandError("invalid_request", `Unknown action ${JSON.stringify(action)}; the actions are ${Object.keys(actions).join(", ")}.`);
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

  return { browserTabs, closeBrowser };
}
