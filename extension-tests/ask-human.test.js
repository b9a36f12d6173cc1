// browser_ask_human, the worker's side (worker/tools/ask-human.js, tab/handoffs.js), through the
// real dispatcher over the fake chrome.* APIs: the request shown to the popup and answered by it,
// the tab refused to other commands meanwhile, and each way a request ends. The popup's buttons,
// the outline and the badge in a real Chromium are tests/e2e/test_ask_human.py's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createCommands } from "../extension/worker/commands.js";
import { HANDOFFS_KEY, checkAsk } from "../extension/worker/tools/ask-human.js";
import { fakeChrome, manualTimers, until } from "./support/fake-chrome.js";

const TAB = { id: 7, url: "https://shop.example/login", title: "Log in", active: true, windowId: 1 };
const OTHER = { id: 8, url: "https://example.com/", title: "Other", active: false, windowId: 1 };
const POPUP = { url: "chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf/popup/popup.html" };

function setUp({ onSend, managed = {}, session = {} } = {}) {
  const answerPage = (tabId, message) => {
    if (message.type === "ping") return { ok: true, result: "pong", result_type: "string", url: TAB.url, title: TAB.title };
    if (message.type === "execute") return { ok: true, result: 2, result_type: "number", url: OTHER.url, title: OTHER.title };
    return { ok: true, result: { outlined: true }, url: TAB.url, title: TAB.title };
  };
  const { chrome, fetch } = fakeChrome({ tabs: [{ ...TAB }, { ...OTHER }], onSend: onSend ?? answerPage, session });
  chrome.calls.focus = [];
  chrome.tabs.update = async (id, change) => chrome.calls.focus.push(["tab", id, change]);
  chrome.windows.update = async (id, change) => chrome.calls.focus.push(["window", id, change]);
  chrome.storage.session.remove = async (key) => delete chrome.sessionStore[key];
  const listeners = new Set();
  let enabled = true;
  const pilot = {
    ready: Promise.resolve(),
    isEnabled: () => enabled,
    onChange: (fn) => listeners.add(fn),
    repaints: 0,
    repaintBadge() {
      pilot.repaints += 1;
    },
    turnOff() {
      enabled = false;
      for (const fn of listeners) fn(false);
    },
  };
  const timers = manualTimers();
  const commands = createCommands({ chrome, fetch, pilot, timers, managed: Promise.resolve(managed), landingUrl: async () => "" });
  let n = 0;
  const run = (command, params) => commands.run({ type: "command", id: `c${++n}`, command, params });
  const answer = (message, sender = POPUP) => commands.messages.handoff_answer(message, sender);
  const open = () => chrome.sessionStore[HANDOFFS_KEY] ?? [];
  return { chrome, pilot, timers, commands, run, answer, open };
}

