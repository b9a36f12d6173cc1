// What the AI did, for the human at the popup: one entry per command this extension answered,
// newest first, the newest MAX_ENTRIES only.
//
// The list lives in memory and is mirrored to chrome.storage.session, so that it survives Chrome
// stopping and restarting this worker. storage.session is held in memory and cleared when the
// browser closes; it is never written to disk, which matters because scripts may carry private data
// (tokens, page contents). Its default access level, TRUSTED_CONTEXTS, keeps it from content
// scripts; it is deliberately left that way
// (https://developer.chrome.com/docs/extensions/reference/api/storage#property-session).

export const ACTIVITY_KEY = "activity";
export const MAX_ENTRIES = 20;
export const SCRIPT_CHARS = 300;
export const SAVE_DELAY_MS = 100;
const RECORDED = new Set(["execute_javascript", "list_tabs", "browser_tabs", "browser_navigate", "browser_act", "browser_snapshot", "browser_read", "browser_close", "browser_take_screenshot", "browser_console_messages", "browser_network_requests", "eval_define_function", "storage_export", "storage_import"]);

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// What a browser_tabs command did, in words for the person at the popup.
function tabsSummary(params, result) {
  const action = params?.action ?? "list";
  if (action === "list") return "listed the tabs";
  if (action === "new") return `opened a tab${result?.result?.url ? `: ${result.result.url}` : ""}`;
  if (action === "close") return `closed tab ${params?.tab_id ?? result?.result?.closed ?? ""}`.trim();
  return `selected tab ${params?.tab_id}`;
}

function navigateSummary(params) {
  const action = params?.action ?? "goto";
  if (action === "back") return "went back";
  if (action === "forward") return "went forward";
  if (action === "reload") return "reloaded the page";
  try {
    return `navigated to ${new URL(params.url).host}`;
  } catch {
    return "navigated";
  }
}

// browser_act's description, shortened for a narrow list: `Typed 5 characters into textbox "Email"
// (e3)` reads "typed into textbox 'Email'". What was typed is never shown.
function actSummary(params, result) {
  const description = result?.result?.description;
  if (result?.ok !== true || typeof description !== "string" || description === "") {
    return `tried to ${params?.kind ?? "act"}${params?.ref ? ` ${params.ref}` : ""}`;
  }
  const words = description
    .split(/[:;] /)[0]
    .replace(/ \(e\d+\)/g, "")
    .replace(/"((?:[^"\\]|\\.)*)"/g, "'$1'")
    .replace(/^Typed \d+ characters? into/, "Typed into");
  return words.charAt(0).toLowerCase() + words.slice(1);
}

// What a storage command saved or loaded. A failed one says what it tried; its code is shown beside.
function exportSummary(_params, result) {
  const state = result?.result;
  if (result?.ok !== true) return "tried to save this browser's cookies and storage";
  return `saved this browser's cookies and storage (${plural(state?.cookies?.length ?? 0, "cookie")}, ${plural(state?.origins?.length ?? 0, "site")})`;
}

function importSummary(_params, result) {
  const done = result?.result;
  if (result?.ok !== true) return "tried to load cookies and storage";
  const refused = done?.refused?.length ? `, ${done.refused.length} refused` : "";
  return `loaded cookies and storage (${plural(done?.cookies ?? 0, "cookie")}, ${plural(done?.origins ?? 0, "site")}${refused})`;
}

const SUMMARIES = {
  browser_tabs: tabsSummary,
  browser_navigate: navigateSummary,
  browser_act: actSummary,
  browser_snapshot: () => "took a snapshot",
  browser_read: () => "read the page",
  browser_take_screenshot: (params) => (params?.full_page ? "took a full-page screenshot" : params?.ref ? `took a screenshot of ${params.ref}` : "took a screenshot"),
  browser_console_messages: () => "read the console",
  browser_network_requests: () => "listed the network requests",
  browser_close: (_params, result) => `closed ${plural(result?.result?.closed_tabs?.length ?? 0, "tab")}`,
  // Its calls are scripts, shown as such; the definition itself touches no page.
  eval_define_function: (params) => `defined the function ${params?.name}`,
  storage_export: exportSummary,
  storage_import: importSummary,
};

export function createActivity({ chrome, now = Date.now, timers = globalThis, saveDelayMs = SAVE_DELAY_MS }) {
  let entries = [];

  const ready = Promise.resolve()
    .then(() => chrome.storage.session.get(ACTIVITY_KEY))
    .then((stored) => {
      const saved = Array.isArray(stored?.[ACTIVITY_KEY]) ? stored[ACTIVITY_KEY].filter(isEntry) : [];
      // Commands answered while the read was pending are newer than anything saved.
      entries = [...entries, ...saved].slice(0, MAX_ENTRIES);
    })
    .catch((err) => console.warn("tabpilot: could not load the recent activity", err));

  // Called when a command arrives; the returned function takes its result frame once it has been
  // sent. It never throws, and the storage write happens later, so recording cannot delay or
  // break an answer to the daemon.
  function begin(frame) {
    const started = now();
    return (result) => {
      try {
        if (!RECORDED.has(frame?.command)) return;
        const script = frame.command === "execute_javascript" ? String(frame.params?.script ?? "").slice(0, SCRIPT_CHARS) : null;
        entries.unshift({
          id: String(frame.id ?? ""),
          time: started,
          command: frame.command,
          script,
          tab: result?.tab ?? null,
          outcome: result?.ok === true ? "ok" : String(result?.error?.code ?? "extension_error"),
          ...(Object.hasOwn(SUMMARIES, frame.command) ? { summary: SUMMARIES[frame.command](frame.params, result) } : {}),
          ...(typeof result?.route === "string" && result.route !== "page" ? { route: result.route } : {}),
          duration_ms: Math.max(0, now() - started),
        });
        entries.length = Math.min(entries.length, MAX_ENTRIES);
        save();
      } catch (err) {
        console.warn("tabpilot: could not record a command", err);
      }
    };
  }

  // At most one write per SAVE_DELAY_MS, always of the latest list. A write is an IPC that the
  // browser process serves on the thread that also routes the next command to its tab: writing
  // after every command made each 1+1 round trip about 0.9 ms slower. The popup reads the list in
  // memory, so it sees a command at once; only a worker that dies within SAVE_DELAY_MS of a command
  // (Chrome stops idle ones after 30 s) would forget it. Writes start after the load, so that one
  // never replaces saved entries the load has not merged yet.
  let writing = null;
  let dirty = false;
  let timer = null;
  function save() {
    dirty = true;
    if (writing === null) timer ??= timers.setTimeout(flush, saveDelayMs);
  }

  function flush() {
    timers.clearTimeout(timer);
    timer = null;
    writing ??= ready.then(writeLatest);
    return writing;
  }

  async function writeLatest() {
    try {
      dirty = false;
      await chrome.storage.session.set({ [ACTIVITY_KEY]: entries.slice() });
    } catch (err) {
      console.warn("tabpilot: could not save the recent activity", err);
    } finally {
      writing = null;
      if (dirty) save();
    }
  }

  return {
    ready,
    begin,
    list: () => ready.then(() => entries.slice()),
    // Written at once: the person asked for it.
    async clear() {
      await ready;
      entries = [];
      dirty = true;
      await writing;
      await flush();
    },
  };
}

function isEntry(value) {
  return value !== null && typeof value === "object" && typeof value.time === "number" && typeof value.command === "string";
}
