// Stubs of the chrome.* APIs, a fake WebSocket and fake timers, for the service worker's tests.
import { readFileSync } from "node:fs";

// The extension's real manifest: runtime.getManifest() answers it, as Chrome does.
const MANIFEST = readFileSync(new URL("../../extension/manifest.json", import.meta.url), "utf8");

function event() {
  const listeners = [];
  return {
    listeners,
    addListener: (fn) => listeners.push(fn),
    emit: (...args) => listeners.map((fn) => fn(...args)),
  };
}

export const NO_RECEIVER = "Could not establish connection. Receiving end does not exist.";

// tabs: [{id, url, title, active, windowId}]; onSend(tabId, message, options, attempt) answers
// the content script's reply (a value, a promise, or throws). session: the initial contents of
// storage.session; sessionFails: its get and set reject, as when the area is unavailable.
export function fakeChrome({
  storage = {},
  tabs = [],
  onSend = () => undefined,
  managed = null,
  lastFocused = true,
  session = {},
  sessionFails = false,
  cookies = [],
  onScript = null,
  registered = [],
  registerFails = 0,
} = {}) {
  const store = { ...storage };
  const sessionStore = structuredClone(session);
  const calls = {
    delivered: [],
    connect: [],
    executeScript: [],
    storageSet: [],
    sessionSet: [],
    badge: [],
    alarms: [],
    registration: [],
  };
  let failsLeft = registerFails;
  const onChanged = event();
  let sends = 0;
  const chrome = {
    calls,
    registered,
    store,
    sessionStore,
    storage: {
      onChanged,
      // In memory, like Chrome's; values are copied, as Chrome serializes them.
      session: {
        async get(keys) {
          if (sessionFails) throw new Error("storage.session is unavailable");
          const wanted = Array.isArray(keys) ? keys : [keys];
          return structuredClone(Object.fromEntries(wanted.filter((k) => k in sessionStore).map((k) => [k, sessionStore[k]])));
        },
        async set(items) {
          calls.sessionSet.push(structuredClone(items));
          if (sessionFails) throw new Error("storage.session quota exceeded");
          Object.assign(sessionStore, structuredClone(items));
        },
      },
      local: {
        async get(keys) {
          const wanted = Array.isArray(keys) ? keys : [keys];
          return Object.fromEntries(wanted.filter((k) => k in store).map((k) => [k, store[k]]));
        },
        async setAccessLevel(details) {
          calls.accessLevel = details.accessLevel;
        },
        async set(items) {
          calls.storageSet.push(items);
          const changes = {};
          for (const [k, v] of Object.entries(items)) {
            changes[k] = { oldValue: store[k], newValue: v };
            store[k] = v;
          }
          onChanged.emit(changes, "local");
        },
      },
    },
    tabs: {
      onRemoved: event(),
      onUpdated: event(),
      onReplaced: event(),
      onCreated: event(),
      onActivated: event(),
      onAttached: event(),
      onDetached: event(),
      onMoved: event(),
      async get(id) {
        const tab = tabs.find((t) => t.id === id);
        if (!tab) throw new Error(`No tab with id: ${id}.`);
        return tab;
      },
      async query(q) {
        if (q.lastFocusedWindow && !lastFocused) return [];
        return tabs.filter((t) => q.active === undefined || t.active === q.active);
      },
      // A port to the tab's content script, as Chrome gives it: onSend plays the content script
      // for each posted request. It throwing NO_RECEIVER closes the port as Chrome does when no
      // content script listens (nothing was delivered); any other throw closes it with that reason.
      connect(tabId, options) {
        calls.connect.push({ tabId, options });
        const onMessage = event();
        const onDisconnect = event();
        let open = true;
        let reached = false;
        const close = (reason) => {
          if (!open) return;
          open = false;
          chrome.runtime.lastError = reason ? { message: reason } : undefined;
          onDisconnect.emit();
          chrome.runtime.lastError = undefined;
        };
        return {
          name: options?.name,
          onMessage,
          onDisconnect,
          postMessage({ seq, message }) {
            if (!open) throw new Error("Attempting to use a disconnected port object");
            calls.delivered.push({ tabId, message, options: { frameId: options?.frameId } });
            const attempt = ++sends;
            Promise.resolve()
              .then(() => {
                // Throwing at once plays a tab with no content script to take the port; else it
                // takes the port and says so before its answer, as content.js does.
                const answer = onSend(tabId, message, options, attempt);
                if (!reached) {
                  reached = true;
                  onMessage.emit({ reached: true });
                }
                return answer;
              })
              .then(
                (answer) => open && onMessage.emit(JSON.parse(JSON.stringify({ seq, answer: answer ?? null }))),
                (err) => close(String(err?.message ?? err)),
              );
          },
          disconnect: () => close(),
        };
      },
    },
    scripting: {
      async executeScript(details) {
        calls.executeScript.push(details);
        const tab = tabs.find((t) => t.id === details.target.tabId);
        if (tab?.crashed) throw new Error("Cannot access contents of the page. Extension manifest must request permission to access the respective host.");
        if (tab?.refuseInjection) throw new Error(`Cannot access contents of url "${tab.url}".`);
        if (tab?.shuttingDown) throw new Error("The browser is shutting down.");
        // onScript(details, tab) plays the injected function: its value is the frame's result.
        if (onScript) return [{ frameId: 0, result: await onScript(details, tab) }];
        return [{ frameId: 0, result: undefined }];
      },
      // The dynamic content scripts, kept in `registered` as Chrome keeps them across worker
      // restarts: with every field filled in, as Chrome answers. The first `registerFails`
      // registrations fail.
      async getRegisteredContentScripts(filter = {}) {
        calls.registration.push(["get", filter]);
        return structuredClone(registered.filter((s) => !filter.ids || filter.ids.includes(s.id)));
      },
      async registerContentScripts(scripts) {
        calls.registration.push(["register", scripts.map((s) => s.id)]);
        if (failsLeft > 0) {
          failsLeft -= 1;
          throw new Error("Could not register the content scripts.");
        }
        const taken = scripts.find((s) => registered.some((r) => r.id === s.id));
        if (taken) throw new Error(`Duplicate script ID '${taken.id}'`);
        for (const s of scripts) {
          registered.push({ excludeMatches: [], persistAcrossSessions: true, runAt: "document_idle", world: "ISOLATED", ...structuredClone(s) });
        }
      },
      async unregisterContentScripts(filter = {}) {
        calls.registration.push(["unregister", filter.ids]);
        const missing = (filter.ids ?? []).find((id) => !registered.some((r) => r.id === id));
        if (missing) throw new Error(`Nonexistent script ID '${missing}'`);
        for (let i = registered.length - 1; i >= 0; i--) {
          if (!filter.ids || filter.ids.includes(registered[i].id)) registered.splice(i, 1);
        }
      },
    },
    cookies: fakeCookies(cookies, calls),
    windows: { onFocusChanged: event(), onCreated: event(), onRemoved: event() },
    runtime: {
      onMessage: event(),
      onConnect: event(),
      getManifest: () => JSON.parse(MANIFEST),
      getURL: (path) => `chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf/${path}`,
    },
    action: {
      async setBadgeText(d) {
        calls.badge.push(d.text);
      },
      async setBadgeBackgroundColor() {},
      async setTitle() {},
    },
    alarms: {
      onAlarm: event(),
      async create(name, info) {
        calls.alarms.push({ name, info });
      },
    },
  };
  // fetch of the extension's own files: only managed.json, present when `managed` is given.
  const fetch = async (url) => {
    if (url.endsWith("/managed.json") && managed !== null) {
      return { ok: true, json: async () => managed };
    }
    throw new TypeError("Failed to fetch");
  };
  return { chrome, fetch };
}

