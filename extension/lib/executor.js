// Script wrapper: compiles and runs a caller's script in the page's own world (docs/protocol.md §4).
// A classic script, loaded in the MAIN world at document_start and by node:vm tests;
// inject.js takes `__tabpilotExecutor` off globalThis before any page script runs.
(() => {
  "use strict";

  const DEFAULT_TIMEOUT_MS = 5000;

  // Captured now, so a page that later replaces Function, Promise or setTimeout cannot break or
  // observe the wrapper. The constructors are the realm's intrinsics, hence subject to the page's
  // CSP: that is how csp_blocked is detected.
  const g = globalThis;
  const { apply } = Reflect;
  const { create, getPrototypeOf, keys } = Object;
  const FunctionCtor = Function;
  const AsyncFunctionCtor = getPrototypeOf(async function () {}).constructor;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const syntaxErrorProto = SyntaxError.prototype;
  const evalErrorProto = EvalError.prototype;
  const setTimer = g.setTimeout;
  const clearTimer = g.clearTimeout;
  const jsonStringify = JSON.stringify;
  const StringCtor = String;
  // Shared with the serializer, which loads first (manifest order), so returned errors read the same.
  const { cleanStack } = g.__tabpilotSerialize;

  // Results are prototype-less: resolving a promise with an object reads its `then`, and a page
  // could have put one on Object.prototype.
  const record = (fields) => {
    const out = create(null);
    const names = keys(fields);
    for (let i = 0; i < names.length; i++) out[names[i]] = fields[names[i]];
    return out;
  };
  const success = (value) => record({ ok: true, value });

  const readable = (value) => {
    try {
      if (typeof value === "string") return value;
      const json = typeof value === "object" && value !== null ? jsonStringify(value) : undefined;
      return typeof json === "string" ? json : StringCtor(value);
    } catch {
      return "[unprintable thrown value]";
    }
  };

  // A thrown Error reports exactly its message and stack; anything else is made readable.
  const failure = (code, thrown, fallbackMessage) => {
    let message;
    let stack;
    if (thrown !== null && (typeof thrown === "object" || typeof thrown === "function")) {
      try {
        message = thrown.message;
        stack = thrown.stack;
      } catch {}
    }
    const error = create(null);
    error.code = code;
    error.message =
      fallbackMessage ?? (typeof message === "string" && message !== "" ? message : readable(thrown));
    if (typeof stack === "string") error.stack = cleanStack(stack);
    return record({ ok: false, error });
  };

  // Expression first (`2 + 2`, `({a: 1})`), then a body (so `return` works); the async forms only
  // when the caller awaits, so that `await` works. The "\n" keeps a trailing `// comment` from
  // swallowing the closing parenthesis.
  const compile = (script, awaitPromise) => {
    const constructors = awaitPromise ? [FunctionCtor, AsyncFunctionCtor] : [FunctionCtor];
    const bodies = ["return (" + script + "\n)", script];
    let lastError;
    for (let c = 0; c < constructors.length; c++) {
      for (let b = 0; b < bodies.length; b++) {
        try {
          return record({ fn: new constructors[c](bodies[b]), isAsync: c === 1 });
        } catch (err) {
          const proto = err !== null && typeof err === "object" ? getPrototypeOf(err) : null;
          if (proto === evalErrorProto) {
            return record({
              failure: failure(
                "csp_blocked",
                err,
                "The page's Content-Security-Policy forbids running scripts from strings " +
                  "('unsafe-eval'), so tabpilot cannot run code in this tab; use another tab. " +
                  "Chrome said: " + readable(err.message),
              ),
            });
          }
          if (proto !== syntaxErrorProto) return record({ failure: failure("syntax_error", err) });
          lastError = err; // the last form's message (the body form) is the most telling
        }
      }
    }
    return record({ failure: failure("syntax_error", lastError) });
  };

  /**
   * execute(script, {awaitPromise = true, timeoutMs = 5000}) -> Promise of
   * {ok: true, value} or {ok: false, error: {code, message, stack?}}; it never rejects.
   * A synchronous endless loop cannot be interrupted from inside the page: the service worker
   * answers execution_timeout for that case.
   */
  const execute = (script, options) => {
    const awaitPromise = !(options && options.awaitPromise === false);
    const timeoutMs =
      options && typeof options.timeoutMs === "number" && options.timeoutMs > 0
        ? options.timeoutMs
        : DEFAULT_TIMEOUT_MS;
    // The script runs here, outside any Promise constructor, so its stack holds no frame of ours.
    const done = (outcome) => new PromiseCtor((resolve) => resolve(outcome));
    if (typeof script !== "string") return done(failure("syntax_error", null, "the script must be a string"));
    const compiled = compile(script, awaitPromise);
    if (compiled.failure) return done(compiled.failure);
    let value;
    try {
      value = apply(compiled.fn, undefined, []);
    } catch (err) {
      return done(failure("execution_error", err));
    }
    if (!awaitPromise || value === null || (typeof value !== "object" && typeof value !== "function")) {
      return done(success(value));
    }
    return new PromiseCtor((resolve) => {
      // An async form's promise rejects when the script throws or an `await` rejects inside it;
      // a plain form's promise is one the script returned.
      const rejectionCode = compiled.isAsync ? "execution_error" : "promise_rejected";
      let settled = false;
      let timer;
      const settle = (outcome) => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) apply(clearTimer, g, [timer]);
        resolve(outcome);
      };
      try {
        // The captured `then` doubles as the brand check: it throws for anything but a promise,
        // so thenables and other objects come back as they are.
        apply(promiseThen, value, [
          (result) => settle(success(result)),
          (reason) => settle(failure(rejectionCode, reason)),
        ]);
      } catch {
        resolve(success(value));
        return;
      }
      timer = apply(setTimer, g, [
        () => settle(failure("execution_timeout", null, `The script's promise did not settle within ${timeoutMs} ms. Narrow the script or raise timeout_ms.`)),
        timeoutMs,
      ]);
    });
  };

  g.__tabpilotExecutor = Object.freeze({ execute });
})();
