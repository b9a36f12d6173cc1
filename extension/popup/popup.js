// The popup: the status line, the AI Web Pilot switch and the other two, the daemon's reachability
// and its port, and what ran lately. The switches and the port live in chrome.storage.local; the
// service worker reacts to their changes.
import { DEFAULT_CONTEXT, isContextName, loadManaged } from "../worker/link/managed.js";
import { createActivityView } from "./popup-activity.js";
import { createSitesView } from "./popup-sites.js";
import { statusWords } from "./status-words.js";

const REFRESH_MS = 1000;

const toggle = document.getElementById("pilot-toggle");
const debuggerToggle = document.getElementById("debugger-toggle");
const exportToggle = document.getElementById("export-toggle");
const exportHelp = document.getElementById("export-help");
const userScriptsStatus = document.getElementById("user-scripts-status");
const status = document.getElementById("connection-status");
const portForm = document.getElementById("port-form");
const portInput = document.getElementById("daemon-port");
const tokenForm = document.getElementById("token-form");
const tokenInput = document.getElementById("daemon-token");
// What the status line is made of, besides the switches themselves.
const facts = { switchesKnown: false, answer: null, error: null, managed: false, handoffs: 0 };
const statusCard = document.getElementById("status");
const statusLine = document.getElementById("status-line");
const statusNotes = document.getElementById("status-notes");
const sites = createSitesView({ chrome, document, onChange: () => showStatus() });
const activity = createActivityView({
  chrome,
  recent: {
    list: document.getElementById("activity-list"),
    empty: document.getElementById("activity-empty"),
    clearButton: document.getElementById("activity-clear"),
  },
  kept: {
    list: document.getElementById("kept-list"),
    empty: document.getElementById("kept-empty"),
    clearButton: document.getElementById("kept-clear"),
    dropped: document.getElementById("kept-dropped"),
  },
});

async function load() {
  const { pilotEnabled, debuggerEnabled, daemonPort, daemonToken, exportEnabled } = await chrome.storage.local.get([
    "pilotEnabled",
    "debuggerEnabled",
    "daemonPort",
    "daemonToken",
    "exportEnabled",
  ]);
  toggle.checked = pilotEnabled === true;
  debuggerToggle.checked = debuggerEnabled === true;
  exportToggle.checked = exportEnabled === true;
  facts.switchesKnown = true;
  showStatus();
  // chrome.userScripts exists only once the person allowed user scripts for tabpilot.
  userScriptsStatus.textContent =
    typeof chrome.userScripts?.execute === "function"
      ? "User scripts are allowed: strict pages run without the debugger, sharing the page's DOM but not its JavaScript globals."
      : 'To run scripts on strict pages without the debugger, turn on "Allow User Scripts" for tabpilot at chrome://extensions (Details).';
  if (typeof daemonToken === "string") tokenInput.value = daemonToken;
  // With no port chosen here, the worker's own (7878, or the managed profile's) fills it in below.
  if (daemonPort !== undefined) portInput.value = daemonPort;
}

toggle.addEventListener("change", () => {
  chrome.storage.local.set({ pilotEnabled: toggle.checked });
  showStatus();
});
// Only this page writes the switch (the service worker reads it; no daemon frame reaches it).
debuggerToggle.addEventListener("change", () => {
  chrome.storage.local.set({ debuggerEnabled: debuggerToggle.checked });
  showStatus();
});
// The same for saving storage (worker/tools/storage.js): only a person here can allow it.
exportToggle.addEventListener("change", () => {
  chrome.storage.local.set({ exportEnabled: exportToggle.checked });
  showStatus();
});
// The daemon's managed browser holds no person's sessions: saving its storage needs no switch.
loadManaged({ chrome, fetch }).then(({ managed }) => {
  facts.managed = managed === true;
  showStatus();
  if (!managed) return;
  exportToggle.disabled = true;
  exportHelp.textContent = "Not needed here: tabpilot started this browser for the AI, so its cookies are nobody's own and may always be saved.";
});

portForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const port = Number(portInput.value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    portInput.setCustomValidity("A port is a whole number from 1 to 65535.");
    portInput.reportValidity();
    return;
  }
  portInput.setCustomValidity("");
  chrome.storage.local.set({ daemonPort: port });
  refresh();
});
portInput.addEventListener("input", () => portInput.setCustomValidity(""));

// An empty field removes the token; the worker says hello afresh either way.
tokenForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const token = tokenInput.value.trim();
  if (token) chrome.storage.local.set({ daemonToken: token });
  else chrome.storage.local.remove("daemonToken");
  refresh();
});

