// browser_wait_for, the worker's side (docs/protocol.md, "browser_wait_for"): one condition, watched
// with events until it holds or the time is up. Page conditions (text, text_gone, ref, selector,
// dom_stable) are watched by the tab's content script (content/wait.js); when the document is
// replaced meanwhile, the wait is sent again to the new one, against the same deadline. The url is
// watched here with webNavigation, network_idle with webRequest (wait-network.js), time with a
// timer. The worker keeps the clock: a page stuck in a loop, or a background tab's throttled
// timers, cannot stretch the timeout.
import { CommandError } from "../link/errors.js";
import { pageError } from "../tab/ref-docs.js";
import { frameOfRefs } from "../tab/ref-frames.js";
import { assertScriptable, deliver, tabInfo } from "../tab/tabs.js";
import { IDLE_MS, createNetworkWatch } from "./wait-network.js";

export const DEFAULT_WAIT_MS = 10_000;
export const MAX_WAIT_MS = 120_000;
export const MAX_TIME_MS = 30_000;
export const STATES = ["visible", "hidden", "enabled", "attached", "detached"];
export const CONDITIONS = ["text", "text_gone", "ref", "selector", "url", "network_idle", "dom_stable", "time"];
const PAGE_CONDITIONS = new Set(["text", "text_gone", "ref", "selector", "dom_stable"]);
const MAX_CONDITION_CHARS = 2048;
// Once the time is up, how long the page has to say what is still false before the answer goes
// without it (a page stuck in a loop never says).
const REPORT_MS = 1000;
const GLOB_HELP = "a url glob has ** (any characters), * (any but /) and {a,b} (either); the rest is literal";

const invalid = (message) => new CommandError("invalid_request", message);
export const quote = (text, max = 80) => JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}\u2026` : text);

// A url glob as a matcher of whole urls: `**` any characters, `*` any but `/`, `{a,b}` either; the
// rest literal, `?` included (it starts a url's query). The daemon's model reads the same syntax
// (tools/wait.py, glob_error).
export function globMatcher(glob) {
  if (typeof glob !== "string" || glob === "") throw invalid(`url must be a glob such as "**/done"; ${GLOB_HELP}.`);
  let source = "";
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "{") {
      if (++depth > 1) throw invalid(`url ${quote(glob)}: braces do not nest; ${GLOB_HELP}.`);
      source += "(?:";
    } else if (char === "}") {
      if (--depth < 0) throw invalid(`url ${quote(glob)}: a } closes no {; ${GLOB_HELP}.`);
      source += ")";
    } else if (char === "," && depth > 0) source += "|";
    else source += char.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&");
  }
  if (depth > 0) throw invalid(`url ${quote(glob)}: a { is not closed; ${GLOB_HELP}.`);
  const pattern = new RegExp(`^${source}$`);
  return (url) => pattern.test(url);
}

// The one condition of a call, checked as the daemon's model checks it, for callers that reach the
// extension otherwise: {condition, value, state}.
export function checkWait(p) {
  const given = CONDITIONS.filter((name) => p[name] !== undefined && p[name] !== null && p[name] !== false);
  if (given.length !== 1) {
    throw invalid(
      given.length === 0
        ? `browser_wait_for needs one condition: ${CONDITIONS.join(", ")}.`
        : `browser_wait_for takes one condition per call, not ${given.join(" and ")}.`,
    );
  }
  const [condition] = given;
  const value = p[condition];
  const text = ["text", "text_gone", "ref", "selector", "url"].includes(condition);
  if (text && (typeof value !== "string" || value === "" || value.length > MAX_CONDITION_CHARS)) {
    throw invalid(`${condition} must be a non-empty string of at most ${MAX_CONDITION_CHARS} characters.`);
  }
  if (condition === "network_idle" && value !== true) throw invalid("network_idle must be true.");
  const least = condition === "dom_stable" ? 50 : 0;
  if ((condition === "time" || condition === "dom_stable") && !(Number.isInteger(value) && value >= least && value <= MAX_TIME_MS)) {
    throw invalid(`${condition} must be a whole number of ms from ${least} to ${MAX_TIME_MS}; got ${JSON.stringify(value)}.`);
  }
  const element = condition === "ref" || condition === "selector";
  if (p.state != null && (!element || !STATES.includes(p.state))) {
    throw invalid(
      element
        ? `Unknown state ${JSON.stringify(p.state)}; the states are ${STATES.join(", ")}.`
        : "state goes with ref or selector: name the element.",
    );
  }
  if (condition === "url") globMatcher(value);
  return { condition, value, state: element ? (p.state ?? "visible") : null };
}

// What the condition is, for messages: `text "Saved"`, `selector ".toast"`.
function named({ condition, value }) {
  if (condition === "text" || condition === "text_gone") return `text ${quote(value)}`;
  if (condition === "selector" || condition === "url") return `${condition} ${quote(value)}`;
  return condition === "ref" ? `ref ${value}` : condition;
}

const SUMMARIES = {
  browser_wait_for: (params) => {
    try {
      const spec = checkWait(params ?? {});
      return `waited for ${named(spec).replace(/"((?:[^"\\]|\\.)*)"/g, "'$1'")}`;
    } catch {
      return "tried to wait";
    }
  },
};

