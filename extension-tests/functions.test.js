// eval_define_function's syntax check: one function, parsed and never run, or where it is wrong.
import assert from "node:assert/strict";
import { test } from "node:test";

import { checkFunction } from "../extension/worker/tools/functions.js";
import { createActivity } from "../extension/worker/link/activity.js";
import { createCommands } from "../extension/worker/commands.js";
import { fakeChrome, manualTimers, realTimers } from "./support/fake-chrome.js";
import { workerSummaries } from "./support/worker.js";

const FUNCTIONS = [
  // [source, the function's own text as stored]
  ["(a, b) => a + b", "(a, b) => a + b"],
  ["function add(a, b) { return a + b }", "function add(a, b) { return a + b }"],
  ["function (el) { return el.value }", "function (el) { return el.value }"],
  ["async function load(url) {\n  const r = await fetch(url);\n  return r.status;\n}", "async function load(url) {\n  const r = await fetch(url);\n  return r.status;\n}"],
  ["async (el) => { await null; return el.id }", "async (el) => { await null; return el.id }"],
  ["async function* items() { yield 1 }", "async function* items() { yield 1 }"],
  ["// adds\nfunction add(a, b) {\n  return a + b\n};\n", "function add(a, b) {\n  return a + b\n}"],
  ["(function (x) { return x })", "function (x) { return x }"],
  ["function (a) { return a }; // trailing", "function (a) { return a }"],
  ["x => x\n// a comment last", "x => x"],
  ["function f() { var await = 1; return await }", "function f() { var await = 1; return await }"],
];

for (const [source, text] of FUNCTIONS) {
  test(`a function is kept as its own text: ${JSON.stringify(source)}`, () => {
    assert.equal(checkFunction(source), text);
  });
}

const SYNTAX_ERRORS = [
  // [source, line, column, what the message says]
  ["function f() {\n  return 1 +;\n}", 2, 13, "Unexpected token"],
  ["function (a) {\n  return a +;\n}", 2, 13, "Unexpected token"],
  ["\n\n  (a) => {\n    a.b(;\n  }", 4, 9, "Unexpected token"],
  ["function f() {", 1, 15, "the source ends before the function does"],
  ["x => x +", 1, 9, "the source ends before the function does"],
  ["(await) => 1", 1, 7, ""],
  // What would break out of the parentheses the call puts it in.
  ["a) , (b", 1, 2, "Unexpected token"],
  ["function(){}) + (function(){}", 1, 13, "Unexpected token"],
  ["function(){})(alert(1)", 1, 13, "Unexpected token"],
  ["function (a) {} 'abc", 1, 17, "Unterminated string constant"],
];

for (const [source, line, column, says] of SYNTAX_ERRORS) {
  test(`a syntax error says where: ${JSON.stringify(source)}`, () => {
    assert.throws(
      () => checkFunction(source),
      (err) => {
        assert.equal(err.code, "invalid_function");
        assert.deepEqual(err.data, { line, column });
        assert.ok(err.message.startsWith(`SyntaxError at line ${line}, column ${column}: `), err.message);
        assert.ok(err.message.includes(says), err.message);
        return true;
      },
    );
  });
}

const NOT_FUNCTIONS = [
  ["42", "The source is `42`, not a function."],
  ["class A {}", "The source is a class, not a function."],
  ["const add = (a, b) => a + b;", "The source declares a variable; send the function itself"],
  ["function a() {}\nfunction b() {}", "The source holds 2 statements"],
  ["// just a comment", "The source holds 0 statements"],
  ["   ", "The source is empty."],
  ["document.title", "The source is `document.title`, not a function."],
];

for (const [source, says] of NOT_FUNCTIONS) {
  test(`what is not one function is refused: ${JSON.stringify(source)}`, () => {
    assert.throws(
      () => checkFunction(source),
      (err) => err.code === "invalid_function" && err.message.startsWith(says) && err.message.includes("(a, b) => a + b"),
    );
  });
}

test("nothing is run: a source that would throw, loop or touch globals is only read", () => {
  globalThis.__ran = false;
  assert.equal(checkFunction("() => { globalThis.__ran = true; while (true) {} }"), "() => { globalThis.__ran = true; while (true) {} }");
  assert.equal(globalThis.__ran, false);
});

function setup(pilotOn = true) {
  const { chrome } = fakeChrome({ tabs: [] });
  const pilot = { ready: Promise.resolve(), isEnabled: () => pilotOn };
  return createCommands({ chrome, pilot, timers: realTimers, now: () => 1000 });
}

const define = (source) => ({ type: "command", id: "d1", command: "eval_define_function", params: { name: "f", source } });

test("the command answers the function's text, with no tab", async () => {
  const result = await setup().run(define("/* c */ (a) => a * 2;"));
  assert.deepEqual(result, { type: "result", id: "d1", ok: true, result: { source: "(a) => a * 2" }, result_type: "object", tab: null });
});

test("the command answers invalid_function with the position in data", async () => {
  const result = await setup().run(define("(a) => {"));
  assert.equal(result.ok, false);
  assert.equal(result.error.code, "invalid_function");
  assert.deepEqual(result.error.data, { line: 1, column: 9 });
});

test("the command passes the pilot switch like every other", async () => {
  const result = await setup(false).run(define("(a) => a"));
  assert.equal(result.error.code, "pilot_disabled");
});

test("the popup's activity says a function was defined, without its source", async () => {
  const { chrome } = fakeChrome();
  const activity = createActivity({ chrome, summaries: workerSummaries(), timers: manualTimers() });
  await activity.ready;
  const frame = { type: "command", id: "c1", command: "eval_define_function", params: { name: "total", source: "(a) => a" } };
  activity.begin(frame)({ type: "result", id: "c1", ok: true, result: { source: "(a) => a" }, tab: null });
  const [entry] = await activity.list();
  assert.equal(entry.summary, "defined the function total");
  assert.equal(entry.script, null);
});