// The context name: which context this browser is on the daemon ("chrome" unless named here). An
// empty field goes back to "chrome"; a new name makes the worker say hello afresh with it.
const contextForm = document.getElementById("context-form");
const contextInput = document.getElementById("context-name");
chrome.storage.local.get("contextName").then(({ contextName }) => {
  contextInput.value = isContextName(contextName) ? contextName : DEFAULT_CONTEXT;
});
contextForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const name = contextInput.value.trim();
  if (name !== "" && !isContextName(name)) {
    contextInput.setCustomValidity(
      'A context name is 1 to 40 letters, digits, ".", "_" or "-", starting with a letter or a digit.',
    );
    contextInput.reportValidity();
    return;
  }
  contextInput.setCustomValidity("");
  if (name === "" || name === DEFAULT_CONTEXT) chrome.storage.local.remove("contextName");
  else chrome.storage.local.set({ contextName: name });
  contextInput.value = name || DEFAULT_CONTEXT;
  refresh();
});
contextInput.addEventListener("input", () => contextInput.setCustomValidity(""));

// The service worker writes the switch's first value (off, or on in the daemon's managed browser)
// after it starts, maybe while the popup is open.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && "pilotEnabled" in changes) toggle.checked = changes.pilotEnabled.newValue === true;
  if (area === "local" && "debuggerEnabled" in changes) debuggerToggle.checked = changes.debuggerEnabled.newValue === true;
  if (area === "local" && "exportEnabled" in changes) exportToggle.checked = changes.exportEnabled.newValue === true;
  if (area === "local") showStatus();
});

// The open requests for the person's help (popup-ask.js shows them; the worker mirrors them to
// storage.session, which this page may read).
const openRequests = (value) => (Array.isArray(value) ? value.filter((r) => typeof r?.id === "string").length : 0);
chrome.storage.session.onChanged.addListener((changes) => {
  if (!("handoffs" in changes)) return;
  facts.handoffs = openRequests(changes.handoffs.newValue);
  showStatus();
});
chrome.storage.session.get("handoffs").then(
  (stored) => {
    facts.handoffs = openRequests(stored?.handoffs);
    showStatus();
  },
  () => {},
);

// Written only when the words change, so that the live region speaks once per change.
function showStatus() {
  if (!facts.switchesKnown || (!facts.answer && !facts.error)) return;
  const answer = facts.answer ?? {};
  const words = statusWords({
    answering: !facts.error,
    error: facts.error,
    pilot: toggle.checked,
    connected: answer.connected === true,
    port: answer.port ?? portInput.value,
    reason: answer.last_error,
    managed: facts.managed,
    groupTabs: answer.group_tabs,
    handoffs: facts.handoffs,
    debugger: debuggerToggle.checked,
    exportCookies: exportToggle.checked,
    sites: sites.rules(),
  });
  statusCard.dataset.tone = words.tone;
  if (statusLine.textContent !== words.headline) statusLine.textContent = words.headline;
  const notes = words.notes.join("\n");
  if ([...statusNotes.children].map((li) => li.textContent).join("\n") !== notes) {
    statusNotes.replaceChildren(
      ...words.notes.map((note) => {
        const item = document.createElement("li");
        item.textContent = note;
        return item;
      }),
    );
  }
}

function show(text, connected) {
  if (status.textContent !== text) status.textContent = text;
  status.className = connected ? "connected" : "disconnected";
}

async function refresh() {
  let answer;
  try {
    // Sending a message wakes the service worker if Chrome has stopped it.
    answer = await chrome.runtime.sendMessage({ type: "get_status" });
  } catch (err) {
    show(`The extension's background is not answering (${err.message}).`, false);
    facts.error = String(err.message);
    showStatus();
    return;
  }
  if (!answer || answer.error) {
    show(`The extension's background is not answering${answer?.error ? ` (${answer.error})` : ""}.`, false);
    facts.error = answer?.error ? String(answer.error) : "no answer";
    showStatus();
    return;
  }
  facts.error = null;
  facts.answer = answer;
  sites.showDaemon(answer.daemon_site_rules);
  if (portInput.value === "" && document.activeElement !== portInput && answer.port) portInput.value = answer.port;
  const port = answer.port ?? portInput.value;
  if (answer.connected) {
    show(`Connected to tabpilot ${answer.daemon_version ?? ""} on port ${port}`.replace("  ", " "), true);
  } else {
    const reason = answer.last_error;
    if (reason && reason !== "daemon not reachable") show(`Not connected to the daemon on port ${port}: ${reason}`, false);
    else show(`Daemon not reachable on port ${port} — start it with \`tabpilot serve\``, false);
  }
  showStatus();
}

function refreshAll() {
  refresh();
  activity.refresh();
}

load();
refreshAll();
setInterval(refreshAll, REFRESH_MS);
