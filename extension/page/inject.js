// Page-world end of the channel (docs/protocol.md §3): pairs with content.js through a secret event
// name, runs each request with the executor and answers with the serialized value. It also answers
// alert/confirm/prompt while a command runs, and tells content.js about the ones between commands.
// Runs in the MAIN world at document_start, after serialize.js, returns.js and
// executor.js.
(() => {
  "use strict";

  const g = globalThis;
  const serializer = g.__tabpilotSerialize;
  const executor = g.__tabpilotExecutor;
  const pageLog = g.__tabpilotPageLog; // page-log.js: the console log, sent once paired
  // Take the libraries off the page's globals before any page script can see or wrap them.
  delete g.__tabpilotPageLog;
  delete g.__tabpilotSerialize;
  delete g.__tabpilotReturns;
  delete g.__tabpilotExecutor;
  if (!serializer || !executor) {
    console.error("tabpilot: page/serialize.js, page/returns.js and page/executor.js must load before page/inject.js");
    return;
  }

  // A second copy (the service worker re-injecting the page-world files) stands down while an
  // unpaired copy is waiting: two paired copies would run every script twice. A paired copy is
  // left alone, since its content script may be gone and a new one needs a partner. The copies
  // find each other with a synchronous event on the document, not a property of window: nothing
  // of tabpilot's is on the page's globals for a script that lists them (page-log.js says more).
  const HELLO = "tabpilot:inject";
  const doc = g.document;
  const { apply } = Reflect;
  const { create, defineProperty, getOwnPropertyDescriptor, setPrototypeOf } = Object;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const CustomEventCtor = CustomEvent;
  const detailGetter = getOwnPropertyDescriptor(CustomEvent.prototype, "detail").get;
  const asked = create(null);
  try {
    const init = create(null);
    init.detail = asked;
    apply(dispatch, doc, [new CustomEventCtor(HELLO, init)]);
  } catch {}
  if (asked.unpaired === true) return;

  // Own copies of everything the channel touches, taken before page scripts run (protocol.md §3).
  // No prototype: a page's Array.prototype index setters or toJSON must not see or change them.
  const list = () => setPrototypeOf([], null);
  const addListener = EventTarget.prototype.addEventListener;
  const removeListener = EventTarget.prototype.removeEventListener;
  const targetGetter = getOwnPropertyDescriptor(Event.prototype, "target").get;
  const shadowRootGetter = g.Element ? getOwnPropertyDescriptor(g.Element.prototype, "shadowRoot")?.get : undefined;
  const frameDocument = (frame) => {
    for (const Frame of [g.HTMLIFrameElement, g.HTMLFrameElement]) {
      const getter = Frame && getOwnPropertyDescriptor(Frame.prototype, "contentDocument")?.get;
      try {
        const inner = getter && apply(getter, frame, []);
        if (inner) return inner;
      } catch {}
    }
    return null;
  };
  const preventDefault = Event.prototype.preventDefault;
  const jsonParse = JSON.parse;
  const jsonStringify = JSON.stringify;
  const StringCtor = String;
  const settledPromise = Promise.resolve();
  const setTimer = g.setTimeout;
  const MutationObserverCtor = typeof g.MutationObserver === "function" ? g.MutationObserver : null;
  const observe = MutationObserverCtor ? MutationObserverCtor.prototype.observe : null;
  const { serialize, wellFormed, listen } = serializer;
  const { execute } = executor;
  // page-log.js's: a wrapper answers its native's source text (without it, as itself).
  const disguise = typeof pageLog?.disguise === "function" ? pageLog.disguise : (wrapper) => wrapper;

  let nonce = null;
  // Longest answer, in characters of JSON: 16 MiB, MAX_RESULT_CHARS in the daemon's protocol.py.
  // Refused here, where its size is first known, so that it never meets Chrome's 64 MiB message
  // limit on the way out, nor the daemon's frame limit.
  const MAX_RESULT_CHARS = 16 * 1024 * 1024;

  // True when a listener cancelled the event: its receipt.
  const fire = (type, detail, cancelable = false) => {
    const init = create(null); // no inherited `bubbles` or `detail` getters from the page
    init.detail = detail;
    init.cancelable = cancelable;
    return !apply(dispatch, doc, [new CustomEventCtor(type, init)]);
  };

  // An answer content.js did not take (it cancels the event as its receipt) lost its listener to
  // document.open(), which the script may have just called; content.js adds its listeners again
  // when it sees the document emptied, so the answer is sent again once that has run.
  const ANSWER_TRIES = 3;
  const deliver = (json, tries = 1) => {
    if (fire("tabpilot:res:" + nonce, json, true) || tries >= ANSWER_TRIES) return;
    apply(setTimer, undefined, [() => deliver(json, tries + 1), 0]);
  };

  const describe = (err) => {
    try {
      return typeof err?.message === "string" ? err.message : String(err);
    } catch {
      return "unknown error";
    }
  };

  const errorAnswer = (id, message, code = "extension_error") => {
    const error = create(null);
    error.code = code;
    error.message = message;
    const answer = create(null);
    answer.id = id;
    answer.ok = false;
    answer.error = error;
    return answer;
  };

  // Always answers: a result that cannot be encoded becomes an error, never silence.
  const send = (answer) => {
    let json;
    try {
      json = jsonStringify(answer);
    } catch (err) {
      json = jsonStringify(errorAnswer(answer.id, "the result could not be encoded as JSON: " + describe(err)));
    }
    if (json.length > MAX_RESULT_CHARS) {
      const message =
        `The script ran, but its result is ${json.length} characters of JSON, more than the ` +
        `${MAX_RESULT_CHARS} a result may have. Return less: a slice, a count or a summary.`;
      json = jsonStringify(errorAnswer(answer.id, message, "result_too_large"));
    }
    deliver(json);
  };

  // ---- Dialogs. While a command runs (until its outcome is known), alert/confirm/prompt answer
  // at once, as the request's `dialog` says, and are recorded in its answer. Between commands the
  // native dialog shows, and content.js hears of it first, so that a later command can report a
  // dialog that blocks the tab.
  const running = list(); // the commands under way, oldest first; the newest one's policy answers

  const toText = (value) => {
    try {
      return value === undefined ? "" : wellFormed(StringCtor(value));
    } catch (err) {
      return "[unprintable: " + describe(err) + "]";
    }
  };

  const answerDialog = (command, type, args) => {
    const entry = create(null);
    entry.type = type;
    entry.message = toText(args[0]);
    const accept = command.dialog === "accept";
    entry.action = accept ? "accepted" : "dismissed";
    let reply;
    if (type === "confirm") reply = accept;
    else if (type === "prompt") {
      reply = accept ? (typeof command.promptText === "string" ? command.promptText : toText(args[1])) : null;
      if (accept) entry.text = wellFormed(reply);
    }
    for (let i = 0; i < running.length; i++) running[i].dialogs[running[i].dialogs.length] = entry;
    return reply;
  };

  const tellContent = (phase, type, message) => {
    if (nonce === null) return;
    const detail = create(null);
    detail.phase = phase;
    detail.type = type;
    if (message !== undefined) detail.message = message;
    try {
      fire("tabpilot:dialog:" + nonce, jsonStringify(detail));
    } catch {}
  };

  const wrapDialog = (type) => {
    const native = g[type];
    if (typeof native !== "function") return;
    const wrappers = {
      // A method: like the native, it has no prototype and cannot be constructed.
      [type](...args) {
        if (running.length > 0) return answerDialog(running[running.length - 1], type, args);
        tellContent("open", type, toText(args[0]));
        try {
          return apply(native, this === undefined ? g : this, args);
        } finally {
          tellContent("closed", type);
        }
      },
    };
    const descriptor = create(null);
    descriptor.value = disguise(wrappers[type], native);
    descriptor.writable = true;
    descriptor.enumerable = true;
    descriptor.configurable = true;
    defineProperty(g, type, descriptor);
  };

  // ---- The element of execute_javascript with a ref. content.js dispatches the request's one-time
  // event on each frame and shadow host on the way to the element, then on the element: each
  // host's listener listens one level further in. Returns what the request will run with.
  const receive = (name) => {
    const held = create(null);
    held.element = null;
    held.listening = list();
    const listenOn = (target) => {
      apply(addListener, target, [name, onEvent, true]);
      held.listening[held.listening.length] = target;
    };
    const onEvent = (event) => {
      const node = apply(targetGetter, event, []);
      const detail = apply(detailGetter, event, []);
      if (detail === "element") {
        held.element = node;
        apply(preventDefault, event, []);
        return;
      }
      let inner = null;
      try {
        inner = frameDocument(node) ?? (shadowRootGetter ? apply(shadowRootGetter, node, []) : null);
      } catch {}
      if (inner) {
        listenOn(inner);
        apply(preventDefault, event, []);
      }
    };
    listenOn(doc);
    held.stop = () => {
      for (let i = 0; i < held.listening.length; i++) apply(removeListener, held.listening[i], [name, onEvent, true]);
    };
    return held;
  };

  // ---- Running a request.
  const run = (request, held) => {
    const options = create(null);
    if (held) {
      held.stop();
      if (held.element === null) {
        // A closed shadow root is closed to the page's own scripts, and so to this world.
        const message =
          "The element with that ref is out of reach of the page's own scripts (inside a closed shadow root), " +
          "so execute_javascript cannot hand it to your function. browser_read and browser_act work on it; " +
          "or run a script without ref.";
        send(errorAnswer(request.id, message, "invalid_request"));
        return;
      }
      const args = list();
      args[0] = held.element;
      options.callWith = args;
    }
    options.awaitPromise = request.await_promise !== false;
    options.timeoutMs = request.timeout_ms;
    if (typeof request.deadline === "number") options.deadline = request.deadline;
    const command = create(null);
    command.dialog = request.dialog === "accept" ? "accept" : "dismiss";
    command.promptText = typeof request.prompt_text === "string" ? request.prompt_text : undefined;
    command.dialogs = list();
    const finish = () => {
      for (let i = running.length - 1; i >= 0; i--) {
        if (running[i] === command) {
          for (let j = i; j < running.length - 1; j++) running[j] = running[j + 1];
          running.length--;
          break;
        }
      }
    };
    const onFailure = (err) => {
      finish();
      send(errorAnswer(request.id, "tabpilot could not run the script: " + describe(err)));
    };
    const answerWith = (outcome) => {
      finish();
      const answer = create(null);
      answer.id = request.id;
      answer.ok = outcome.ok;
      if (outcome.ok) {
        const { result, result_type } = serialize(outcome.value);
        answer.result = result;
        answer.result_type = result_type;
      } else {
        answer.error = outcome.error;
      }
      answer.route = outcome.route;
      if (command.dialogs.length > 0) answer.dialogs = command.dialogs;
      send(answer);
    };
    running[running.length] = command;
    try {
      execute(request.script, options, (outcome) => {
        try {
          answerWith(outcome);
        } catch (err) {
          onFailure(err);
        }
      });
    } catch (err) {
      onFailure(err);
    }
  };

  // A ping runs nothing; it times the channel for the benchmark.
  const pong = (request) => {
    const answer = create(null);
    answer.id = request.id;
    answer.ok = true;
    answer.result = "pong";
    answer.result_type = "string";
    send(answer);
  };

  const onRequest = (event) => {
    let request;
    try {
      request = jsonParse(apply(detailGetter, event, []));
    } catch {
      return;
    }
    if (request === null || typeof request !== "object" || typeof request.id !== "string") return;
    // Cancelling the event is the receipt: content.js sees dispatchEvent() return false, and
    // knows the page world heard the request (after document.open() nobody does).
    apply(preventDefault, event, []);
    // With a ref, content.js hands the element over right after this event, before the job runs.
    const held = typeof request.target === "string" ? receive(request.target) : null;
    // Run outside the dispatch, so that window.event (which names the secret) is unset by then.
    // `listen` keeps a page's Promise.prototype.constructor getter from seeing (or stalling) it.
    listen(settledPromise, () => (request.ping === true ? pong(request) : run(request, held)), undefined);
  };

  const onChannel = (event) => {
    if (nonce !== null) return;
    const offered = apply(detailGetter, event, []);
    if (typeof offered !== "string" || offered.length !== 32) return;
    nonce = offered;
    apply(removeListener, doc, ["tabpilot:channel", onChannel]);
    const flushLog = () => pageLog?.flush();
    // The console log's batches go to content.js, which hands them to the worker; content.js says
    // whether the log is kept ("on" while AI Web Pilot is on, in the top frame).
    const logEvent = "tabpilot:log:" + nonce;
    // (A hook of another version, left by the extension before an update, may answer otherwise.)
    const attached = pageLog ? pageLog.attach((json) => fire(logEvent, json)) : undefined;
    const keepLog = typeof attached === "function" ? attached : () => {};
    const onLogState = (event) => {
      const state = apply(detailGetter, event, []);
      if (state === "on" || state === "off") keepLog(state === "on");
    };
    const hearRequests = () => {
      apply(addListener, doc, ["tabpilot:req:" + nonce, onRequest]);
      apply(addListener, doc, ["tabpilot:logflush:" + nonce, flushLog]);
      apply(addListener, doc, ["tabpilot:logstate:" + nonce, onLogState]);
      apply(addListener, doc, [HELLO, onHello]);
      if (typeof pageLog?.relisten === "function") pageLog.relisten();
    };
    hearRequests();
    // document.open() erases every listener on the document and the window; it also empties the
    // document, which this sees. Adding the same listener again is a no-op otherwise.
    if (MutationObserverCtor) apply(observe, new MutationObserverCtor(hearRequests), [doc, { childList: true }]);
    fire("tabpilot:ready:" + nonce, "");
  };

  // A later copy asks whether this one still waits for its partner.
  const onHello = (event) => {
    try {
      const box = apply(detailGetter, event, []);
      if (nonce === null && box !== null && typeof box === "object") box.unpaired = true;
    } catch {}
  };

  for (const type of ["alert", "confirm", "prompt"]) wrapDialog(type);
  apply(addListener, doc, [HELLO, onHello]);
  apply(addListener, doc, ["tabpilot:channel", onChannel]);
  fire("tabpilot:main-ready", "");
})();
