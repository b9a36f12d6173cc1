// inject.js in a page world of its own: the content script's side of the channel is played here,
// with a known secret, to check what the page world answers and tells (docs/protocol.md §3).
import { test } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import { MAIN_WORLD_FILES, readFiles } from "./support/page-files.js";

const MAIN_FILES = readFiles(MAIN_WORLD_FILES);
const NONCE = "0123456789abcdef0123456789abcdef";

// A page whose alert/confirm/prompt record what the native dialog was asked, and answer as a person
// clicking OK would.
function makePage() {
  const document = new EventTarget();
  const shown = [];
  const main = vm.createContext({
    document, EventTarget, Event, CustomEvent, console, setTimeout, clearTimeout,
    alert: (message) => void shown.push(["alert", message]),
    confirm: (message) => (shown.push(["confirm", message]), true),
    prompt: (message, value) => (shown.push(["prompt", message, value]), "typed"),
  });
  main.window = main;
  for (const [path, code] of MAIN_FILES) vm.runInContext(code, main, { filename: path });
  const told = [];
  const answers = new Map();
  document.addEventListener(`tabpilot:res:${NONCE}`, (event) => {
    const answer = JSON.parse(event.detail);
    answers.get(answer.id)?.(answer);
  });
  document.addEventListener(`tabpilot:dialog:${NONCE}`, (event) => told.push(JSON.parse(event.detail)));
  document.dispatchEvent(new CustomEvent("tabpilot:channel", { detail: NONCE }));
  let sequence = 0;
  const send = (fields) =>
    new Promise((resolve) => {
      const id = String(++sequence);
      answers.set(id, resolve);
      document.dispatchEvent(new CustomEvent(`tabpilot:req:${NONCE}`, { detail: JSON.stringify({ id, ...fields }), cancelable: true }));
    });
  const execute = (script, extra = {}) => send({ script, timeout_ms: 1000, await_promise: true, ...extra });
  return { main, shown, told, execute, run: (code) => vm.runInContext(code, main) };
}

const DIALOG_CASES = [
  // [name, script, request fields, result, dialogs]
  ["an alert, dismissed by default", "alert('hello'); 'after'", {}, "after",
    [{ type: "alert", message: "hello", action: "dismissed" }]],
  ["a confirm, dismissed", "confirm('sure?')", {}, false, [{ type: "confirm", message: "sure?", action: "dismissed" }]],
  ["a confirm, accepted", "confirm('sure?')", { dialog: "accept" }, true,
    [{ type: "confirm", message: "sure?", action: "accepted" }]],
  ["a prompt, dismissed", "prompt('name?', 'x')", {}, null, [{ type: "prompt", message: "name?", action: "dismissed" }]],
  ["a prompt, accepted with its default", "prompt('name?', 'x')", { dialog: "accept" }, "x",
    [{ type: "prompt", message: "name?", action: "accepted", text: "x" }]],
  ["a prompt, accepted with prompt_text", "prompt('name?', 'x')", { dialog: "accept", prompt_text: "Ada" }, "Ada",
    [{ type: "prompt", message: "name?", action: "accepted", text: "Ada" }]],
  ["a prompt without a default", "window.prompt()", { dialog: "accept" }, "",
    [{ type: "prompt", message: "", action: "accepted", text: "" }]],
  ["a dialog after an await", "await new Promise((r) => setTimeout(r, 5)); return alert(42)", {}, null,
    [{ type: "alert", message: "42", action: "dismissed" }]],
  ["no dialog", "1 + 1", {}, 2, undefined],
];

for (const [name, script, fields, result, dialogs] of DIALOG_CASES) {
  test(`answers ${name} at once, without a native dialog`, async () => {
    const page = makePage();
    const answer = await page.execute(script, fields);
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.equal(answer.result, result);
    assert.deepEqual(answer.dialogs, dialogs);
    assert.deepEqual(page.shown, []);
    assert.deepEqual(page.told, []);
  });
}

test("a dialog that throws in the script still ends up in the error answer", async () => {
  const page = makePage();
  const answer = await page.execute("alert('first'); throw new Error('then fails')");
  assert.equal(answer.error.code, "execution_error");
  assert.deepEqual(answer.dialogs, [{ type: "alert", message: "first", action: "dismissed" }]);
});

test("between commands the native dialog shows, and content.js hears of it before and after", async () => {
  const page = makePage();
  await page.execute("1");
  assert.equal(page.run("confirm('leave?')"), true);
  assert.equal(page.run("prompt('who?', 'me')"), "typed");
  page.run("alert()");
  assert.deepEqual(page.shown, [["confirm", "leave?"], ["prompt", "who?", "me"], ["alert", undefined]]);
  assert.deepEqual(page.told, [
    { phase: "open", type: "confirm", message: "leave?" },
    { phase: "closed", type: "confirm" },
    { phase: "open", type: "prompt", message: "who?" },
    { phase: "closed", type: "prompt" },
    { phase: "open", type: "alert", message: "" },
    { phase: "closed", type: "alert" },
  ]);
});

test("answers carry the route, and a request past its deadline is not started", async () => {
  const page = makePage();
  const ran = await page.execute("1 + 1");
  assert.equal(ran.route, "page");
  const late = await page.execute("globalThis.started = true", { deadline: Date.now() - 5 });
  assert.equal(late.ok, false);
  assert.equal(late.error.code, "execution_timeout");
  assert.match(late.error.message, /not started: its deadline passed while the tab was busy/);
  assert.equal(page.run("typeof started"), "undefined");
});

test("a lone surrogate anywhere in an answer arrives as U+FFFD", async () => {
  const page = makePage();
  const answer = await page.execute("alert('\\uD800'); ({['k\\uDC00']: 'v\\uD800'})");
  assert.deepEqual(answer.result, { "k\uFFFD": "v\uFFFD" });
  assert.equal(answer.dialogs[0].message, "\uFFFD");
  const thrown = await page.execute("throw new Error('m\\uD800')");
  assert.equal(thrown.error.message, "m\uFFFD");
});
