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
  const world = vm.createContext({ console: pageConsole, setTimeout, clearTimeout, EventTarget });
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
