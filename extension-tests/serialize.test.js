// The safe serializer, loaded exactly as the page loads it: a classic script in a fresh realm.
import { test } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import { SERIALIZER_FILES, loadFiles, readFiles } from "./support/page-files.js";

const SOURCE = readFiles(SERIALIZER_FILES);

function load(globals = {}) {
  const context = vm.createContext({ ...globals });
  loadFiles(context, SOURCE);
  return { context, serialize: context.__tabpilotSerialize.serialize };
}

const { context, serialize } = load();
// What crosses the wire: JSON text, parsed in this realm so deepEqual compares plain data.
const wire = (value) => JSON.parse(JSON.stringify(serialize(value)));
const inRealm = (code) => vm.runInContext(code, context);

function nested(levels) {
  let value = { leaf: true };
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

function fakeElement(tagName, id = "", classes = []) {
  return { nodeType: 1, nodeName: tagName, tagName, id, classList: classes };
}

const throwingGetter = {
  ok: 1,
  get bad() {
    throw new Error("nope");
  },
  get odd() {
    throw "plain string";
  },
};

const circular = { name: "root", child: { up: null } };
circular.child.up = circular;
circular.self = circular;
const shared = { x: 1 };

const fakeWindow = { document: { nodeType: 9, nodeName: "#document" }, location: {} };
fakeWindow.window = fakeWindow;
fakeWindow.self = fakeWindow;

const CASES = [
  // [name, value, result, result_type]
  ["undefined", undefined, null, "undefined"],
  ["null", null, null, "null"],
  ["true", true, true, "boolean"],
  ["number", 42, 42, "number"],
  ["float", 1.5, 1.5, "number"],
  ["string", "hello world", "hello world", "string"],
  ["empty string", "", "", "string"],
  ["NaN", NaN, "NaN", "number"],
  ["Infinity", Infinity, "Infinity", "number"],
  ["-Infinity", -Infinity, "-Infinity", "number"],
  ["-0", -0, "-0", "number"],
  ["0", 0, 0, "number"],
  ["bigint", 12n, "12n", "bigint"],
  ["huge bigint", 2n ** 70n, "1180591620717411303424n", "bigint"],
  ["symbol", Symbol("tag"), "Symbol(tag)", "symbol"],
  ["symbol without description", Symbol(), "Symbol()", "symbol"],
  ["named function", function greet() {}, "[Function: greet]", "function"],
  ["arrow in a variable", (() => { const f = () => 1; return f; })(), "[Function: f]", "function"],
  ["anonymous function", (() => () => 1)(), "[Function: anonymous]", "function"],
  ["class", class Widget {}, "[Function: Widget]", "function"],
  ["date", new Date("2024-01-02T03:04:05.678Z"), "2024-01-02T03:04:05.678Z", "date"],
  ["invalid date", new Date(NaN), "Invalid Date", "date"],
  ["regexp", /ab+c/gi, "/ab+c/gi", "regexp"],
  ["regexp from this realm", inRealm("/x\\/y/m"), "/x\\/y/m", "regexp"],
  ["element", fakeElement("DIV", "id", ["class1", "class2"]), "[DIV#id.class1.class2]", "node"],
  ["element without id or class", fakeElement("SPAN"), "[SPAN]", "node"],
  ["text node", { nodeType: 3, nodeName: "#text" }, "[#text]", "node"],
  ["document", { nodeType: 9, nodeName: "#document" }, "[#document]", "node"],
  ["window", fakeWindow, "[Window]", "window"],
  ["promise", Promise.resolve(1), "[object Promise]", "promise"],
  ["promise from this realm", inRealm("Promise.resolve(1)"), "[object Promise]", "promise"],
  ["map", new Map([["a", 1], [2, { b: NaN }]]), [["a", 1], [2, { b: "NaN" }]], "map"],
  ["set", new Set([1, "two", 3n]), [1, "two", "3n"], "set"],
  ["Uint8Array", new Uint8Array([1, 2, 255]), [1, 2, 255], "typedarray"],
  ["Float64Array", new Float64Array([0.5, NaN, -0]), [0.5, "NaN", "-0"], "typedarray"],
  ["BigInt64Array", new BigInt64Array([1n, -2n]), ["1n", "-2n"], "typedarray"],
  ["ArrayBuffer", new ArrayBuffer(16), "[ArrayBuffer(16)]", "object"],
  ["array", [1, "a", null, undefined, [2]], [1, "a", null, null, [2]], "array"],
  ["sparse array", [1, , 3], [1, null, 3], "array"],
  ["object", { name: "test", value: 42 }, { name: "test", value: 42 }, "object"],
  ["nested specials", { u: undefined, n: NaN, d: new Date(0), f() {} },
    { u: null, n: "NaN", d: "1970-01-01T00:00:00.000Z", f: "[Function: f]" }, "object"],
  ["inherited enumerable keys", Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } }),
    { own: 2, inherited: 1 }, "object"],
  ["null prototype object", Object.assign(Object.create(null), { a: 1 }), { a: 1 }, "object"],
  ["getter that throws", throwingGetter, { ok: 1, bad: "[Thrown: nope]", odd: "[Thrown: plain string]" }, "object"],
  ["circular", circular, { name: "root", child: { up: "[Circular]" }, self: "[Circular]" }, "object"],
  ["value seen twice is repeated", [shared, shared], [{ x: 1 }, { x: 1 }], "array"],
  ["window inside an object", { w: fakeWindow }, { w: "[Window]" }, "object"],
  ["key named __proto__", JSON.parse('{"__proto__": 1}'), { ["__proto__"]: 1 }, "object"],
  ["revoked proxy", (() => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy; })(),
    "[Thrown: Cannot perform 'IsArray' on a proxy that has been revoked]", "object"],
];

