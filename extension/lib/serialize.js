// Safe serializer: turns any page value into JSON-safe data (docs/protocol.md §5).
// A classic script so that the page's MAIN world (at document_start), the other worlds the service
// worker uses (see executor.js) and node:vm tests load the same file; inject.js takes
// `__tabpilotSerialize` off globalThis before any page script runs.
(() => {
  "use strict";

  const LIMITS = Object.freeze({ depth: 10, items: 100, keys: 50, visits: 10000 });

  // Captured now, before page scripts run, so a page that later replaces built-ins can neither
  // break nor fool the serializer. Brand checks call these getters, which throw on foreign objects
  // and work across realms (iframes, vm contexts), unlike instanceof (which a page's
  // Symbol.hasInstance answers). The global object is read as `globalThis` only (executor.js says why).
  const g = globalThis;
  const { apply, defineProperty: define, deleteProperty } = Reflect;
  const { create, getOwnPropertyDescriptor, getOwnPropertyNames, getPrototypeOf, setPrototypeOf, is, hasOwn } = Object;
  const isArray = Array.isArray;
  const getter = (proto, name) => getOwnPropertyDescriptor(proto, name).get;
  const objectProto = Object.prototype;
  const objectToString = objectProto.toString;
  const mapSize = getter(Map.prototype, "size");
  const mapEntries = Map.prototype.entries;
  const mapIterNext = getPrototypeOf(new Map().entries()).next;
  const setSize = getter(Set.prototype, "size");
  const setValues = Set.prototype.values;
  const setIterNext = getPrototypeOf(new Set().values()).next;
  const typedLength = getter(getPrototypeOf(Uint8Array.prototype), "length");
  const bufferLength = getter(ArrayBuffer.prototype, "byteLength");
  const sharedLength =
    typeof SharedArrayBuffer === "function" ? getter(SharedArrayBuffer.prototype, "byteLength") : null;
  const dateGetTime = Date.prototype.getTime;
  const dateToISO = Date.prototype.toISOString;
  const regexpSource = getter(RegExp.prototype, "source");
  const regexpFlags = getter(RegExp.prototype, "flags");
  const symbolToString = Symbol.prototype.toString;
  const bigintToString = BigInt.prototype.toString;
  const jsonStringify = JSON.stringify;
  const StringCtor = String;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const isError = typeof Error.isError === "function" ? Error.isError : null;
  const toStringTag = Symbol.toStringTag;
  const regexpExec = RegExp.prototype.exec;
  const { slice } = String.prototype;
  const toWellFormed = String.prototype.toWellFormed;
  const typedArrayTags = create(null);
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
    "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
    typedArrayTags[`[object ${name}]`] = true;
  }
  // The DOM's live lists (querySelectorAll, children, getElementsBy…) are lists to a caller. Keyed
  // by tag, like the checks below: a brand check throws for every object that fails it, far too
  // dear to run on each plain object of a large result.
  const domListLengths = create(null);
  for (const name of ["NodeList", "HTMLCollection"]) {
    if (typeof g[name] === "function") domListLengths[`[object ${name}]`] = getter(g[name].prototype, "length");
  }
  const { indexOf } = String.prototype;
  const nodeTypeGetter = typeof g.Node === "function" ? getter(g.Node.prototype, "nodeType") : null;
  // The `window` accessor is an own, unforgeable property of every window; called on anything else
  // it throws. Cross-origin windows allow it too.
  const windowDescriptor = getOwnPropertyDescriptor(g, "window");
  const windowGetter = windowDescriptor && typeof windowDescriptor.get === "function" ? windowDescriptor.get : null;
  const domExceptionCode = typeof g.DOMException === "function" ? getter(g.DOMException.prototype, "code") : null;
  // An element's box, in CSS px of the viewport, read through the built-ins as they are now.
  const getRect = typeof g.Element === "function" ? g.Element.prototype.getBoundingClientRect : null;
  const rectProto = typeof g.DOMRectReadOnly === "function" ? g.DOMRectReadOnly.prototype : null;
  const rectGetters = rectProto === null ? null
    : [getter(rectProto, "x"), getter(rectProto, "y"), getter(rectProto, "width"), getter(rectProto, "height")];
  const { round } = Math;

  // Output containers have no prototype: a page's Array.prototype.toJSON (old Prototype.js) or
  // Object.prototype setters must not reach JSON.stringify or our index assignments.
  const newList = () => setPrototypeOf([], null);
  const newRecord = () => create(null);

  const branded = (brandGetter, value) => {
    try {
      apply(brandGetter, value, []);
      return true;
    } catch {
      return false;
    }
  };

  // JSON text must be valid Unicode: a lone surrogate becomes U+FFFD (Chrome 111+, node 20).
  const wellFormed = (text) => apply(toWellFormed, text, []);

  const readable = (value) => {
    try {
      if (typeof value === "string") return wellFormed(value);
      const json = typeof value === "object" && value !== null ? jsonStringify(value) : undefined;
      return wellFormed(typeof json === "string" ? json : StringCtor(value));
    } catch {
      return "[unprintable]";
    }
  };
  const safeString = readable;

  // Where `name` is found on `object`'s chain, by descriptors: no getter runs to find out.
  const lookup = (object, name) => {
    for (let o = object; o !== null; o = getPrototypeOf(o)) {
      const descriptor = getOwnPropertyDescriptor(o, name);
      if (descriptor) return descriptor;
    }
    return undefined;
  };

  /**
   * listen(value, onValue, onReason) -> the promise `then` makes when `value` is a native promise
   * (the handlers get its outcome), else null. The captured `then` is the brand check (it throws for anything else before
   * reading a property), and it reads `value.constructor`: where that is a page getter, which would
   * be handed the promise, an own data property shadows it for the call.
   */
  const listen = (value, onValue, onReason) => {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return null;
    let shadowed = false;
    try {
      const found = lookup(value, "constructor");
      if (found && !hasOwn(found, "value")) {
        const descriptor = create(null); // no inherited `get` from a page's Object.prototype
        descriptor.value = PromiseCtor;
        descriptor.configurable = true;
        shadowed = define(value, "constructor", descriptor);
      }
      return apply(promiseThen, value, [onValue, onReason]);
    } catch {
      return null;
    } finally {
      if (shadowed) deleteProperty(value, "constructor");
    }
  };
  const ignore = () => {};

  // The frames of tabpilot's own files tell a caller nothing, and Chrome names the script's own
  // frames `eval at compile (chrome-extension://…/executor.js:…), <anonymous>:LINE:COL`, counting
  // the two lines the Function constructor puts before the body. Keep the script's frames, as
  // `<script>:LINE:COL` with the script's own line numbers, and drop the rest of ours.
  // A completion-value script runs by direct eval inside a runner: its frames read
  // `eval at eval (eval at makeRunner (…)), <anonymous>:LINE:COL`, with the script's own lines.
  // Captured exec only: String.prototype.replace and split would call the page's Symbol.replace.
  const FORM_FRAME = /\(eval at compileForm \([^)]*\), <anonymous>:(\d+):(\d+)\)/;
  const DIRECT_FRAME = /\(eval at [^()]*\(eval at makeRunner \([^)]*\)\), <anonymous>:(\d+):(\d+)\)/;
  const mapFrame = (line, pattern, offset) => {
    const found = apply(regexpExec, pattern, [line]);
    if (found === null) return line;
    const row = Math.max(1, found[1] - offset);
    return apply(slice, line, [0, found.index]) + `(<script>:${row}:${found[2]})` +
      apply(slice, line, [found.index + found[0].length]);
  };
  const cleanStack = (stack) => {
    let out = "";
    let start = 0;
    while (start <= stack.length) {
      let end = apply(indexOf, stack, ["\n", start]);
      if (end === -1) end = stack.length;
      const line = mapFrame(mapFrame(apply(slice, stack, [start, end]), DIRECT_FRAME, 0), FORM_FRAME, 2);
      if (apply(indexOf, line, ["chrome-extension://"]) === -1) out += (out === "" ? "" : "\n") + line;
      start = end + 1;
    }
    return out;
  };

  const thrown = (err) => {
    let message;
    try {
      message = err !== null && typeof err === "object" ? err.message : undefined;
    } catch {}
    return `[Thrown: ${typeof message === "string" ? wellFormed(message) : safeString(err)}]`;
  };

  const read = (object, key) => {
    try {
      return object[key];
    } catch {
      return undefined;
    }
  };

  // A data property's value, found without running a getter.
  const dataOf = (value, name) => {
    const descriptor = lookup(value, name);
    return descriptor && hasOwn(descriptor, "value") ? descriptor.value : undefined;
  };

  // In a realm without a DOM (node tests), windows and nodes are recognised by data properties.
  const isWindow = (value) =>
    windowGetter !== null ? branded(windowGetter, value) : dataOf(value, "window") === value;

  const isNode = (value) =>
    nodeTypeGetter !== null
      ? branded(nodeTypeGetter, value)
      : typeof dataOf(value, "nodeType") === "number" && typeof dataOf(value, "nodeName") === "string";

  // An Error has [[ErrorData]]: Error.isError says so where the browser has it; elsewhere the
  // built-in tag does, when no Symbol.toStringTag on the chain put it there.
  const isErrorObject = (value, tag) => {
    if (isError !== null) return isError(value);
    if (domExceptionCode !== null && branded(domExceptionCode, value)) return true;
    return tag === "[object Error]" && lookup(value, toStringTag) === undefined;
  };

  // The tag is a cheap first guess (no exception); the brand check confirms it, so a plain object
  // claiming Symbol.toStringTag "Map" stays an object.
  const classifyObject = (value) => {
    if (isArray(value)) return "array";
    // A failed brand check throws, too dear for every plain object of a large result, and an
    // object made by `{}` or Object.create(null) in this realm is neither a window nor a node.
    const proto = getPrototypeOf(value);
    if (proto !== objectProto && proto !== null) {
      if (isWindow(value)) return "window";
      if (isNode(value)) return "node";
    }
    const tag = apply(objectToString, value, []);
    if (isErrorObject(value, tag)) return "error";
    switch (tag) {
      case "[object Map]":
        if (branded(mapSize, value)) return "map";
        break;
      case "[object Set]":
        if (branded(setSize, value)) return "set";
        break;
      case "[object Date]":
        if (branded(dateGetTime, value)) return "date";
        break;
      case "[object RegExp]":
        if (branded(regexpSource, value)) return "regexp";
        break;
      case "[object ArrayBuffer]":
        if (branded(bufferLength, value)) return "arraybuffer";
        break;
      case "[object SharedArrayBuffer]":
        if (sharedLength !== null && branded(sharedLength, value)) return "arraybuffer";
        break;
      case "[object Promise]":
        if (listen(value, ignore, ignore)) return "promise";
        break;
    }
    if (typedArrayTags[tag] === true && branded(typedLength, value)) return "typedarray";
    const domLength = domListLengths[tag];
    if (domLength !== undefined && branded(domLength, value)) return "array";
    return "object";
  };

  // Returns the result_type of a value ("arraybuffer" is reported as "object").
  const classify = (value) => {
    if (value === null) return "null";
    const type = typeof value;
    return type === "object" ? classifyObject(value) : type; // typeof document.all is "undefined"
  };

  const numberOut = (n) => {
    if (n !== n) return "NaN";
    if (n === Infinity) return "Infinity";
    if (n === -Infinity) return "-Infinity";
    return is(n, -0) ? "-0" : n;
  };

  const text = (value) => (typeof value === "string" ? wellFormed(value) : value === undefined ? null : safeString(value));

  // An Error's own fields besides message and stack (code, cause, AggregateError's errors…), or
  // undefined when it has none.
  const errorFields = (err, depth, state) => {
    let names;
    try {
      names = getOwnPropertyNames(err);
    } catch {
      return undefined;
    }
    let out;
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (name === "message" || name === "stack") continue;
      out ??= newRecord();
      out[wellFormed(name)] = child(err, name, depth, state);
    }
    return out;
  };

  const errorOut = (err, depth, state) => {
    // An Error's fields may lead back to it (err.cause = err), like any container's.
    for (let i = 0; i < depth; i++) if (state.ancestors[i] === err) return "[Circular]";
    state.ancestors[depth] = err;
    const out = newRecord();
    out.error = text(read(err, "message"));
    out.name = text(read(err, "name"));
    const stack = read(err, "stack");
    out.stack = typeof stack === "string" ? wellFormed(cleanStack(stack)) : text(stack);
    const data = depth < LIMITS.depth ? errorFields(err, depth, state) : undefined;
    if (data !== undefined) out.data = data;
    return out;
  };

  // ` @ (x,y) WxH`: where an element is, rounded; empty where there is no layout to ask.
  const boxOut = (node) => {
    if (getRect === null || rectGetters === null) return "";
    try {
      const rect = apply(getRect, node, []);
      // No array method or destructuring here: a page may have replaced them.
      const px = (i) => round(apply(rectGetters[i], rect, []));
      return ` @ (${px(0)},${px(1)}) ${px(2)}x${px(3)}`;
    } catch {
      return ""; // not an Element after all
    }
  };

  const nodeOut = (node) => {
    let label = text(read(node, "nodeName")) ?? "node";
    if (read(node, "nodeType") === 1) {
      const id = read(node, "id");
      if (typeof id === "string" && id !== "") label += "#" + id;
      const classes = read(node, "classList");
      const count = classes ? read(classes, "length") : 0;
      for (let i = 0; typeof count === "number" && i < count; i++) {
        const name = read(classes, i);
        if (typeof name === "string") label += "." + name;
      }
      label += boxOut(node);
    }
    return "[" + label + "]";
  };

  const leafOut = (value, kind, depth, state) => {
    switch (kind) {
      case "undefined":
      case "null":
        return null;
      case "boolean":
        return value;
      case "string":
        return wellFormed(value);
      case "number":
        return numberOut(value);
      case "bigint":
        return apply(bigintToString, value, []) + "n";
      case "symbol":
        return apply(symbolToString, value, []);
      case "function": {
        const name = read(value, "name");
        return `[Function: ${typeof name === "string" && name !== "" ? wellFormed(name) : "anonymous"}]`;
      }
      case "error":
        return errorOut(value, depth, state);
      case "date": {
        const time = apply(dateGetTime, value, []);
        return time !== time ? "Invalid Date" : apply(dateToISO, value, []);
      }
      case "regexp":
        return "/" + apply(regexpSource, value, []) + "/" + apply(regexpFlags, value, []);
      case "node":
        return nodeOut(value);
      case "window":
        return "[Window]";
      case "promise":
        return "[object Promise]";
      case "arraybuffer":
        return `[${branded(bufferLength, value) ? "ArrayBuffer" : "SharedArrayBuffer"}(${read(value, "byteLength")})]`;
    }
    return undefined; // a container
  };

  // One walk per serialize() call; `state` holds the visit budget and the chain of ancestors.
  const walk = (value, depth, state) => {
    if (++state.visits > LIMITS.visits) return "[Truncated]";
    try {
      return convert(value, classify(value), depth, state);
    } catch (err) {
      return thrown(err); // e.g. a revoked Proxy, or a Proxy whose traps throw
    }
  };

  const convert = (value, kind, depth, state) => {
    const leaf = leafOut(value, kind, depth, state);
    if (leaf !== undefined) return leaf;
    // Only enclosing objects count as circular (at most 11 of them, so a linear scan is cheap).
    for (let i = 0; i < depth; i++) if (state.ancestors[i] === value) return "[Circular]";
    if (depth > LIMITS.depth) return kind === "object" ? "[Object]" : "[Array]";
    state.ancestors[depth] = value;
    return kind === "object" ? objectOut(value, depth, state) : listOut(value, kind, depth, state);
  };

  const child = (container, key, depth, state) => {
    let value;
    try {
      value = container[key];
    } catch (err) {
      return thrown(err); // a getter that throws
    }
    return walk(value, depth + 1, state);
  };

  // Whether `key` is a method `object` inherits (a function held by a prototype's data property).
  // Read from descriptors, so no getter runs just to decide.
  const inheritedMethod = (object, key) => {
    if (hasOwn(object, key)) return false;
    for (let proto = getPrototypeOf(object); proto !== null; proto = getPrototypeOf(proto)) {
      const descriptor = getOwnPropertyDescriptor(proto, key);
      if (descriptor) return typeof descriptor.value === "function";
    }
    return false;
  };

  // for-in gives enumerable own and inherited keys: host objects like navigator keep their fields
  // on the prototype. Their inherited methods (localStorage.getItem, …) are left out: they are the
  // same for every object of the kind and only cost the caller tokens. Keys past the limit are
  // only counted.
  const objectOut = (object, depth, state) => {
    const out = newRecord();
    let count = 0;
    for (const key in object) {
      let skip;
      try {
        skip = inheritedMethod(object, key);
      } catch {
        skip = false; // a Proxy whose traps throw: let child() report it
      }
      if (skip) continue;
      if (count < LIMITS.keys) out[wellFormed(key)] = child(object, key, depth, state);
      count++;
    }
    if (count > LIMITS.keys) out["..."] = `${count - LIMITS.keys} more keys`;
    return out;
  };

  const iterate = (iterator, next, limit, each) => {
    for (let i = 0; i < limit; i++) {
      const step = apply(next, iterator, []);
      if (step.done) return;
      each(step.value);
    }
  };

  const listOut = (list, kind, depth, state) => {
    const out = newList();
    const limit = LIMITS.items;
    let total;
    if (kind === "map") {
      total = apply(mapSize, list, []);
      iterate(apply(mapEntries, list, []), mapIterNext, limit, (entry) => {
        const pair = newList();
        pair[0] = walk(entry[0], depth + 1, state);
        pair[1] = walk(entry[1], depth + 1, state);
        out[out.length] = pair;
      });
    } else if (kind === "set") {
      total = apply(setSize, list, []);
      iterate(apply(setValues, list, []), setIterNext, limit, (item) => {
        out[out.length] = walk(item, depth + 1, state);
      });
    } else {
      total = kind === "typedarray" ? apply(typedLength, list, []) : list.length;
      const shown = total < limit ? total : limit;
      for (let i = 0; i < shown; i++) out[i] = child(list, i, depth, state);
    }
    if (total > limit) out[out.length] = `... ${total - limit} more items`;
    return out;
  };

  const newState = () => {
    const state = newRecord();
    state.visits = 1;
    state.ancestors = newList();
    return state;
  };

  /** errorData(err) -> JSON-safe record of a thrown Error's other own fields, or undefined. */
  const errorData = (err) => {
    try {
      const state = newState();
      state.ancestors[0] = err;
      return errorFields(err, 0, state);
    } catch {
      return undefined;
    }
  };

  /** serialize(value) -> {result, result_type}: `result` is JSON-safe, whatever `value` is. */
  const serialize = (value) => {
    const state = newState();
    const out = newRecord();
    let kind = "object";
    try {
      kind = classify(value);
      out.result = convert(value, kind, 0, state);
    } catch (err) {
      out.result = thrown(err);
    }
    out.result_type = kind === "arraybuffer" ? "object" : kind;
    return out;
  };

  g.__tabpilotSerialize = Object.freeze({
    serialize,
    classify,
    cleanStack,
    errorData,
    wellFormed,
    readable,
    listen,
    LIMITS,
  });
})();
