// Prints, as one JSON array on stdout, the commands the service worker's dispatcher handles: the
// keys of the real handler map (worker/commands.js, gathered from every family in worker/tools/),
// built over the fake chrome.* APIs. Sorted, so that the daemon's tool table can be compared with it.
//
//   node extension-tests/support/command-names.mjs
import { workerCommands } from "./worker.js";

const names = Object.keys(workerCommands().handlers).sort();
process.stdout.write(`${JSON.stringify(names)}\n`);
