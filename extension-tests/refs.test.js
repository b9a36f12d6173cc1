// content/refs.js: the isolated world's ref map (docs/protocol.md, page tools).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const REFS = readFileSync(new URL("../extension/content/refs.js", import.meta.url), "utf8");

function load() {
  const world = vm.createContext({ crypto, WeakMap, WeakRef, Map });
  vm.runInContext(REFS, world, { filename: "content/refs.js" });
  return world.__tabpilotRefs;
}

const element = () => ({ isConnected: true, ownerDocument: { defaultView: {} } });

test("an element keeps its ref; another element gets the next one", () => {
  const refs = load();
  const a = element();
  const b = element();
  assert.equal(refs.peek(a), null);
  assert.equal(refs.refOf(a), "e1");
  assert.equal(refs.refOf(b), "e2");
  assert.equal(refs.refOf(a), "e1");
  assert.equal(refs.peek(b), "e2");
  assert.equal(refs.resolveRef("e2"), b);
  assert.match(refs.doc, /^[0-9a-f]{16}$/);
});

test("a removed element, or one left in a navigated frame's document, is a stale ref", () => {
  const refs = load();
  const removed = element();
  const orphan = element();
  refs.refOf(removed);
  refs.refOf(orphan);
  removed.isConnected = false;
  orphan.ownerDocument.defaultView = null;
  for (const ref of ["e1", "e2"]) {
    assert.throws(() => refs.resolveRef(ref), (err) => err.code === "stale_ref" && err.data.ref === ref && err.data.doc === refs.doc);
  }
});

test("a ref never given out is ref_not_found, naming the document", () => {
  const refs = load();
  for (const ref of ["e1", "x", 7, null]) {
    assert.throws(
      () => refs.resolveRef(ref),
      (err) => err.code === "ref_not_found" && err.data.doc === refs.doc && /Take a snapshot/.test(err.message),
    );
  }
});

test("loading the file again in the same world keeps the map", () => {
  const world = vm.createContext({ crypto, WeakMap, WeakRef, Map });
  vm.runInContext(REFS, world);
  const first = world.__tabpilotRefs;
  const a = element();
  first.refOf(a);
  vm.runInContext(REFS, world);
  assert.equal(world.__tabpilotRefs, first);
  assert.equal(world.__tabpilotRefs.resolveRef("e1"), a);
});

test("the entries of collected elements are swept; their refs still read stale", () => {
  // A WeakRef whose target the test says was collected.
  class TestWeakRef {
    constructor(target) {
      this.target = target;
    }
    deref() {
      return this.target.collected ? undefined : this.target;
    }
  }
  const world = vm.createContext({ crypto, WeakMap, WeakRef: TestWeakRef, Map });
  vm.runInContext(REFS, world);
  const refs = world.__tabpilotRefs;
  const kept = element();
  refs.refOf(kept);
  const dropped = Array.from({ length: 10_000 }, () => element());
  for (const el of dropped) {
    refs.refOf(el);
    el.collected = true;
  }
  refs.refOf(element()); // the 10,002nd entry: past the sweep threshold
  assert.equal(refs.resolveRef("e1"), kept);
  assert.throws(() => refs.resolveRef("e5000"), (err) => err.code === "stale_ref");
  assert.equal(refs.resolveRef("e10002").isConnected, true);
  assert.throws(() => refs.resolveRef("e10003"), (err) => err.code === "ref_not_found");
  assert.throws(() => refs.resolveRef("e01"), (err) => err.code === "ref_not_found");
});

test("raised, a map numbers its next refs above the floor, and the numbers below were not given here", () => {
  const refs = load();
  const a = element();
  assert.equal(refs.refOf(a), "e1");
  refs.raise(40);
  assert.equal(refs.refOf(element()), "e41");
  assert.equal(refs.top(), 41);
  refs.raise(7); // lower floors change nothing
  assert.equal(refs.refOf(element()), "e42");
  assert.equal(refs.resolveRef("e1"), a);
  // Another document's numbers: never given out by this map.
  for (const ref of ["e2", "e40", "e43"]) {
    assert.throws(() => refs.resolveRef(ref), (err) => err.code === "ref_not_found");
  }
});

test("shown text counts as different from the name only when it says something else", () => {
  const { shows } = load();
  assert.equal(shows("Save draft", " Delete\n account "), "Delete account");
  assert.equal(shows("Open menu", "Menu"), "");
  assert.equal(shows("Go", "  GO "), "");
  assert.equal(shows("Close", "\u00d7"), "");
  assert.equal(shows("Next", ""), "");
  assert.equal(shows("Home", "x".repeat(80)), "x".repeat(59) + "\u2026");
});
