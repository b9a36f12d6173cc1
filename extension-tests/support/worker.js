// The service worker's command dispatcher, built as the worker builds it (commands.js, from every
// tool family in worker/tools/) over the fake chrome.* APIs: what the tests ask of the real handler
// map and the real popup summaries, rather than of a list kept by hand.
import { createCommands } from "../../extension/worker/commands.js";
import { fakeChrome, manualTimers } from "./fake-chrome.js";

export function workerCommands() {
  const { chrome, fetch } = fakeChrome();
  return createCommands({
    chrome,
    fetch,
    pilot: { ready: Promise.resolve(), isEnabled: () => true },
    timers: manualTimers(),
    managed: Promise.resolve({}),
    landingUrl: async () => "http://127.0.0.1:7878/",
  });
}

// What createActivity is given in the worker (main.js): each family's summaries, by command.
export const workerSummaries = () => workerCommands().summaries;
