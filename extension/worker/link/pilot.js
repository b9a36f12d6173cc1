// The AI Web Pilot switch: chrome.storage.local "pilotEnabled", held by the human in the popup.
// This module only ever reads it and writes its initial value; no daemon frame reaches it, so nothing
// the daemon sends can turn the switch on (protocol.md §1, "Rules").

import { loadManaged } from "./managed.js";

const KEY = "pilotEnabled";
const BADGE_COLOR = "#1a7f37"; // green: the pilot is live in this browser

export function createPilot({ chrome, fetch, managed = loadManaged({ chrome, fetch }) }) {
  let enabled = false;
  let settled = false; // a storage change seen before the first read is newer than that read
  const listeners = new Set();

  // storage.local is open to content scripts by default; only extension pages and this worker may
  // write the switch, so a compromised renderer cannot turn it on
  // (https://developer.chrome.com/docs/extensions/reference/api/storage#method-StorageArea-setAccessLevel).
  Promise.resolve(chrome.storage.local.setAccessLevel?.({ accessLevel: "TRUSTED_CONTEXTS" })).catch((err) =>
    console.warn("tabpilot: could not restrict storage to trusted contexts", err),
  );

  // Registered synchronously: an MV3 worker only gets events whose listeners exist after its
  // first turn (https://developer.chrome.com/docs/extensions/develop/concepts/service-workers/events).
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && KEY in changes) set(changes[KEY].newValue === true);
  });

  async function load() {
    const stored = await chrome.storage.local.get(KEY);
    let value = stored[KEY];
    if (typeof value !== "boolean") {
      value = (await managed).pilotDefault;
      // Persist it so the popup shows the same value and later starts skip the fetch.
      await chrome.storage.local.set({ [KEY]: value });
    }
    if (!settled) set(value);
    else updateBadge();
  }

  function set(value) {
    const changed = value !== enabled;
    enabled = value;
    settled = true;
    updateBadge();
    if (changed) for (const listener of listeners) listener(enabled);
  }

  function updateBadge() {
    // action.* return promises in MV3; a failure to paint the badge must not break a command.
    const quiet = (p) => Promise.resolve(p).catch(() => {});
    quiet(chrome.action.setBadgeText({ text: enabled ? "ON" : "" }));
    quiet(chrome.action.setBadgeBackgroundColor({ color: BADGE_COLOR }));
    quiet(
      chrome.action.setTitle({ title: enabled ? "tabpilot: AI Web Pilot is ON" : "tabpilot: AI Web Pilot is off" }),
    );
  }

  const ready = load().catch((err) => {
    console.warn("tabpilot: could not read the pilot switch, keeping it off", err);
    settled = true;
  });

  return {
    ready,
    isEnabled: () => enabled,
    onChange: (listener) => listeners.add(listener),
    // The switch's badge again, after a handoff's "?" (tools/ask-human.js).
    repaintBadge: updateBadge,
  };
}
