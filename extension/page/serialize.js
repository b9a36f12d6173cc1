// Safe serializer: turns any page value into JSON-safe data (docs/protocol.md §5).
// A classic script so that the page's MAIN world (at document_start), the other worlds the service
// worker uses (see executor.js) and node:vm tests load the same files: serialize-intrinsics.js
// (the captured built-ins), serialize-kinds.js (what a value is), then this one (how each kind
// is written out). It takes their exports off globalThis, and inject.js takes
// `__tabpilotSerialize` off globalThis, before any page script runs.
(() => {
  "use strict";

  const g = globalThis;
  const intrinsics = g.__tabpilotSerializeIntrinsics;
  const kinds = g.__tabpilotSerializeKinds;
  delete g.__tabpilotSerializeIntrinsics;
  delete g.__tabpilotSerializeKinds;
  if (!intrinsics || !kinds) {
    console.error(
      "tabpilot: page/serialize-intrinsics.js and page/serialize-kinds.js must load before page/serialize.js",
    );
    return;
  }
  const {
    apply, getOwnPropertyDescriptor, getOwnPropertyNames, getPrototypeOf, is, hasOwn, mapSize, mapEntries,
    mapIterNext, setSize, setValues, setIterNext, typedLength, bufferLength, dateGetTime, dateToISO,
    regexpSource, regexpFlags, symbolToString, bigintToString, jsonStringify, StringCtor, regexpExec, slice,
    indexOf, getRect, rectGetters, round, max, newList, newRecord, branded, wellFormed,
  } = intrinsics;
  const { classify, listen } = kinds;

  const LIMITS = Object.freeze({ depth: 10, items: 100, keys: 50, visits: 10000 });

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
    const row = max(1, found[1] - offset);
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
  // Read from descriptors, so no getter runs just to decide; an accessor's descriptor has no own
  // `value`, and reading one would find a page's Object.prototype.value.
  const inheritedMethod = (object, key) => {
    if (hasOwn(object, key)) return false;
    for (let proto = getPrototypeOf(object); proto !== null; proto = getPrototypeOf(proto)) {
      const descriptor = getOwnPropertyDescriptor(proto, key);
      if (descriptor) return hasOwn(descriptor, "value") && typeof descriptor.value === "function";
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