// chrome.cookies over `jar`, a list of chrome.cookies.Cookie objects, as Chromium 156 answers:
// getAll lists partitioned (CHIPS) cookies only when asked with a partitionKey, set answers null
// for a cookie that has expired, remove matches the url's host, the name and the partition.
function fakeCookies(jar, calls) {
  calls.cookies = [];
  const host = (url) => new URL(url).hostname;
  const sameKey = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  return {
    jar,
    async getAll(details = {}) {
      calls.cookies.push(["getAll", details]);
      return structuredClone(jar.filter((c) => details.partitionKey !== undefined || !c.partitionKey));
    },
    async set(details) {
      calls.cookies.push(["set", details]);
      if (details.expirationDate !== undefined && details.expirationDate < Date.now() / 1000) return null;
      const domain = details.domain ?? host(details.url);
      const cookie = {
        name: details.name,
        value: details.value,
        domain,
        hostOnly: details.domain === undefined,
        path: details.path,
        secure: details.secure,
        httpOnly: details.httpOnly,
        sameSite: details.sameSite,
        session: details.expirationDate === undefined,
        storeId: details.storeId ?? "0",
        ...(details.expirationDate !== undefined ? { expirationDate: details.expirationDate } : {}),
        ...(details.partitionKey ? { partitionKey: details.partitionKey } : {}),
      };
      jar.push(cookie);
      return structuredClone(cookie);
    },
    async remove(details) {
      calls.cookies.push(["remove", details]);
      const index = jar.findIndex(
        (c) => c.name === details.name && c.domain.replace(/^\./, "") === host(details.url) && sameKey(c.partitionKey, details.partitionKey),
      );
      if (index === -1) return null;
      const [removed] = jar.splice(index, 1);
      return { name: removed.name, url: details.url, storeId: removed.storeId };
    },
  };
}

