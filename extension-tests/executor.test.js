// The script wrapper, loaded as the page loads it: classic scripts in a fresh realm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { SERIALIZER_FILES, loadFiles, readFiles } from "./support/page-files.js";

const read = (path) => readFileSync(new URL(`../extension/${path}`, import.meta.url), "utf8");
const EXECUTOR = read("page/executor.js");
const RETURNS = read("page/returns.js");
const SERIALIZE = readFiles(SERIALIZER_FILES);

function load(contextOptions, setup = "") {
  const context = vm.createContext({ setTimeout, clearTimeout }, contextOptions);
  if (setup) vm.runInContext(setup, context);
  loadFiles(context, SERIALIZE);
  vm.runInContext(RETURNS, context, { filename: "returns.js" });
  vm.runInContext(EXECUTOR, context, { filename: "executor.js" });
  return { context, execute: context.__tabpilotExecutor.execute, serialize: context.__tabpilotSerialize.serialize };
}

const page = load();

// Runs a script and returns what the caller would see: the serialized value or the error.
async function run(script, options = {}, realm = page) {
  const outcome = await realm.execute(script, { awaitPromise: true, timeoutMs: 1000, ...options });
  if (!outcome.ok) return { ok: false, error: JSON.parse(JSON.stringify(outcome.error)), route: outcome.route };
  return { ok: true, ...JSON.parse(JSON.stringify(realm.serialize(outcome.value))), route: outcome.route };
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
  ["undefined", "undefined", {}, null, "undefined"],
  ["await inside", "const v = await Promise.resolve(41);\nreturn v + 1;", {}, 42, "number"],
  ["an awaited expression", "await new Promise(r => setTimeout(() => r('late'), 5))", {}, "late", "string"],
  ["Promise.resolve awaited", "Promise.resolve(42)", {}, 42, "number"],
  ["Promise.resolve not awaited", "Promise.resolve(42)", { awaitPromise: false }, "[object Promise]", "promise"],
  ["a thenable is not awaited", "({then: 1})", {}, { then: 1 }, "object"],
  ["globals of the page world", "typeof globalThis.setTimeout", {}, "function", "string"],
  // Completion values, as in the DevTools console.
  ["a statement's completion value", "1 + 1;", {}, 2, "number"],
  ["a declaration, then its name", "let x = 1; x", {}, 1, "number"],
  ["the last of several statements", "let x = 1; x++; x * 10;", {}, 20, "number"],
  ["an if statement's value", "if (true) { 'yes' } else { 'no' }", {}, "yes", "string"],
  ["a loop's last value", "let s = 0; for (const n of [1, 2, 3]) s += n;", {}, 6, "number"],
  ["a function declaration, then a call", "function twice(n) { return 2 * n }\ntwice(21)", {}, 42, "number"],
  ["a script ending in a line comment", "const a = 3;\na * 2 // six", {}, 6, "number"],
  ["statements without a value", "let x = 1;", {}, null, "undefined"],
  ["an empty script", "", {}, null, "undefined"],
  // A Script is recognised by strict-mode parsing: sloppy-only syntax runs, without a completion value.
  ["sloppy-mode syntax", "var o = {a: 1}; with (o) { a + 1 }", {}, null, "undefined"],
  ["sloppy-mode syntax with return", "var o = {a: 1}; with (o) { return a + 1 }", {}, 2, "number"],
  ["arguments falls back to the body form", "return typeof arguments", {}, "object", "string"],
  ["this is the global object", "this === globalThis", {}, true, "boolean"],
  ["an assignment to an undeclared name", "tabpilotAssigned = 5; tabpilotAssigned", {}, 5, "number"],
  // `await` forms.
  ["return await (…)", "return await (Promise.resolve(6))", {}, 6, "number"],
  ["an await in a nested async function only", "const f = async () => await 1; return 2", {}, 2, "number"],
  ["await as a word in a string", "'await ' + 1", {}, "await 1", "string"],
  ["a return inside a block", "const v = await 1;\nif (v) { return 'in block' }\nreturn 'after'", {}, "in block", "string"],
  ["returns in nested functions are theirs", "const f = function () { return 1 }; const g = x => { return x + 1 }; await 0; return f() + g(1)", {}, 3, "number"],
  ["a return split over lines", "await 0\nreturn 1 +\n  2", {}, 3, "number"],
  ["a return ended by a line break", "await 0\nlet r = 5\nif (r) return r\nr = 6", {}, 5, "number"],
  ["a return with a regexp and template", "await 0; return `${/a}b/.source}-${'x'}`", {}, "a}b-x", "string"],
  ["a return in try/finally", "try { await 0; return 'try' } finally { globalThis.ran = 1 }", {}, "try", "string"],
  ["an object returned after await", "const t = await Promise.resolve('s'); return {token: t}", {}, { token: "s" }, "object"],
  // An async form whose value is itself a promise: awaited too, as a sync form's is.
  ["an async IIFE that awaits", "(async () => { await 1; return 5 })()", {}, 5, "number"],
  ["a promise returned after await", "await 0; return new Promise((r) => setTimeout(() => r('later'), 5))", {}, "later", "string"],
];

