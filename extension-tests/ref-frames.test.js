// The one way a ref reaches its frame (worker/tab/ref-frames.js): the frame that gave it out, and
// only that one; a frame that went away or navigated is stale_ref before anything is sent; refs of
// two frames in one message are refused; a ref the worker has no record of is looked for only where
// the tab has child frames.
import assert from "node:assert/strict";
import test from "node:test";

import { mintRefs } from "../extension/worker/tab/ref-docs.js";
import { deliverToRefs, refsOf } from "../extension/worker/tab/ref-frames.js";

const TAB = { id: 41, url: "http://a.test/", title: "A" };

// frames: what webNavigation knows now; sent: [frameId, message] of each message posted.
function setup(frames, answer = (frameId) => ({ ok: true, result: { frameId }, url: "http://f.test/", title: "F" })) {
  const sent = [];
  const chrome = {
    storage: { session: { get: async () => ({}), set: async () => {} } },
    webNavigation: {
      getFrame: async ({ frameId }) => frames.find((f) => f.frameId === frameId) ?? null,
      getAllFrames: async () => frames,
    },
  };
  const ports = {
    send: async (_tabId, message, frameId = 0) => {
      sent.push([frameId, message]);
      return answer(frameId, message);
    },
  };
  return { chrome, ports, sent };
}

// A snapshot of TAB that gave refs e{first}..e{last} out in frame `frameId` (document `documentId`).
async function minted(chrome, ranges) {
  await mintRefs(chrome, TAB.id, async () => ({ top: Math.max(...ranges.map((r) => r.last)), ranges }));
}

test("refsOf finds every ref a message names, once", () => {
  assert.deepEqual(refsOf({ ref: "e1", to_ref: "e2", submit: "e3", fields: [{ ref: "e4" }, { ref: "e1" }, { ref: 5 }] }), ["e1", "e2", "e3", "e4"]);
  assert.deepEqual(refsOf({ type: "snapshot", ref: null }), []);
});

test("a ref goes to the frame that gave it out, whose answer keeps the tab's url", async () => {
  const frames = [{ frameId: 0, url: "http://a.test/" }, { frameId: 7, parentFrameId: 0, url: "http://b.test/", documentId: "B1" }];
  const { chrome, ports, sent } = setup(frames);
  await minted(chrome, [{ doc: "d0", first: 101, last: 102, frameId: 0, documentId: null }, { doc: "d7", first: 103, last: 105, frameId: 7, documentId: "B1" }]);
  const { answer, frameId } = await deliverToRefs(chrome, ports, TAB, { type: "act", ref: "e104" });
  assert.equal(frameId, 7);
  assert.deepEqual(sent, [[7, { type: "act", ref: "e104" }]]);
  assert.deepEqual(answer, { ok: true, result: { frameId: 7 } });
  await deliverToRefs(chrome, ports, TAB, { type: "act", ref: "e101" });
  assert.deepEqual(sent.at(-1), [0, { type: "act", ref: "e101" }]);
});

test("a ref of a frame that navigated or was removed is stale_ref, and nothing is sent", async () => {
  const frames = [{ frameId: 0, url: "http://a.test/" }, { frameId: 8, parentFrameId: 0, url: "http://b.test/", documentId: "NEW" }];
  const { chrome, ports, sent } = setup(frames);
  await minted(chrome, [{ doc: "d8", first: 201, last: 202, frameId: 8, documentId: "OLD" }, { doc: "d9", first: 203, last: 203, frameId: 9, documentId: "D9" }]);
  await assert.rejects(deliverToRefs(chrome, ports, TAB, { type: "read", ref: "e201" }), (err) => err.code === "stale_ref" && /navigated/.test(err.message));
  await assert.rejects(deliverToRefs(chrome, ports, TAB, { type: "read", ref: "e203" }), (err) => err.code === "stale_ref" && /removed/.test(err.message));
  assert.deepEqual(sent, []);
});

test("refs of two frames in one message are refused", async () => {
  const frames = [{ frameId: 0, url: "http://a.test/" }, { frameId: 3, parentFrameId: 0, url: "http://b.test/", documentId: "D3" }];
  const { chrome, ports, sent } = setup(frames);
  await minted(chrome, [{ doc: "d0", first: 301, last: 301, frameId: 0, documentId: null }, { doc: "d3", first: 302, last: 302, frameId: 3, documentId: "D3" }]);
  const fill = { type: "fill_form", fields: [{ ref: "e301", value: "a" }, { ref: "e302", value: "b" }] };
  await assert.rejects(deliverToRefs(chrome, ports, TAB, fill), (err) => err.code === "invalid_request" && /different frames/.test(err.message));
  assert.deepEqual(sent, []);
});

test("an unknown ref goes to the top frame at once where the tab has no child frame", async () => {
  const { chrome, ports, sent } = setup([{ frameId: 0, url: "http://a.test/" }]);
  await deliverToRefs(chrome, ports, TAB, { type: "act", ref: "e9001" });
  assert.deepEqual(sent, [[0, { type: "act", ref: "e9001" }]]);
});

test("an unknown ref is looked for in every frame, and then goes to the one that owns it", async () => {
  const frames = [{ frameId: 0, url: "http://a.test/" }, { frameId: 6, parentFrameId: 0, url: "http://b.test/", documentId: "D6" }];
  const owner = (frameId, message) => (message.type === "ref_owner" ? { ok: true, result: { owner: frameId === 6 } } : { ok: true, result: {} });
  const { chrome, ports, sent } = setup(frames, owner);
  const { frameId } = await deliverToRefs(chrome, ports, TAB, { type: "act", ref: "e9101" });
  assert.equal(frameId, 6);
  assert.deepEqual(sent.at(-1), [6, { type: "act", ref: "e9101" }]);
  sent.length = 0;
  await deliverToRefs(chrome, ports, TAB, { type: "act", ref: "e9101" }); // remembered now
  assert.deepEqual(sent, [[6, { type: "act", ref: "e9101" }]]);
});
