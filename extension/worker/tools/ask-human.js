// browser_ask_human, the worker's side (docs/handoff.md): the agent hands a tab to the person at
// the browser and waits for their answer. The tab comes to the front with `ref` outlined
// (content/ask-human.js, injected only while a request is open), the icon shows a "?" badge, and
// the popup (popup/popup-ask.js) shows the request with Done, Decline and a reply line.
//
// The popup is a page that closes whenever it loses focus, so the request lives here and in
// chrome.storage.session (HANDOFFS_KEY, which content scripts cannot read): the popup reads it on
// each open and answers with a runtime message that only the extension's own pages may send. A
// request ends with the person's answer, at its timeout (human_timeout), when the tab closes
// (tab_closed), or when the pilot switch goes off (pilot_disabled). A worker that Chrome restarts
// has lost the daemon's link, and with it the call (extension_disconnected): it withdraws what its
// predecessor left open rather than show a request nobody waits for.
import { CommandError } from "../link/errors.js";
import { pageError } from "../tab/ref-docs.js";
import { frameOfRefs } from "../tab/ref-frames.js";
import { assertScriptable, deliver, tabInfo } from "../tab/tabs.js";

export const HANDOFFS_KEY = "handoffs";
export const MAX_MESSAGE_CHARS = 500;
export const MAX_REPLY_CHARS = 1000;
export const DEFAULT_TIMEOUT_MS = 300_000;
export const MAX_TIMEOUT_MS = 1_800_000;
export const ANSWERS = ["done", "declined"];
const CONTENT_FILE = "content/ask-human.js";
const BADGE = { text: "?", color: "#b35900" }; // amber: someone waits for the person
const TITLE = "tabpilot: the AI asks for your help \u2014 open this popup";
const REF = /^e[1-9]\d*$/;

const SUMMARIES = {
  browser_ask_human: (params, result) => {
    const asked = String(params?.message ?? "").slice(0, 80);
    const said = result?.ok === true ? `; you answered ${result.result?.answer}` : result?.error?.code === "human_timeout" ? "; no answer" : "";
    return `asked you: '${asked}'${said}`;
  },
};

export function checkAsk(params) {
  const bad = (why) => new CommandError("invalid_request", `browser_ask_human: ${why}.`);
  const message = params?.message;
  if (typeof message !== "string" || message.trim() === "") throw bad("`message` must be a non-empty string");
  if (message.length > MAX_MESSAGE_CHARS) throw bad(`\`message\` is at most ${MAX_MESSAGE_CHARS} characters`);
  const ref = params.ref ?? null;
  if (ref !== null && (typeof ref !== "string" || !REF.test(ref))) throw bad("`ref` is a ref of a snapshot, such as e12");
  const timeout = params.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_MS) throw bad(`\`timeout_ms\` is a whole number from 1 to ${MAX_TIMEOUT_MS}`);
  return { message: message.trim(), ref, timeoutMs: timeout };
}

const noHuman = () =>
  new CommandError(
    "no_human",
    "No person sees this browser: tabpilot started it headless for the AI, so nobody can answer browser_ask_human. " +
      "For a handoff, run `tabpilot serve` without --browser and connect a person's Chrome with the tabpilot extension " +
      "(docs/handoff.md), or go on without asking.",
  );