export class FakeWebSocket {
  static instances = [];
  static last() {
    return FakeWebSocket.instances.at(-1);
  }
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.closedWith = null;
    FakeWebSocket.instances.push(this);
  }
  send(text) {
    this.sent.push(JSON.parse(text));
  }
  close(code) {
    this.closedWith = code;
  }
  // What the daemon side does:
  open() {
    this.onopen?.({});
  }
  receive(frame) {
    this.onmessage?.({ data: typeof frame === "string" ? frame : JSON.stringify(frame) });
  }
  drop(code = 1006) {
    this.onerror?.({});
    this.onclose?.({ code });
  }
  frames(type) {
    return this.sent.filter((f) => f.type === type);
  }
}

// Timers that only run when the test says so, recording the delays asked for: a module given them
// acts when the test says, not when the wall clock has moved far enough. Real timers stay
// available for the command timeouts, which are short.
export function manualTimers() {
  const pending = new Map();
  let next = 1;
  const timers = {
    delays: [],
    intervals: [],
    setTimeout(fn, ms) {
      timers.delays.push(ms);
      pending.set(next, { fn, ms });
      return next++;
    },
    clearTimeout: (id) => pending.delete(id),
    setInterval(fn, ms) {
      timers.intervals.push(ms);
      return { fn, ms };
    },
    clearInterval() {},
    // Fires the timers pending now (not those they set).
    runAll() {
      const due = [...pending.values()];
      pending.clear();
      due.forEach(({ fn }) => fn());
    },
    // Fires the oldest pending timer; resolves when what it started (a promise it returns) settles.
    async fireNext() {
      const [id, { fn }] = pending.entries().next().value;
      pending.delete(id);
      await fn();
    },
    // Fires the oldest pending timer set for `ms`, leaving the others pending.
    async fireDelay(ms) {
      const [id, { fn }] = [...pending.entries()].find(([, timer]) => timer.ms === ms);
      pending.delete(id);
      await fn();
    },
    // Fires timers one by one, and those they set, awaiting each, until none is left.
    async runUntilIdle() {
      while (pending.size > 0) await timers.fireNext();
    },
    pendingCount: () => pending.size,
    pendingDelays: () => [...pending.values()].map(({ ms }) => ms),
  };
  return timers;
}

export const realTimers = { setTimeout, clearTimeout, setInterval, clearInterval };

export const tick = () => new Promise((resolve) => setImmediate(resolve));

// Waits for `predicate()` to hold, a turn of the event loop at a time; fails naming `what` after
// `timeoutMs`. How a test waits for something to have happened, instead of a sleep.
export async function until(predicate, what, timeoutMs = 2000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

// Waits until the socket has sent `count` result frames, then returns them all.
export async function results(ws, count = 1) {
  await until(() => ws.frames("result").length >= count, `${count} result frames`);
  return ws.frames("result");
}
