// tabpilot's background service worker: a WebSocket client of the local daemon that runs the
// daemon's commands in tabs while the human keeps AI Web Pilot on. This file wires it together: the
// switch, the daemon link (link/), command routing (commands.js, tools/), the recent activity and
// the popup's questions. Everything Chrome- or network-shaped is injected, so node --test can run it.
import { createActivity } from "./link/activity.js";
import { createCommands } from "./commands.js";
import { createConnection } from "./link/connection.js";
import { DEFAULT_CONTEXT, isContextName, loadManaged } from "./link/managed.js";
import { createPilot } from "./link/pilot.js";
import { createProxyAuth } from "./link/proxy-auth.js";
import { groupTabCount } from "./tab/ai-tabs.js";
import { createPageScripts } from "./tab/page-scripts.js";

export const PROTOCOL_VERSION = 1;
export const DEFAULT_PORT = 7878;
const ALARM = "tabpilot-reconnect";

export function parsePort(value) {
  const port = Number(value);
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? port : DEFAULT_PORT;
}

const tokenOf = (value) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);

// The context this browser is on the daemon: managed.json's in a browser the daemon started (none
// there means the daemon names it), else the popup's name (storage "contextName"), else "chrome".
const contextOf = (m, stored) => m.context ?? (m.managed ? null : isContextName(stored) ? stored : DEFAULT_CONTEXT);