export function createWaitTools({ chrome, tabs, ports, pilot, timers, tabWatch, dialogs, debug, withTimeout, now = Date.now }) {
  const network = createNetworkWatch({ chrome, pilot, timers, now });
  const active = new Set(); // the waits under way, which a closed tab or the switch turned off ends
  const urlWaiters = new Map(); // tab id -> Set of functions told of each main-frame url event
  let sequence = 0;

  const tellUrl = (name) => (d) => {
    if (d.frameId === 0) for (const told of urlWaiters.get(d.tabId) ?? []) told(name, d);
  };
  // Registered in the worker's first turn, like every listener Chrome must wake the worker for.
  for (const name of ["onCommitted", "onDOMContentLoaded", "onHistoryStateUpdated", "onReferenceFragmentUpdated"]) {
    chrome.webNavigation?.[name]?.addListener(tellUrl(name));
  }
  chrome.tabs.onRemoved.addListener((tabId) => {
    for (const job of active) if (job.tab?.id === tabId) job.fail(closedError(job));
  });
  pilot.onChange?.((enabled) => {
    if (enabled) return;
    const off = "AI Web Pilot was turned off in the tabpilot popup while waiting, so the wait ended.";
    for (const job of active) job.fail(new CommandError("pilot_disabled", off, { tab: job.tab ? tabInfo(job.tab) : null }));
  });

  function closedError(job) {
    return new CommandError("tab_closed", `Tab ${job.tab.id} was closed while waiting for ${named(job.spec)}.`, {
      tab: tabInfo(job.tab),
    });
  }

  function timeoutError(job, what, why) {
    const ms = now() - job.started;
    const message = `${what} after ${ms} ms${why ? `; ${why}` : ""}`;
    return new CommandError("wait_timeout", message, {
      tab: job.where ?? (job.tab ? tabInfo(job.tab) : null),
      data: { condition: job.spec.condition, elapsed_ms: ms, ...job.still },
    });
  }

  // One wait: its deadline, and `ended`, which rejects when something ends it early.
  function start(tab, spec, timeoutMs) {
    let fail;
    const ended = new Promise((_resolve, reject) => (fail = reject));
    ended.catch(() => {});
    const started = now();
    const job = { id: `w${++sequence}`, tab, spec, started, deadline: started + timeoutMs, docs: 0, over: false, where: null, still: null, ended };
    job.fail = (err) => {
      job.over = true;
      fail(err);
    };
    let timer;
    job.expiry = new Promise((resolve) => (timer = timers.setTimeout(() => resolve("expired"), timeoutMs)));
    job.stop = () => {
      job.over = true;
      timers.clearTimeout(timer);
      active.delete(job);
    };
    active.add(job);
    return job;
  }

  // The condition held: the answer, with where the tab is now and whether it navigated meanwhile.
  async function met(job, description, already, startUrl) {
    const elapsed = now() - job.started;
    const where = await (job.tab ? chrome.tabs.get(job.tab.id).then(tabInfo, () => tabInfo(job.tab)) : null);
    const navigated = job.docs > 0 || (where !== null && where.url !== startUrl);
    const result = { condition: job.spec.condition, description, elapsed_ms: elapsed, already, navigated };
    if (where) result.url = where.url;
    if (job.dialogs?.length) result.dialogs = job.dialogs;
    return { result, result_type: "object", tab: where };
  }

  // ---- the page's conditions (content/wait.js) ----

  // Time is up: the page stops watching and says what is still false.
  async function report(job, delivery) {
    const asked = ports.send(job.tab.id, { type: "wait_stop", id: job.id }, job.frameId);
    let answer = null;
    try {
      answer = await withTimeout(asked, REPORT_MS, () => new Error("silent"));
    } catch {
      if (delivery) tabWatch.abandon(job.tab.id, delivery);
    }
    const still = answer?.ok === true ? answer.result : null;
    if (typeof answer?.url === "string") job.where = { id: job.tab.id, url: answer.url, title: answer.title ?? "" };
    if (still?.what) {
      job.still = still.data ?? null;
      return timeoutError(job, still.what, still.why);
    }
    const where = job.docs > 0 ? "the page was still loading after a navigation" : "the page did not answer (busy, or loading)";
    return timeoutError(job, `${named(job.spec)} did not hold`, where);
  }

  // A document replaced while its page watched: a ref is gone with it, so `detached` and `hidden`
  // hold and the other states cannot.
  function afterNavigation(job, tab) {
    const { value, state } = job.spec;
    if (job.spec.condition !== "ref") return null;
    if (state === "detached" || state === "hidden") return `ref ${value} is ${state}: the page navigated`;
    throw new CommandError(
      "stale_ref",
      `Ref ${JSON.stringify(value)} is from an earlier page: the page navigated while waiting for it to be ${state}. ` +
        "Take a new snapshot.",
      { tab: tabInfo(tab), data: { ref: value } },
    );
  }

  async function inPage(job, startUrl) {
    const { tab, spec } = job;
    const message = { type: "wait_for", id: job.id, condition: spec.condition, value: spec.value, state: spec.state, until: job.deadline };
    // A ref is watched in the frame that gave it out (tab/ref-frames.js).
    job.frameId = spec.condition === "ref" ? await frameOfRefs(chrome, ports, tab, [spec.value]) : 0;
    job.inFrames ??= inFrames(job, message);
    for (;;) {
      await tabWatch.guard(tab);
      const delivery = tabWatch.watch(tab, () => deliver(chrome, ports, tab, { ...message, first: job.docs === 0 }, () => job.over, job.frameId));
      const outcome = await Promise.race([
        delivery.then(
          (answer) => ({ answer }),
          (error) => ({ error }),
        ),
        job.inFrames.met,
        job.expiry,
        job.ended,
        job.stuck ?? job.ended,
      ]);
      job.answered = outcome !== "expired" && !outcome.error;
      if (outcome === "expired") {
        job.answered = true;
        throw await report(job, delivery);
      }
      if (outcome.error?.code === "tab_navigated") {
        job.docs += 1;
        const gone = afterNavigation(job, tab);
        if (gone) return met(job, gone, false, startUrl);
        continue;
      }
      if (outcome.error) throw rephrase(job, outcome.error);
      const { answer } = outcome;
      const where = typeof answer?.url === "string" ? { id: tab.id, url: answer.url, title: answer.title ?? "" } : tabInfo(tab);
      if (answer?.ok !== true) throw pageError(tab, answer, where);
      return met(job, String(answer.result?.description ?? ""), answer.result?.already === true && job.docs === 0, startUrl);
    }
  }

  // Text that appears in a frame of another origin (which the top frame's page cannot read): each
  // child frame whose content script is there watches too, and the first to see the text answers
  // (with the tab's url, not its own). Only `text`: text_gone would need every frame's word.
  function inFrames(job, message) {
    const asked = [];
    const never = { met: new Promise(() => {}), stop() {} };
    if (job.spec.condition !== "text") return never;
    const met = (async () => {
      const frames = (await Promise.resolve(chrome.webNavigation?.getAllFrames?.({ tabId: job.tab.id })).catch(() => null)) ?? [];
      const children = frames.filter((f) => f.frameId !== 0 && !f.url.startsWith("chrome-error:"));
      return new Promise((resolve) => {
        for (const frame of children) {
          const id = `${job.id}f${frame.frameId}`;
          asked.push({ id, frameId: frame.frameId });
          ports.send(job.tab.id, { ...message, id, first: true }, frame.frameId).then(
            (answer) => {
              if (answer?.ok !== true) return;
              const { url: _url, title: _title, ...rest } = answer;
              resolve({ answer: rest });
            },
            () => {},
          );
        }
      });
    })();
    return {
      met,
      stop() {
        for (const { id, frameId } of asked) ports.send(job.tab.id, { type: "wait_stop", id }, frameId).catch(() => {});
      },
    };
  }

  // tab-watch.js words a lost answer for a script; a wait lost nothing.
  function rephrase(job, err) {
    if (err?.code === "tab_closed") return closedError(job);
    if (err?.code === "tab_crashed") {
      return new CommandError(
        "tab_crashed",
        `The page in tab ${job.tab.id} crashed ("Aw, Snap!") while waiting for ${named(job.spec)}. ` +
          "Reload it in the browser, or close it and open a fresh one.",
        { tab: tabInfo(job.tab) },
      );
    }
    return err;
  }

  // ---- the worker's conditions ----

  async function forUrl(job, startUrl) {
    const { tab, spec } = job;
    const match = globMatcher(spec.value);
    if (match(startUrl)) return met(job, `url ${startUrl} matches ${quote(spec.value)}`, true, startUrl);
    let told;
    const seen = new Promise((resolve) => {
      let committed = null; // a cross-document navigation to a matching url, until its DOM is there
      told = (name, d) => {
        if (name === "onCommitted") {
          job.docs += 1;
          committed = match(d.url) ? { url: d.url, doc: d.documentId ?? null } : null;
        } else if (name === "onDOMContentLoaded" && committed && (committed.doc === null || d.documentId == null || d.documentId === committed.doc)) {
          resolve(committed.url);
        } else if ((name === "onHistoryStateUpdated" || name === "onReferenceFragmentUpdated") && match(d.url)) resolve(d.url);
      };
    });
    const set = urlWaiters.get(tab.id) ?? new Set();
    urlWaiters.set(tab.id, set);
    set.add(told);
    try {
      const outcome = await Promise.race([seen, job.expiry, job.ended]);
      if (outcome === "expired") {
        const nowUrl = await chrome.tabs.get(tab.id).then((t) => tabInfo(t).url, () => "");
        job.still = { url: nowUrl };
        const hint = /[*{]/.test(spec.value) ? "" : "; a glob matches the whole url: **/path matches any host";
        throw timeoutError(job, `url ${nowUrl} does not match ${quote(spec.value)}`, hint.slice(2));
      }
      return met(job, `url became ${outcome} (matches ${quote(spec.value)})`, false, startUrl);
    } finally {
      set.delete(told);
      if (set.size === 0) urlWaiters.delete(tab.id);
    }
  }

  async function forNetwork(job, startUrl) {
    const watch = network.idle(job.tab.id);
    try {
      const outcome = await Promise.race([watch.promise, job.expiry, job.ended]);
      if (outcome === "expired") {
        const { count, shown } = network.underWay(job.tab.id);
        job.still = { requests: count };
        const why =
          count > 0
            ? `${count} request${count === 1 ? "" : "s"} under way: ${shown.join(", ")}${count > shown.length ? ", \u2026" : ""}`
            : `requests kept starting, never ${IDLE_MS} ms apart`;
        throw timeoutError(job, "network not idle", why);
      }
      return met(job, `network idle (no request for ${IDLE_MS} ms)`, watch.already, startUrl);
    } finally {
      watch.stop();
    }
  }

  async function forTime(job, ms) {
    let timer;
    const slept = new Promise((resolve) => (timer = timers.setTimeout(resolve, ms)));
    try {
      await Promise.race([slept, job.ended]);
    } finally {
      timers.clearTimeout(timer);
    }
    const result = { condition: "time", description: `waited ${ms} ms`, elapsed_ms: now() - job.started, already: false, navigated: false };
    return { result, result_type: "object", tab: job.tab ? tabInfo(job.tab) : null };
  }

  // Gets the tab ready for a page condition, as browser_act does (page-act.js, readyTab): a dialog
  // left open is answered where the debugger may, and one the page opens while it waits too (else
  // the wait ends with dialog_open rather than at its timeout).
  async function watchDialogs(job) {
    await debug.reload();
    await debug.hold(job.tab.id);
    job.dialogs = [];
    const before = await dialogs.settle(job.tab, { dialog: "dismiss" });
    if (before) job.dialogs.push(before);
    const watch = dialogs.answerDuring(job.tab, { dialog: "dismiss" }, job.dialogs);
    job.stuck = watch.stuck;
    return watch;
  }

  async function browserWaitFor(params) {
    const spec = checkWait(params);
    const timeoutMs = Number.isInteger(params.timeout_ms) && params.timeout_ms > 0 ? Math.min(params.timeout_ms, MAX_WAIT_MS) : DEFAULT_WAIT_MS;
    if (spec.condition === "time") {
      const tab = params.tab_id == null ? await tabs.resolve(null).catch(() => null) : await tabs.resolve(params.tab_id);
      const job = start(tab, spec, Math.max(timeoutMs, spec.value) + REPORT_MS);
      try {
        return await forTime(job, spec.value);
      } finally {
        job.stop();
      }
    }
    const tab = await tabs.resolve(params.tab_id);
    const job = start(tab, spec, timeoutMs);
    let dialogWatch = null;
    try {
      const startUrl = await chrome.tabs.get(tab.id).then((t) => tabInfo(t).url, () => tabInfo(tab).url);
      if (spec.condition === "url") return await forUrl(job, startUrl);
      if (spec.condition === "network_idle") return await forNetwork(job, startUrl);
      assertScriptable(tab);
      dialogWatch = await watchDialogs(job);
      return await inPage(job, startUrl);
    } finally {
      dialogWatch?.stop();
      job.inFrames?.stop();
      job.stop();
      // A page still watching (the wait ended for another reason) stops; nothing waits for its answer.
      if (PAGE_CONDITIONS.has(spec.condition) && !job.answered) ports.send(tab.id, { type: "wait_stop", id: job.id }, job.frameId ?? 0).catch(() => {});
    }
  }

  return { handlers: { browser_wait_for: browserWaitFor }, summaries: SUMMARIES };
}