export function createAskHumanTools({ chrome, pilot, timers, managed, ports, tabs, handoffs, now = Date.now }) {
  const live = new Map(); // request id -> {handoff, shown, finish(error | answer)}
  let counter = 0;
  // chrome.* calls whose failure must not end the request: a badge, a focus, a clean-up.
  const quiet = (run) => Promise.resolve().then(run).catch(() => {});

  // The popup's list: what each open request shows.
  const save = () => quiet(() => chrome.storage.session.set({ [HANDOFFS_KEY]: [...live.values()].map((entry) => entry.shown) }));

  function paintBadge() {
    if (live.size > 0) {
      quiet(() => chrome.action.setBadgeText({ text: BADGE.text }));
      quiet(() => chrome.action.setBadgeBackgroundColor({ color: BADGE.color }));
      quiet(() => chrome.action.setTitle({ title: TITLE }));
    } else pilot.repaintBadge?.();
  }

  // Sent on the port only, never injecting: a page without the outline has nothing to remove.
  const unoutline = (tabId, frameId, id) => quiet(() => ports.send(tabId, { type: "handoff_clear", id }, frameId));

  // Registered in the worker's first turn, as Chrome wants for waking the worker.
  chrome.tabs.onRemoved.addListener((tabId) => {
    for (const entry of live.values()) {
      if (entry.shown.tab_id !== tabId) continue;
      entry.finish(new CommandError("tab_closed", `Tab ${tabId} was closed before the person answered; the request is withdrawn. Pick another tab from browser_tabs.`));
    }
  });
  pilot.onChange?.((enabled) => {
    if (enabled) return;
    for (const entry of live.values()) {
      entry.finish(
        new CommandError("pilot_disabled", "The person turned AI Web Pilot off while the request was open; it is withdrawn. Nothing more runs until they turn it on again."),
      );
    }
  });

  // What a worker before this one left open: nobody waits for it any more.
  const leftOver = quiet(() =>
    Promise.resolve(chrome.storage.session.get(HANDOFFS_KEY)).then((stored) => {
      const shown = Array.isArray(stored?.[HANDOFFS_KEY]) ? stored[HANDOFFS_KEY] : [];
      if (shown.length === 0) return;
      for (const old of shown) if (Number.isInteger(old?.tab_id)) unoutline(old.tab_id, old.frame_id ?? 0, old.id);
      if (live.size === 0) {
        paintBadge();
        return chrome.storage.session.remove(HANDOFFS_KEY);
      }
      return save();
    }),
  );

  // Outlines the ref's element, scrolled into view; stale_ref or ref_not_found before anything
  // is shown. Returns the frame that holds it.
  async function outline(tab, ref, id, timeoutMs) {
    assertScriptable(tab);
    const frameId = await frameOfRefs(chrome, ports, tab, [ref]);
    // The content scripts first (a tab opened before the extension gets them here), then the
    // outline's own file, which is in a page only while a request is open.
    await deliver(chrome, ports, tab, { type: "ping", to: "content" }, undefined, frameId);
    await chrome.scripting.executeScript({ target: { tabId: tab.id, frameIds: [frameId] }, files: [CONTENT_FILE] });
    const answer = await deliver(chrome, ports, tab, { type: "handoff_outline", ref, id, timeout_ms: timeoutMs }, undefined, frameId);
    if (answer?.ok !== true) throw pageError(tab, answer);
    return frameId;
  }

  async function browserAskHuman(params) {
    const ask = checkAsk(params);
    if ((await Promise.resolve(managed).catch(() => null))?.managed === true) throw noHuman();
    await leftOver;
    const tab = await tabs.resolve(params.tab_id); // human_turn while one is open there
    const id = `h${++counter}.${now()}`;
    const handoff = { id, message: ask.message };
    handoffs.take(tab, handoff);
    const started = now();
    let frameId = null;
    try {
      if (ask.ref) frameId = await outline(tab, ask.ref, id, ask.timeoutMs);
      // The switch or the tab may have gone while the outline was drawn: nothing is shown then.
      if (!pilot.isEnabled()) throw new CommandError("pilot_disabled", "The person turned AI Web Pilot off; nothing was asked.");
      await Promise.resolve(chrome.tabs.get(tab.id)).catch(() => {
        throw new CommandError("tab_closed", `Tab ${tab.id} was closed; nothing was asked. Pick another tab from browser_tabs.`);
      });
      const answer = new Promise((resolve, reject) => {
        const timer = timers.setTimeout(
          () =>
            entry.finish(
              new CommandError(
                "human_timeout",
                `The person did not answer within ${ask.timeoutMs} ms, and the request was withdrawn from the popup. ` +
                  "Ask again (maybe with a longer timeout_ms), or go on without their help.",
                { tab: tabInfo(tab) },
              ),
            ),
          ask.timeoutMs,
        );
        const entry = {
          handoff,
          shown: {
            id,
            tab_id: tab.id,
            frame_id: frameId,
            message: ask.message,
            ref: ask.ref,
            url: tabInfo(tab).url,
            title: tabInfo(tab).title,
            started,
            deadline: started + ask.timeoutMs,
          },
          finish(outcome) {
            if (!live.has(id)) return;
            timers.clearTimeout(timer);
            live.delete(id);
            if (outcome instanceof Error) reject(outcome);
            else resolve(outcome);
          },
        };
        live.set(id, entry);
      });
      save();
      paintBadge();
      // The person's eyes go where the help is needed: the tab in front, its window focused.
      await quiet(() => chrome.tabs.update(tab.id, { active: true }));
      await quiet(() => chrome.windows.update(tab.windowId, { focused: true }));
      const said = await answer;
      const latest = await Promise.resolve(chrome.tabs.get(tab.id)).catch(() => tab);
      const result = { answer: said.answer, reply: said.reply, elapsed_ms: now() - started, url: tabInfo(latest).url };
      return { result, result_type: "object", tab: tabInfo(latest) };
    } finally {
      live.get(id)?.finish(new CommandError("extension_error", "The request ended early."));
      handoffs.release(tab.id, handoff);
      if (frameId !== null) unoutline(tab.id, frameId, id);
      save();
      paintBadge();
    }
  }

  // The popup's answer. sender.url is set by Chrome: only this extension's own pages may answer,
  // never a page's content script.
  async function answerHandoff(message, sender) {
    if (!String(sender?.url ?? "").startsWith(chrome.runtime.getURL(""))) throw new Error("only the extension's own pages may answer a request");
    const entry = live.get(message?.id);
    if (!entry) return { answered: false, error: "That request is no longer open." };
    if (!ANSWERS.includes(message.answer)) return { answered: false, error: `The answer is one of ${ANSWERS.join(", ")}.` };
    const reply = typeof message.reply === "string" ? message.reply.trim().slice(0, MAX_REPLY_CHARS) : "";
    entry.finish({ answer: message.answer, reply });
    return { answered: true };
  }

  return {
    handlers: { browser_ask_human: browserAskHuman },
    summaries: SUMMARIES,
    messages: { handoff_answer: answerHandoff },
  };
}