test("a request is shown, holds its tab, and answers with the person's words", async () => {
  const { chrome, pilot, run, answer, open } = setUp();
  const asked = run("browser_ask_human", { message: "Please log in, then press Done", tab_id: 7, timeout_ms: 60_000 });
  await until(() => open().length === 1, "the request in storage.session");
  const [shown] = open();
  assert.deepEqual(
    { message: shown.message, tab_id: shown.tab_id, url: shown.url, title: shown.title, ref: shown.ref },
    { message: "Please log in, then press Done", tab_id: 7, url: TAB.url, title: "Log in", ref: null },
  );
  assert.equal(chrome.calls.badge.at(-1), "?");
  await until(() => chrome.calls.focus.length === 2, "the tab brought to the front");
  assert.deepEqual(chrome.calls.focus, [
    ["tab", 7, { active: true }],
    ["window", 1, { focused: true }],
  ]);

  // Meanwhile the tab is the person's; another tab is not.
  const refused = await run("execute_javascript", { script: "1+1", tab_id: 7 });
  assert.equal(refused.error.code, "human_turn");
  assert.match(refused.error.message, /has tab 7 for a handoff .*"Please log in, then press Done".*Wait for browser_ask_human's answer/);
  const again = await run("browser_ask_human", { message: "And now?", tab_id: 7 });
  assert.equal(again.error.code, "human_turn");
  const elsewhere = await run("execute_javascript", { script: "1+1", tab_id: 8 });
  assert.equal(elsewhere.ok, true, JSON.stringify(elsewhere));

  // A page cannot answer for the person.
  await assert.rejects(answer({ id: shown.id, answer: "done" }, { url: TAB.url, tab: TAB }), /only the extension's own pages/);
  assert.deepEqual(await answer({ id: shown.id, answer: "maybe" }), { answered: false, error: "The answer is one of done, declined." });

  const repaints = pilot.repaints;
  assert.deepEqual(await answer({ id: shown.id, answer: "done", reply: "  logged in " }), { answered: true });
  const frame = await asked;
  assert.equal(frame.ok, true, JSON.stringify(frame));
  assert.deepEqual({ ...frame.result, elapsed_ms: 0 }, { answer: "done", reply: "logged in", elapsed_ms: 0, url: TAB.url });
  assert.deepEqual(open(), []);
  assert.ok(pilot.repaints > repaints, "the pilot's badge is back");
  assert.deepEqual(await answer({ id: shown.id, answer: "done" }), { answered: false, error: "That request is no longer open." });
  assert.equal((await run("execute_javascript", { script: "1+1", tab_id: 7 })).error?.code, undefined);
});

test("declined, with no reply", async () => {
  const { run, answer, open } = setUp();
  const asked = run("browser_ask_human", { message: "Is this the right item?" });
  await until(() => open().length === 1, "the request");
  await answer({ id: open()[0].id, answer: "declined" });
  assert.deepEqual([(await asked).result.answer, (await asked).result.reply], ["declined", ""]);
});

test("no answer within timeout_ms is human_timeout, and the request is withdrawn", async () => {
  const { run, open, timers } = setUp();
  const asked = run("browser_ask_human", { message: "Solve the CAPTCHA", timeout_ms: 1500 });
  await until(() => open().length === 1, "the request");
  assert.ok(timers.pendingDelays().includes(1500), timers.pendingDelays().join());
  timers.runAll();
  const frame = await asked;
  assert.equal(frame.error.code, "human_timeout");
  assert.match(frame.error.message, /within 1500 ms.*Ask again/);
  await until(() => open().length === 0, "the request withdrawn");
});

test("the tab closing or the pilot going off ends the request", async () => {
  const closing = setUp();
  const asked = closing.run("browser_ask_human", { message: "Enter the code", tab_id: 7 });
  await until(() => closing.open().length === 1, "the request");
  closing.chrome.tabs.onRemoved.emit(7, {});
  assert.equal((await asked).error.code, "tab_closed");

  const off = setUp();
  const asking = off.run("browser_ask_human", { message: "Enter the code", tab_id: 7 });
  await until(() => off.open().length === 1, "the request");
  off.pilot.turnOff();
  assert.equal((await asking).error.code, "pilot_disabled");
  await until(() => off.open().length === 0, "the request withdrawn");
});

test("a stale ref is refused before anything is shown", async () => {
  const { chrome, run, open } = setUp({
    onSend: (tabId, message) =>
      message.type === "handoff_outline"
        ? { ok: false, error: { code: "stale_ref", message: "That element is gone.", data: { ref: "e3" } }, url: TAB.url, title: TAB.title }
        : { ok: true, result: "pong", url: TAB.url, title: TAB.title },
  });
  const frame = await run("browser_ask_human", { message: "Check this", ref: "e3", tab_id: 7 });
  assert.equal(frame.error.code, "stale_ref");
  assert.deepEqual([open(), chrome.calls.badge, chrome.calls.focus], [[], [], []]);
  assert.deepEqual(
    chrome.calls.executeScript.map((d) => d.files),
    [["content/ask-human.js"]],
  );
  // The tab is free again.
  assert.equal((await run("execute_javascript", { script: "1+1", tab_id: 7 })).ok, true);
});

test("a ref is outlined, and the outline cleared once answered", async () => {
  const sent = [];
  const { run, answer, open } = setUp({
    onSend: (tabId, message) => {
      sent.push(message.type);
      return { ok: true, result: message.type === "ping" ? "pong" : {}, url: TAB.url, title: TAB.title };
    },
  });
  const asked = run("browser_ask_human", { message: "Is this the right size?", ref: "e5", tab_id: 7, timeout_ms: 9000 });
  await until(() => open().length === 1, "the request");
  assert.deepEqual(sent, ["ping", "handoff_outline"]);
  await answer({ id: open()[0].id, answer: "done" });
  await asked;
  await until(() => sent.includes("handoff_clear"), "the outline cleared");
});

test("the managed browser has no person: no_human at once, nothing shown", async () => {
  const { chrome, run } = setUp({ managed: { managed: true } });
  const frame = await run("browser_ask_human", { message: "Log in" });
  assert.equal(frame.error.code, "no_human");
  assert.match(frame.error.message, /tabpilot serve` without --browser/);
  assert.deepEqual([chrome.calls.badge, chrome.calls.focus], [[], []]);
});

test("what a worker before this one left open is withdrawn at start", async () => {
  const left = { id: "h1.1", tab_id: 7, frame_id: 0, message: "old", url: TAB.url, title: TAB.title };
  const sent = [];
  const { pilot, open } = setUp({
    session: { [HANDOFFS_KEY]: [left] },
    onSend: (tabId, message) => sent.push([tabId, message.type]),
  });
  await until(() => open().length === 0, "the old request withdrawn");
  assert.ok(pilot.repaints > 0);
  assert.deepEqual(sent, [[7, "handoff_clear"]]);
});

test("bad params are invalid_request", () => {
  const bad = (params) => assert.throws(() => checkAsk(params), (err) => err.code === "invalid_request");
  bad({});
  bad({ message: "  " });
  bad({ message: "x".repeat(501) });
  bad({ message: "ok", ref: "button" });
  bad({ message: "ok", timeout_ms: 1_800_001 });
  assert.deepEqual(checkAsk({ message: " ok " }), { message: "ok", ref: null, timeoutMs: 300_000 });
});