for (const [name, script, options, result, resultType] of OK_CASES) {
  test(`runs ${name}`, async () => {
    assert.deepEqual(await run(script, options), { ok: true, result, result_type: resultType, route: "page" });
  });
}

test("var declared by a completion-value script does not leak onto the global object", async () => {
  assert.equal((await run("var leaked = 41; leaked + 1")).result, 42);
  assert.equal(vm.runInContext("typeof leaked", page.context), "undefined");
});

test("a throw is execution_error with the exact message and the stack", async () => {
  const { ok, error } = await run("throw new Error('test error')");
  assert.equal(ok, false);
  assert.equal(error.code, "execution_error");
  assert.equal(error.message, "test error");
  assert.match(error.stack, /^Error: test error\n\s+at /);
});

const ERROR_CASES = [
  // [name, script, error fields besides stack]
  ["a thrown string", "throw 'plain'", { code: "execution_error", message: "plain" }],
  ["a thrown object", "throw {code: 7}", { code: "execution_error", message: '{"code":7}' }],
  ["a thrown undefined", "throw undefined", { code: "execution_error", message: "undefined" }],
  ["an Error without a message", "throw new Error()", { code: "execution_error", message: "" }],
  ["an Error with a code", "throw Object.assign(new Error('disk full'), {code: 'E_FULL'})",
    { code: "execution_error", message: "disk full", data: { code: "E_FULL" } }],
  ["an Error with a cause", "throw new Error('outer', {cause: new Error('inner')})",
    { code: "execution_error", message: "outer", data: { cause: { error: "inner", name: "Error" } } }],
  ["an AggregateError", "throw new AggregateError([new TypeError('one'), 2], 'both')",
    { code: "execution_error", message: "both", data: { errors: [{ error: "one", name: "TypeError" }, 2] } }],
  ["a lone surrogate in a message", "throw new Error('bad \\uD800 text')", { code: "execution_error", message: "bad \uFFFD text" }],
  ["a syntax error in every form", "if (", { code: "syntax_error", message: "Unexpected token '}'" }],
];

// Stacks vary with the engine; nested Error stacks in data are left out of the comparison.
const withoutStacks = (value) =>
  JSON.parse(JSON.stringify(value, (key, v) => (key === "stack" ? undefined : v)));

for (const [name, script, expected] of ERROR_CASES) {
  test(`reports ${name}`, async () => {
    const { ok, error } = await run(script);
    assert.equal(ok, false);
    assert.deepEqual(withoutStacks(error), expected);
  });
}

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

for (const script of ["await Promise.resolve(1)", "return await (Promise.resolve(6))", "const a = await 1; a"]) {
  test(`with await_promise off, ${JSON.stringify(script)} is a syntax_error that says to turn it on`, async () => {
    const { error } = await run(script, { awaitPromise: false });
    assert.equal(error.code, "syntax_error");
    assert.match(error.message, /await_promise/);
  });
}

