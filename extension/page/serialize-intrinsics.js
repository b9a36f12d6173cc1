// The built-ins the serializer uses, captured before page scripts run, and the few safe primitives
// made from them. Loads first of the serializer's three files (then serialize-kinds.js and
// serialize.js), in every world they load in (see serialize.js); serialize.js takes
// `__tabpilotSerializeIntrinsics` off globalThis again, before any page script runs.
(() => {
  "use strict";

  // A page that later replaces built-ins can neither break nor fool the serializer. Brand checks
  // call these getters, which throw on foreign objects and work across realms (iframes, vm
  // contexts), unlike instanceof (which a page's Symbol.hasInstance answers). The global object is
  // read as `globalThis` only (executor.js says why).
  const g = globalThis;
  const { apply, defineProperty: define, deleteProperty } = Reflect;
  const { create, getOwnPropertyDescriptor, getOwnPropertyNames, getPrototypeOf, setPrototypeOf, is, hasOwn } = Object;
  const getter = (proto, name) => getOwnPropertyDescriptor(proto, name).get;

  const typedArrayTags = create(null);
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
    "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
    typedArrayTags[`[object ${name}]`] = true;
  }
  // The DOM's live lists (querySelectorAll, children, getElementsBy…) are lists to a caller. Keyed
  // by tag, like the checks in serialize-kinds.js: a brand check throws for every object that fails
  // it, far too dear to run on each plain object of a large result.
  const domListLengths = create(null);
  for (const name of ["NodeList", "HTMLCollection"]) {
    if (typeof g[name] === "function") domListLengths[`[object ${name}]`] = getter(g[name].prototype, "length");
  }
  // The `window` accessor is an own, unforgeable property of every window; called on anything else
  // it throws. Cross-origin windows allow it too.
  const windowDescriptor = getOwnPropertyDescriptor(g, "window");
  // An element's box, in CSS px of the viewport, read through the built-ins as they are now.
  const rectProto = typeof g.DOMRectReadOnly === "function" ? g.DOMRectReadOnly.prototype : null;
  const toWellFormed = String.prototype.toWellFormed;

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

  // Where `name` is found on `object`'s chain, by descriptors: no getter runs to find out.
  const lookup = (object, name) => {
    for (let o = object; o !== null; o = getPrototypeOf(o)) {
      const descriptor = getOwnPropertyDescriptor(o, name);
      if (descriptor) return descriptor;
    }
    return undefined;
  };

  // A record without a prototype, so that reading a name it lacks finds no page getter.
  const intrinsics = setPrototypeOf({
    apply,
    define,
    deleteProperty,
    create,
    getOwnPropertyDescriptor,
    getOwnPropertyNames,
    getPrototypeOf,
    is,
    hasOwn,
    isArray: Array.isArray,
    objectProto: Object.prototype,
    objectToString: Object.prototype.toString,
    mapSize: getter(Map.prototype, "size"),
    mapEntries: Map.prototype.entries,
    mapIterNext: getPrototypeOf(new Map().entries()).next,
    setSize: getter(Set.prototype, "size"),
    setValues: Set.prototype.values,
    setIterNext: getPrototypeOf(new Set().values()).next,
    typedLength: getter(getPrototypeOf(Uint8Array.prototype), "length"),
    bufferLength: getter(ArrayBuffer.prototype, "byteLength"),
    sharedLength: typeof SharedArrayBuffer === "function" ? getter(SharedArrayBuffer.prototype, "byteLength") : null,
    dateGetTime: Date.prototype.getTime,
    dateToISO: Date.prototype.toISOString,
    regexpSource: getter(RegExp.prototype, "source"),
    regexpFlags: getter(RegExp.prototype, "flags"),
    symbolToString: Symbol.prototype.toString,
    bigintToString: BigInt.prototype.toString,
    jsonStringify: JSON.stringify,
    StringCtor: String,
    PromiseCtor: Promise,
    promiseThen: Promise.prototype.then,
    isError: typeof Error.isError === "function" ? Error.isError : null,
    toStringTag: Symbol.toStringTag,
    regexpExec: RegExp.prototype.exec,
    slice: String.prototype.slice,
    indexOf: String.prototype.indexOf,
    typedArrayTags,
    domListLengths,
    nodeTypeGetter: typeof g.Node === "function" ? getter(g.Node.prototype, "nodeType") : null,
    windowGetter: windowDescriptor && typeof windowDescriptor.get === "function" ? windowDescriptor.get : null,
    domExceptionCode: typeof g.DOMException === "function" ? getter(g.DOMException.prototype, "code") : null,
    getRect: typeof g.Element === "function" ? g.Element.prototype.getBoundingClientRect : null,
    rectGetters: rectProto === null ? null
      : [getter(rectProto, "x"), getter(rectProto, "y"), getter(rectProto, "width"), getter(rectProto, "height")],
    round: Math.round,
    max: Math.max,
    newList,
    newRecord,
    branded,
    wellFormed,
    lookup,
  }, null);

  g.__tabpilotSerializeIntrinsics = Object.freeze(intrinsics);
})();
