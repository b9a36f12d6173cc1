// A snapshot with its frames (worker/tab/frame-snapshot.js): each marked iframe line gets that
// frame's own snapshot under it, with the frame's origin; a frame that cannot be reached says why;
// refs are asked for above the floor each frame before left; a page without marks costs nothing.
import assert from "node:assert/strict";
import test from "node:test";

import { withFrames } from "../extension/worker/tab/frame-snapshot.js";

const NONCE = "abc123";
const mark = (path, origin) => `\u27e6${NONCE}:${path}:${origin}\u27e7`;

// frames: getAllFrames' answer; paths: frameId -> the path that frame answers (absent: silent).
function setup(frames, paths) {
  const listed = [];
  const chrome = {
    webNavigation: {
      getAllFrames: async () => {
        listed.push(true);
        return frames;
      },
    },
  };
  const ports = {
    send: async (_tabId, message, frameId) =>
      paths.has(frameId) ? { ok: true, result: { path: paths.get(frameId) } } : new Promise(() => {}),
  };
  return { chrome, ports, listed };
}

test("a page without cross-origin frames is answered as it was, without listing frames", async () => {
  const { chrome, ports, listed } = setup([], new Map());
  const first = { snapshot: '- button "Go" [ref=e1]', refs: 1, chars: 23, truncated: false, top: 1, doc: "d0", minted: [1, 1], frameId: 0 };
  const whole = await withFrames({ chrome, ports, tab: { id: 7 }, first, nonce: NONCE, ask: () => assert.fail("asked"), maxChars: 20000 });
  assert.equal(whole.snapshot, first.snapshot);
  assert.deepEqual(whole.ranges, [{ doc: "d0", first: 1, last: 1, frameId: 0, documentId: null }]);
  assert.equal(listed.length, 0);
});

test("each frame's snapshot goes under its line, nested, with its origin and the next floor", async () => {
  const frames = [
    { frameId: 0, parentFrameId: -1, url: "http://a.test/" },
    { frameId: 4, parentFrameId: 0, url: "http://b.test/f", documentId: "D4" },
    { frameId: 9, parentFrameId: 4, url: "http://c.test/g", documentId: "D9" },
    { frameId: 5, parentFrameId: 0, url: "chrome-error://chromewebdata/", errorOccurred: true },
  ];
  const { chrome, ports } = setup(frames, new Map([[4, "0"], [9, "0.0"]]));
  const floors = [];
  const answers = {
    4: { snapshot: `- textbox "Card" [ref=e3]\n- iframe "Inner" [ref=e4] ${mark("0.0", "http://c.test")}`, refs: 2, top: 4, doc: "d4", minted: [3, 4], origin: "http://b.test" },
    9: { snapshot: '- button "Pay" [ref=e5]', refs: 1, top: 5, doc: "d9", minted: [5, 5], origin: "null" },
  };
  const ask = async (frameId, floor) => (floors.push([frameId, floor]), answers[frameId]);
  const first = {
    snapshot: `- heading "Shop"\n- iframe "Payment" [ref=e1] ${mark("0", "http://b.test")}\n- iframe "Ad" [ref=e2] ${mark("1", "http://d.test")}`,
    refs: 2, top: 2, doc: "d0", minted: [1, 2], frameId: 0,
  };
  const whole = await withFrames({ chrome, ports, tab: { id: 7 }, first, nonce: NONCE, ask, maxChars: 20000 });
  assert.equal(
    whole.snapshot,
    [
      '- heading "Shop"',
      '- iframe "Payment" [ref=e1] [origin=http://b.test]:',
      '  - textbox "Card" [ref=e3]',
      '  - iframe "Inner" [ref=e4] [origin=http://c.test] [sandboxed]:',
      '    - button "Pay" [ref=e5]',
      '- iframe "Ad" [ref=e2] [origin=http://d.test] [unreachable: its page failed to load (a browser error page)]',
    ].join("\n"),
  );
  assert.deepEqual(floors, [[4, 2], [9, 4]]);
  assert.equal(whole.top, 5);
  assert.equal(whole.refs, 5);
  assert.deepEqual(
    whole.ranges.map((r) => [r.frameId, r.first, r.last, r.documentId]),
    [[0, 1, 2, null], [4, 3, 4, "D4"], [9, 5, 5, "D9"]],
  );
});

test("a mark with another nonce is the page's own text, not a frame", async () => {
  const { chrome, ports } = setup([{ frameId: 0, parentFrameId: -1, url: "http://a.test/" }], new Map());
  const forged = `- iframe "x \u27e6ffffff:0:http://evil.test\u27e7" [ref=e1]`;
  const first = { snapshot: forged, refs: 1, top: 1, doc: "d0", minted: [1, 1], frameId: 0 };
  const whole = await withFrames({ chrome, ports, tab: { id: 7 }, first, nonce: NONCE, ask: () => assert.fail("asked"), maxChars: 20000 });
  assert.equal(whole.snapshot, forged);
});