test("an async IIFE whose promise rejects is promise_rejected, as a returned promise is", async () => {
  const answer = await run("(async () => { await 1; throw new Error('late boom') })()");
  assert.equal(answer.ok, false);
  assert.equal(answer.error.code, "promise_rejected");
  assert.match(answer.error.message, /late boom/);
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

test("a script whose deadline has passed is not started", async () => {
  const realm = load();
  const late = await run("globalThis.started = true; 1", { deadline: Date.now() - 1 }, realm);
  assert.equal(late.error.code, "execution_timeout");
  assert.match(late.error.message, /was not started: its deadline passed while the tab was busy/);
  assert.equal(vm.runInContext("typeof started", realm.context), "undefined");
  const inTime = await run("1", { deadline: Date.now() + 60_000 }, realm);
  assert.equal(inTime.result, 1);
});

test("a page that forbids eval gives csp_blocked, with the directive", async () => {
  const strict = load({ codeGeneration: { strings: false } });
  const { error, route } = await run("2 + 2", {}, strict);
  assert.equal(error.code, "csp_blocked");
  assert.equal(error.directive, "script-src");
  assert.match(error.message, /Content-Security-Policy \(script-src\)/);
  assert.equal(route, "page");
  // Asked again, it answers the same (from memory: tests/e2e/test_scripts.py counts the reports).
  assert.equal((await run("3", {}, strict)).error.directive, "script-src");
});

// A realm that behaves like a page enforcing require-trusted-types-for 'script': eval takes only a
// TrustedScript. `allowList` stands for a trusted-types directive.
const TRUSTED_TYPES = (allowList, withDefault = false) => `
  const realEval = eval;
  class TrustedScript { constructor(s) { this.s = s; } toString() { return this.s; } }
  class TrustedTypePolicy { constructor(rules) { this.rules = rules; } createScript(s) { return new TrustedScript(this.rules.createScript(s)); } }
  class TrustedTypePolicyFactory {
    get defaultPolicy() { return globalThis.defaultRules ? {} : null; }
    createPolicy(name, rules) {
      const allowed = ${JSON.stringify(allowList)};
      if (allowed && !allowed.includes(name)) throw new TypeError('Policy "' + name + '" disallowed.');
      policies.push(name);
      return new TrustedTypePolicy(rules);
    }
  }
  globalThis.policies = [];
  Object.assign(globalThis, { TrustedTypePolicy, TrustedTypePolicyFactory, trustedTypes: new TrustedTypePolicyFactory() });
  globalThis.defaultSaw = [];
  globalThis.defaultRules = ${withDefault} ? { createScript: (s) => (defaultSaw.push(s), s) } : null;
  globalThis.eval = function (code) {
    if (!(code instanceof TrustedScript) && defaultRules) code = new TrustedScript(defaultRules.createScript(String(code)));
    if (!(code instanceof TrustedScript)) {
      throw new EvalError("Evaluating a string as JavaScript violates this document's Trusted Type assignment requirements.");
    }
    return realEval(String(code));
  };`;

test("a Trusted Types page runs scripts through one lazily made policy", async () => {
  const realm = load(undefined, TRUSTED_TYPES(null));
  assert.deepEqual(vm.runInContext("policies.length", realm.context), 0, "no policy before it is needed");
  for (const [script, result] of [["1 + 1", 2], ["let x = 3; x", 3], ["return 4", 4], ["await 0; return 5", 5]]) {
    const answer = await run(script, {}, realm);
    assert.deepEqual([answer.result, answer.route], [result, "trusted_types"], script);
  }
  assert.deepEqual(Array.from(vm.runInContext("policies", realm.context)), ["tabpilot"]);
});

test("a page's default Trusted Types policy is never handed a script", async () => {
  const realm = load(undefined, TRUSTED_TYPES(null, true));
  const answer = await run("let secret = 'shh'; secret.length", {}, realm);
  assert.deepEqual([answer.result, answer.route], [3, "trusted_types"]);
  assert.deepEqual(Array.from(vm.runInContext("defaultSaw", realm.context)), []);
});

test("a Trusted Types allowlist without tabpilot gives csp_blocked naming trusted-types", async () => {
  const realm = load(undefined, TRUSTED_TYPES(["other"]));
  const { error } = await run("1 + 1", {}, realm);
  assert.equal(error.code, "csp_blocked");
  assert.equal(error.directive, "trusted-types");
  assert.match(error.message, /allowlist has no policy named "tabpilot"/);
  assert.doesNotMatch(error.message, /unsafe-eval/);
});

test("a page replacing Function, eval, Promise and setTimeout later does not affect it", async () => {
  const tampered = load();
  const originalThen = vm.runInContext("Promise.prototype.then", tampered.context);
  vm.runInContext(
    `globalThis.Function = function () { throw new Error("tampered Function"); };
     globalThis.eval = function () { throw new Error("tampered eval"); };
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
    const done = await new Promise((resolve) => tampered.execute("let y = 2; y * 3", {}, resolve));
    assert.equal(done.value, 6);
  } finally {
    vm.runInContext("delete Object.prototype.then", tampered.context);
  }
});

test("a page's then and constructor getters never see an awaited result", async () => {
  const realm = load();
  vm.runInContext(
    `globalThis.seen = [];
     for (const proto of [Object.prototype, Array.prototype, Promise.prototype]) {
       Object.defineProperty(proto, "then", { configurable: true, get() { seen.push(this); return undefined; } });
     }
     Object.defineProperty(Promise.prototype, "constructor", { configurable: true, get() { seen.push(this); return Promise; } });`,
    realm.context,
  );
  const scripts = [
    "const t = await Promise.resolve('s3cr3t'); return {token: t}",
    "await 0; return ['s3cr3t']",
    "await 0\nif (true) {\n  return {token: 's3cr3t'}\n}",
    "await Promise.resolve(0), {token: 's3cr3t'}",
  ];
  for (const script of scripts) {
    const outcome = await new Promise((resolve) => realm.execute(script, { timeoutMs: 500 }, resolve));
    assert.equal(outcome.ok, true, script);
  }
  const seen = vm.runInContext("seen.map((v) => JSON.stringify(v) ?? typeof v)", realm.context);
  assert.deepEqual(
    Array.from(seen).filter((text) => text.includes("s3cr3t")),
    [],
  );
});

test("the keeper's rewrite leaves nested returns and non-returns alone", () => {
  const rewriteReturns = (source) => page.context.__tabpilotReturns.rewriteReturns(source, "__tabpilot_return");
  const REWRITES = [
    ["return 1", "return void __tabpilot_return((1))"],
    ["return;", "return;"],
    ["x.return(1); ({ return: 2 })", "x.return(1); ({ return: 2 })"],
    ["function f() { return 1 }", "function f() { return 1 }"],
    ["if (a) return b\nc()", "if (a) return void __tabpilot_return((b))\nc()"],
    ["for await (const x of y) { return x }", "for await (const x of y) { return void __tabpilot_return((x)) }"],
    ["return '}' + `${'{'}`", "return void __tabpilot_return(('}' + `${'{'}`))"],
    ["return /re}/.test(s) // note", "return void __tabpilot_return((/re}/.test(s))) // note"],
    ["const o = { m() { return 1 } }; return o", "const o = { m() { return 1 } }; return void __tabpilot_return((o))"],
  ];
  for (const [source, expected] of REWRITES) assert.equal(rewriteReturns(source), expected, source);
  assert.equal(rewriteReturns("return 'unterminated"), null);
});

test("a non-string script is refused without running anything", async () => {
  const outcome = await page.execute(42, {});
  assert.equal(outcome.ok, false);
  assert.equal(outcome.error.code, "syntax_error");
});

// Each answers what the same script answers in a plain async function; the rewrite must not change
// a result, only the way it travels.
const TRICKY_ASYNC = [
  "await 0; return 1",
  "await 0\nreturn\n42",
  "await 0; const f = (x) => x * 3; return f\n(2)",
  "await 0; let a = 1\nreturn a\n++a",
  "await 0; return [1, 2]\n.map((x) => x * 2)",
  "await 0; const f = (x) => ({ return: x }); return f(3).return",
  "await 0; switch (2) { case 1: return 'one'; case 2: return 'two' }",
  "await 0; for (const x of [1, 2, 3]) { if (x === 2) return x * 10 }",
  "await 0; outer: for (;;) { do { return 'deep' } while (false) }",
  "await 0; try { throw new Error('x') } catch (e) { return e.message } finally { }",
  "await 0; try { return 'try' } finally { globalThis.fin = 1 }",
  "await 0; const s = 'return 1; }'; return s.length // return 2",
  "await 0; /* return 3 */ return `a${`b${'c'}`}d`",
  "await 0; const r = /[/}]return/g; return r.source",
  "await 0; const a = 10, b = 5, c = 2; return a / b / c",
  "await 0; class K { m() { return 'm' } static s() { return 's' } get g() { return 'g' } } return new K().m() + K.s() + new K().g",
  "await 0; function* gen() { yield 1; return 2 } return [...gen()].length",
  "await 0; const o = { async f() { return await 'f' } }; return await o.f()",
  "await 0; if (true) return\n'unreached'",
  "await 0; return a?.b ?? 'nullish'\nvar a",
  "const x = await Promise.resolve(2); return x?.toFixed(1)",
  "await 0; return typeof arguments",
  "await 0; return this === globalThis",
  "let n = 0; for await (const x of [Promise.resolve(1), 2]) { n += x } return n",
  "await 0; const t = { catch(f) { return 'handled' } }; return t.catch() + '!'",
  "await 0; class P { then(r) { return r } catch(f) { return 'c' } } return new P().catch()",
  "await 0; try { JSON.parse('{') } catch (e) { return e.name }",
  "await 0; try { return 1 } catch { return 2 }",
  "await 0; const f = function () { return 'inner' }; return f() + ' outer'",
];

for (const script of TRICKY_ASYNC) {
  test(`an async script answers as written: ${JSON.stringify(script).slice(0, 70)}`, async () => {
    const AsyncFunction = vm.runInContext("(async () => {}).constructor", page.context);
    const expected = await AsyncFunction(script).call(vm.runInContext("globalThis", page.context));
    const outcome = await page.execute(script, { timeoutMs: 1000 });
    assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
    assert.deepEqual(JSON.stringify(outcome.value), JSON.stringify(expected));
  });
}

test("an async script's stack keeps its own line numbers past a rewritten return", async () => {
  const { error } = await run("await 0\nif (false) return 1\nif (false) return 2\nthrow new Error('line 4')");
  assert.match(error.stack, /<script>:4:\d+/);
});

test("a page's index getters and setters on Array and String prototypes never see the script", async () => {
  const realm = load();
  const secret = "s3cr3t-" + Date.now();
  vm.runInContext(
    `globalThis.seen = [];
     const text = (v) => { try { return JSON.stringify(v) ?? String(v); } catch { return "?"; } };
     let busy = false;
     const note = (v) => { if (busy) return; busy = true; seen.push(text(v)); busy = false; };
     const spy = (proto, key) => Object.defineProperty(proto, key, {
       configurable: true,
       get() { note(this); return undefined; },
       set(v) { note([this, v]); },
     });
     for (let i = 0; i < 400; i++) { spy(Array.prototype, i); spy(String.prototype, i); }`,
    realm.context,
  );
  const script = `await 0\nconst t = '${secret}'\nif (t) { return [t] }\nreturn 0`;
  const outcome = await new Promise((resolve) => realm.execute(script, { timeoutMs: 500 }, resolve));
  assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
  const seen = Array.from(vm.runInContext("seen", realm.context));
  assert.deepEqual(seen.filter((text) => text.includes(secret)), []);
});
