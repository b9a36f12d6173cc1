// The page world's console log (browser_console_messages): wraps console.log/info/warn/error/debug
// and listens for uncaught errors, unhandled rejections and CSP violations, from document_start on;
// and the response bodies of the page's own fetch and XHR (browser_network_requests' include_body).
// Entries wait here, in a closure the page cannot reach, until inject.js has paired with content.js;
// then they go out in batches through the secret channel (protocol.md §3), and content.js hands
// them to the worker, which keeps each tab's ring (worker/tools/logs-console.js).
//
// Nothing is kept while the log is off: content.js says "off" through the channel while AI Web
// Pilot is off, in a child frame (whose log nobody keeps) and once its extension is gone. Then the
// wrappers only call what they replaced: no entry is made and no body is read.
//
// A classic script in the MAIN world, after serialize.js and before inject.js, which takes
// `__tabpilotPageLog` off globalThis before any page script runs; nothing of tabpilot stays on the
// page's globals. What a page can do: see that the console methods are wrapped (their source text
// is the native one, but their behaviour shows), replace them (what its replacement does not pass
// on is not captured), and log messages of its own. What it cannot: read what was captured, nor
// erase it.
(() => {
  "use strict";

  const g = globalThis;
  const doc = g.document;
  const { apply, defineProperty } = Reflect;
  const { create, freeze, getOwnPropertyDescriptor } = Object;
  const CustomEventCtor = g.CustomEvent;
  const addListener = EventTarget.prototype.addEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const detailGetter = CustomEventCtor && getOwnPropertyDescriptor(CustomEventCtor.prototype, "detail")?.get;

  // A second copy (the worker injects the page-world files again into a tab whose channel was lost,
  // or after the extension was reloaded) must not wrap anything twice: it asks the first copy for
  // its hook with a synchronous event on the document, and hands that hook to its own inject.js.
  // An event rather than a property of window: no name of tabpilot's is on the page's globals, for
  // a script that lists them to find. A script that knows this event's name can ask too; what it
  // gets (adding a sink of its own, which replaces tabpilot's) lets it hide its own page's log,
  // which replacing `console` does already.
  const HELLO = "tabpilot:page-log";
  const ask = () => {
    if (!doc || !CustomEventCtor) return undefined;
    const box = create(null);
    const init = create(null);
    init.detail = box;
    try {
      apply(dispatch, doc, [new CustomEventCtor(HELLO, init)]);
    } catch {}
    return box.hook;
  };
  const earlier = ask();
  if (earlier && typeof earlier.attach === "function") {
    g.__tabpilotPageLog = earlier;
    return;
  }
  const serializer = g.__tabpilotSerialize;
  if (!serializer) return;

  const ErrorCtor = Error;
  const StringCtor = String;
  const now = Date.now;
  const jsonStringify = JSON.stringify;
  const setTimer = g.setTimeout;
  const captureStack = typeof ErrorCtor.captureStackTrace === "function" ? ErrorCtor.captureStackTrace : null;
  const { slice, indexOf, replace, split, toLowerCase } = String.prototype;
  // No prototype: a page's Array.prototype.toJSON or index setters must not reach the queue.
  const list = () => Object.setPrototypeOf([], null);
  const regexpExec = RegExp.prototype.exec;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const weakDelete = WeakMap.prototype.delete;
  const { serialize, wellFormed, listen } = serializer;
  const getter = (ctor, name) => (typeof ctor === "function" ? getOwnPropertyDescriptor(ctor.prototype, name)?.get : undefined);
  const errorEventGetters = ["message", "filename", "lineno", "colno", "error"].map((name) => [name, getter(g.ErrorEvent, name)]);
  const reasonGetter = getter(g.PromiseRejectionEvent, "reason");
  const cspGetters = ["effectiveDirective", "blockedURI", "sourceFile", "lineNumber", "columnNumber", "disposition"].map((name) => [
    name,
    getter(g.SecurityPolicyViolationEvent, name),
  ]);

  // ---- Wrapped built-ins look like the ones they replace: their source text is the native one,
  // through Function.prototype.toString too (which is itself wrapped, and answers its own native
  // text), their `length` is the native's, and an error the native throws does not show a frame of
  // tabpilot's files. inject.js and files.js wrap theirs with the same `disguise`.
  const nativeToString = Function.prototype.toString;
  const shown = new WeakMap(); // wrapper -> the native whose text it answers
  const hideFrames = (err, wrapper) => {
    try {
      if (captureStack && err !== null && typeof err === "object") apply(captureStack, ErrorCtor, [err, wrapper]);
    } catch {}
  };
  // Calls the native a wrapper replaced, as the page called the wrapper.
  const callNative = (native, self, args, wrapper) => {
    try {
      return apply(native, self, args);
    } catch (err) {
      hideFrames(err, wrapper);
      throw err;
    }
  };
  const disguise = (wrapper, native) => {
    apply(weakSet, shown, [wrapper, native]);
    try {
      const length = create(null);
      length.value = getOwnPropertyDescriptor(native, "length")?.value ?? 0;
      length.configurable = true;
      defineProperty(wrapper, "length", length);
    } catch {}
    return wrapper;
  };
  const toStrings = {
    toString() {
      const native = apply(weakGet, shown, [this]);
      return callNative(nativeToString, native === undefined ? this : native, [], toStrings.toString);
    },
  };
  disguise(toStrings.toString, nativeToString);
  // Installs a wrapper as the native's own property is: same writable, enumerable, configurable.
  const install = (target, name, wrapper, native) => {
    const descriptor = create(null);
    const old = getOwnPropertyDescriptor(target, name);
    descriptor.value = disguise(wrapper, native);
    descriptor.writable = old ? old.writable !== false : true;
    descriptor.enumerable = old ? old.enumerable === true : false;
    descriptor.configurable = true;
    defineProperty(target, name, descriptor);
  };
  install(Function.prototype, "toString", toStrings.toString, nativeToString);

  // On while AI Web Pilot is on (content.js says so through inject.js, from the worker's word a few
  // ms after the page starts). Until that first word the log is kept as usual: the page-world files
  // are meant to be there only where the switch was on when the page loaded, and the worker keeps
  // nothing that reaches it while the switch is off.
  let keeping = true;

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

  // ---- The queue, and the sink of the paired channel (`current`, set by attach below).
  let waiting = list();
  let dropped = 0;
  let timer = null;
  let current = null; // [sink] of the newest channel: the one content script still in charge

  const flush = () => {
    timer = null;
    if (current === null || (waiting.length === 0 && dropped === 0)) return;
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
    try {
      current[0](json);
    } catch {}
  };

  const push = (entry) => {
    if (!keeping) return;
    entry.time = now();
    waiting[waiting.length] = entry;
    if (waiting.length > MAX_WAITING) {
      const kept = list();
      for (let i = waiting.length - MAX_WAITING; i < waiting.length; i++) kept[kept.length] = waiting[i];
      waiting = kept;
      dropped += 1;
    }
    if (current === null) return;
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
        if (keeping) {
          try {
            let stack;
            try {
              stack = new ErrorCtor().stack;
            } catch {}
            record(method, LEVELS[method], formatArgs(args), whereFrom(stack));
          } catch {}
        }
        return callNative(native, this, args, wrappers[method]);
      },
    };
    install(console, method, wrappers[method], native);
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
  const windowListeners = list();
  const on = (type, listener) => {
    const pair = list();
    pair[0] = type;
    pair[1] = (event) => {
      if (keeping) listener(event);
    };
    windowListeners[windowListeners.length] = pair;
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

  // ---- Response bodies of fetch and XHR, for browser_network_requests' include_body, sent like log
  // entries (type "body"); the worker keeps a tab's last few and matches them to its requests.
  //
  // Only what the page itself consumes is read, and never more than MAX_READ bytes of it:
  // - A response of the page's fetch is read when the page asks for its whole body (text(), json(),
  //   arrayBuffer(), blob(), formData(), bytes()). Those read the body to its end anyway, at the
  //   network's pace, so a copy read beside them takes nothing the page did not ask for. text()'s
  //   own answer is kept as it is; for the others a clone is read through a reader, and cancelled
  //   once MAX_READ bytes have come (then `size` is not known). Not at the response: Chrome's
  //   clone() of a network body (BytesConsumerTee in Blink) drains the network into both copies as
  //   fast as it comes, whoever reads, so an early clone would buffer a body the page reads slowly,
  //   or never, without end; that is how an endless chunked stream grew a tab to a gigabyte.
  // - A body the page reads as a stream (response.body) is not read at all, for the same reason: a
  //   copy would take the stream off the page's pace. Its entry says so.
  // - An event stream (text/event-stream) is never read, whichever way the page reads it. A
  //   WebSocket's upgrade never reaches fetch or XHR, and its messages are not hooked.
  // - An XHR is read once it has loaded, from what it holds (it keeps the whole body itself).
  const MAX_BODY = 64 * 1024;
  const MAX_READ = 4 * 1024 * 1024;
  const upper = String.prototype.toUpperCase;
  const recordBody = (source, method, url, status, read) => {
    const entry = create(null);
    entry.type = "body";
    entry.source = source;
    entry.method = typeof method === "string" ? apply(upper, method, []) : "GET";
    entry.url = cut(wellFormed(StringCtor(url)), 2048);
    entry.status = status;
    // text: what was read (its start at least), or null and `note` says why; size: the whole
    // body's length in characters, null when it was not read to its end.
    const done = (text, note, size = typeof text === "string" ? text.length : null) => {
      if (typeof text === "string") {
        entry.size = size;
        entry.truncated = size === null || size > MAX_BODY;
        entry.body = wellFormed(text.length > MAX_BODY ? apply(slice, text, [0, MAX_BODY]) : text);
        if (note) entry.note = note;
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
  const failure = (err) => "could not be read: " + StringCtor(err?.message ?? err);
  const EVENT_STREAM = "an event stream (text/event-stream): tabpilot never reads one";
  const isEventStream = (type) => typeof type === "string" && apply(indexOf, apply(toLowerCase, type, []), ["text/event-stream"]) !== -1;

  const ResponseProto = typeof g.Response === "function" ? g.Response.prototype : null;
  const responseGet = (name) => ResponseProto && getOwnPropertyDescriptor(ResponseProto, name)?.get;
  const [responseUrl, responseStatus, responseHeaders, responseType, responseBody, responseUsed] = ["url", "status", "headers", "type", "body", "bodyUsed"].map(
    responseGet,
  );
  const responseClone = ResponseProto?.clone;
  const headersGet = typeof g.Headers === "function" ? g.Headers.prototype.get : null;
  const StreamProto = typeof g.ReadableStream === "function" ? g.ReadableStream.prototype : null;
  const getReader = StreamProto?.getReader;
  const ReaderProto = typeof g.ReadableStreamDefaultReader === "function" ? g.ReadableStreamDefaultReader.prototype : null;
  const readerRead = ReaderProto?.read;
  const readerCancel = ReaderProto?.cancel;
  const TextDecoderCtor = typeof g.TextDecoder === "function" ? g.TextDecoder : null;
  const decode = TextDecoderCtor?.prototype.decode;
  const byteLength = getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "byteLength")?.get;
  const requestMethod = getter(g.Request, "method");
  const nativeFetch = g.fetch;
  const canRead = ResponseProto && responseClone && responseBody && getReader && readerRead && readerCancel && TextDecoderCtor && headersGet;
  if (typeof nativeFetch === "function" && canRead) {
    const fetched = new WeakMap(); // a response of the page's fetch, until its body is taken -> method
    const methodOf = (input, init) => {
      try {
        // Read once: a page's getter sees the hook read it as few times as possible.
        const method = init && typeof init === "object" ? init.method : undefined;
        if (typeof method === "string") return method;
        if (requestMethod && typeof input === "object" && input !== null) return apply(requestMethod, input, []);
      } catch {}
      return "GET";
    };
    // The response's method, once: a body is recorded the first time the page takes it.
    const claim = (response) => {
      if (!keeping) return undefined;
      const method = apply(weakGet, fetched, [response]);
      if (method !== undefined) apply(weakDelete, fetched, [response]);
      return method;
    };
    const header = (response, name) => apply(headersGet, apply(responseHeaders, response, []), [name]);
    // Why a response taken whole is not read, or null.
    const unread = (response) => {
      if (apply(responseType, response, []) === "opaque") return "an opaque (no-cors) response: its body is hidden from the page";
      if (isEventStream(header(response, "content-type"))) return EVENT_STREAM;
      return null;
    };
    const recordFetch = (response, method, read) =>
      recordBody("fetch", method, apply(responseUrl, response, []), apply(responseStatus, response, []), read);

    // Reads a clone to its end or to MAX_READ bytes, whichever comes first, then lets it go.
    const readClone = (copy, done) => {
      const stream = apply(responseBody, copy, []);
      if (stream === null) return done(""); // no body (a 204, a HEAD)
      const reader = apply(getReader, stream, []);
      const decoder = new TextDecoderCtor();
      let text = ""; // its start: what the entry can hold
      let chars = 0;
      let bytes = 0;
      const take = (part) => {
        chars += part.length;
        if (text.length <= MAX_BODY) text += part;
      };
      const step = () =>
        listen(
          apply(readerRead, reader, []),
          (result) => {
            try {
              if (result.done) {
                take(apply(decode, decoder, []));
                return done(text, undefined, chars);
              }
              const chunk = result.value;
              bytes += apply(byteLength, chunk, []);
              const streamOn = create(null);
              streamOn.stream = true;
              take(apply(decode, decoder, [chunk, streamOn]));
              if (bytes < MAX_READ) return step();
              listen(apply(readerCancel, reader, []), () => {}, () => {});
              done(text, `only its first ${MAX_READ} bytes were read: its whole length is not known`, null);
            } catch (err) {
              done(null, failure(err));
            }
          },
          (err) => done(null, failure(err)),
        );
      step();
    };

    const whole = (name) => {
      const native = ResponseProto[name];
      if (typeof native !== "function") return;
      const wrappers = {
        [name](...args) {
          const method = claim(this);
          if (method === undefined) return callNative(native, this, args, wrappers[name]);
          const why = unread(this);
          if (why !== null) {
            recordFetch(this, method, (done) => done(null, why));
            return callNative(native, this, args, wrappers[name]);
          }
          let copy = null;
          if (name !== "text") {
            try {
              copy = apply(responseClone, this, []); // before the native disturbs the body
            } catch {}
          }
          const promise = callNative(native, this, args, wrappers[name]);
          const response = this;
          if (name === "text") {
            listen(
              promise,
              (text) => recordFetch(response, method, (done) => done(text)),
              (err) => recordFetch(response, method, (done) => done(null, failure(err))),
            );
          } else if (copy !== null) {
            recordFetch(response, method, (done) => readClone(copy, done));
          }
          return promise;
        },
      };
      install(ResponseProto, name, wrappers[name], native);
    };
    for (const name of ["text", "json", "arrayBuffer", "blob", "formData", "bytes"]) whole(name);

    // response.body: a page that takes it may read it as a stream, or only look (a library checks
    // that it is there before it calls text()). Once the page has begun to read it (bodyUsed) with
    // none of the methods above, its entry says that it was not read.
    const STREAMED = "read by the page as a stream (response.body): tabpilot does not read those, so that the page reads at its own pace";
    const bodyWrappers = {
      get body() {
        const response = this;
        if (keeping && apply(weakGet, fetched, [response]) !== undefined) {
          apply(setTimer, g, [
            () => {
              try {
                if (apply(responseUsed, response, []) !== true) return;
                const method = claim(response);
                if (method !== undefined) recordFetch(response, method, (done) => done(null, unread(response) ?? STREAMED));
              } catch {}
            },
            0,
          ]);
        }
        return callNative(responseBody, this, [], bodyWrapper);
      },
    };
    const bodyWrapper = getOwnPropertyDescriptor(bodyWrappers, "body").get;
    const bodyDescriptor = create(null);
    bodyDescriptor.get = disguise(bodyWrapper, responseBody);
    bodyDescriptor.set = undefined;
    bodyDescriptor.enumerable = getOwnPropertyDescriptor(ResponseProto, "body").enumerable === true;
    bodyDescriptor.configurable = true;
    defineProperty(ResponseProto, "body", bodyDescriptor);

    const wrappers = {
      fetch(...args) {
        const promise = callNative(nativeFetch, this, args, wrappers.fetch);
        if (keeping) {
          try {
            const method = methodOf(args[0], args[1]);
            listen(promise, (response) => apply(weakSet, fetched, [response, method]), () => {});
          } catch {}
        }
        return promise;
      },
    };
    install(g, "fetch", wrappers.fetch, nativeFetch);
  }

  const XHR = typeof g.XMLHttpRequest === "function" ? g.XMLHttpRequest.prototype : null;
  if (XHR) {
    const xhrGet = (name) => getOwnPropertyDescriptor(XHR, name)?.get;
    const [xhrUrl, xhrStatus, xhrType, xhrText, xhrResponse] = ["responseURL", "status", "responseType", "responseText", "response"].map(xhrGet);
    const xhrHeader = XHR.getResponseHeader;
    const nativeOpen = XHR.open;
    const nativeSend = XHR.send;
    const methods = new WeakMap();
    const onLoadEnd = function () {
      const xhr = this;
      if (!keeping) return;
      const status = apply(xhrStatus, xhr, []);
      if (status === 0) return; // failed or aborted: the network log says why
      recordBody("xhr", apply(weakGet, methods, [xhr]), apply(xhrUrl, xhr, []), status, (done) => {
        if (isEventStream(apply(xhrHeader, xhr, ["content-type"]))) return done(null, EVENT_STREAM);
        const kind = apply(xhrType, xhr, []);
        if (kind === "" || kind === "text") return done(apply(xhrText, xhr, []));
        if (kind === "json") return done(jsonStringify(apply(xhrResponse, xhr, [])));
        done(null, `a responseType "${kind}" response is not kept`);
      });
    };
    const wrappers = {
      open(...args) {
        if (keeping) {
          try {
            apply(weakSet, methods, [this, StringCtor(args[0])]);
          } catch {}
        }
        return callNative(nativeOpen, this, args, wrappers.open);
      },
      send(...args) {
        if (keeping) {
          try {
            apply(addListener, this, ["loadend", onLoadEnd]);
          } catch {}
        }
        return callNative(nativeSend, this, args, wrappers.send);
      },
    };
    install(XHR, "open", wrappers.open, nativeOpen);
    install(XHR, "send", wrappers.send, nativeSend);
  }

  // ---- The hook inject.js holds (and a second copy's inject.js, through HELLO).
  const answerHello = (event) => {
    try {
      const box = apply(detailGetter, event, []);
      if (box !== null && typeof box === "object") box.hook = hook;
    } catch {}
  };
  // Adds this file's listeners again: document.open() erases the window's and the document's
  // (inject.js calls this when it sees the document emptied; adding a listener twice is a no-op).
  const relisten = () => {
    for (let i = 0; i < windowListeners.length; i++) {
      try {
        apply(addListener, g, [windowListeners[i][0], windowListeners[i][1], true]);
      } catch {}
    }
    if (doc) {
      try {
        apply(addListener, doc, [HELLO, answerHello]);
      } catch {}
    }
  };
  const hook = freeze({
    // A sink gets each batch as JSON text: {entries: [...], dropped}. The newest sink replaces the
    // one before: content.js retires its earlier copy when a new one pairs. Answers a function that
    // turns the log on or off, heard only while this sink is the newest.
    attach(sink) {
      if (typeof sink !== "function") return () => {};
      const attached = list();
      attached[0] = sink;
      current = attached;
      flush();
      return (on) => {
        if (current !== attached) return;
        keeping = on === true;
        if (!keeping) {
          waiting = list();
          dropped = 0;
        }
      };
    },
    // Sends what waits now, synchronously (content.js asks before a query answers).
    flush,
    disguise,
    relisten,
  });
  relisten();
  g.__tabpilotPageLog = hook;
})();
