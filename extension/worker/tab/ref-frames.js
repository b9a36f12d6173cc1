// Which frame of a tab a ref belongs to, and the one way every ref-taking message gets there
// (docs/protocol.md, "Frames"). The content script runs in every frame, and each frame's document
// keeps its own ref map (content/refs.js); refs are numbered by one floor for the whole browser
// (ref-docs.js), so a number names one document. The worker remembers which frame (frameId and
// documentId) gave out each range of numbers when it took the snapshot; after a restart, which
// loses that, it asks the tab's frames.
//
//   refsOf(message)                          -> the refs a message names (ref, to_ref, fields, submit)
//   frameOfRefs(chrome, ports, tab, refs)    -> the frameId to send to (0: the top frame); throws
//                                               stale_ref when the frame that gave them out is gone
//                                               or navigated, invalid_request when they are in
//                                               different frames
//   deliverToRefs(chrome, ports, tab, message, cancelled) -> {answer, frameId}: deliver() to it; a
//                                               child frame's answer without its url and title
//   frameOffset(chrome, ports, tab, frameId, point?) -> {x, y}: where the frame's viewport starts in
//                                               the tab's top-level viewport (CSS pixels), through
//                                               each <iframe> on the way (its content box); each
//                                               parent first scrolls `point` (the frame's) into view
//   toTop(chrome, ports, tab, frameId, at)   -> `at` with x and y moved into the top viewport, the
//                                               frame's own kept as at.frameX, at.frameY
//   framePaths(chrome, ports, tab)           -> {frames, paths: Map(path -> frame), silent: [frame]}:
//                                               the tab's frames (webNavigation) and the path each
//                                               child frame says it has (content/frames.js); those
//                                               that did not say within PATH_MS are `silent`
import { CommandError } from "../link/errors.js";
import { mintedBy, remember } from "./ref-docs.js";
import { deliver, tabInfo } from "./tabs.js";

// How long a frame gets to say whether it gave out a ref, when the worker forgot, or its path.
const OWNER_MS = 1500;
export const PATH_MS = 1000;
const REF = /^e[1-9]\d*$/;

export function refsOf(message) {
  const found = [];
  const add = (ref) => typeof ref === "string" && REF.test(ref) && !found.includes(ref) && found.push(ref);
  add(message?.ref);
  add(message?.to_ref);
  add(message?.submit);
  if (Array.isArray(message?.fields)) for (const field of message.fields) add(field?.ref);
  return found;
}

