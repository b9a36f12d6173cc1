// Safe serializer: turns any page value into JSON-safe data (docs/protocol.md §5).
// A classic script so that the page's MAIN world (at document_start) and node:vm tests load the
// same file; inject.js takes `__tabpilotSerialize` off globalThis before any page script runs.
(() => {
  "use strict";

  const LIMITS = Object.freeze({ depth: 10, items: 100, keys: 50, visits: 10000 });

  // Captured now, before page scripts run, so a page that later replaces built-ins can neither
  // break nor fool the serializer. Brand checks call these getters, which throw on foreign objects
  // and work across realms (iframes, vm contexts), unlike instanceof.
  const g = globalThis;
  const { apply } = Reflect;
  const { create, getOwnPropertyDescriptor, getPrototypeOf, setPrototypeOf, is, hasOwn } = Object;
  const isArray = Array.isArray;
  const getter = (proto, name) => getOwnPropertyDescriptor(proto, name).get;
  const objectToString = Object.prototype.toString;
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
  const ErrorCtor = Error;
  const PromiseCtor = Promise;
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
  const { split, replace, indexOf } = String.prototype;
  const { join } = Array.prototype;
  const NodeCtor = typeof g.Node === "function" ? g.Node : null;
  const WindowCtor = typeof g.Window === "function" ? g.Window : null;

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

  const safeString = (value) => {
    try {
      const json = typeof value === "object" && value !== null ? jsonStringify(value) : undefined;
      return typeof json === "string" ? json : StringCtor(value);
    } catch {
      return "[unprintable]";
    }
  };

  // The frames of tabpilot's own files tell a caller nothing, and Chrome names the script's own
  // frames `eval at compile (chrome-extension://…/executor.js:…), <anonymous>:LINE:COL`, counting
  // the two lines the Function constructor puts before the body. Keep the script's frames, as
  // `<script>:LINE:COL` with the script's own line numbers, and drop the rest of ours.
  const EVAL_FRAME = /\(eval at compile \([^)]*\), <anonymous>:(\d+):(\d+)\)/;
  const cleanStack = (stack) => {
    const lines = apply(split, stack, ["\n"]);
    const kept = [];
    for (let i = 0; i < lines.length; i++) {
      const line = apply(replace, lines[i], [
        EVAL_FRAME,
        (_, row, col) => `(<script>:${Math.max(1, row - 2)}:${col})`,
      ]);
      if (apply(indexOf, line, ["chrome-extension://"]) === -1) kept[kept.length] = line;
    }
    return apply(join, kept, ["\n"]);
  };

  const thrown = (err) => {
    let message;
    try {
      message = err !== null && typeof err === "object" ? err.message : undefined;
    } catch {}
    return `[Thrown: ${typeof message === "string" ? message : safeString(err)}]`;
  };

  const read = (object, key) => {
    try {
      return object[key];
    } catch {
      return undefined;
    }
  };

  // `instanceof` only sees this realm, so cross-realm nodes and windows are duck-typed as well.
  const isWindow = (value) => {
    if (WindowCtor !== null && value instanceof WindowCtor) return true;
    if (read(value, "window") !== value) return false;
    try {
      return typeof value.document === "object";
    } catch {
      return true; // a cross-origin window refuses .document but is still a window
    }
  };

  const isNode = (value) =>
    (NodeCtor !== null && value instanceof NodeCtor) ||
    (typeof read(value, "nodeType") === "number" && typeof read(value, "nodeName") === "string");

  // The tag is a cheap first guess (no exception); the brand check confirms it, so a plain object
  // claiming Symbol.toStringTag "Map" stays an object.
  const classifyObject = (value) => {
    if (isArray(value)) return "array";
    if (isWindow(value)) return "window";
    if (isNode(value)) return "node";
    const tag = apply(objectToString, value, []);
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
        return "promise";
      case "[object Error]":
        return "error";
    }
    if (typedArrayTags[tag] === true && branded(typedLength, value)) return "typedarray";
    const domLength = domListLengths[tag];
    if (domLength !== undefined && branded(domLength, value)) return "array";
    if (value instanceof ErrorCtor) return "error"; // DOMException and friends carry their own tag
    if (value instanceof PromiseCtor) return "promise";
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

  const text = (value) => (typeof value === "string" ? value : value === undefined ? null : safeString(value));

  const errorOut = (err) => {
    const out = newRecord();
    out.error = text(read(err, "message"));
    out.name = text(read(err, "name"));
    const stack = read(err, "stack");
    out.stack = typeof stack === "string" ? cleanStack(stack) : text(stack);
    return out;
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
    }
    return "[" + label + "]";
  };

  const leafOut = (value, kind) => {
    switch (kind) {
      case "undefined":
      case "null":
        return null;
      case "boolean":
      case "string":
        return value;
      case "number":
        return numberOut(value);
      case "bigint":
        return apply(bigintToString, value, []) + "n";
      case "symbol":
        return apply(symbolToString, value, []);
      case "function": {
        const name = read(value, "name");
        return `[Function: ${typeof name === "string" && name !== "" ? name : "anonymous"}]`;
      }
      case "error":
        return errorOut(value);
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
    const leaf = leafOut(value, kind);
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
      if (count < LIMITS.keys) out[key] = child(object, key, depth, state);
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

  /** serialize(value) -> {result, result_type}: `result` is JSON-safe, whatever `value` is. */
  const serialize = (value) => {
    const state = { visits: 1, ancestors: newList() };
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

  g.__tabpilotSerialize = Object.freeze({ serialize, classify, cleanStack, LIMITS });
})();
