// What kind of value the serializer is handed (a Map, an Error, a DOM node, a native promise…),
// told by brand checks through the captured built-ins of serialize-intrinsics.js, which loads
// just before; serialize.js loads next and takes `__tabpilotSerializeKinds` off globalThis
// again, before any page script runs.
(() => {
  "use strict";

  const {
    apply, define, deleteProperty, create, getPrototypeOf, hasOwn, isArray, objectProto, objectToString,
    mapSize, setSize, typedLength, bufferLength, sharedLength, dateGetTime, regexpSource, PromiseCtor,
    promiseThen, isError, toStringTag, typedArrayTags, domListLengths, nodeTypeGetter, windowGetter,
    domExceptionCode, branded, lookup,
  } = globalThis.__tabpilotSerializeIntrinsics;

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

  globalThis.__tabpilotSerializeKinds = Object.freeze({ classify, listen });
})();