export function createBackground({ chrome, WebSocket, fetch, timers, userAgent = "", now = Date.now }) {
  const managed = loadManaged({ chrome, fetch });
  createProxyAuth({ chrome, managed }); // its listener too is added in this first turn
  const pilot = createPilot({ chrome, managed });
  // tabpilot's scripts load into pages only while the pilot is on (tab/page-scripts.js).
  const pageScripts = createPageScripts({ chrome, pilot, timers });
  const scriptsReady = pageScripts.sync();
  // The daemon's landing page: where a new tab opens by default, a page scripts may run in.
  const landingUrl = async () => `http://127.0.0.1:${connection.status().port ?? DEFAULT_PORT}/`;
  const commands = createCommands({ chrome, pilot, timers, fetch, managed, landingUrl, now });
  const activity = createActivity({ chrome, summaries: commands.summaries, now, timers });
  let daemonVersion = null;
  // The daemon's token, if it has one: the popup's (storage "daemonToken") wins over managed.json's.
  // It travels in the hello, since a browser cannot put headers on a WebSocket.
  let token = null;
  let context = null;
  let contextKey = null;

  // Frames from the daemon, by type (protocol.md §1). Nothing here writes the pilot switch.
  const frameHandlers = {
    hello(frame) {
      daemonVersion = typeof frame.daemon_version === "string" ? frame.daemon_version : null;
      // The daemon's own site rules (tabpilot serve --block-site/--only-site), applied before the
      // commands that follow this frame on the socket; they only add refusals (link/site-rules.js).
      commands.sites.setDaemon(frame.site_rules);
      connection.healthy();
    },
    keepalive() {},
    command(frame, reply) {
      const recorded = activity.begin(frame);
      commands.run(frame).then((result) => {
        reply(result);
        recorded(result); // after the answer, and it never throws
      });
    },
    // Commands the daemon refused without sending them (the switch off): listed all the same.
    refused(frame) {
      activity.refused(frame);
    },
  };

  const connection = createConnection({
    WebSocket,
    timers,
    onOpen(send) {
      send({
        type: "hello",
        protocol_version: PROTOCOL_VERSION,
        extension_version: chrome.runtime.getManifest().version,
        pilot_enabled: pilot.isEnabled(),
        user_agent: userAgent,
        ...(token ? { token } : {}),
        ...(context ? { context } : {}),
        ...(contextKey ? { context_key: contextKey } : {}),
      });
    },
    onFrame(frame, reply) {
      const handler = Object.hasOwn(frameHandlers, frame?.type) ? frameHandlers[frame.type] : null;
      if (!handler) {
        console.warn("tabpilot: ignoring a frame of unknown type", frame?.type);
        return;
      }
      handler(frame, reply);
    },
    onClose() {
      daemonVersion = null;
    },
  });

  // Messages from the popup, by type. Async answers return true and always answer
  // (https://developer.chrome.com/docs/extensions/develop/concepts/messaging#simple).
  const messageHandlers = {
    get_status: async () => {
      await pilot.ready;
      // Only a count, for the popup's status line; best effort, as a status never fails on it.
      const groupTabs = await groupTabCount(chrome).catch(() => null);
      return {
        ...connection.status(),
        pilot_enabled: pilot.isEnabled(),
        daemon_version: daemonVersion,
        daemon_site_rules: commands.sites.daemon(),
        group_tabs: groupTabs,
      };
    },
    get_activity: (_message, sender) =>
      ownPage(sender)
        .then(() => Promise.all([activity.list(), activity.kept()]))
        .then(([entries, kept]) => ({ entries, kept })),
    // Each Clear empties its own list: clearing the recent commands keeps the exports.
    clear_activity: (_message, sender) =>
      ownPage(sender)
        .then(() => activity.clear())
        .then(() => messageHandlers.get_activity(_message, sender)),
    clear_kept: (_message, sender) =>
      ownPage(sender)
        .then(() => activity.clearKept())
        .then(() => messageHandlers.get_activity(_message, sender)),
    // A content script's report of a dialog its page opens (dialogs.js). Chrome sets sender.tab.
    page_dialog: async (message, sender) => {
      if (Number.isInteger(sender?.tab?.id) && sender.frameId === 0) commands.dialogs.report(sender.tab.id, message);
      return {};
    },
    // The tool families' own: a batch of a page's console log (page_log, tools/logs.js).
    ...commands.messages,
  };

  // Content scripts can message this worker too. The activity holds scripts and page titles from
  // every tab, which storage.session already hides from content scripts; only this extension's own
  // pages (the popup) may read or clear it. sender.url is set by Chrome, not by the sender.
  async function ownPage(sender) {
    if (!String(sender?.url ?? "").startsWith(chrome.runtime.getURL(""))) {
      throw new Error("only the extension's own pages may ask for this");
    }
  }

  // All listeners are added in the worker's first turn, or Chrome will not wake it for them.
  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    const handler = Object.hasOwn(messageHandlers, message?.type) ? messageHandlers[message.type] : null;
    if (!handler) {
      console.warn("tabpilot: ignoring a runtime message of unknown type", message?.type);
      sendResponse({ error: `unknown message type ${JSON.stringify(message?.type)}` });
      return false;
    }
    handler(message, sender).then(sendResponse, (err) => sendResponse({ error: String(err?.message ?? err) }));
    return true;
  });

  // Each tab's content script holds a port to this worker and opens a new one when Chrome stops
  // the worker, which wakes it within a second rather than at the 30 s alarm (content.js). The
  // pilot switch goes out on them, as it opens and when it flips, so that a page loaded while it
  // was on keeps no log while it is off (page/page-log.js); storage.local is closed to content
  // scripts (link/pilot.js).
  const wakePorts = new Set();
  const tellPilot = (port) => {
    try {
      port.postMessage({ pilot: pilot.isEnabled() });
    } catch {} // closed meanwhile: its onDisconnect forgets it
  };
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== "tabpilot-wake") {
      port.disconnect();
      return;
    }
    wakePorts.add(port);
    port.onDisconnect.addListener(() => wakePorts.delete(port));
    pilot.ready.then(() => wakePorts.has(port) && tellPilot(port));
  });

  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== "local") return;
    if ("daemonToken" in changes) {
      managed.then((m) => {
        token = tokenOf(changes.daemonToken.newValue) ?? m.token;
        connection.reconnect();
      });
    }
    if ("contextName" in changes) {
      managed.then((m) => {
        const next = contextOf(m, changes.contextName.newValue);
        if (next === context) return;
        context = next;
        connection.reconnect();
      });
    }
    if ("daemonPort" in changes) connection.setPort(parsePort(changes.daemonPort.newValue));
  });

  pilot.onChange((enabled) => {
    // The daemon hears of the switch once Chrome's registration matches it: a page it opens just
    // after "on" has the scripts from its start, and none after "off".
    pageScripts.sync().then(() => connection.send({ type: "pilot", enabled }));
    for (const port of wakePorts) tellPilot(port);
    // Off means nothing runs and nothing is read: let go of every tab the debugger holds.
    if (!enabled) commands.debug.detachAll();
    else commands.debug.holdAll();
  });

  // Chrome stops an idle worker after 30 s, timers included; a 30 s alarm (the minimum since
  // Chrome 120) wakes it, and waking reruns this file, which connects.
  chrome.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === ALARM) connection.ensureConnected();
  });
  Promise.resolve(chrome.alarms.create(ALARM, { periodInMinutes: 0.5 })).catch((err) =>
    console.warn("tabpilot: could not create the reconnect alarm", err),
  );

  // The hello carries the switch, so connect once it is loaded, and once the page scripts are
  // registered to match it: the managed browser's first page, which the daemon opens once the
  // extension connects (tabpilot.browsers.supervisor), then loads them at document_start.
  // A port the person chose in the popup wins over the managed profile's.
  const stored = chrome.storage.local.get(["daemonPort", "daemonToken", "contextName"]);
  const ready = Promise.all([pilot.ready, managed, stored, scriptsReady]).then(([, m, stored]) => {
    token = tokenOf(stored.daemonToken) ?? m.token;
    context = contextOf(m, stored.contextName);
    contextKey = m.contextKey;
    connection.start(parsePort(stored.daemonPort ?? m.daemonPort));
  });

  return { ready, pilot, pageScripts, connection, commands, activity };
}

// Loaded as the extension's service worker, this file starts it, in the worker's first turn.
// node --test imports it for createBackground alone, where there is no `chrome` global.
if (globalThis.chrome?.runtime) {
  createBackground({
    chrome,
    WebSocket,
    fetch: (...args) => fetch(...args),
    timers: {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (id) => clearTimeout(id),
      setInterval: (fn, ms) => setInterval(fn, ms),
      clearInterval: (id) => clearInterval(id),
    },
    userAgent: navigator.userAgent,
  });
}
