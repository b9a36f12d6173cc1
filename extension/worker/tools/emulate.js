// browser_emulate, the worker's side: a tab's device, place, clock, network and CPU
// (server/tabpilot/tools/emulate.py sends plain settings: a device is spelled out into its metrics,
// a network preset into its numbers).
//
// Emulation belongs to the tab. Through the debugger (the managed browser, or a person's Chrome with
// the debugger switch on) every setting is a DevTools override of the tab's session, which lasts
// across its navigations and ends with the tab. Without the debugger only the viewport can change,
// by resizing the tab's window; that window's other tabs see the size too, so the answer says so.
// A call changes only the settings it names; each answer lists what is in force, kept per tab in
// storage.session so that a worker Chrome stopped and started again still knows.
import { CommandError } from "../link/errors.js";
import { DEBUGGER_KEY, DEBUGGER_SWITCH } from "../tab/debugger.js";
import { tabInfo } from "../tab/tabs.js";

const KEY = "emulation";
const SETTINGS = [
  "device",
  "width",
  "height",
  "device_scale_factor",
  "mobile",
  "touch",
  "user_agent",
  "locale",
  "timezone",
  "latitude",
  "longitude",
  "accuracy",
  "color_scheme",
  "reduced_motion",
  "network",
  "latency_ms",
  "download_kbps",
  "upload_kbps",
  "cpu_rate",
];
// What a device spells out: a call naming one of these without `device` is no longer that device.
const DEVICE_PARTS = ["width", "height", "device_scale_factor", "mobile", "touch", "user_agent"];
const NETWORK_PARTS = ["network", "latency_ms", "download_kbps", "upload_kbps"];
// The DevTools overrides, each set from the settings it is made of (apply) and undone (clear).
const GROUPS = {
  metrics: ["width", "height", "device_scale_factor", "mobile"],
  touch: ["touch"],
  agent: ["user_agent", "locale"],
  timezone: ["timezone"],
  geolocation: ["latitude", "longitude", "accuracy"],
  media: ["color_scheme", "reduced_motion"],
  network: NETWORK_PARTS,
  cpu: ["cpu_rate"],
};
// A window resize settles within a frame or two; a window that cannot take the size never does.
const SETTLE_MS = 1500;
const kbps = (value) => (value == null ? -1 : value * 125); // kbit/s to bytes/s

function emulateSummary(params, result) {
  if (result?.ok !== true) return "tried to emulate";
  const named = SETTINGS.filter((name) => params?.[name] != null && name !== "device");
  if (params?.reset && named.length === 0) return "reset emulation";
  return params?.device ? `emulated ${params.device}` : `emulated ${named.join(", ") || "nothing new"}`;
}

