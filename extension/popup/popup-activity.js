// The popup's two activity lists (worker/link/activity.js), newest first: "Kept until you clear
// them" (exports and handoffs) and "Recent activity" (every command, refusals included). Scripts,
// titles and urls come from agents and pages, so they are only ever set as text, never parsed as
// HTML.
//
// The lists are asked of the worker rather than read from chrome.storage.session here: the worker
// owns them (it writes every entry and is the only one that clears them), so the popup needs no
// storage listener and a Clear cannot race a write that would bring cleared entries back.

export function createActivityView({ chrome, recent, kept }) {
  // Each Clear empties its own list (the worker's clear_activity, clear_kept) and shows both as
  // they are after it.
  function clearOn(button, type) {
    button.addEventListener("click", async () => {
      try {
        render(await chrome.runtime.sendMessage({ type }));
      } catch (err) {
        console.warn("tabpilot: could not clear the activity", err);
      }
    });
  }
  clearOn(recent.clearButton, "clear_activity");
  clearOn(kept.clearButton, "clear_kept");

  // The status line already says when the worker does not answer; here the lists just stay as is.
  async function refresh() {
    try {
      render(await chrome.runtime.sendMessage({ type: "get_activity" }));
    } catch {}
  }

  function render(answer) {
    if (Array.isArray(answer?.entries)) renderList(recent, answer.entries);
    if (Array.isArray(answer?.kept?.entries)) {
      renderList(kept, answer.kept.entries);
      const dropped = answer.kept.dropped;
      kept.dropped.hidden = !dropped;
      const text = dropped ? droppedWords(dropped) : "";
      if (kept.dropped.textContent !== text) kept.dropped.textContent = text;
      kept.clearButton.disabled = answer.kept.entries.length === 0 && !dropped;
    }
  }

  return { refresh };
}

// Rows are keyed and only the new ones are inserted, so that the polite live region announces a
// new command, not the whole list on every refresh.
function renderList({ list, empty }, entries) {
  const keys = new Set(entries.map(keyOf));
  for (const row of [...list.children]) if (!keys.has(row.dataset.key)) row.remove();
  let next = list.firstElementChild;
  for (const entry of entries) {
    if (next?.dataset.key === keyOf(entry)) next = next.nextElementSibling;
    else list.insertBefore(rowOf(entry), next);
  }
  empty.hidden = entries.length > 0;
}

// The kept list is bounded too; what went is said, never dropped silently.
function droppedWords({ count, time }) {
  const n = Number(count) || 0;
  const when = new Date(time).toLocaleString();
  return `${n} older kept ${n === 1 ? "entry was" : "entries were"} dropped to keep this list short, the newest of them from ${when}.`;
}

// A folded entry (refusals, a repeated failure) changes its count and time: a new row, announced.
const keyOf = (entry) => `${entry.time}:${entry.id}:${entry.count ?? 1}`;

function rowOf(entry) {
  const row = element("li");
  row.dataset.key = keyOf(entry);

  const when = new Date(entry.time);
  const time = element("time", "", when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }));
  time.dateTime = when.toISOString();
  time.title = when.toLocaleString();
  const ok = entry.outcome === "ok";
  const kind = ok ? "ok" : entry.refused ? "refused" : "failed";
  const outcome = element("span", `outcome ${kind}`, String(entry.outcome));
  // In the title, so that the host keeps its room next to a long error code.
  const took = typeof entry.duration_ms === "number" ? ` in ${Math.round(entry.duration_ms)} ms` : "";
  outcome.title = entry.daemon ? "refused by the daemon, which did not send them" : `${ok ? "answered" : kind}${took}`;
  const where = element("span", "where", placeOf(entry.tab));
  if (entry.tab) where.title = [entry.tab.title, entry.tab.url].filter(Boolean).join("\n");
  const meta = element("div", "meta");
  meta.append(time, outcome, where);

  let what;
  if (typeof entry.script === "string") {
    what = element("code", "script", firstLine(entry.script));
    // A strict page's script ran by another route: say which (the debugger shows Chrome's banner).
    what.title = entry.route ? `${entry.script}\n\n(ran by ${entry.route})` : entry.script;
  } else {
    const words = entry.summary ?? (entry.command === "list_tabs" ? "listed the tabs" : String(entry.command));
    // The daemon's refusals count themselves; a repeated failure kept once says how often.
    const times = !entry.daemon && entry.count > 1 ? ` (${entry.count} times)` : "";
    what = element("span", "script command", words + times);
    if (entry.daemon && entry.commands) what.title = namesOf(entry.commands);
  }
  row.append(meta, what);
  return row;
}

// "execute_javascript: 28, browser_snapshot: 2": which commands a folded refusal holds.
function namesOf(commands) {
  return Object.entries(commands)
    .map(([name, n]) => `${name}: ${n}`)
    .join(", ");
}

// The first line with something on it; "…" says that more lines follow. A line too long for the
// popup is cut by CSS (text-overflow), and the whole script is in the title.
function firstLine(script) {
  const lines = script.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) return "(empty)";
  return lines[0].trim() + (lines.length > 1 ? " …" : "");
}

// A tab's host says the most in little room; file pages and the like have none, so their title.
function placeOf(tab) {
  if (!tab) return "";
  try {
    const host = new URL(tab.url).host;
    if (host) return host;
  } catch {}
  return tab.title || tab.url || `tab ${tab.id}`;
}

function element(name, className = "", text = "") {
  const node = document.createElement(name);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}