for (const [name, value, result, resultType] of CASES) {
  test(`serializes ${name}`, () => {
    assert.deepEqual(wire(value), { result, result_type: resultType });
  });
}

test("an Error becomes {error, name, stack}", () => {
  const err = new TypeError("bad thing");
  assert.deepEqual(wire(err), { result: { error: "bad thing", name: "TypeError", stack: err.stack }, result_type: "error" });
  const local = inRealm("new Error('here')");
  assert.equal(wire(local).result.error, "here");
  assert.equal(wire({ e: new Error("inner") }).result.e.error, "inner");
});

test("depth: containers nested deeper than 10 levels become placeholders", () => {
  let level = wire(nested(15)).result;
  for (let depth = 0; depth < 10; depth++) level = level.a; // level is now the object at depth 10
  assert.deepEqual(level, { a: "[Object]" });
  let list = [];
  for (let i = 0; i < 15; i++) list = [list];
  let item = wire(list).result;
  for (let depth = 0; depth < 10; depth++) item = item[0];
  assert.deepEqual(item, ["[Array]"]);
  // exactly 10 levels below the top still shows its leaves
  assert.deepEqual(JSON.stringify(wire(nested(10)).result).match(/"leaf":true/g).length, 1);
});

test("arrays, Sets, Maps and typed arrays keep 100 items and say how many more", () => {
  const items = Array.from({ length: 250 }, (_, i) => i);
  const expected = [...items.slice(0, 100), "... 150 more items"];
  assert.deepEqual(wire(items).result, expected);
  assert.deepEqual(wire(new Set(items)).result, expected);
  assert.deepEqual(wire(new Int32Array(items)).result, expected);
  const map = wire(new Map(items.map((i) => [i, String(i)]))).result;
  assert.equal(map.length, 101);
  assert.deepEqual(map[99], [99, "99"]);
  assert.equal(map[100], "... 150 more items");
  assert.deepEqual(wire(items.slice(0, 100)).result, items.slice(0, 100)); // exactly 100: no note
});

