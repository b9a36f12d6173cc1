// Command routing: one `command` frame in, exactly one `result` frame out (protocol.md §1).
//
// The commands are the tool families' (tools/): each family file exports a create…Tools(deps) that
// returns {handlers, summaries, messages?}: `handlers` keyed by command name, `summaries` keyed by
// command name with what the popup's Recent activity says of it (link/activity.js), and optionally
// `messages`, the runtime messages from content scripts it answers, keyed by type (main.js). This
// file only gathers them: a new family is one file in tools/ and its line in FAMILIES.
import { CommandError, errorPayload } from "./link/errors.js";
import { createTabMachinery } from "./tab/machinery.js";
import { siteRefusal } from "./tab/tabs.js";
import { createAskHumanTools } from "./tools/ask-human.js";
import { createCaptureTools } from "./tools/capture.js";
import { createEmulateTools } from "./tools/emulate.js";
import { createFilesTools } from "./tools/files.js";
import { createFindTools } from "./tools/find.js";
import { createFormTools } from "./tools/form.js";
import { createFunctionsTools } from "./tools/functions.js";
import { createLogsTools } from "./tools/logs.js";
import { createMouseTools } from "./tools/mouse.js";
import { createNavigateTools } from "./tools/navigate.js";
import { createNetworkRulesTools } from "./tools/network-rules.js";
import { createPageTools } from "./tools/page.js";
import { createScriptTools } from "./tools/script.js";
import { createStorageTools } from "./tools/storage.js";
import { createTabsTools } from "./tools/tabs.js";
import { createWaitTools } from "./tools/wait.js";

const FAMILIES = {
  script: createScriptTools,
  page: createPageTools,
  navigate: createNavigateTools,
  tabs: createTabsTools,
  capture: createCaptureTools,
  logs: createLogsTools,
  functions: createFunctionsTools,
  storage: createStorageTools,
  wait: createWaitTools,
  emulate: createEmulateTools,
  mouse: createMouseTools,
  files: createFilesTools,
  form: createFormTools,
  network_rules: createNetworkRulesTools,
  find: createFindTools,
  ask_human: createAskHumanTools,
};

const PILOT_OFF =
  "AI Web Pilot is off. The person at this browser must turn it on in the tabpilot extension popup " +
  "(toolbar icon) before scripts can run in their tabs.";

export function createCommands({ chrome, pilot, timers, fetch, managed, landingUrl, now = Date.now }) {
  const machinery = createTabMachinery({ chrome, timers, managed });
  // `call`: another family's command, for a tool built on it (browser_find on browser_snapshot).
  const call = (command, params) => handlers[command](params);
  const deps = { chrome, pilot, timers, fetch, managed, landingUrl, now, call, ...machinery };
  const families = Object.fromEntries(Object.entries(FAMILIES).map(([name, create]) => [name, create(deps)]));
  const gather = (part) => Object.assign({}, ...Object.values(families).map((family) => family[part] ?? {}));
  const handlers = gather("handlers");

  // A command's tab may have navigated into a ruled-out site while the command ran (a link it
  // clicked, a redirect, the page itself): its answer, whatever it was, is then site_blocked, so
  // that nothing read there, and no error that describes it, goes out. Only while rules are set.
  async function ruledOutNow(tabId) {
    if (!machinery.sites.active() || !Number.isInteger(tabId)) return null;
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (!tab) return null;
    // Where it is going counts too: its old page may be gone before Chrome reports the new url.
    return siteRefusal(machinery.sites, tab) ?? (tab.pendingUrl ? siteRefusal(machinery.sites, { ...tab, url: tab.pendingUrl }) : null);
  }

  // Never rejects: every path ends in one result frame for frame.id.
  async function run(frame) {
    const id = frame?.id ?? null;
    let ran = false;
    try {
      const handler = Object.hasOwn(handlers, frame?.command) ? handlers[frame.command] : null;
      if (!handler) {
        console.warn("tabpilot: unknown command", frame?.command);
        const known = Object.keys(handlers).join(", ");
        throw new CommandError(
          "unknown_command",
          `Unknown command ${JSON.stringify(frame?.command)}; this extension knows ${known}.`,
        );
      }
      // The stored switch is the authority, whatever the daemon last heard; every AI access
      // passes here, listing tabs included.
      await pilot.ready;
      if (!pilot.isEnabled()) throw new CommandError("pilot_disabled", PILOT_OFF);
      ran = true;
      const answer = await handler(frame.params ?? {}, id);
      const refused = await ruledOutNow(answer?.tab?.id ?? frame.params?.tab_id);
      if (refused) throw refused;
      return { type: "result", id, ok: true, ...answer };
    } catch (caught) {
      let err = caught;
      if (ran && err?.code !== "site_blocked") err = (await ruledOutNow(err?.tab?.id ?? frame?.params?.tab_id).catch(() => null)) ?? err;
      if (!(err instanceof CommandError)) console.error("tabpilot: command failed", err);
      const result = { type: "result", id, ok: false, error: errorPayload(err), ...(err?.extra ?? {}) };
      if (err?.tab) result.tab = err.tab;
      return result;
    }
  }

  return {
    run,
    handlers,
    summaries: gather("summaries"),
    messages: gather("messages"),
    families,
    dialogs: machinery.dialogs,
    debug: machinery.debug,
    sites: machinery.sites,
  };
}
