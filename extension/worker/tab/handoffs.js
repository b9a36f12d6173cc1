// The handoffs open now (browser_ask_human, tools/ask-human.js), one at most per tab. While one
// is open the tab is the person's: every command that targets it is refused with human_turn, and
// never waits, so no agent hangs on a person who went for a coffee. Commands find their tab in one
// place, tabs.resolve (tab-cache.js); guard() wraps it, so no family needs to know of handoffs.
// Commands that name no tab (browser_tabs list, the function registry) and other tabs go on.
import { CommandError } from "../link/errors.js";
import { tabInfo } from "./tabs.js";

// As much of the request as a refusal quotes, so the agent recognises its own question.
const QUOTED_CHARS = 80;

export function createHandoffs() {
  const open = new Map(); // tab id -> {id, message}

  function refusal(tab, handoff) {
    const asked = handoff.message.length > QUOTED_CHARS ? `${handoff.message.slice(0, QUOTED_CHARS - 1)}\u2026` : handoff.message;
    return new CommandError(
      "human_turn",
      `The person at the browser has tab ${tab.id} for a handoff (browser_ask_human: ${JSON.stringify(asked)}), ` +
        "so every command in it is refused until they answer. Wait for browser_ask_human's answer, or work in another tab.",
      { tab: tabInfo(tab) },
    );
  }

  return {
    get: (tabId) => open.get(tabId) ?? null,
    // Taken synchronously once the tab is known, so two asks sent together cannot both open one.
    take(tab, handoff) {
      const held = open.get(tab.id);
      if (held) throw refusal(tab, held);
      open.set(tab.id, handoff);
    },
    release(tabId, handoff) {
      if (open.get(tabId) === handoff) open.delete(tabId);
    },
    size: () => open.size,
    // The tab cache, with a refusal for a tab a person holds.
    guard(tabs) {
      return {
        ...tabs,
        async resolve(tabId) {
          const tab = await tabs.resolve(tabId);
          const held = open.get(tab.id);
          if (held) throw refusal(tab, held);
          return tab;
        },
      };
    },
  };
}
