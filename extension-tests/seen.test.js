// content/seen.js: the colour and geometry tests that say whether the person sees text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const world = vm.createContext({});
vm.runInContext(readFileSync(new URL("../extension/content/seen.js", import.meta.url), "utf8"), world);
const seen = world.__tabpilotSeen;
const WHITE = [255, 255, 255, 1];
const BLACK = [0, 0, 0, 1];
// A computed style as Chrome gives it, for an element that shows its text.
const css = (own = {}) => ({
  opacity: "1", position: "static", overflow: "visible", clip: "auto", clipPath: "none", fontSize: "16px",
  textIndent: "0px", color: "rgb(0, 0, 0)", backgroundColor: "rgba(0, 0, 0, 0)", backgroundImage: "none", ...own,
});
const box = (left, top, width, height, page = { pageWidth: 1200, pageHeight: 3000 }) =>
  ({ left, top, right: left + width, bottom: top + height, width, height, ...page });

test("colours parse as Chrome writes them, alpha included", () => {
  assert.deepEqual([...seen.parseColor("rgb(1, 2, 3)")], [1, 2, 3, 1]);
  assert.deepEqual([...seen.parseColor("rgba(1, 2, 3, 0.5)")], [1, 2, 3, 0.5]);
  assert.deepEqual([...seen.parseColor("rgb(1 2 3 / 50%)")], [1, 2, 3, 0.5]);
  assert.deepEqual([...seen.parseColor("transparent")], [0, 0, 0, 0]);
  assert.equal(seen.parseColor("color(display-p3 1 0 0)"), null);
});

test("contrast: 21 for black on white, 1 for a colour on itself", () => {
  assert.equal(Math.round(seen.contrast(BLACK, WHITE)), 21);
  assert.equal(seen.contrast(WHITE, WHITE), 1);
});

test("text in its background's colour, or nearly, is unseen; readable text is not", () => {
  assert.equal(seen.textReason(css({ color: "rgb(255, 255, 255)" }), WHITE), "same colour as background");
  assert.equal(seen.textReason(css({ color: "rgb(250, 250, 250)" }), WHITE), "same colour as background");
  assert.equal(seen.textReason(css({ color: "rgb(120, 120, 120)" }), WHITE), "");
  assert.equal(seen.textReason(css({ color: "rgb(255, 255, 255)" }), [20, 20, 60, 1]), "");
  // Unknown background (an image): seen.
  assert.equal(seen.textReason(css({ color: "rgb(255, 255, 255)" }), null), "");
  // Half-transparent black over white is grey: seen.
  assert.equal(seen.textReason(css({ color: "rgba(0, 0, 0, 0.5)" }), WHITE), "");
});

test("zero font size and a transparent colour hide text", () => {
  assert.equal(seen.textReason(css({ fontSize: "0px" }), WHITE), "zero font size");
  assert.equal(seen.textReason(css({ color: "rgba(0, 0, 0, 0)" }), WHITE), "transparent");
});

test("the background under an element: its own over its parent's; an image makes it unknown", () => {
  assert.deepEqual([...seen.backgroundOf(css(), WHITE)], WHITE);
  assert.deepEqual([...seen.backgroundOf(css({ backgroundColor: "rgb(10, 20, 30)" }), WHITE)], [10, 20, 30, 1]);
  assert.deepEqual([...seen.backgroundOf(css({ backgroundColor: "rgba(0, 0, 0, 0.5)" }), WHITE)], [127.5, 127.5, 127.5, 1]);
  assert.equal(seen.backgroundOf(css({ backgroundImage: "url(a.png)" }), WHITE), null);
  // A gradient over a dark fallback colour: unknown, so white text on it is seen.
  assert.equal(seen.backgroundOf(css({ backgroundColor: "rgb(255, 255, 255)", backgroundImage: "linear-gradient(#000, #333)" }), WHITE), null);
  assert.equal(seen.backgroundOf(css(), null), null);
});