export function createEmulateTools({ chrome, tabs, debug, timers }) {
  let queue = Promise.resolve();
  const serial = (job) => {
    const run = queue.then(job, job);
    queue = run.catch(() => {});
    return run;
  };

  async function load() {
    const stored = await chrome.storage.session.get(KEY).catch(() => ({}));
    return stored?.[KEY] ?? {};
  }
  async function save(all) {
    await chrome.storage.session.set({ [KEY]: all }).catch(() => {});
  }
  async function update(tabId, fn) {
    const all = await load();
    const next = fn(all[tabId]);
    if (next) all[tabId] = next;
    else delete all[tabId];
    await save(all);
  }

  // Overrides die with the debugger session: when the switch goes off (debugger.js detaches every
  // tab) and when a person detaches it from Chrome's banner. The window keeps its size.
  async function forgetDebugger(tabId) {
    const state = (await load())[tabId];
    await update(tabId, (kept) => (kept?.window ? { debugger: {}, window: kept.window } : null));
    if (state?.granted) await revokeLocation();
  }
  chrome.debugger?.onDetach?.addListener((source) => serial(() => forgetDebugger(source.tabId)));
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== "local" || !(DEBUGGER_KEY in changes) || changes[DEBUGGER_KEY].newValue === true) return;
    if (debug.isManaged()) return;
    serial(async () => {
      for (const tabId of Object.keys(await load())) await forgetDebugger(tabId);
    });
  });
  // A tab's emulation ends with it; a window it resized gets its size back.
  chrome.tabs.onRemoved?.addListener((tabId, info) =>
    serial(async () => {
      const state = (await load())[tabId];
      if (state?.window && !info?.isWindowClosing) await restoreWindow(state.window.bounds);
      await update(tabId, () => null);
      if (state?.granted) await revokeLocation();
    }),
  );

  // --- the debugger route ---------------------------------------------------------------------

  const APPLY = {
    metrics: (tabId, s) =>
      // An override of zeros keeps the page at the size it last emulated; only a clear gives it back.
      GROUPS.metrics.every((name) => s[name] == null)
        ? debug.send(tabId, "Emulation.clearDeviceMetricsOverride", {})
        : debug.send(tabId, "Emulation.setDeviceMetricsOverride", {
        width: s.width ?? 0,
        height: s.height ?? 0,
        deviceScaleFactor: s.device_scale_factor ?? 0,
        mobile: s.mobile === true,
      }),
    touch: (tabId, s) =>
      debug.send(tabId, "Emulation.setTouchEmulationEnabled", s.touch ? { enabled: true, maxTouchPoints: 5 } : { enabled: false }),
    agent: async (tabId, s) => {
      // navigator.language and Accept-Language come from the user agent override; Intl's locale
      // from the locale override.
      await debug.send(tabId, "Emulation.setUserAgentOverride", {
        userAgent: s.user_agent ?? navigator.userAgent,
        ...(s.locale ? { acceptLanguage: s.locale } : {}),
      });
      await debug.send(tabId, "Emulation.setLocaleOverride", {});
      if (s.locale) await debug.send(tabId, "Emulation.setLocaleOverride", { locale: s.locale });
    },
    timezone: async (tabId, s) => {
      await debug.send(tabId, "Emulation.setTimezoneOverride", { timezoneId: "" });
      if (s.timezone) await debug.send(tabId, "Emulation.setTimezoneOverride", { timezoneId: s.timezone });
    },
    geolocation: async (tabId, s) => {
      if (s.latitude == null) {
        await debug.send(tabId, "Emulation.clearGeolocationOverride", {});
        return;
      }
      await debug.send(tabId, "Emulation.setGeolocationOverride", {
        latitude: s.latitude,
        longitude: s.longitude,
        accuracy: s.accuracy ?? 10,
      });
    },
    media: (tabId, s) => {
      const features = [];
      if (s.color_scheme) features.push({ name: "prefers-color-scheme", value: s.color_scheme });
      if (s.reduced_motion != null) {
        features.push({ name: "prefers-reduced-motion", value: s.reduced_motion ? "reduce" : "no-preference" });
      }
      return debug.send(tabId, "Emulation.setEmulatedMedia", { media: "", features });
    },
    network: async (tabId, s) => {
      await debug.send(tabId, "Network.enable", {});
      const offline = s.network === "offline";
      const throttled = !offline && s.network != null;
      await debug.send(tabId, "Network.emulateNetworkConditions", {
        offline,
        latency: throttled ? (s.latency_ms ?? 0) : 0,
        downloadThroughput: throttled ? kbps(s.download_kbps) : -1,
        uploadThroughput: throttled ? kbps(s.upload_kbps) : -1,
      });
    },
    cpu: (tabId, s) => debug.send(tabId, "Emulation.setCPUThrottlingRate", { rate: s.cpu_rate ?? 1 }),
  };

  // Sets the groups' overrides from `settings`; if one fails, the ones set before it go back to
  // `before`, so that a refused call changes nothing.
  async function viaDebugger(tabId, settings, groups, before = {}) {
    const done = [];
    for (const group of groups) {
      try {
        await APPLY[group](tabId, settings);
        done.push(group);
      } catch (err) {
        for (const undo of done) await Promise.resolve(APPLY[undo](tabId, before)).catch(() => {});
        if (err instanceof CommandError) throw err;
        const message = String(err?.message ?? err);
        // Chrome's own word on a timezone or locale it does not know.
        if (/invalid|not supported|unknown/i.test(message)) {
          throw new CommandError("invalid_request", `Chrome refused ${GROUPS[group].filter((n) => settings[n] != null).join(", ") || group}: ${message}.`);
        }
        throw new CommandError("extension_error", `browser_emulate could not set ${group}: ${message}`);
      }
    }
  }

  // The DevTools Browser domain, which grants permissions, is not open to extensions; a content
  // setting is. It is the person's profile's, so it is granted to the tab's site only and taken
  // back with the emulation.
  async function grantLocation(tab, granted, notes) {
    let origin = null;
    try {
      origin = new URL((await chrome.tabs.get(tab.id)).url).origin;
    } catch {
      // A tab with no url yet: nothing to grant.
    }
    if (!/^https?:/.test(origin ?? "") || !chrome.contentSettings?.location) {
      notes.push("The geolocation permission was not granted: the tab shows no web site.");
      return granted;
    }
    if (granted === origin) return granted;
    await chrome.contentSettings.location.set({ primaryPattern: `${origin}/*`, setting: "allow" });
    notes.push(`Granted ${origin} the geolocation permission while it is emulated.`);
    return origin;
  }

  // Content settings can be cleared only all at once: the other tabs' grants are made again.
  async function revokeLocation() {
    if (!chrome.contentSettings?.location) return;
    await Promise.resolve(chrome.contentSettings.location.clear({})).catch(() => {});
    for (const state of Object.values(await load())) {
      if (!state?.granted) continue;
      const rule = { primaryPattern: `${state.granted}/*`, setting: "allow" };
      await Promise.resolve(chrome.contentSettings.location.set(rule)).catch(() => {});
    }
  }

  // --- the window route -----------------------------------------------------------------------

  async function viewportOf(tabId) {
    try {
      const [{ result }] = await chrome.scripting.executeScript({
        target: { tabId },
        func: () => ({ width: innerWidth, height: innerHeight }),
      });
      if (Number.isFinite(result?.width)) return result;
    } catch {
      // A page no script may run in (chrome://, the web store): Chrome's own measure of the tab.
    }
    const tab = await chrome.tabs.get(tabId);
    return { width: tab.width, height: tab.height };
  }

  async function settle(tabId, before) {
    const until = Date.now() + SETTLE_MS;
    let now = await viewportOf(tabId);
    while (Date.now() < until && now.width === before.width && now.height === before.height) {
      await new Promise((resolve) => timers.setTimeout(resolve, 50));
      now = await viewportOf(tabId);
    }
    return now;
  }

  async function viaWindow(tab, width, height, saved) {
    const win = await chrome.windows.get(tab.windowId);
    const bounds = saved ?? { windowId: win.id, state: win.state, left: win.left, top: win.top, width: win.width, height: win.height };
    if (win.state !== "normal") await chrome.windows.update(win.id, { state: "normal" });
    let viewport = await viewportOf(tab.id);
    // The window's frame (toolbar, borders) is what it has beyond the viewport; twice, since a
    // first resize may change the frame (a toolbar that wraps).
    for (let pass = 0; pass < 2 && (viewport.width !== width || viewport.height !== height); pass++) {
      const now = await chrome.windows.get(win.id);
      await chrome.windows.update(win.id, {
        width: Math.max(1, now.width + width - viewport.width),
        height: Math.max(1, now.height + height - viewport.height),
      });
      viewport = await settle(tab.id, viewport);
    }
    const after = await chrome.windows.get(win.id);
    return { bounds, viewport, window: { width: after.width, height: after.height } };
  }

  async function restoreWindow(bounds) {
    const { windowId, state, left, top, width, height } = bounds;
    const back = state === "normal" || !state ? { left, top, width, height } : { state };
    await Promise.resolve(chrome.windows.update(windowId, back)).catch(() => {});
  }

  // --- the command ----------------------------------------------------------------------------

  function needsDebugger(asked) {
    return SETTINGS.filter((name) => asked[name] !== undefined && name !== "width" && name !== "height");
  }

  function compose(before, asked) {
    const next = { ...before };
    if (asked.device === undefined && DEVICE_PARTS.some((name) => asked[name] !== undefined)) delete next.device;
    if (NETWORK_PARTS.some((name) => asked[name] !== undefined)) {
      // A preset's numbers are its own; numbers alone adjust what is in force (a preset's too).
      if (asked.network !== undefined) for (const name of NETWORK_PARTS) delete next[name];
      else next.network = "custom";
    }
    Object.assign(next, asked);
    if (next.network === "online") for (const name of NETWORK_PARTS) delete next[name];
    if (next.cpu_rate === 1) delete next.cpu_rate;
    return next;
  }

  async function clearAll(tab, state, notes) {
    const set = Object.keys(GROUPS).filter((group) => GROUPS[group].some((name) => state?.debugger?.[name] != null));
    if (set.length > 0 && debug.allowed()) await viaDebugger(tab.id, {}, set);
    if (state?.debugger?.touch === true) notes.push("Touch events go from the tab's next load: reload it.");
    if (state?.window) {
      await restoreWindow(state.window.bounds);
      notes.push("The window has its size from before again.");
    }
  }

  async function browserEmulate(params) {
    await debug.reload();
    const tab = await tabs.resolve(params.tab_id);
    const asked = {};
    for (const name of SETTINGS) if (params[name] !== null && params[name] !== undefined) asked[name] = params[name];
    const viewportOnly = needsDebugger(asked).length === 0;
    const route = Object.keys(asked).length === 0 ? null : debug.allowed() ? "debugger" : viewportOnly ? "window" : null;
    if (Object.keys(asked).length > 0 && route === null) {
      const needs = needsDebugger(asked);
      throw new CommandError(
        "debugger_disabled",
        `browser_emulate needs chrome.debugger for ${needs.join(", ")}, which this browser allows only with ` +
          `${DEBUGGER_SWITCH}. Nothing was changed. Ask the person at the browser to turn it on in the ` +
          "tabpilot popup, or send only width and height: those resize the window.",
        { tab: tabInfo(tab), data: { needs } },
      );
    }
    return serial(async () => {
      const notes = [];
      let state = (await load())[tab.id] ?? null;
      if (params.reset === true) {
        await clearAll(tab, state, notes);
        await update(tab.id, () => null);
        if (state?.granted) await revokeLocation();
        state = null;
      }
      const debuggerSettings = { ...(state?.debugger ?? {}) };
      let granted = state?.granted ?? null;
      let windowState = state?.window ?? null;
      if (route === "debugger") {
        const next = compose(debuggerSettings, asked);
        const groups = Object.keys(GROUPS).filter((group) => GROUPS[group].some((name) => name in asked));
        await viaDebugger(tab.id, next, groups, debuggerSettings);
        if ("latitude" in asked) granted = await grantLocation(tab, granted, notes);
        if ("touch" in asked && asked.touch !== (debuggerSettings.touch ?? false)) {
          // Blink decides whether a page has touch events ('ontouchstart' in window) as it loads it.
          notes.push("Touch events appear or go from the tab's next load: reload it to see them.");
        }
        Object.keys(debuggerSettings).forEach((name) => delete debuggerSettings[name]);
        Object.assign(debuggerSettings, next);
        if (asked.width !== undefined && windowState) {
          // The debugger's viewport replaces the window's: the window gets its size back.
          await restoreWindow(windowState.bounds);
          windowState = null;
        }
      } else if (route === "window") {
        const resized = await viaWindow(tab, asked.width, asked.height, windowState?.bounds);
        const { viewport } = resized;
        windowState = { bounds: resized.bounds, width: viewport.width, height: viewport.height };
        notes.push(
          `Resized the window to ${resized.window.width}x${resized.window.height} (no debugger); ` +
            "its other tabs have this size too.",
        );
        if (viewport.width !== asked.width || viewport.height !== asked.height) {
          notes.push(
            `The window could not take that size: the viewport is ${viewport.width}x${viewport.height}, ` +
              `not ${asked.width}x${asked.height}.`,
          );
        }
      }
      const emulated = Object.keys(debuggerSettings).length > 0 || windowState;
      await update(tab.id, () => (emulated ? { debugger: debuggerSettings, window: windowState, granted } : null));
      const inForce = { ...debuggerSettings };
      if (windowState && inForce.width == null) Object.assign(inForce, { width: windowState.width, height: windowState.height });
      const used = route ?? (params.reset === true ? "reset" : "none");
      return { result: { route: used, in_force: inForce, notes }, result_type: "object", tab: tabInfo(tab) };
    });
  }

  return { handlers: { browser_emulate: browserEmulate }, summaries: { browser_emulate: emulateSummary } };
}
