// page/page-log.js in a page world of its own: what it makes of console calls, and how it hands
// them on (in batches, through the sink inject.js attaches once paired).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";
import { SERIALIZER_FILES, loadFiles, readFiles } from "./support/page-files.js";

const read = (path) => readFileSync(new URL(`../extension/${path}`, import.meta.url), "utf8");
const FILES = readFiles([...SERIALIZER_FILES, "page/page-log.js"]);

function makePage() {
  const printed = [];
  const pageConsole = Object.fromEntries(["log", "info", "warn", "error", "debug"].map((m) => [m, (...args) => printed.push([m, ...args])]));
  // A document to dispatch on: a second copy of the file finds the first through an event on it.
  const world = vm.createContext({ console: pageConsole, setTimeout, clearTimeout, EventTarget, CustomEvent, document: new EventTarget() });
  loadFiles(world, FILES);
  const hook = world.__tabpilotPageLog;
  const batches = [];
  const attach = () => hook.attach((json) => batches.push(JSON.parse(json)));
  const entries = () => batches.flatMap((b) => b.entries);
  return { world, hook, printed, batches, attach, entries, run: (code) => vm.runInContext(code, world) };
}

test("each console method is recorded at its level, and still printed", () => {
  const page = makePage();
  page.attach();
  page.run(`console.log("a"); console.info("b"); console.warn("c"); console.error("d"); console.debug("e");`);
  page.hook.flush();
  assert.deepEqual(
    page.entries().map((e) => [e.type, e.level, e.text]),
    [
      ["log", "info", "a"],
      ["info", "info", "b"],
      ["warn", "warning", "c"],
      ["error", "error", "d"],
      ["debug", "debug", "e"],
    ],
  );
  assert.deepEqual(page.printed.map((p) => p[0]), ["log", "info", "warn", "error", "debug"]);
  assert.ok(page.entries().every((e) => Number.isFinite(e.time)));
});

test("arguments are formatted as DevTools prints them", () => {
  const page = makePage();
  page.attach();
  page.run(`
    console.log("plain %s has %d items", "cart", 3, {b: 2});
    console.log("%c styled %o and %%", "color: red", [1, "x"]);
    console.log(1, null, undefined, true, 2n, Symbol("s"));
    console.log({ nested: { deep: [1, 2] }, f() {} });
    console.error("failed:", new TypeError("bad value"));
    console.log("long", "x".repeat(20000));
  `);
  page.hook.flush();
  const texts = page.entries().map((e) => e.text);
  assert.equal(texts[0], 'plain cart has 3 items {"b":2}');
  assert.equal(texts[1], ' styled [1,"x"] and %');
  assert.equal(texts[2], "1 null undefined true 2n Symbol(s)");
  assert.equal(texts[3], '{"nested":{"deep":[1,2]},"f":"[Function: f]"}');
  assert.match(texts[4], /^failed: TypeError: bad value/);
  assert.equal(texts[5].length, 10_000);
  assert.ok(texts[5].endsWith("\u2026"));
});

test("entries logged before pairing wait, at most 1,000, and the dropped are counted", () => {
  const page = makePage();
  page.run(`for (let i = 1; i <= 1200; i++) console.log("early", i)`);
  assert.equal(page.batches.length, 0);
  page.attach();
  assert.equal(page.batches.length, 1);
  assert.equal(page.batches[0].dropped, 200);
  assert.equal(page.batches[0].entries.length, 1000);
  assert.equal(page.batches[0].entries[0].text, "early 201");
});

test("a burst goes out in batches of 200, not one message each", () => {
  const page = makePage();
  page.attach();
  page.run(`for (let i = 1; i <= 1500; i++) console.log("burst", i)`);
  page.hook.flush();
  assert.equal(page.batches.length, 8);
  assert.equal(page.entries().length, 1500);
  assert.equal(page.entries().at(-1).text, "burst 1500");
});

