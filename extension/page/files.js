// browser_upload's page-world half (content/files.js is the other). While an upload is armed (a
// second or two around the click on its element), a page's own input.click() or showPicker() on a
// file input, or its window.showOpenFilePicker(), is answered with the upload's files instead of
// opening a chooser; then everything is put back as it was. The files come from a carrier input
// that content/files.js shows this world for one synchronous event (only DOM objects cross worlds).
(() => {
  "use strict";

  const g = globalThis;
  if (!g.HTMLInputElement) return;
  const { apply, defineProperty, getOwnPropertyDescriptor } = Reflect;
  const doc = g.document;
  const addListener = EventTarget.prototype.addEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const detailOf = getOwnPropertyDescriptor(CustomEvent.prototype, "detail").get;
  const CustomEventCtor = CustomEvent;

  // A second copy (the worker injects the page-world files again) stands down when a first one
  // answers this synchronous event: an event, not a property of window, so that nothing of
  // tabpilot's is on the page's globals (page-log.js says more).
  const HELLO = "tabpilot:files";
  const asked = Object.create(null);
  apply(dispatch, doc, [new CustomEventCtor(HELLO, { detail: asked })]);
  if (asked.here === true) return;
  apply(addListener, doc, [
    HELLO,
    (event) => {
      const box = apply(detailOf, event, []);
      if (box !== null && typeof box === "object") box.here = true;
    },
  ]);

  const proto = g.HTMLInputElement.prototype;
  // page-log.js's, before inject.js takes it off globalThis: a patch answers its native's source
  // text while it is in place.
  const disguise = typeof g.__tabpilotPageLog?.disguise === "function" ? g.__tabpilotPageLog.disguise : (wrapper) => wrapper;
  const typeOf = getOwnPropertyDescriptor(proto, "type").get;
  const filesOf = getOwnPropertyDescriptor(proto, "files").get;
  const setFiles = getOwnPropertyDescriptor(proto, "files").set;
  const multipleOf = getOwnPropertyDescriptor(proto, "multiple").get;
  const acceptOf = getOwnPropertyDescriptor(proto, "accept").get;
  const connected = getOwnPropertyDescriptor(Node.prototype, "isConnected").get;
  const targetOf = getOwnPropertyDescriptor(Event.prototype, "target").get;
  const { parse, stringify } = JSON;
  const DataTransferCtor = g.DataTransfer;
  const itemsOf = getOwnPropertyDescriptor(DataTransferCtor.prototype, "items").get;
  const EventCtor = Event;
  const PromiseCtor = Promise;
  const DOMExceptionCtor = DOMException;
  const setTimer = g.setTimeout;
  const clearTimer = g.clearTimeout;
  const listFrom = Array.from;
  const names = ["click", "showPicker"];
  const own = { click: proto.click, showPicker: proto.showPicker, showOpenFilePicker: g.showOpenFilePicker };

  let armed = null; // {token, files: [File], timer, patched: {name: fn}}

  const isFile = (el) => {
    try {
      return String(apply(typeOf, el, [])).toLowerCase() === "file";
    } catch {
      return false;
    }
  };

  function report(on, detail) {
    const init = { detail: stringify(detail), bubbles: true, composed: true };
    apply(dispatch, on, [new CustomEventCtor("tabpilot:files-chosen:" + armed.token, init)]);
  }

  function give(input) {
    const files = armed.files;
    const multiple = apply(multipleOf, input, []);
    const accept = apply(acceptOf, input, []);
    const on = apply(connected, input, []) ? input : doc;
    if (files.length > 1 && !multiple) {
      report(on, { via: "chooser", error: "multiple", accept });
    } else {
      const transfer = new DataTransferCtor();
      const items = apply(itemsOf, transfer, []);
      for (const file of files) items.add(file);
      apply(setFiles, input, [transfer.files]);
      report(on, { via: "chooser", accept });
      apply(dispatch, input, [new EventCtor("input", { bubbles: true, composed: true })]);
      apply(dispatch, input, [new EventCtor("change", { bubbles: true })]);
    }
    disarm();
  }

  function picker(options) {
    const files = armed.files;
    const multiple = options?.multiple === true;
    const accept = listFrom(options?.types ?? [], (t) => Object.values(t?.accept ?? {}).flat().join(",")).join(",");
    if (files.length > 1 && !multiple) {
      report(doc, { via: "picker", error: "multiple", accept });
      disarm();
      return PromiseCtor.reject(new DOMExceptionCtor("The user aborted a request.", "AbortError"));
    }
    report(doc, { via: "picker", accept });
    disarm();
    const handles = files.map((file) => ({
      kind: "file",
      name: file.name,
      getFile: () => PromiseCtor.resolve(file),
      isSameEntry: () => PromiseCtor.resolve(false),
      queryPermission: () => PromiseCtor.resolve("granted"),
      requestPermission: () => PromiseCtor.resolve("granted"),
    }));
    return PromiseCtor.resolve(handles);
  }

  const patched = {
    click() {
      if (armed && isFile(this)) return give(this);
      return apply(own.click, this, arguments);
    },
    showPicker() {
      if (armed && isFile(this)) return give(this);
      return apply(own.showPicker, this, arguments);
    },
    showOpenFilePicker(options) {
      if (armed) return picker(options);
      return apply(own.showOpenFilePicker, g, arguments);
    },
  };

  // As the natives are: writable, enumerable and configurable.
  const put = (target, name, value) => defineProperty(target, name, { value, configurable: true, writable: true, enumerable: true });
  for (const name of [...names, "showOpenFilePicker"]) if (own[name]) disguise(patched[name], own[name]);

  function patch() {
    for (const name of names) if (own[name]) put(proto, name, patched[name]);
    if (own.showOpenFilePicker) put(g, "showOpenFilePicker", patched.showOpenFilePicker);
  }

  // Puts back what was there, unless the page replaced it meanwhile.
  function disarm() {
    if (!armed) return;
    clearTimer(armed.timer);
    armed = null;
    for (const name of names) if (own[name] && proto[name] === patched[name]) put(proto, name, own[name]);
    if (own.showOpenFilePicker && g.showOpenFilePicker === patched.showOpenFilePicker) put(g, "showOpenFilePicker", own.showOpenFilePicker);
  }

  apply(addListener, doc, [
    "tabpilot:files-arm",
    (event) => {
      const carrier = apply(targetOf, event, []);
      let detail;
      try {
        detail = parse(apply(detailOf, event, []));
      } catch {
        return;
      }
      if (!isFile(carrier) || typeof detail?.token !== "string") return;
      disarm();
      const ms = Math.min(Number(detail.ms) || 2000, 10_000);
      armed = { token: detail.token, files: listFrom(apply(filesOf, carrier, [])), timer: apply(setTimer, g, [disarm, ms]) };
      patch();
    },
    true,
  ]);
  apply(addListener, doc, [
    "tabpilot:files-disarm",
    (event) => {
      if (armed && apply(detailOf, event, []) === armed.token) disarm();
    },
    true,
  ]);
})();
