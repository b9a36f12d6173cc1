// The page world's console log (browser_console_messages): wraps console.log/info/warn/error/debug
// and listens for uncaught errors, unhandled rejections and CSP violations, from document_start on.
// Entries wait here, in a closure the page cannot reach, until inject.js has paired with content.js;
// then they go out in batches through the secret channel (protocol.md §3), and content.js hands
// them to the worker, which keeps each tab's ring (worker/tools/logs-console.js).
//
// A classic script in the MAIN world, after serialize.js and before inject.js, which takes
// `__tabpilotPageLog` off globalThis before any page script runs. What a page can do: see that the
// console methods are wrapped, replace them (what its replacement does not pass on is not
// captured), and log messages of its own. What it cannot: read what was captured, nor erase it.
(() => {
  "use strict";

  const g = globalThis;
  const FLAG = "__tabpilotPageLogHook";
  // A second copy (the worker injects the page-world files again into a tab) must not wrap the
  // console twice: it hands the first copy's hook to its own inject.js.
  const earlier = Object.getOwnPropertyDescriptor(g, FLAG)?.value;
  if (earlier && typeof earlier.attach === "function") {
    g.__tabpilotPageLog = earlier;
    return;
  }
  const serializer = g.__tabpilotSerialize;
  if (!serializer) return;

  const { apply, defineProperty } = Reflect;
  const { create, freeze, getOwnPropertyDescriptor } = Object;
  const ErrorCtor = Error;
  const StringCtor = String;
  const now = Date.now;
  const jsonStringify = JSON.stringify;
  const setTimer = g.setTimeout;
  const addListener = EventTarget.prototype.addEventListener;
  const { slice, indexOf, replace, split } = String.prototype;
  // No prototype: a page's Array.prototype.toJSON or index setters must not reach the queue.
  const list = () => Object.setPrototypeOf([], null);
  const regexpExec = RegExp.prototype.exec;
  const { serialize, wellFormed } = serializer;
  const getter = (ctor, name) => (typeof ctor === "function" ? getOwnPropertyDescriptor(ctor.prototype, name)?.get : undefined);
  const errorEventGetters = ["message", "filename", "lineno", "colno", "error"].map((name) => [name, getter(g.ErrorEvent, name)]);
  const reasonGetter = getter(g.PromiseRejectionEvent, "reason");
  const cspGetters = ["effectiveDirective", "blockedURI", "sourceFile", "lineNumber", "columnNumber", "disposition"].map((name) => [
    name,
    getter(g.SecurityPolicyViolationEvent, name),
  ]);

  //: Longest text of one message, and of an error's stack, in characters (README, "Console").
  const MAX_TEXT = 10_000;
  const MAX_STACK = 4_000;
  // Entries kept before the channel is paired; past it the oldest are dropped, and counted.
  const MAX_WAITING = 1000;
  // A batch goes out after this many entries, or this many ms after its first one.
  const BATCH_SIZE = 200;
  const BATCH_MS = 20;
  const LEVELS = freeze({ log: "info", info: "info", warn: "warning", error: "error", debug: "debug" });

  const cut = (text, max) => (text.length > max ? apply(slice, text, [0, max - 1]) + "\u2026" : text);

  // The first frame of a stack outside tabpilot's own files: where the page logged from.
  const FRAME = /\(?((?:https?|file|blob|data):[^\s()]*?):(\d+):(\d+)\)?\s*$/;
  const whereFrom = (stack) => {
    if (typeof stack !== "string") return null;
    const lines = apply(split, stack, ["\n"]);
    for (let i = 1; i < lines.length; i++) {
      const found = apply(regexpExec, FRAME, [lines[i]]);
      if (found) return { url: found[1], line: +found[2], column: +found[3] };
    }
    return null;
  };

  // One argument as DevTools prints it: strings as they are, the rest through the safe serializer.
  const formatValue = (value) => {
    if (typeof value === "string") return value;
    const { result, result_type: kind } = serialize(value);
    if (kind === "error" && result && typeof result === "object") {
      return typeof result.stack === "string" && result.stack !== "" ? result.stack : `${result.name}: ${result.error}`;
    }
    if (typeof result === "string") return result;
    if (result === null) return kind === "null" ? "null" : "undefined";
    try {
      return jsonStringify(result);
    } catch {
      return StringCtor(result);
    }
  };

  // console.log("%s has %d items", name, 3): printf-style directives of the first argument, as
  // DevTools reads them (%c's CSS is dropped); the arguments left over follow, space-separated.
  const DIRECTIVE = /%([sdifoOc%])/g;
  const formatArgs = (args) => {
    let text = "";
    let next = 0;
    if (typeof args[0] === "string" && apply(indexOf, args[0], ["%"]) !== -1) {
      next = 1;
      text = apply(replace, args[0], [
        DIRECTIVE,
        (match, kind) => {
          if (kind === "%") return "%";
          if (next >= args.length) return match;
          const value = args[next++];
          if (kind === "c") return "";
          if (kind === "d" || kind === "i") return typeof value === "symbol" ? "NaN" : StringCtor(parseInt(value, 10));
          if (kind === "f") return typeof value === "symbol" ? "NaN" : StringCtor(parseFloat(value));
          return formatValue(value);
        },
      ]);
    }
    for (let i = next; i < args.length && text.length <= MAX_TEXT; i++) {
      text += (i === 0 ? "" : " ") + formatValue(args[i]);
    }
    return cut(wellFormed(text), MAX_TEXT);
  };

  // ---- The queue and the sinks (inject.js attaches one per paired channel).
  let waiting = list();
  let dropped = 0;
  let timer = null;
  const sinks = list();

  const flush = () => {
    timer = null;
    if (sinks.length === 0 || (waiting.length === 0 && dropped === 0)) return;
    const batch = create(null);
    batch.entries = waiting;
    batch.dropped = dropped;
    waiting = list();
    dropped = 0;
    let json;
    try {
      json = jsonStringify(batch);
    } catch {
      return;
    }
    for (let i = 0; i < sinks.length; i++) {
      try {
        sinks[i](json);
      } catch {}
    }
  };

  const push = (entry) => {
    entry.time = now();
    waiting[waiting.length] = entry;
    if (waiting.length > MAX_WAITING) {
      const kept = list();
      for (let i = waiting.length - MAX_WAITING; i < waiting.length; i++) kept[kept.length] = waiting[i];
      waiting = kept;
      dropped += 1;
    }
    if (sinks.length === 0) return;
    if (waiting.length >= BATCH_SIZE) flush();
    else if (timer === null) timer = apply(setTimer, g, [flush, BATCH_MS]);
  };

  const record = (type, level, text, where, stack) => {
    const entry = create(null);
    entry.type = type;
    entry.level = level;
    entry.text = text;
    if (where) {
      entry.url = cut(wellFormed(StringCtor(where.url)), 2048);
      entry.line = where.line;
      if (where.column) entry.column = where.column;
    }
    if (typeof stack === "string" && stack !== "") entry.stack = cut(wellFormed(stack), MAX_STACK);
    push(entry);
  };

  // ---- console.*: each wrapper records, then calls the method it replaced (DevTools still shows
  // the message, from this file's line).
  const console = g.console;
  const wrap = (method) => {
    const native = console && console[method];
    if (typeof native !== "function") return;
    const wrappers = {
      [method](...args) {
        try {
          let stack;
          try {
            stack = new ErrorCtor().stack;
          } catch {}
          record(method, LEVELS[method], formatArgs(args), whereFrom(stack));
        } catch {}
        return apply(native, this, args);
      },
    };
    defineProperty(console, method, { value: wrappers[method], writable: true, enumerable: true, configurable: true });
  };
  for (const method of ["log", "info", "warn", "error", "debug"]) wrap(method);

  const read = (getterFn, target) => {
    try {
      return getterFn ? apply(getterFn, target, []) : undefined;
    } catch {
      return undefined;
    }
  };

  const errorStack = (value) => {
    const { result, result_type: kind } = serialize(value);
    return kind === "error" && result && typeof result.stack === "string" ? result.stack : undefined;
  };

  // Uncaught errors: an ErrorEvent reaches the window (load errors of images and scripts are plain
  // Events, and are the network log's business).
  // In capture, on the window: before any listener of the page's (a worker or a test world has
  // no window events, and records the console only).
  const on = (type, listener) => {
    try {
      apply(addListener, g, [type, listener, true]);
    } catch {}
  };
  on(
    "error",
    (event) => {
      const fields = create(null);
      for (let i = 0; i < errorEventGetters.length; i++) fields[errorEventGetters[i][0]] = read(errorEventGetters[i][1], event);
      if (typeof fields.message !== "string") return;
      const where = fields.filename ? { url: fields.filename, line: fields.lineno, column: fields.colno } : null;
      record("exception", "error", cut(wellFormed(fields.message), MAX_TEXT), where, errorStack(fields.error));
    },
  );

  on(
    "unhandledrejection",
    (event) => {
      const reason = read(reasonGetter, event);
      const stack = errorStack(reason);
      record("rejection", "error", cut("Uncaught (in promise) " + formatValue(reason), MAX_TEXT), whereFrom(stack), stack);
    },
  );

  on(
    "securitypolicyviolation",
    (event) => {
      const fields = create(null);
      for (let i = 0; i < cspGetters.length; i++) fields[cspGetters[i][0]] = read(cspGetters[i][1], event);
      const blocked = fields.blockedURI ? StringCtor(fields.blockedURI) : "inline";
      const report = fields.disposition === "report" ? " (report only)" : "";
      const text = `Content Security Policy: ${fields.effectiveDirective} blocked ${blocked}${report}`;
      const where = fields.sourceFile ? { url: fields.sourceFile, line: fields.lineNumber, column: fields.columnNumber } : null;
      record("csp", "error", cut(wellFormed(text), MAX_TEXT), where);
    },
  );

  // ---- Response bodies of fetch and XHR, for browser_network_requests' include_body: read from a
  // clone as the page reads its own, cut at MAX_BODY characters, and sent like log entries (type
  // "body"); the worker keeps a tab's last few and matches them to its requests. A response
  // announced larger than MAX_READ bytes is not read at all.
  const MAX_BODY = 64 * 1024;
  const MAX_READ = 4 * 1024 * 1024;
  const { listen } = serializer;
  const upper = String.prototype.toUpperCase;
  const recordBody = (source, method, url, status, read) => {
    const entry = create(null);
    entry.type = "body";
    entry.source = source;
    entry.method = typeof method === "string" ? apply(upper, method, []) : "GET";
    entry.url = cut(wellFormed(StringCtor(url)), 2048);
    entry.status = status;
    const done = (text, note) => {
      if (typeof text === "string") {
        entry.size = text.length;
        entry.truncated = text.length > MAX_BODY;
        entry.body = wellFormed(entry.truncated ? apply(slice, text, [0, MAX_BODY]) : text);
      } else {
        entry.body = null;
        entry.note = note;
      }
      push(entry);
    };
    try {
      read(done);
    } catch (err) {
      done(null, "could not be read: " + StringCtor(err?.message ?? err));
    }
  };

  const ResponseProto = typeof g.Response === "function" ? g.Response.prototype : null;
  const responseGet = (name) => ResponseProto && getOwnPropertyDescriptor(ResponseProto, name)?.get;
  const [responseUrl, responseStatus, responseHeaders, responseType] = ["url", "status", "headers", "type"].map(responseGet);
  const responseClone = ResponseProto?.clone;
  const responseText = ResponseProto?.text;
  const headersGet = typeof g.Headers === "function" ? g.Headers.prototype.get : null;
  const requestMethod = getter(g.Request, "method");
  const nativeFetch = g.fetch;
  if (typeof nativeFetch === "function" && responseClone && responseText) {
    const methodOf = (input, init) => {
      try {
        if (init && typeof init === "object" && typeof init.method === "string") return init.method;
        if (requestMethod && typeof input === "object" && input !== null) return apply(requestMethod, input, []);
      } catch {}
      return "GET";
    };
    const onResponse = (method, response) => {
      recordBody("fetch", method, apply(responseUrl, response, []), apply(responseStatus, response, []), (done) => {
        if (apply(responseType, response, []) === "opaque") return done(null, "an opaque (no-cors) response: its body is hidden from the page");
        const length = +apply(headersGet, apply(responseHeaders, response, []), ["content-length"]);
        if (length > MAX_READ) return done(null, `not read: ${length} bytes`);
        listen(apply(responseText, apply(responseClone, response, []), []), (text) => done(text), (err) => done(null, "could not be read: " + StringCtor(err?.message ?? err)));
      });
    };
    const wrappers = {
      fetch(input, init) {
        const promise = apply(nativeFetch, this, [input, init]);
        try {
          const method = methodOf(input, init);
          listen(promise, (response) => onResponse(method, response), () => {});
        } catch {}
        return promise;
      },
    };
    defineProperty(g, "fetch", { value: wrappers.fetch, writable: true, enumerable: true, configurable: true });
  }

  const XHR = typeof g.XMLHttpRequest === "function" ? g.XMLHttpRequest.prototype : null;
  if (XHR) {
    const xhrGet = (name) => getOwnPropertyDescriptor(XHR, name)?.get;
    const [xhrUrl, xhrStatus, xhrType, xhrText, xhrResponse] = ["responseURL", "status", "responseType", "responseText", "response"].map(xhrGet);
    const nativeOpen = XHR.open;
    const nativeSend = XHR.send;
    const methods = new WeakMap();
    const weakGet = WeakMap.prototype.get;
    const weakSet = WeakMap.prototype.set;
    const onLoadEnd = function () {
      const xhr = this;
      const status = apply(xhrStatus, xhr, []);
      if (status === 0) return; // failed or aborted: the network log says why
      recordBody("xhr", apply(weakGet, methods, [xhr]), apply(xhrUrl, xhr, []), status, (done) => {
        const kind = apply(xhrType, xhr, []);
        if (kind === "" || kind === "text") return done(apply(xhrText, xhr, []));
        if (kind === "json") return done(jsonStringify(apply(xhrResponse, xhr, [])));
        done(null, `a responseType "${kind}" response is not kept`);
      });
    };
    const wrappers = {
      open(...args) {
        try {
          apply(weakSet, methods, [this, StringCtor(args[0])]);
        } catch {}
        return apply(nativeOpen, this, args);
      },
      send(...args) {
        try {
          apply(addListener, this, ["loadend", onLoadEnd]);
        } catch {}
        return apply(nativeSend, this, args);
      },
    };
    for (const name of ["open", "send"]) defineProperty(XHR, name, { value: wrappers[name], writable: true, enumerable: true, configurable: true });
  }

  const hook = freeze({
    // A sink gets each batch as JSON text: {entries: [...], dropped}. Sinks are only added: a page
    // that found this hook could add its own (and so read its own page's log, which it can anyway),
    // never remove tabpilot's.
    attach(sink) {
      if (typeof sink !== "function") return;
      sinks[sinks.length] = sink;
      flush();
    },
    // Sends what waits now, synchronously (content.js asks before a query answers).
    flush,
  });
  defineProperty(g, FLAG, { value: hook, configurable: false, enumerable: false, writable: false });
  g.__tabpilotPageLog = hook;
})();
