// The script wrapper, loaded as the page loads it: classic scripts in a fresh realm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const read = (path) => readFileSync(new URL(`../extension/${path}`, import.meta.url), "utf8");
const EXECUTOR = read("lib/executor.js");
const SERIALIZE = read("lib/serialize.js");

function load(contextOptions) {
  const context = vm.createContext({ setTimeout, clearTimeout }, contextOptions);
  vm.runInContext(SERIALIZE, context, { filename: "serialize.js" });
  vm.runInContext(EXECUTOR, context, { filename: "executor.js" });
  return { context, execute: context.__tabpilotExecutor.execute, serialize: context.__tabpilotSerialize.serialize };
}

const page = load();

// Runs a script and returns what the caller would see: the serialized value or the error.
async function run(script, options = {}, realm = page) {
  const outcome = await realm.execute(script, { awaitPromise: true, timeoutMs: 1000, ...options });
  if (!outcome.ok) return { ok: false, error: { ...outcome.error } };
  return { ok: true, ...JSON.parse(JSON.stringify(realm.serialize(outcome.value))) };
}

const OK_CASES = [
  // [name, script, options, result, result_type]
  ["a bare expression", "2 + 2", {}, 4, "number"],
  ["a string expression", "'hello' + ' world'", {}, "hello world", "string"],
  ["an object literal", "({name: 'test', value: 42})", {}, { name: "test", value: 42 }, "object"],
  ["a map over an array", "[1, 2, 3].map(x => x * 2)", {}, [2, 4, 6], "array"],
  ["an IIFE", "(() => 42)()", {}, 42, "number"],
  ["a trailing line comment", "6 * 7 // the answer", {}, 42, "number"],
  ["statements with return", "const a = 20;\nconst b = 22;\nreturn a + b;", {}, 42, "number"],
  ["statements without return", "let x = 1; x++;", {}, null, "undefined"],
  ["undefined", "undefined", {}, null, "undefined"],
  ["await inside", "const v = await Promise.resolve(41);\nreturn v + 1;", {}, 42, "number"],
  ["an awaited expression", "await new Promise(r => setTimeout(() => r('late'), 5))", {}, "late", "string"],
  ["Promise.resolve awaited", "Promise.resolve(42)", {}, 42, "number"],
  ["Promise.resolve not awaited", "Promise.resolve(42)", { awaitPromise: false }, "[object Promise]", "promise"],
  ["a thenable is not awaited", "({then: 1})", {}, { then: 1 }, "object"],
  ["globals of the page world", "typeof globalThis.setTimeout", {}, "function", "string"],
];

for (const [name, script, options, result, resultType] of OK_CASES) {
  test(`runs ${name}`, async () => {
    assert.deepEqual(await run(script, options), { ok: true, result, result_type: resultType });
  });
}

test("a throw is execution_error with the exact message and the stack", async () => {
  const { ok, error } = await run("throw new Error('test error')");
  assert.equal(ok, false);
  assert.equal(error.code, "execution_error");
  assert.equal(error.message, "test error");
  assert.match(error.stack, /^Error: test error\n\s+at /);
});

test("a thrown non-Error gives a readable message", async () => {
  assert.deepEqual(await run("throw 'plain'"), { ok: false, error: { code: "execution_error", message: "plain" } });
  assert.deepEqual(await run("throw {code: 7}"), { ok: false, error: { code: "execution_error", message: '{"code":7}' } });
  assert.deepEqual(await run("throw undefined"), { ok: false, error: { code: "execution_error", message: "undefined" } });
});

test("an await that rejects inside the script is execution_error", async () => {
  const { error } = await run("await Promise.reject(new Error('inside'))");
  assert.equal(error.code, "execution_error");
  assert.equal(error.message, "inside");
});

test("a returned promise that rejects is promise_rejected with message and stack", async () => {
  const { error } = await run("Promise.reject(new Error('fail'))");
  assert.equal(error.code, "promise_rejected");
  assert.equal(error.message, "fail");
  assert.match(error.stack, /^Error: fail/);
});

test("a syntax error in every form is syntax_error", async () => {
  const { error } = await run("if (");
  assert.equal(error.code, "syntax_error");
  assert.match(error.message, /Unexpected/);
});

test("await is a syntax error when the caller does not await", async () => {
  const { error } = await run("await Promise.resolve(1)", { awaitPromise: false });
  assert.equal(error.code, "syntax_error");
});

test("a promise that never settles gives execution_timeout after timeoutMs", async () => {
  const started = Date.now();
  const { error } = await run("new Promise(() => {})", { timeoutMs: 50 });
  const elapsed = Date.now() - started;
  assert.equal(error.code, "execution_timeout");
  assert.match(error.message, /50 ms/);
  assert.ok(elapsed >= 45 && elapsed < 1000, `took ${elapsed} ms`);
});

test("an await that never settles gives execution_timeout too", async () => {
  const { error } = await run("await new Promise(() => {}); return 1;", { timeoutMs: 50 });
  assert.equal(error.code, "execution_timeout");
});

test("a page that forbids eval gives csp_blocked", async () => {
  const strict = load({ codeGeneration: { strings: false } });
  const { error } = await run("2 + 2", {}, strict);
  assert.equal(error.code, "csp_blocked");
  assert.match(error.message, /Content-Security-Policy/);
});

test("a page replacing Function, Promise and setTimeout later does not affect it", async () => {
  const tampered = load();
  const originalThen = vm.runInContext("Promise.prototype.then", tampered.context);
  vm.runInContext(
    `globalThis.Function = function () { throw new Error("tampered Function"); };
     Promise.prototype.then = function () { throw new Error("tampered then"); };
     Object.defineProperty(Object.prototype, "then", { value: () => {}, configurable: true });
     globalThis.setTimeout = () => { throw new Error("tampered setTimeout"); };`,
    tampered.context,
  );
  try {
    // Awaiting a promise of another realm calls its (tampered) then, so listen with the original.
    const pending = tampered.execute("Promise.resolve(21 * 2)", { awaitPromise: true, timeoutMs: 100 });
    const outcome = await new Promise((resolve, reject) => originalThen.call(pending, resolve, reject));
    assert.equal(outcome.ok, true);
    assert.equal(outcome.value, 42);
  } finally {
    vm.runInContext("delete Object.prototype.then", tampered.context);
  }
});

test("a non-string script is refused without running anything", async () => {
  const outcome = await page.execute(42, {});
  assert.equal(outcome.ok, false);
  assert.equal(outcome.error.code, "syntax_error");
});
