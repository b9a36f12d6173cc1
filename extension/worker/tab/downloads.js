// The downloads the AI's calls start (chrome.downloads). A download carries no tab id, so it is
// the AI's when it is created while one of the AI's acts or scripts is under way (or within
// TAIL_MS after, for a response that turned into a download late); a person's own downloads at
// other times are never listed. The ids are kept in chrome.storage.session, so that a worker that
// Chrome stopped and woke still lists them, and nothing of them outlives the browser session.
//   during(tab)  -> {seen, settle(ms), stop()}: the downloads created while it is open
//   list(limit)  -> the AI's downloads, newest first, as the tools report them
const KEY = "tabpilotAiDownloads";
const TAIL_MS = 1000;
const KEEP = 200;

function originOf(url) {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? new URL(url).protocol : origin;
  } catch {
    return null;
  }
}

const baseName = (path) => String(path ?? "").split(/[\\/]/).pop() || null;

// One download as the answers give it: never its full url (it may hold a token), its origin.
export function downloadInfo(item) {
  const state = item.state ?? "in_progress";
  const info = {
    id: item.id,
    name: baseName(item.filename),
    origin: originOf(item.finalUrl || item.url),
    state,
    size: state === "complete" ? (item.fileSize ?? item.bytesReceived ?? null) : item.totalBytes > 0 ? item.totalBytes : null,
    received: item.bytesReceived ?? 0,
    mime: item.mime || null,
    path: item.filename || null,
    started: item.startTime ?? null,
  };
  if (state === "interrupted") info.error = item.error ?? "unknown";
  return info;
}

export function createDownloads({ chrome, timers }) {
  const api = chrome.downloads;
  const open = new Set(); // the windows of calls under way: {tabUrl, seen: [ids]}
  const changed = new Set(); // functions told of every created or changed download
  let lastClosed = 0;
  let stored = null; // the ids, once read from storage

  async function ids() {
    if (stored === null) {
      const got = await chrome.storage.session.get(KEY).catch(() => ({}));
      stored = stored ?? (Array.isArray(got?.[KEY]) ? got[KEY] : []);
    }
    return stored;
  }

  async function remember(id) {
    const all = await ids();
    if (!all.includes(id)) all.push(id);
    if (all.length > KEEP) all.splice(0, all.length - KEEP);
    await chrome.storage.session.set({ [KEY]: all }).catch(() => {});
  }

  // Registered in the worker's first turn, so that Chrome wakes the worker for them.
  api?.onCreated.addListener((item) => {
    if (open.size === 0 && Date.now() - lastClosed > TAIL_MS) return;
    remember(item.id).catch(() => {});
    // Acts in several tabs at once: the download goes to the one whose page it came from.
    const from = originOf(item.referrer || "");
    const windows = [...open];
    const mine = windows.filter((w) => from && originOf(w.tabUrl) === from);
    for (const w of mine.length > 0 ? mine : windows) w.seen.push(item.id);
    for (const tell of changed) tell();
  });
  api?.onChanged.addListener(() => {
    for (const tell of changed) tell();
  });

  async function items(wanted) {
    if (!api || wanted.length === 0) return [];
    // One search per id: a person's download history may be long.
    const found = await Promise.all(wanted.map((id) => api.search({ id }).catch(() => [])));
    return found.map((hits) => hits[0]).filter(Boolean);
  }

  function nextChange(ms) {
    return new Promise((resolve) => {
      const tell = () => {
        changed.delete(tell);
        timers.clearTimeout(timer);
        resolve();
      };
      const timer = timers.setTimeout(tell, ms);
      changed.add(tell);
    });
  }

  function during(tab) {
    const window = { tabUrl: tab?.url ?? "", seen: [] };
    open.add(window);
    let stopped = false;
    return {
      seen: window.seen,
      // Waits up to ms for a download to appear (when `expect`, a navigation that turned into one)
      // and for those seen to finish, then reports them as they are: a call never waits long.
      async settle(ms, expect = false) {
        const end = Date.now() + Math.max(0, ms);
        while (Date.now() < end) {
          const now = await items(window.seen);
          const waiting = now.some((item) => item.state === "in_progress") || (expect && window.seen.length === 0);
          if (!waiting) break;
          await nextChange(end - Date.now());
        }
        return (await items(window.seen)).map(downloadInfo);
      },
      stop() {
        if (stopped) return;
        stopped = true;
        open.delete(window);
        lastClosed = Date.now();
      },
    };
  }

  async function list(limit) {
    const all = await items(await ids());
    all.sort((a, b) => String(b.startTime).localeCompare(String(a.startTime)) || b.id - a.id);
    return all.slice(0, limit).map(downloadInfo);
  }

  return { during, list };
}