test("objects keep 50 keys and say how many more", () => {
  const big = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i]));
  const result = wire(big).result;
  const keys = Object.keys(result);
  assert.equal(keys.length, 51);
  assert.deepEqual(keys.slice(0, 50), Object.keys(big).slice(0, 50));
  assert.equal(result["..."], "30 more keys");
  const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
  assert.deepEqual(wire(fifty).result, fifty);
});

test("at most 10,000 values are visited, then [Truncated]", () => {
  // 1 outer + 100 × (1 inner + 100 items) = 10,101 visits: the 100th inner array is the 10,001st.
  const grid = Array.from({ length: 100 }, () => Array.from({ length: 100 }, (_, i) => i));
  const result = wire(grid).result;
  assert.equal(result[98][99], 99);
  assert.equal(result[99], "[Truncated]");
});

test("a huge window-like graph answers quickly and stays bounded", () => {
  const nodes = Array.from({ length: 2000 }, (_, i) => ({ id: i }));
  for (const node of nodes) {
    for (let k = 0; k < 300; k++) node[`p${k}`] = nodes[(node.id * 7 + k) % nodes.length];
    node.list = nodes;
  }
  const root = { document: { nodeType: 9, nodeName: "#document" }, nodes };
  const started = performance.now();
  const text = JSON.stringify(serialize(root));
  assert.ok(performance.now() - started < 2000, "serializing a huge graph must not hang");
  assert.ok(text.length < 2_000_000);
  assert.match(text, /\[Truncated\]/);
});

// A realm with a DOM-like Node: its nodeType getter throws on anything but a node, as the DOM's does.
const DOM_REALM = `
  const nodes = new WeakSet();
  class Node {
    constructor(name, id) { nodes.add(this); this._name = name; this._id = id; }
    get nodeType() { if (!nodes.has(this)) throw new TypeError("Illegal invocation"); return 1; }
    get nodeName() { return this._name; }
    get id() { return this._id; }
    get classList() { return ["wide"]; }
  }
  globalThis.Node = Node;`;

test("a DOM node is found by its brand (the nodeType getter) when the realm has Node", () => {
  const context = vm.createContext({});
  vm.runInContext(DOM_REALM, context);
  loadFiles(context, SOURCE);
  const node = vm.runInContext("new Node('SECTION', 'main')", context);
  assert.deepEqual({ ...context.__tabpilotSerialize.serialize(node) }, { result: "[SECTION#main.wide]", result_type: "node" });
});

test("a page's Symbol.hasInstance and Symbol.toStringTag cannot change what a value is", () => {
  const context = vm.createContext({});
  vm.runInContext(DOM_REALM, context);
  loadFiles(context, SOURCE);
  const values = vm.runInContext(
    `for (const C of [Node, Error, Promise, Object, Array]) {
       Object.defineProperty(C, Symbol.hasInstance, { value: () => true, configurable: true });
     }
     globalThis.Window = class Window {};
     Object.defineProperty(Window, Symbol.hasInstance, { value: () => true });
     [{ a: 1 }, { [Symbol.toStringTag]: "Promise", b: 2 }, { [Symbol.toStringTag]: "Error", c: 3 },
      Object.assign(Object.create({ [Symbol.toStringTag]: "Error" }), { d: 4 }),
      Object.assign(new (class Thing {})(), { e: 5 })]`,
    context,
  );
  const out = Array.from(values, (v) => JSON.parse(JSON.stringify(context.__tabpilotSerialize.serialize(v))));
  assert.deepEqual(out, [
    { result: { a: 1 }, result_type: "object" },
    { result: { b: 2 }, result_type: "object" },
    { result: { c: 3 }, result_type: "object" },
    { result: { d: 4 }, result_type: "object" },
    { result: { e: 5 }, result_type: "object" },
  ]);
});

test("each getter is read once", () => {
  const calls = {};
  const counted = {};
  for (const name of ["nodeType", "nodeName", "window", "document", "message", "then", "length"]) {
    Object.defineProperty(counted, name, {
      enumerable: true,
      get() {
        calls[name] = (calls[name] ?? 0) + 1;
        return name === "nodeType" || name === "length" ? 1 : name;
      },
    });
  }
  const out = wire(counted);
  assert.equal(out.result_type, "object");
  assert.deepEqual(calls, { nodeType: 1, nodeName: 1, window: 1, document: 1, message: 1, then: 1, length: 1 });
});

