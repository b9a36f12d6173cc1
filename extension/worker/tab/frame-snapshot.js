// A snapshot with its frames (docs/protocol.md, "Frames"). A frame's content script cannot read a
// cross-origin child frame, so its snapshot leaves a mark on that <iframe>'s line:
// ⟦nonce:path:src-origin⟧ (content/snapshot.js). Here each mark is replaced by what that frame's own
// content script answers, indented under the line, with the frame's origin on it:
//   - iframe "Payment" [ref=e7] [origin=https://pay.example]:
//     - textbox "Card number" [ref=e8]
// or by why the frame cannot be reached: `[unreachable: …]`. A page without such frames costs
// nothing more: the marks are looked for in the text, and the frames are listed only if one is
// there. Frames are asked one after another, each with the floor the one before left (refs stay
// short and name one document), within FRAME_MS each.
//
//   withFrames({chrome, ports, tab, first, nonce, ask, maxChars}) -> {snapshot, refs, chars,
//     truncated, top, ranges}: `first` is the answer of the frame asked first (frameId
//     first.frameId); ask(frameId, floor, maxChars) asks one frame for its snapshot.
import { PATH_MS, framePaths, within } from "./ref-frames.js";

const FRAME_MS = 3000;
const MAX_FRAMES = 50;
const MIN_CHARS = 200;
const INDENT = "  ";

const originOf = (url) => {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
};

export function markOf(nonce) {
  return new RegExp(`\\s*\u27e6${nonce}:([-\\d.]*):(\\S*?)\u27e7$`);
}

export async function withFrames({ chrome, ports, tab, first, nonce, ask, maxChars }) {
  const rangeOf = (result, frame) => {
    const [from, to] = Array.isArray(result?.minted) ? result.minted : [];
    return { doc: result?.doc, first: from, last: to, frameId: frame.frameId, documentId: frame.documentId ?? null };
  };
  const ranges = [rangeOf(first, { frameId: first.frameId, documentId: first.documentId })];
  let top = first.top;
  const mark = `\u27e6${nonce}:`;
  if (typeof first.snapshot !== "string" || !first.snapshot.includes(mark)) {
    return { snapshot: first.snapshot, refs: first.refs, chars: first.chars, truncated: first.truncated, top, ranges };
  }
  // Each frame's path, asked of all at once; a frame that does not say is one whose page failed to
  // load, is still loading, or is busy.
  const { paths, silent } = await framePaths(chrome, ports, tab);
  const pathOfFrame = new Map([...paths].map(([path, frame]) => [frame.frameId, path]));
  const parentOf = (path) => {
    const cut = path.lastIndexOf(".");
    if (cut < 0) return 0;
    return paths.get(path.slice(0, cut))?.frameId ?? -1;
  };
  const whyNot = (path, src) => {
    const parentId = parentOf(path);
    const candidates = silent.filter((f) => f.parentFrameId === parentId && !pathOfFrame.has(f.frameId));
    const frame = candidates.find((f) => originOf(f.url) === src) ?? (candidates.length === 1 ? candidates[0] : null);
    if (!frame) return "no page has loaded in it yet";
    if (frame.errorOccurred || frame.url.startsWith("chrome-error:")) return "its page failed to load (a browser error page)";
    const refused = ports.ruledOut?.(frame.url, `It shows ${originOf(frame.url)}`);
    if (refused) return `site_blocked. ${refused.message}`;
    return `it did not answer within ${PATH_MS / 1000} s (still loading, or busy)`;
  };

  let asked = 0;
  let truncated = Boolean(first.truncated);
  let refs = first.refs ?? 0;
  let length = first.snapshot.length;
  const expand = async (text, pad) => {
    const out = [];
    for (const line of text.split("\n")) {
      const m = line.includes(mark) ? line.match(markOf(nonce)) : null;
      if (!m) {
        out.push(pad + line);
        continue;
      }
      const [, path, src] = m;
      const head = pad + line.slice(0, m.index);
      const frame = paths.get(path);
      const room = maxChars - length;
      if (!frame) {
        out.push(`${head} [origin=${src}] [unreachable: ${whyNot(path, src)}]`);
        continue;
      }
      if (asked >= MAX_FRAMES || room < MIN_CHARS) {
        truncated = true;
        out.push(`${head} [origin=${src}] [not included: ${asked >= MAX_FRAMES ? `more than ${MAX_FRAMES} frames` : "max_chars reached"}; snapshot its ref]`);
        continue;
      }
      asked += 1;
      let result;
      try {
        result = await within(ask(frame.frameId, top, room), FRAME_MS);
      } catch (err) {
        const why = err?.message === "timeout" ? `it did not answer within ${FRAME_MS / 1000} s` : String(err?.message ?? err);
        out.push(`${head} [origin=${src}] [unreachable: ${why}]`);
        continue;
      }
      if (Number.isSafeInteger(result?.top) && result.top > top) top = result.top;
      ranges.push(rangeOf(result, frame));
      refs += result?.refs ?? 0;
      truncated ||= Boolean(result?.truncated);
      length += result?.snapshot?.length ?? 0;
      const origin = result?.origin && result.origin !== "null" ? result.origin : src;
      const sandboxed = result?.origin === "null" ? " [sandboxed]" : "";
      const inner = typeof result?.snapshot === "string" && result.snapshot !== "" ? result.snapshot : "";
      out.push(`${head} [origin=${origin}]${sandboxed}${inner ? ":" : ""}`);
      if (inner) out.push(...(await expand(inner, head.match(/^\s*/)[0] + INDENT)));
    }
    return out;
  };
  const snapshot = (await expand(first.snapshot, "")).join("\n");
  return { snapshot, refs, chars: snapshot.length, truncated, top, ranges };
}
