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
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// `summaries`: the tool families' (commands.js gathers them), keyed by command. A command listed
// there is recorded, with the words its function gives (params, result), or none for null: the
// popup then shows an execute_javascript's script, or words of its own.
export function createActivity({
  chrome,
  summaries,
  now = Date.now,
  timers = globalThis,
  saveDelayMs = SAVE_DELAY_MS,
}) {
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
        if (!Object.hasOwn(summaries, frame?.command)) return;
        const summarize = summaries[frame.command];
        const script =
          frame.command === "execute_javascript" ? String(frame.params?.script ?? "").slice(0, SCRIPT_CHARS) : null;
        entries.unshift({
          id: String(frame.id ?? ""),
          time: started,
          command: frame.command,
          script,
          tab: result?.tab ?? null,
          outcome: result?.ok === true ? "ok" : String(result?.error?.code ?? "extension_error"),
          ...(summarize ? { summary: summarize(frame.params, result) } : {}),
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
  return (
    value !== null && typeof value === "object" && typeof value.time === "number" && typeof value.command === "string"
  );
}