const LONE = "a\uD800b";
const WELL = "a\uFFFDb";
const STRING_CASES = [
  // [name, value, expected result]
  ["a string", LONE, WELL],
  ["an object key", { [LONE]: LONE }, { [WELL]: WELL }],
  ["a trailing high surrogate", "x\uDBFF", "x\uFFFD"],
  ["a lone low surrogate", "\uDC00y", "\uFFFDy"],
  ["a proper pair stays", "\uD83D\uDE00", "\uD83D\uDE00"],
  ["an Error's message", new Error(LONE), { error: WELL, name: "Error" }],
];

for (const [name, value, expected] of STRING_CASES) {
  test(`a lone surrogate in ${name} becomes U+FFFD`, () => {
    const { result } = serialize(value);
    if (result && typeof result === "object" && "stack" in result) delete result.stack;
    assert.deepEqual(JSON.parse(JSON.stringify(result)), expected);
    assert.ok(JSON.stringify(result).isWellFormed());
  });
}

test("an Error keeps its other own fields (code, cause, errors) in data", () => {
  const coded = Object.assign(new Error("bad", { cause: { why: "disk" } }), { code: "E_FULL" });
  const { result } = wire(coded);
  assert.deepEqual(result.data, { cause: { why: "disk" }, code: "E_FULL" });
  const aggregate = wire(new AggregateError([new Error("one"), "two"], "many")).result;
  assert.equal(aggregate.error, "many");
  assert.equal(aggregate.data.errors[0].error, "one");
  assert.equal(aggregate.data.errors[1], "two");
  assert.equal("data" in wire(new Error("plain")).result, false);
});

test("an Error whose fields lead back to it is [Circular] there", () => {
  const err = new Error("loop");
  err.cause = err;
  err.list = [err];
  assert.deepEqual(wire(err).result.data, { cause: "[Circular]", list: ["[Circular]"] });
  const { errorData } = context.__tabpilotSerialize;
  assert.deepEqual(JSON.parse(JSON.stringify(errorData(err))), { cause: "[Circular]", list: ["[Circular]"] });
});

test("errorData serializes a thrown Error's extra fields, or gives undefined", () => {
  const { errorData } = context.__tabpilotSerialize;
  assert.deepEqual(JSON.parse(JSON.stringify(errorData(Object.assign(new Error("x"), { code: 7n })))), { code: "7n" });
  assert.equal(errorData(new Error("x")), undefined);
});

test("a page getter on a promise's constructor never sees the promise being listened to", () => {
  const { context: page, serialize: guarded } = load();
  const seen = vm.runInContext(
    `globalThis.seen = [];
     Object.defineProperty(Promise.prototype, "constructor", { configurable: true, get() { seen.push(this); return Promise; } });
     seen`,
    page,
  );
  const promise = vm.runInContext("Promise.resolve('secret')", page);
  assert.equal(guarded(promise).result_type, "promise");
  assert.equal(seen.length, 0);
  assert.equal(Object.hasOwn(promise, "constructor"), false, "the shadowing property is gone");
});

test("a page replacing built-ins after load neither breaks nor fools it", () => {
  const { context: page, serialize: guarded } = load();
  vm.runInContext(
    `Object.defineProperty(Array.prototype, "toJSON", { value: () => "hijacked", configurable: true });
     Object.defineProperty(Object.prototype, "toJSON", { value: () => "hijacked", configurable: true });
     Map.prototype.entries = () => { throw new Error("tampered"); };
     Date.prototype.toISOString = () => "tampered";
     Array.isArray = () => false;`,
    page,
  );
  const value = vm.runInContext(`({ list: [1, 2], when: new Date(0), map: new Map([[1, 2]]) })`, page);
  const out = vm.runInContext("(v) => JSON.stringify(v)", page)(guarded(value));
  vm.runInContext("delete Object.prototype.toJSON; delete Array.prototype.toJSON", page);
  assert.deepEqual(JSON.parse(out), {
    result: { list: [1, 2], when: "1970-01-01T00:00:00.000Z", map: [[1, 2]] },
    result_type: "object",
  });
});

