// The tabs the AI opened (browser_tabs "new", and tabs an action of browser_act opens): a close
// without tab_id closes only such a tab, browser_close closes them all, and in a person's Chrome
// they sit in a tab group titled "tabpilot", so that the person sees which tabs are the AI's. Chrome
// keeps tab groups to normal windows: a tab in a popup window (window.open with "popup") stays
// there, outside the group, and is the AI's all the same.

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
  // Told after the set changed: the network rules follow the AI's tabs (tools/network-rules.js).
  const listeners = [];
  // Awaited, so that a tab the AI opens has the rules before the call that opened it answers.
  const changed = () => Promise.all(listeners.map((listener) => Promise.resolve(listener()).catch(() => {})));
  const save = () =>
    Promise.resolve(chrome.storage.session.set({ [AI_TABS_KEY]: [...ids] }))
      .catch(() => {})
      .then(changed);
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
        const window = await Promise.resolve(chrome.windows?.get?.(tab.windowId)).catch(() => null);
        if (window && window.type !== "normal") return;
        const [existing] = await chrome.tabGroups.query({ title: GROUP_TITLE, windowId: tab.windowId });
        const into = existing ? { groupId: existing.id } : { createProperties: { windowId: tab.windowId } };
        const groupId = await chrome.tabs.group({ tabIds: [tab.id], ...into });
        if (!existing) await chrome.tabGroups.update(groupId, { title: GROUP_TITLE, color: "blue" });
      } catch (err) {
        // Best effort: a tab closed meanwhile, say.
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
    onChange: (listener) => listeners.push(listener),
  };
}

// How many tabs sit in a "tabpilot" group, in any window, for the popup's status line; null where
// Chrome has no tab groups. A person may drag tabs in or out: the group is what they see.
export async function groupTabCount(chrome) {
  if (typeof chrome.tabGroups?.query !== "function") return null;
  const groups = await chrome.tabGroups.query({ title: GROUP_TITLE });
  if (groups.length === 0) return 0;
  const ids = new Set(groups.map((group) => group.id));
  const tabs = await chrome.tabs.query({});
  return tabs.filter((tab) => ids.has(tab.groupId)).length;
}
