// The popup's "Recent activity": the commands the service worker answered (worker/link/activity.js),
// newest first. Scripts, titles and urls come from agents and pages, so they are only ever set as
// text, never parsed as HTML.
//
// The list is asked of the worker rather than read from chrome.storage.session here: the worker
// owns it (it writes every entry and is the only one that clears it), so the popup needs no
// storage listener and a Clear cannot race a write that would bring cleared entries back.

export function createActivityView({ chrome, list, empty, clearButton }) {
  clearButton.addEventListener("click", async () => {
    try {
      const answer = await chrome.runtime.sendMessage({ type: "clear_activity" });
      if (Array.isArray(answer?.entries)) render(answer.entries);
    } catch (err) {
      console.warn("tabpilot: could not clear the recent activity", err);
    }
  });

  // The status line already says when the worker does not answer; here the list just stays as is.
  async function refresh() {
    try {
      const answer = await chrome.runtime.sendMessage({ type: "get_activity" });
      if (Array.isArray(answer?.entries)) render(answer.entries);
    } catch {}
  }

  // Rows are keyed and only the new ones are inserted, so that the polite live region announces a
  // new command, not the whole list on every refresh.
  function render(entries) {
    const keys = new Set(entries.map(keyOf));
    for (const row of [...list.children]) if (!keys.has(row.dataset.key)) row.remove();
    let next = list.firstElementChild;
    for (const entry of entries) {
      if (next?.dataset.key === keyOf(entry)) next = next.nextElementSibling;
      else list.insertBefore(rowOf(entry), next);
    }
    empty.hidden = entries.length > 0;
  }

  return { refresh };
}

const keyOf = (entry) => `${entry.time}:${entry.id}`;

function rowOf(entry) {
  const row = element("li");
  row.dataset.key = keyOf(entry);

  const when = new Date(entry.time);
  const time = element("time", "", when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }));
  time.dateTime = when.toISOString();
  time.title = when.toLocaleString();
  const ok = entry.outcome === "ok";
  const outcome = element("span", `outcome ${ok ? "ok" : "failed"}`, String(entry.outcome));
  // In the title, so that the host keeps its room next to a long error code.
  outcome.title = `${ok ? "answered" : "failed"} in ${Math.round(entry.duration_ms ?? 0)} ms`;
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
    what = element("span", "script command", words);
  }
  row.append(meta, what);
  return row;
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