// Values of every kind, made in the page's realm; and a page script, run after the serializer
// loaded, that replaces each built-in the serializer calls or reads through.
const EVERY_KIND = `(() => {
  const err = new Error("bad", { cause: { why: "disk" } });
  err.stack = "Error: bad\\n    at f (eval at compileForm (chrome-extension://x/lib/executor.js:74:31), <anonymous>:5:7)";
  const loop = { name: "loop" };
  loop.self = loop;
  return { list: [1, "a\\uD800", null], map: new Map([[1, { x: 1 }]]), set: new Set([1, 2]), when: new Date(0),
    re: /a+/gi, big: 12n, sym: Symbol("s"), fn: function named() {}, err, typed: new Uint8Array([1, 2]),
    buf: new ArrayBuffer(4), host: Object.assign(Object.create({ get field() { return 3; }, method() {} }), { own: 1 }),
    loop, nan: NaN, promise: Promise.resolve(1), many: Array.from({ length: 101 }, (_, i) => i) };
})()`;
const EVERY_BUILT_IN = `
  const mapIteratorProto = Object.getPrototypeOf(new Map().entries());
  mapIteratorProto.next = () => ({ done: true });
  Object.keys = Object.getOwnPropertyNames = () => ["hijacked"];
  Object.getPrototypeOf = () => null;
  Object.getOwnPropertyDescriptor = () => undefined;
  Object.hasOwn = () => false;
  Reflect.apply = () => "hijacked";
  Array.isArray = () => false;
  for (const name of ["map", "forEach", "push", "slice", "join", "indexOf"]) Array.prototype[name] = () => { throw new Error(name); };
  JSON.stringify = () => "hijacked";
  Array.prototype[Symbol.iterator] = function* () { yield "hijacked"; };
  Map.prototype[Symbol.iterator] = Set.prototype[Symbol.iterator] = Array.prototype[Symbol.iterator];
  Map.prototype.entries = Set.prototype.values = () => { throw new Error("tampered"); };
  Object.defineProperty(Map.prototype, "size", { get: () => 0 });
  String.prototype.slice = String.prototype.indexOf = String.prototype.toWellFormed = () => "hijacked";
  RegExp.prototype.exec = () => null;
  Math.max = Math.round = () => "hijacked";
  Date.prototype.toISOString = Date.prototype.getTime = () => "hijacked";
  Symbol.prototype.toString = BigInt.prototype.toString = () => "hijacked";
  Function.prototype.call = Function.prototype.apply = () => "hijacked";
  Object.defineProperty(Promise.prototype, "then", { configurable: true, value: () => { throw new Error("then"); } });
  Object.defineProperty(Array.prototype, "toJSON", { configurable: true, value: () => "hijacked" });
  Object.defineProperty(Object.prototype, "toJSON", { configurable: true, value: () => "hijacked" });
  Object.defineProperty(Object.prototype, "value", { configurable: true, get: () => () => {} });`;

test("a page replacing every built-in the serializer uses, after it loaded, changes nothing it answers", () => {
  const answer = (tamper) => {
    const { context: page, serialize: guarded } = load();
    const value = vm.runInContext(EVERY_KIND, page);
    if (tamper) vm.runInContext(EVERY_BUILT_IN, page);
    return JSON.parse(JSON.stringify(guarded(value)));
  };
  const plain = answer(false);
  assert.equal(plain.result_type, "object");
  assert.equal(plain.result.err.stack, "Error: bad\n    at f (<script>:3:7)");
  assert.deepEqual(plain.result.host, { own: 1, field: 3 });
  assert.deepEqual(plain.result.map, [[1, { x: 1 }]]);
  assert.equal(plain.result.many.at(-1), "... 1 more items");
  assert.deepEqual(answer(true), plain);
});