// The promise, or a rejection with "timeout" once `ms` pass.
export const within = (promise, ms) => {
  let timer;
  const late = new Promise((_resolve, reject) => (timer = setTimeout(() => reject(new Error("timeout")), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

async function frameOf(chrome, tabId, frameId) {
  return Promise.resolve(chrome.webNavigation?.getFrame?.({ tabId, frameId })).catch(() => null);
}

// The frame that gave out `ref`, found by asking every frame at once; null when none did, or when
// the tab has no child frame (then the top frame answers for itself, as it always did).
async function askOwner(chrome, ports, tab, ref) {
  const frames = await Promise.resolve(chrome.webNavigation?.getAllFrames?.({ tabId: tab.id })).catch(() => null);
  const all = (frames ?? []).filter((f) => !f.url.startsWith("chrome-error:"));
  if (!all.some((f) => f.frameId !== 0)) return null;
  const ask = (frameId) =>
    within(ports.send(tab.id, { type: "ref_owner", ref }, frameId), OWNER_MS).then(
      (answer) => answer?.ok === true && answer.result?.owner === true,
      () => false,
    );
  const owners = await Promise.all(all.map((f) => ask(f.frameId)));
  const owner = all[owners.indexOf(true)];
  if (!owner) return null;
  const n = Number(ref.slice(1));
  remember({ tabId: tab.id, first: n, last: n, frameId: owner.frameId, documentId: owner.documentId ?? null });
  return owner.frameId;
}

function staleFrame(tab, ref, why) {
  return new CommandError(
    "stale_ref",
    `Ref ${JSON.stringify(ref)} is from a frame that ${why} since that snapshot. Take a new snapshot.`,
    { tab: tabInfo(tab), data: { ref } },
  );
}

export async function frameOfRefs(chrome, ports, tab, refs) {
  let chosen = null;
  for (const ref of refs) {
    const from = mintedBy(ref);
    let frameId;
    if (!from) frameId = (await askOwner(chrome, ports, tab, ref)) ?? 0;
    else if (from.tabId !== tab.id || !from.frameId) frameId = 0;
    else {
      const now = await frameOf(chrome, tab.id, from.frameId);
      if (!now) throw staleFrame(tab, ref, "was removed");
      if (from.documentId && now.documentId && now.documentId !== from.documentId) throw staleFrame(tab, ref, "navigated");
      frameId = from.frameId;
    }
    if (chosen !== null && chosen.frameId !== frameId) {
      throw new CommandError(
        "invalid_request",
        `Refs ${chosen.ref} and ${ref} are in different frames of the page; one call acts in one frame. ` +
          "Send a call for each frame.",
        { tab: tabInfo(tab) },
      );
    }
    chosen ??= { ref, frameId };
  }
  return chosen?.frameId ?? 0;
}

export async function deliverToRefs(chrome, ports, tab, message, cancelled = () => false) {
  const refs = refsOf(message);
  const frameId = refs.length === 0 ? 0 : await frameOfRefs(chrome, ports, tab, refs);
  let answer = await deliver(chrome, ports, tab, message, cancelled, frameId);
  // A frame's answer says where that frame is; the command's answer says where the tab is.
  if (frameId !== 0 && answer && typeof answer === "object") {
    const { url: _url, title: _title, ...rest } = answer;
    answer = rest;
  }
  return { answer, frameId };
}

export async function frameOffset(chrome, ports, tab, frameId, point = null) {
  let x = 0;
  let y = 0;
  let at = point;
  for (let id = frameId; id !== 0; ) {
    const frame = await frameOf(chrome, tab.id, id);
    if (!frame) throw new CommandError("stale_ref", "The frame is no longer in the page. Take a new snapshot.", { tab: tabInfo(tab) });
    const where = await deliver(chrome, ports, tab, { type: "frame_path" }, undefined, id);
    const box = await deliver(chrome, ports, tab, { type: "frame_box", path: where?.result?.path, point: at }, undefined, frame.parentFrameId);
    if (where?.ok !== true || box?.ok !== true) {
      throw new CommandError("stale_ref", "The frame is no longer in its parent page. Take a new snapshot.", { tab: tabInfo(tab) });
    }
    x += box.result.x;
    y += box.result.y;
    if (at) at = { x: at.x + box.result.x, y: at.y + box.result.y };
    id = frame.parentFrameId;
  }
  return { x, y };
}

// The point is scrolled into view on the way up (a scroll inside a cross-origin frame does not
// move its parents).
export async function toTop(chrome, ports, tab, frameId, at) {
  if (!frameId || typeof at?.x !== "number" || typeof at?.y !== "number") return at;
  const off = await frameOffset(chrome, ports, tab, frameId, { x: at.x, y: at.y });
  return { ...at, x: at.x + off.x, y: at.y + off.y, frameX: at.x, frameY: at.y };
}

export async function framePaths(chrome, ports, tab) {
  const frames = (await Promise.resolve(chrome.webNavigation?.getAllFrames?.({ tabId: tab.id })).catch(() => null)) ?? [];
  const paths = new Map();
  const silent = [];
  await Promise.all(
    frames
      .filter((f) => f.frameId !== 0)
      .map(async (frame) => {
        const answer = frame.url.startsWith("chrome-error:")
          ? null
          : await within(ports.send(tab.id, { type: "frame_path" }, frame.frameId), PATH_MS).catch(() => null);
        if (answer?.ok === true && typeof answer.result?.path === "string") paths.set(answer.result.path, frame);
        else silent.push(frame);
      }),
  );
  return { frames, paths, silent };
}
