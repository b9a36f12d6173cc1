// Script wrapper: compiles and runs a caller's script in the page's own world (docs/protocol.md §4).
// A classic script, loaded in the MAIN world at document_start, in a chrome.userScripts world, as
// text inside `(function (globalThis) { … })(shadow)` through chrome.debugger, and by node:vm tests.
// So it reads the global object only as `globalThis`, never calls a global function with the
// global as `this`, and exports only by assignment on `globalThis`; inject.js takes
// `__tabpilotExecutor` off the page's globals before any page script runs.
(() => {
  "use strict";

  const DEFAULT_TIMEOUT_MS = 5000;
  const RETURN = "__tabpilot_return"; // the keeper's name inside the async forms (see below)

  // Captured now, so a page that later replaces Function, Promise or setTimeout cannot break or
  // observe the wrapper. eval is the realm's intrinsic, hence subject to the page's CSP and Trusted
  // Types: that is how csp_blocked is detected.
  const { apply } = Reflect;
  const { create, getPrototypeOf, hasOwn, keys, setPrototypeOf } = Object;
  const objectProto = Object.prototype;
  const functionProto = Function.prototype;
  const evalIntrinsic = eval;
  const PromiseCtor = Promise;
  const promiseResolve = Promise.resolve;
  const syntaxErrorProto = SyntaxError.prototype;
  const evalErrorProto = EvalError.prototype;
  const referenceErrorProto = ReferenceError.prototype;
  const setTimer = setTimeout;
  const clearTimer = clearTimeout;
  const dateNow = Date.now;
  const { indexOf, slice } = String.prototype;
  const regexpExec = RegExp.prototype.exec;
  // Shared with the serializer, which loads first, so returned and thrown errors read the same.
  const { classify, cleanStack, errorData, wellFormed, readable, listen } = globalThis.__tabpilotSerialize;
  // returns.js loads just before: the rewrite of an async script's top-level returns.
  const { rewriteReturns } = globalThis.__tabpilotReturns;
  // Trusted Types, captured at document_start so a page cannot wrap createPolicy or createScript.
  const tt = (() => {
    const factory = globalThis.trustedTypes;
    if (!factory || typeof globalThis.TrustedTypePolicyFactory !== "function") return null;
    const factoryProto = globalThis.TrustedTypePolicyFactory.prototype;
    const defaultPolicy = Object.getOwnPropertyDescriptor(factoryProto, "defaultPolicy");
    return {
      factory,
      createPolicy: factoryProto.createPolicy,
      createScript: globalThis.TrustedTypePolicy.prototype.createScript,
      defaultPolicy: defaultPolicy && defaultPolicy.get,
    };
  })();

  // Our lists and records have no prototype: a page's index setter or getter on Array.prototype
  // (or a property's on Object.prototype) would otherwise be handed them, and the script in them.
  const list = () => setPrototypeOf([], null);
  const record = (fields) => {
    const out = create(null);
    const names = keys(fields);
    for (let i = 0; i < names.length; i++) out[names[i]] = fields[names[i]];
    return out;
  };

  // A thrown Error reports exactly its message and stack, and its other own fields (code, cause,
  // errors…) as `data`; anything else is made readable.
  const failure = (code, thrown, fallbackMessage, extra) => {
    let message;
    let stack;
    const isObject = thrown !== null && (typeof thrown === "object" || typeof thrown === "function");
    if (isObject) {
      try {
        message = thrown.message;
        stack = thrown.stack;
      } catch {}
    }
    const error = create(null);
    error.code = code;
    error.message = wellFormed(fallbackMessage ?? (typeof message === "string" ? message : readable(thrown)));
    if (typeof stack === "string") error.stack = wellFormed(cleanStack(stack));
    if (isObject && fallbackMessage === undefined && classify(thrown) === "error") {
      const data = errorData(thrown);
      if (data !== undefined) error.data = data;
    }
    if (extra) {
      const names = keys(extra);
      for (let i = 0; i < names.length; i++) error[names[i]] = extra[names[i]];
    }
    if (apply(indexOf, error.message, ["dynamically imported module: chrome-extension://"]) !== -1) {
      error.message += " A relative import() resolved against tabpilot's own files here: use an absolute URL, " +
        "e.g. import(new URL('./mod.js', location.href).href).";
    }
    return record({ ok: false, error });
  };

  // ---- Routes: how source text becomes a function (docs/protocol.md §4, "Routes").
  // "page": the page-world eval, ~2 ms. "trusted_types": the same source through a Trusted Types
  // policy, for pages that require TrustedScript but allow eval. The policy is created on first
  // need only: a refused createPolicy files a CSP violation report.
  const POLICY_NAME = "tabpilot";
  let route = "page";
  let policy = null;

  const trusted = (source) => (route === "trusted_types" ? apply(tt.createScript, policy, [source]) : source);

  // Indirect eval of a function expression: the same compile for both routes, and the frames read
  // `eval at compileForm (…executor.js…), <anonymous>:LINE:COL` (cleanStack maps them back).
  function compileForm(source) {
    return apply(evalIntrinsic, undefined, [trusted(source)]);
  }

  // A sloppy function whose `eval` is the intrinsic: a direct eval in it yields the script's
  // completion value, keeps its `var`s local, and never calls a page's replacement window.eval.
  // Compiled apart from compileForm so that its own frame is dropped from stacks.
  let runners = create(null);
  function makeRunner() {
    return apply(evalIntrinsic, undefined, [trusted("(function (eval) { return eval(arguments[1]) })")]);
  }

  const CSP_DIRECTIVE = /directive because [^:]*: ([^"]+)"/;
  const TT_REQUIRED = "require-trusted-types-for 'script'";

  // A page's policy only ever tightens, so a refusal is remembered: later scripts are answered
  // without asking again, since each refused eval files a violation report with the site.
  let blocked = null;
  const cspFailure = (err, directive, why) => {
    blocked = record({ err, directive, why });
    return failure(
      "csp_blocked",
      err,
      `The page's Content-Security-Policy (${directive}) ${why}, so tabpilot cannot run code in this ` +
        `tab's page world. Chrome said: ${readable(err && err.message)}`,
      { directive },
    );
  };

  // Called when the page's eval refused: on a Trusted Types refusal, switch to a policy (once per
  // page) and say so; otherwise the failure to answer.
  const onRefusal = (err) => {
    const message = readable(err && err.message);
    const isTrustedTypes = apply(indexOf, message, ["Trusted Type"]) !== -1;
    if (!isTrustedTypes || route !== "page") {
      const found = apply(regexpExec, CSP_DIRECTIVE, [message]);
      const directive = found ? found[1] : isTrustedTypes ? TT_REQUIRED : "script-src";
      return cspFailure(err, directive, "forbids evaluating strings as JavaScript ('unsafe-eval' is not allowed)");
    }
    if (tt === null) return cspFailure(err, TT_REQUIRED, "requires Trusted Types, which this browser lacks");
    const refused = usePolicy();
    if (refused === null) return null;
    return cspFailure(
      refused,
      "trusted-types",
      `requires Trusted Types and its trusted-types allowlist has no policy named "${POLICY_NAME}"`,
    );
  };

  // Switches to the Trusted Types route; null, or what createPolicy threw.
  let policyRefused = null;
  const usePolicy = () => {
    if (policyRefused !== null) return policyRefused;
    try {
      const rules = create(null);
      rules.createScript = (source) => source;
      policy = apply(tt.createPolicy, tt.factory, [POLICY_NAME, rules]);
    } catch (refused) {
      policyRefused = refused;
      return refused;
    }
    route = "trusted_types";
    runners = create(null);
    return null;
  };

  // A page with a default Trusted Types policy would be handed every string we eval (and could
  // change it): there the script goes through our own policy from the start, where one is allowed.
  const hasDefaultPolicy = () => {
    try {
      return tt !== null && typeof tt.defaultPolicy === "function" && apply(tt.defaultPolicy, tt.factory, []) !== null;
    } catch {
      return false;
    }
  };

  // ---- Compile forms, in order. An expression first (`2 + 2`, `({a: 1})`): the fast path. Then a
  // plain Script, run by direct eval for its completion value (`let x = 1; x`). Then a function
  // body, so that `return` works. The async forms come first when the script says `await` and the
  // caller awaits. The "\n" keeps a trailing `// comment` from swallowing what follows.
  // The script starts on line 3, as with new Function; unnamed, so its frames read `at eval`.
  const HEAD = "(function (\n) {\n";
  const ASYNC_HEAD = `(function (${RETURN}) { return async function (\n) {\n`;
  // A form: how to make its source, and how its function is called. The async forms hand their
  // value to a keeper instead of returning it: an async function's return resolves its promise
  // with the value, which reads `value.then` through the page's prototypes, where a page getter
  // would see (and could replace) the result.
  const form = (kind, source) => record({ kind, source });
  const EXPRESSION = form("sync", (script) => HEAD + "return (" + script + "\n)\n})");
  const BODY = form("sync", (script) => HEAD + script + "\n})");
  // A class static block accepts exactly the Script grammar minus `return`, `await` and
  // `arguments`; compiling it (never running it) tells a plain Script apart without a parser.
  // The script then runs by direct eval in the runner, for its completion value.
  const SCRIPT = form("direct", (script) => HEAD + "class _ { static {\n" + script + "\n} }\n})");
  const ASYNC_EXPRESSION = form("async", (script) => ASYNC_HEAD + `return void ${RETURN}((` + script + "\n))\n} })");
  const ASYNC_BODY = form("async", (script) => ASYNC_HEAD + (rewriteReturns(script, RETURN) ?? script) + "\n} })");
  // Should the rewrite ever break a script, the script as written still runs (its result then
  // comes through the promise's resolution, as in any async function).
  const ASYNC_BODY_AS_WRITTEN = form("async", (script) => ASYNC_HEAD + script + "\n} })");

  const AWAIT = /\bawait\b/;
  const IMPORT = /\bimport\s*\(/;

  const protoOf = (err) => (err !== null && typeof err === "object" ? getPrototypeOf(err) : null);

  // A dynamic import() resolves against the script that compiled the code: executor.js, an
  // extension file. Compiled by eval called straight from a promise job, with none of our code on
  // the stack, it resolves against the page instead. The compiled function then resolves a
  // promise, which reads its `then`: safe only while no page `then` sits on its prototype chain.
  const canCompileInJob = () =>
    route === "page" &&
    getPrototypeOf(functionProto) === objectProto &&
    !hasOwn(functionProto, "then") &&
    !hasOwn(objectProto, "then");

  // The form that compiled here is compiled again in a job; should that fail (where eval is allowed
  // only while our caller runs, as in chrome.debugger's Runtime.evaluate), the first one serves.
  const recompileInJob = (compiled, done) => {
    const keep = (made) => done(record({ made, kind: compiled.kind }));
    // One more space at the end: the same text would come back from V8's eval cache, with the
    // first compile's base URL.
    const job = listen(apply(promiseResolve, PromiseCtor, [compiled.source + " "]), evalIntrinsic, undefined);
    if (!job || !listen(job, keep, () => done(compiled))) done(compiled);
  };

  /**
   * compile(script, awaitPromise, done): done({made, kind, source}) with the first form that
   * compiles, in order, or done({failure}). Synchronous, except that a script with import() is
   * compiled once more in a job (above).
   */
  const compile = (script, awaitPromise, done) => {
    if (blocked !== null) return done(record({ failure: cspFailure(blocked.err, blocked.directive, blocked.why) }));
    if (route === "page" && hasDefaultPolicy()) usePolicy();
    const mentionsAwait = apply(regexpExec, AWAIT, [script]) !== null;
    const imports = apply(regexpExec, IMPORT, [script]) !== null;
    const forms = list();
    if (mentionsAwait && awaitPromise) {
      forms[0] = ASYNC_EXPRESSION;
      forms[1] = ASYNC_BODY;
      forms[2] = ASYNC_BODY_AS_WRITTEN;
    }
    forms[forms.length] = EXPRESSION;
    if (!imports) forms[forms.length] = SCRIPT;
    forms[forms.length] = BODY;
    let lastError;
    for (let i = 0; i < forms.length; i++) {
      const current = forms[i];
      const source = current.source(script);
      let made;
      try {
        made = compileForm(source);
      } catch (err) {
        const proto = protoOf(err);
        if (proto === evalErrorProto) {
          const refused = onRefusal(err);
          return refused ? done(record({ failure: refused })) : compile(script, awaitPromise, done);
        }
        if (proto !== syntaxErrorProto) return done(record({ failure: failure("syntax_error", err) }));
        // The body form's message is the most telling.
        if (current !== SCRIPT && current !== ASYNC_BODY_AS_WRITTEN) lastError = err;
        continue;
      }
      if (current === SCRIPT) {
        const runner = (runners.sloppy ??= makeRunner());
        const trustedScript = trusted(script);
        made = () => runner(evalIntrinsic, trustedScript);
      }
      const compiled = record({ made, kind: current.kind, source });
      return imports && canCompileInJob() ? recompileInJob(compiled, done) : done(compiled);
    }
    return done(record({ failure: noFormCompiles(script, mentionsAwait && !awaitPromise, lastError) }));
  };

  const noFormCompiles = (script, awaitIsOff, lastError) => {
    if (awaitIsOff) {
      try {
        compileForm(ASYNC_BODY.source(script));
        return awaitOff();
      } catch {}
    }
    return failure("syntax_error", lastError);
  };

  const awaitOff = () =>
    failure(
      "syntax_error",
      null,
      "The script uses `await`, which needs await_promise on: send await_promise: true (the default).",
    );

  // ---- Running.

  /**
   * execute(script, {awaitPromise = true, timeoutMs = 5000, deadline?, callWith?}, onOutcome?) runs the script
   * and hands {ok: true, value, route} or {ok: false, error: {code, message, stack?, data?}, route}
   * to onOutcome, or without one returns a Promise of it; it never throws or rejects. With
   * `callWith` (a list of arguments: the element of execute_javascript's ref) the script is a
   * function, `(el) => el.textContent`, called with them; its result is awaited as usual.
   * A synchronous endless loop cannot be interrupted from inside the page: the service worker
   * answers execution_timeout for that case.
   */
  const execute = (script, options, onOutcome) => {
    if (typeof onOutcome !== "function") {
      return new PromiseCtor((resolve) => execute(script, options, (outcome) => resolve(outcome)));
    }
    let answered = false;
    const answer = (outcome) => {
      if (answered) return;
      answered = true;
      outcome.route = route;
      onOutcome(outcome);
    };
    run(script, options || create(null), answer);
    return undefined;
  };

  const run = (script, options, answer) => {
    const awaitPromise = options.awaitPromise !== false;
    const timeoutMs =
      typeof options.timeoutMs === "number" && options.timeoutMs > 0 ? options.timeoutMs : DEFAULT_TIMEOUT_MS;
    if (typeof options.deadline === "number" && dateNow() > options.deadline) {
      return answer(failure("execution_timeout", null,
        "The script was not started: its deadline passed while the tab was busy. Nothing ran; retry once the tab is free."));
    }
    if (typeof script !== "string") return answer(failure("syntax_error", null, "the script must be a string"));
    const callWith = options.callWith ?? null;
    // The function itself is an expression: compiled as one even when its body awaits.
    compile(script, callWith ? false : awaitPromise, (compiled) => start(compiled, awaitPromise, timeoutMs, answer, callWith));
    return undefined;
  };

  const start = (compiled, awaitPromise, timeoutMs, answer, callWith) => {
    if (compiled.failure) return answer(compiled.failure);
    let kept = false;
    let keptValue;
    const keeper = (value) => {
      kept = true;
      keptValue = value;
    };
    const isAsync = compiled.kind === "async";
    let value;
    try {
      // The script runs here, outside any Promise constructor, so its stack holds no frame of ours.
      if (compiled.kind === "direct") value = compiled.made();
      else if (isAsync) value = apply(apply(compiled.made, undefined, [keeper]), undefined, []);
      else value = apply(compiled.made, undefined, []);
      if (callWith) {
        if (typeof value !== "function") {
          return answer(failure("syntax_error", null,
            "With a ref, the script must be a function that takes the element, such as (el) => el.textContent."));
        }
        value = apply(value, undefined, callWith);
      }
    } catch (err) {
      if (!awaitPromise && protoOf(err) === referenceErrorProto && err.message === "await is not defined") {
        return answer(awaitOff());
      }
      return answer(failure("execution_error", err));
    }
    if (!awaitPromise) return answer(record({ ok: true, value }));
    // An async form's promise rejects when the script throws or an `await` rejects inside it;
    // a plain form's promise is one the script returned.
    const rejectionCode = isAsync || callWith ? "execution_error" : "promise_rejected";
    let timer;
    const settle = (outcome) => {
      if (timer !== undefined) apply(clearTimer, undefined, [timer]);
      answer(outcome);
    };
    // Only a native promise is awaited, without the page seeing it (serialize.js, `listen`).
    const rejected = (reason) => settle(failure(rejectionCode, reason));
    const subscribed = listen(
      value,
      (result) => {
        // What an async form kept is awaited in turn when it is a native promise itself
        // (`(async () => {…})()`), as a sync form's returned promise is.
        const innerRejected = (reason) => settle(failure(callWith ? "execution_error" : "promise_rejected", reason));
        if (isAsync && kept && listen(keptValue, (inner) => settle(record({ ok: true, value: inner })), innerRejected)) return;
        settle(record({ ok: true, value: isAsync && kept ? keptValue : result }));
      },
      rejected,
    );
    if (!subscribed) return answer(record({ ok: true, value }));
    timer = apply(setTimer, undefined, [
      () => settle(failure("execution_timeout", null, `The script's promise did not settle within ${timeoutMs} ms. Narrow the script or raise timeout_ms.`)),
      timeoutMs,
    ]);
    return undefined;
  };

  globalThis.__tabpilotExecutor = Object.freeze({ execute });
})();