test("opacity 0, a zero clip, a tiny clipping box and a place far off the page hide an element", () => {
  assert.equal(seen.ownReason(css({ opacity: "0" })), "opacity 0");
  assert.equal(seen.ownReason(css({ opacity: "0.01" })), "");
  assert.equal(seen.ownReason(css({ position: "absolute", clip: "rect(0px, 0px, 0px, 0px)" })), "clipped");
  // Only a positioned element is measured: a static one costs no reads past its opacity.
  assert.equal(seen.ownReason(css({ clip: "rect(0px, 0px, 0px, 0px)" }), () => assert.fail("measured")), "");
  const inline = Object.defineProperty(css(), "position", { get: () => assert.fail("read") });
  assert.equal(seen.ownReason(inline, null, "inline"), "");
  assert.equal(seen.ownReason(css({ position: "absolute", clipPath: "inset(50%)" })), "clipped");
  assert.equal(seen.ownReason(css({ position: "absolute", overflow: "hidden" }), box(0, 0, 1, 1)), "clipped");
  assert.equal(seen.ownReason(css({ position: "absolute" }), box(-9999, 10, 300, 20)), "off-screen");
  assert.equal(seen.ownReason(css({ position: "absolute" }), box(10, -5000, 300, 20)), "off-screen");
  assert.equal(seen.ownReason(css({ position: "absolute" }), box(50000, 10, 300, 20, { pageWidth: 50300, pageHeight: 900 })), "");
  assert.equal(seen.ownReason(css({ position: "absolute" }), box(9000, 10, 300, 20)), "off-screen");
});

test("what is on the page is seen: a positioned badge, a scrolling box, a small icon", () => {
  assert.equal(seen.ownReason(css({ position: "absolute" }), box(-20, 10, 60, 20)), "");
  assert.equal(seen.ownReason(css({ overflow: "auto" }), box(0, 0, 300, 0)), "");
  assert.equal(seen.ownReason(css({ position: "absolute", overflow: "hidden" }), box(0, 0, 16, 16)), "");
  assert.equal(seen.ownReason(css()), "");
});

test("a display that cannot be positioned spares the position read; a block's is read", () => {
  const unread = () => Object.defineProperty(css(), "position", { get: () => assert.fail("position read") });
  for (const display of ["inline", "inline-block", "inline-flex", "table-cell", "contents"]) {
    assert.equal(seen.ownReason(unread(), null, display), "", display);
  }
  assert.equal(seen.ownReason(css({ position: "absolute" }), box(-9999, 10, 300, 20), "block"), "off-screen");
});

// A walk's style as snapshot.js and read.js keep it, judged under `parent`.
const walked = (own, parent, display = "block") =>
  seen.annotate({}, { css: css(own), display, up: undefined, hidden: undefined, bg: undefined, text: undefined }, parent);

test("a walk judges each text colour over the background under it, once per pair", () => {
  const page = walked({ backgroundColor: "rgb(255, 255, 255)" }, { css: null, hidden: "", up: null, bg: undefined });
  assert.equal(seen.textHidden(walked({ color: "rgb(255, 255, 255)" }, page)), "same colour as background");
  assert.equal(seen.textHidden(walked({}, page)), "");
  // The same colours again, judged from what the first asks kept: the same answers.
  assert.equal(seen.textHidden(walked({ color: "rgb(255, 255, 255)" }, page)), "same colour as background");
  assert.equal(seen.textHidden(walked({}, page)), "");
  // A black bar over black text, on the white page.
  assert.equal(seen.textHidden(walked({ backgroundColor: "rgb(0, 0, 0)" }, page, "inline")), "same colour as background");
  const dark = walked({ backgroundColor: "rgb(34, 34, 34)" }, page);
  assert.equal(seen.textHidden(walked({ color: "rgb(35, 35, 35)" }, dark)), "same colour as background");
  assert.equal(seen.textHidden(walked({ color: "rgb(255, 255, 255)" }, dark)), "");
  const image = walked({ backgroundImage: "url(a.png)" }, page);
  assert.equal(seen.textHidden(walked({ color: "rgb(255, 255, 255)" }, image)), "");
  assert.equal(seen.textHidden(walked({ fontSize: "0px" }, page)), "zero font size");
  assert.equal(seen.textHidden(walked({ color: "rgba(0, 0, 0, 0)" }, page)), "transparent");
  // Under a hidden element, its reason: nothing of the text is read.
  const ghost = walked({ opacity: "0" }, page);
  assert.equal(ghost.hidden, "opacity 0");
  assert.equal(seen.textHidden(walked({ color: "rgb(0, 0, 0)" }, ghost)), "opacity 0");
});