test("a second copy of the file does not wrap the console twice", () => {
  const page = makePage();
  const wrapped = page.run("console.log");
  vm.runInContext(read("page/page-log.js"), page.world, { filename: "page/page-log.js" });
  assert.equal(page.run("console.log"), wrapped);
  assert.equal(page.world.__tabpilotPageLog, page.hook);
  page.attach();
  page.run(`console.log("once")`);
  page.hook.flush();
  assert.deepEqual(page.entries().map((e) => e.text), ["once"]);
});

test("the page's own tampering with built-ins does not reach the queue", () => {
  const page = makePage();
  page.attach();
  page.run(`
    Array.prototype.toJSON = () => "forged";
    JSON.stringify = () => "[]";
    console.log("still here");
  `);
  page.hook.flush();
  assert.deepEqual(page.entries().map((e) => e.text), ["still here"]);
});

// ---- Hidden hooks, bodies read only as the page reads them, and the switch.

// A page world with fetch: `serve(url)` answers with what `routes` says, as a Response.
function makeFetchPage(routes) {
  const printed = [];
  const pageConsole = Object.fromEntries(["log", "info", "warn", "error", "debug"].map((m) => [m, (...args) => printed.push([m, ...args])]));
  const fetch = async (input) => routes[String(input)]();
  const world = vm.createContext({
    console: pageConsole, setTimeout, clearTimeout, EventTarget, CustomEvent, document: new EventTarget(),
    fetch, Response, Request, Headers, ReadableStream, ReadableStreamDefaultReader, TextDecoder, Uint8Array,
  });
  const natives = {
    fetch: Function.prototype.toString.call(fetch),
    text: Function.prototype.toString.call(Response.prototype.text),
    fetchLength: fetch.length,
  };
  loadFiles(world, FILES);
  const hook = world.__tabpilotPageLog;
  const batches = [];
  const keep = hook.attach((json) => batches.push(JSON.parse(json)));
  const bodies = () => {
    hook.flush();
    return batches.flatMap((b) => b.entries).filter((e) => e.type === "body");
  };
  return { world, hook, keep, bodies, natives, printed, run: (code) => vm.runInContext(code, world) };
}