test("a plain object that claims a Map tag stays an object", () => {
  const fake = { [Symbol.toStringTag]: "Map", a: 1 };
  assert.deepEqual(wire(fake), { result: { a: 1 }, result_type: "object" });
});

test("stacks keep the script's frames with its own line numbers and drop tabpilot's", () => {
  const { cleanStack } = context.__tabpilotSerialize;
  const ext = "chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf";
  const stack = [
    "Error: test error",
    `    at inner (eval at compileForm (${ext}/lib/executor.js:74:31), <anonymous>:4:9)`,
    `    at eval (eval at compileForm (${ext}/lib/executor.js:74:31), <anonymous>:3:7)`,
    `    at eval (eval at eval (eval at makeRunner (${ext}/lib/executor.js:80:3)), <anonymous>:5:2)`,
    `    at eval (eval at makeRunner (${ext}/lib/executor.js:80:3), <anonymous>:1:40)`,
    `    at ${ext}/lib/executor.js:119:17`,
    "    at new Promise (<anonymous>)",
    `    at execute (${ext}/lib/executor.js:107:12)`,
    "    at https://example.test/app.js:10:3",
  ].join("\n");
  assert.equal(
    cleanStack(stack),
    [
      "Error: test error",
      "    at inner (<script>:2:9)",
      "    at eval (<script>:1:7)",
      "    at eval (<script>:5:2)",
      "    at new Promise (<anonymous>)",
      "    at https://example.test/app.js:10:3",
    ].join("\n"),
  );
});

test("a returned Error's stack is cleaned the same way", () => {
  const ext = "chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf";
  const error = new Error("returned");
  error.stack = `Error: returned\n    at eval (eval at compileForm (${ext}/lib/executor.js:74:31), <anonymous>:3:7)\n    at ${ext}/inject.js:1:1`;
  assert.deepEqual(wire(error).result, { error: "returned", name: "Error", stack: "Error: returned\n    at eval (<script>:1:7)" });
});

test("a host object's inherited methods are left out, its fields and own functions kept", () => {
  // Web IDL puts attributes (accessors) and operations (methods) on the prototype, enumerable.
  const proto = {};
  Object.defineProperty(proto, "length", { get: () => 2, enumerable: true });
  Object.defineProperty(proto, "getItem", { value: function getItem() {}, enumerable: true });
  let getterCalls = 0;
  Object.defineProperty(proto, "expensive", {
    get: () => {
      getterCalls++;
      return "field";
    },
    enumerable: true,
  });
  const storage = Object.create(proto);
  storage.theme = "dark";
  storage.own = function own() {};
  assert.deepEqual(wire(storage).result, { theme: "dark", own: "[Function: own]", length: 2, expensive: "field" });
  assert.equal(getterCalls, 1, "deciding what to skip must not call getters");
});

test("DOM lists (NodeList, HTMLCollection) become lists", () => {
  const realm = load({});
  const NodeList = vm.runInContext(
    `(() => {
      class NodeList { constructor(items) { this.items = items; }
        get length() { return this.items.length; } item(i) { return this.items[i]; } }
      Object.defineProperty(NodeList.prototype, Symbol.toStringTag, { value: "NodeList" });
      return NodeList;
    })()`,
    vm.createContext({}),
  );
  // Load again with NodeList present, as in a page.
  const page = load({ NodeList });
  const list = new NodeList([fakeElement("H1"), fakeElement("P", "intro")]);
  list[0] = list.items[0];
  list[1] = list.items[1];
  const out = JSON.parse(JSON.stringify(page.serialize(list)));
  assert.deepEqual(out, { result: ["[H1]", "[P#intro]"], result_type: "array" });
  assert.equal(realm.serialize(list).result_type, "object", "without NodeList in the realm it is an object");
});
