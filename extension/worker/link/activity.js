// What the AI did, for the human at the popup, in two lists, newest first:
// - "Recent activity": one entry per command, the newest MAX_ENTRIES only. It holds the commands
//   this extension answered, refusals included, and the refusals the daemon answered itself without
//   sending the command (a `refused` frame, protocol.md §1), folded into one entry with a count.
// - "Kept until you clear them": the entries of KEPT_COMMANDS (an export of this browser's cookies,
//   a request for the person's help), which newer commands never push out, so that no number of
//   trivial scripts can hide an export. Only the person empties it, with its own Clear. It is
//   bounded too, at MAX_KEPT, far above real use; past it the oldest go, and the list says how many
//   went, never silently.
//
// Both live in memory and are mirrored to chrome.storage.session, so that they survive Chrome
// stopping and restarting this worker. storage.session is held in memory and cleared when the
// browser closes; it is never written to disk, which matters because scripts may carry private data
// (tokens, page contents). Its default access level, TRUSTED_CONTEXTS, keeps it from content
// scripts; it is deliberately left that way
// (https://developer.chrome.com/docs/extensions/reference/api/storage#property-session).

export const ACTIVITY_KEY = "activity";
export const KEPT_KEY = "activityKept";
export const MAX_ENTRIES = 20;
export const MAX_KEPT = 100;
export const SCRIPT_CHARS = 300;
// A summary is the family's words, but a handoff's may quote the agent's message.
export const SUMMARY_CHARS = 300;
export const SAVE_DELAY_MS = 100;
// The commands whose entries are kept until the person clears them: cookie and storage exports
// (storage.js), and the handoffs of browser_ask_human.
export const KEPT_COMMANDS = new Set(["storage_export", "browser_ask_human"]);
// Codes that say a rule held a command back rather than that it failed; the popup shows them as
// refusals (human_turn: the tab waits for the person, browser_ask_human). What the daemon reports in
// a `refused` frame is a refusal whatever its code.
export const REFUSAL_CODES = new Set(["pilot_disabled", "export_disabled", "debugger_disabled", "site_blocked", "human_turn"]);
// How a folded entry of the daemon's refusals says why, by code.
const REFUSAL_WORDS = {
  pilot_disabled: "while AI Web Pilot was off",
  site_blocked: "on sites you ruled out",
};
// A `refused` frame names commands by name; past this many names the rest count as "other".
const MAX_NAMES = 30;
const MAX_CODE_CHARS = 64;
const COMMAND_NAME = /^[a-z][a-z0-9_]{0,63}$/;
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
  let kept = [];
  // {count, time}: how many kept entries were dropped past MAX_KEPT, and when the newest of them was.
  let dropped = null;

  const ready = Promise.resolve()
    .then(() => chrome.storage.session.get([ACTIVITY_KEY, KEPT_KEY]))
    .then((stored) => {
      const saved = Array.isArray(stored?.[ACTIVITY_KEY]) ? stored[ACTIVITY_KEY].filter(isEntry) : [];
      // Commands answered while the read was pending are newer than anything saved.
      entries = [...entries, ...saved].slice(0, MAX_ENTRIES);
      const savedKept = stored?.[KEPT_KEY];
      if (Array.isArray(savedKept?.entries)) kept = [...kept, ...savedKept.entries.filter(isEntry)];
      if (isDropped(savedKept?.dropped)) addDropped(savedKept.dropped.count, savedKept.dropped.time);
      trimKept();
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
        const outcome = result?.ok === true ? "ok" : String(result?.error?.code ?? "extension_error");
        const summary = summarize ? summarize(frame.params, result) : null;
        const entry = {
          id: String(frame.id ?? ""),
          time: started,
          command: frame.command,
          script,
          tab: result?.tab ?? null,
          outcome,
          ...(REFUSAL_CODES.has(outcome) ? { refused: true } : {}),
          ...(typeof summary === "string" ? { summary: summary.slice(0, SUMMARY_CHARS) } : {}),
          ...(typeof result?.route === "string" && result.route !== "page" ? { route: result.route } : {}),
          duration_ms: Math.max(0, now() - started),
        };
        entries.unshift(entry);
        entries.length = Math.min(entries.length, MAX_ENTRIES);
        save();
        // Written at once: a worker stopped within SAVE_DELAY_MS must not forget an export.
        if (KEPT_COMMANDS.has(entry.command)) {
          keep({ ...entry });
          flush();
        }
      } catch (err) {
        console.warn("tabpilot: could not record a command", err);
      }
    };
  }

  // A failed or refused attempt that repeats the newest kept one is counted on it: a loop of
  // refused exports is one entry, and cannot push a real export out past MAX_KEPT.
  function keep(entry) {
    const newest = kept[0];
    if (entry.outcome !== "ok" && newest?.command === entry.command && newest.outcome === entry.outcome) {
      newest.count = (newest.count ?? 1) + (entry.count ?? 1);
      newest.time = entry.time;
      return;
    }
    kept.unshift(entry);
    trimKept();
  }

  function trimKept() {
    while (kept.length > MAX_KEPT) {
      const gone = kept.pop();
      addDropped(gone.count ?? 1, gone.time);
    }
  }

  function addDropped(count, time) {
    dropped = { count: (dropped?.count ?? 0) + count, time: Math.max(dropped?.time ?? 0, time) };
  }

  // A `refused` frame: commands the daemon refused without sending them (protocol.md §1). They
  // are folded into the newest entry when it holds the same refusals, so that a flood is one entry
  // whose count grows, never twenty that push everything else out.
  function refused(frame) {
    try {
      const code = typeof frame?.code === "string" ? frame.code.slice(0, MAX_CODE_CHARS) : "";
      const count = Number.isSafeInteger(frame?.count) && frame.count > 0 ? frame.count : 0;
      if (!code || !count) return;
      const time = now();
      const newest = entries[0];
      const folding = newest?.daemon === true && newest.outcome === code && isNames(newest.commands);
      const entry = folding
        ? newest
        : { id: `refused-${time}`, time, command: "", script: null, tab: null, outcome: code, refused: true, daemon: true, count: 0, commands: {} };
      entry.time = time;
      entry.count += count;
      addNames(entry.commands, frame.commands);
      entry.command = Object.keys(entry.commands)[0] ?? "";
      const why = REFUSAL_WORDS[code];
      entry.summary = `refused ${plural(entry.count, "command")}${why ? ` ${why}` : ""}`;
      if (!folding) {
        entries.unshift(entry);
        entries.length = Math.min(entries.length, MAX_ENTRIES);
      }
      save();
      keepRefused(frame.commands, code, why, time);
    } catch (err) {
      console.warn("tabpilot: could not record the daemon's refusals", err);
    }
  }

  // A refused export is kept like one the extension refused: the person sees that it was tried.
  function keepRefused(commands, code, why, time) {
    const counted = {};
    addNames(counted, commands);
    let any = false;
    for (const command of KEPT_COMMANDS) {
      if (!Object.hasOwn(counted, command)) continue;
      const summary = `refused ${command}${why ? ` ${why}` : ""}`;
      keep({ id: `refused-${time}-${command}`, time, command, script: null, tab: null, outcome: code, refused: true, summary, count: counted[command] });
      any = true;
    }
    if (any) flush();
  }

  // At most one write per SAVE_DELAY_MS, always of the latest lists. A write is an IPC that the
  // browser process serves on the thread that also routes the next command to its tab: writing
  // after every command made each 1+1 round trip about 0.9 ms slower. The popup reads the lists in
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
      await chrome.storage.session.set({
        [ACTIVITY_KEY]: entries.map(copy),
        [KEPT_KEY]: { entries: kept.map(copy), dropped },
      });
    } catch (err) {
      console.warn("tabpilot: could not save the recent activity", err);
    } finally {
      writing = null;
      if (dirty) save();
    }
  }

  // Written at once: the person asked for it.
  async function cleared(empty) {
    await ready;
    empty();
    dirty = true;
    await writing;
    await flush();
  }

  return {
    ready,
    begin,
    refused,
    list: () => ready.then(() => entries.map(copy)),
    kept: () => ready.then(() => ({ entries: kept.map(copy), dropped })),
    clear: () =>
      cleared(() => {
        entries = [];
      }),
    clearKept: () =>
      cleared(() => {
        kept = [];
        dropped = null;
      }),
  };
}

// Folded entries change after they are listed; the popup and storage get a copy of the moment.
const copy = (entry) => (entry.commands ? { ...entry, commands: { ...entry.commands } } : { ...entry });

// Names are the daemon's command names; anything else, and names past MAX_NAMES, count as "other".
function addNames(into, names) {
  if (!isNames(names)) return;
  for (const [name, n] of Object.entries(names)) {
    if (!Number.isSafeInteger(n) || n <= 0) continue;
    const known = COMMAND_NAME.test(name) && (Object.hasOwn(into, name) || Object.keys(into).length < MAX_NAMES);
    const key = known ? name : "other";
    into[key] = (into[key] ?? 0) + n;
  }
}

const isNames = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function isEntry(value) {
  return (
    value !== null && typeof value === "object" && typeof value.time === "number" && typeof value.command === "string"
  );
}

function isDropped(value) {
  return value !== null && typeof value === "object" && Number.isSafeInteger(value.count) && typeof value.time === "number";
}