// A body of `chunks` chunks of `size` bytes, counting what was pulled from it. A Response made
// here has no url: `status` tells the entries apart.
function counted(chunks, size, type = "text/plain", status = 200) {
  const source = { pulled: 0, cancelled: false };
  const chunk = new Uint8Array(size).fill(120); // "x"
  source.response = () =>
    new Response(
      new ReadableStream({
        pull(controller) {
          if (source.pulled >= chunks) return controller.close();
          source.pulled += 1;
          controller.enqueue(chunk.slice());
        },
        cancel() {
          source.cancelled = true;
        },
      }, { highWaterMark: 0 }),
      { status, headers: { "content-type": type } },
    );
  return source;
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

test("wrapped built-ins answer the native source text, through Function.prototype.toString too", () => {
  const page = makeFetchPage({});
  assert.equal(page.run("fetch.toString()"), page.natives.fetch);
  assert.equal(page.run("Function.prototype.toString.call(fetch)"), page.natives.fetch);
  assert.equal(page.run("Response.prototype.text.toString()"), page.natives.text);
  assert.equal(page.run("Function.prototype.toString.call(Function.prototype.toString)"), "function toString() { [native code] }");
  assert.equal(page.run("fetch.length"), page.natives.fetchLength);
  assert.equal(page.run("Object.getOwnPropertyDescriptor(Function.prototype, 'toString').enumerable"), false);
  // A function of the page's own still shows its source.
  assert.equal(page.run("(function mine() { return 1 }).toString()"), "function mine() { return 1 }");
  // The native's own error, with no frame of tabpilot's files in its stack.
  const thrown = page.run("try { Function.prototype.toString.call({}) } catch (e) { JSON.stringify([e.name, /page\\/page-log/.test(e.stack)]) }");
  assert.equal(thrown, '["TypeError",false]');
});

test("a body is read as the page takes it whole, and a longer one only to the read cap", async () => {
  const small = counted(3, 1000, "text/plain", 201);
  const medium = counted(3, 40_000, "text/plain", 203); // longer than the 64 KiB kept
  const big = counted(80, 64 * 1024, "text/plain", 202); // 5 MiB, no Content-Length
  const page = makeFetchPage({ "/small": small.response, "/big": big.response, "/medium": medium.response });
  await page.run(`fetch("/small").then((r) => r.text())`);
  await page.run(`fetch("/big").then((r) => r.arrayBuffer())`);
  await page.run(`fetch("/medium").then((r) => r.blob())`);
  await settle();
  const [first, second, third] = page.bodies();
  assert.deepEqual([third.status, third.size, third.truncated, third.body.length, third.note], [203, 120_000, true, 65536, undefined]);
  assert.deepEqual([first.status, first.size, first.truncated, first.body.length], [201, 3000, false, 3000]);
  assert.deepEqual([second.status, second.size, second.truncated, second.body.length], [202, null, true, 65536]);
  assert.match(second.note, /first 4194304 bytes/);
});

test("a body the page does not read, or reads as a stream, is not read", async () => {
  const unread = counted(100, 1024, "text/plain", 201);
  const streamed = counted(100, 1024, "text/plain", 202);
  const page = makeFetchPage({ "/unread": unread.response, "/streamed": streamed.response });
  await page.run(`globalThis.kept = fetch("/unread")`);
  const taken = await page.run(`fetch("/streamed").then(async (r) => { const reader = r.body.getReader(); await reader.read(); await reader.read(); return "two"; })`);
  assert.equal(taken, "two");
  await settle();
  assert.ok(unread.pulled <= 1, `pulled ${unread.pulled}`);
  assert.ok(streamed.pulled <= 3, `pulled ${streamed.pulled}`);
  const entries = page.bodies();
  assert.deepEqual(entries.map((e) => [e.status, e.body]), [[202, null]]);
  assert.match(entries[0].note, /read by the page as a stream/);
});

test("an event stream is never read, and its entry says so", async () => {
  const events = counted(2, 10, "text/event-stream; charset=utf-8");
  const page = makeFetchPage({ "/events": events.response });
  assert.equal((await page.run(`fetch("/events").then((r) => r.text())`)).length, 20);
  await settle();
  const [entry] = page.bodies();
  assert.equal(entry.body, null);
  assert.match(entry.note, /event stream/);
});

test("while the log is off nothing is kept and no body is read; on again, it resumes", async () => {
  const off = counted(3, 100, "text/plain", 201);
  const on = counted(3, 100, "text/plain", 202);
  const page = makeFetchPage({ "/off": off.response, "/on": on.response });
  page.run(`console.log("before the word")`);
  page.keep(false); // the first word: everything kept until now goes
  page.run(`console.log("while off")`);
  await page.run(`fetch("/off").then((r) => r.json().catch(() => null))`);
  await settle();
  page.hook.flush();
  assert.deepEqual(page.bodies(), []);
  page.keep(true);
  page.run(`console.log("on again")`);
  await page.run(`fetch("/on").then((r) => r.text())`);
  await settle();
  assert.deepEqual(page.bodies().map((e) => e.status), [202]);
  assert.deepEqual(page.printed.map((p) => p[1]), ["before the word", "while off", "on again"]);
});

test("only the newest channel turns the log on or off", () => {
  const page = makeFetchPage({});
  const older = page.keep;
  const texts = [];
  const newer = page.hook.attach((json) => texts.push(...JSON.parse(json).entries.map((e) => e.text)));
  older(false); // a retired channel's word is not heard
  page.run(`console.log("kept")`);
  page.hook.flush();
  newer(false);
  page.run(`console.log("dropped")`);
  page.hook.flush();
  assert.deepEqual(texts, ["kept"]);
});
