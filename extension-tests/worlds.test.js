// The other worlds the service worker loads page/serialize.js and page/executor.js into: as TEXT
// evaluated in the page's main world, wrapped as `(function (globalThis) { … })(shadow)`, where
// the shadow's reads go to the real global and its writes stay private (docs/protocol.md §4).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { EXECUTOR_FILES } from "./support/page-files.js";

const read = (path) => readFileSync(new URL(`../extension/${path}`, import.meta.url), "utf8");
const LIBS = EXECUTOR_FILES.map(read).join("\n");
const WRAPPED = `(function (globalThis) { ${LIBS} })(shadow)`;

function shadowedPage() {
  const context = vm.createContext({});
  // Like a browser's timers, these refuse a `this` that is neither undefined nor the real global.
  vm.runInContext(
    `const guard = (fn) => function (...args) {
       if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
       return fn(...args);
     };
     globalThis.setTimeout = guard(hostSetTimeout);
     globalThis.clearTimeout = guard(hostClearTimeout);
     const kept = Object.create(null);
     globalThis.shadow = new Proxy(globalThis, {
       get: (target, key) => (key in kept ? kept[key] : Reflect.get(target, key)),
       set: (target, key, value) => ((kept[key] = value), true),
     });
     globalThis.kept = kept;`,
    Object.assign(context, { hostSetTimeout: setTimeout, hostClearTimeout: clearTimeout }),
  );
  vm.runInContext(WRAPPED, context, { filename: "wrapped.js" });
  return context;
}

test("loaded as text through a shadow global, nothing lands on the page's global", () => {
  const context = shadowedPage();
  const names = ["__tabpilotExecutor", "__tabpilotReturns", "__tabpilotSerialize", "__tabpilotSerializeIntrinsics", "__tabpilotSerializeKinds"];
  for (const name of names) assert.equal(vm.runInContext(`typeof ${name}`, context), "undefined", name);
  assert.deepEqual(Object.keys(context.kept).sort(), names);
});

test("through a shadow global, the executor and serializer run scripts, timers included", async () => {
  const context = shadowedPage();
  const { execute } = context.kept.__tabpilotExecutor;
  const { serialize } = context.kept.__tabpilotSerialize;
  const cases = [
    ["1 + 1", 2],
    ["let x = 20; x + 1", 21],
    ["return await new Promise((r) => setTimeout(() => r('timer'), 5))", "timer"],
    ["({ list: [1, 2], when: new Date(0) })", { list: [1, 2], when: "1970-01-01T00:00:00.000Z" }],
  ];
  for (const [script, expected] of cases) {
    const outcome = await new Promise((resolve) => execute(script, { timeoutMs: 500 }, resolve));
    assert.equal(outcome.ok, true, `${script}: ${JSON.stringify(outcome.error)}`);
    assert.deepEqual(JSON.parse(JSON.stringify(serialize(outcome.value).result)), expected);
  }
  // The timeout path arms and clears a timer too.
  const timedOut = await new Promise((resolve) => execute("new Promise(() => {})", { timeoutMs: 20 }, resolve));
  assert.equal(timedOut.error.code, "execution_timeout");
});

test("where eval is allowed only during the evaluation (chrome.debugger), an import() script still runs", async () => {
  const context = vm.createContext({ setTimeout, clearTimeout });
  // Like Runtime.evaluate on a page whose CSP forbids eval: allowed while the evaluation runs only.
  vm.runInContext(
    `const realEval = eval;
     globalThis.evaluating = false;
     globalThis.eval = (source) => {
       if (!evaluating) throw new EvalError("Evaluating a string as JavaScript violates the following Content Security Policy directive because 'unsafe-eval' is not an allowed source of script: script-src 'self'\\".");
       return realEval(source);
     };
     const kept = Object.create(null);
     globalThis.shadow = new Proxy(globalThis, {
       get: (target, key) => (key in kept ? kept[key] : Reflect.get(target, key)),
       set: (target, key, value) => ((kept[key] = value), true),
     });
     globalThis.kept = kept;`,
    context,
  );
  context.evaluating = true;
  vm.runInContext(WRAPPED, context);
  const { execute } = context.kept.__tabpilotExecutor;
  const answered = new Promise((resolve) => execute("const load = () => import('./x.js'); return typeof load", {}, resolve));
  context.evaluating = false;
  const outcome = await answered;
  assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
  assert.equal(outcome.value, "function");
});
