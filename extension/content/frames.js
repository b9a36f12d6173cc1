// Where this frame is among the tab's frames, for the worker's frame routing
// (worker/tab/ref-frames.js, docs/protocol.md "Frames"). The manifest runs the content script in
// every frame; a cross-origin frame's document cannot be read from its parent, so the worker asks
// each frame for its own part and puts them together.
//
// A frame is named by its path: the indexes of the windows from the top window down to it, as
// `window.frames` numbers them ("0.2": the third frame of the first frame). Both sides can
// compute it: a parent from its <iframe> element's contentWindow, a child from its own window;
// `parent`, `frames`, `length` and indexing are readable across origins.
//
// API, on globalThis.__tabpilotFrames (isolated world): pathOf(window) -> "0.2" ("" for the top),
// pathOfFrame(iframeElement) -> its path, or null when it holds no window.
// Message types (content.js dispatches them):
//   frame_path {}            -> {path}
//   frame_box {path, point?} -> {x, y, width, height}: the content box of the <iframe> holding the
//                               frame at `path`, in this frame's viewport (CSS pixels); first
//                               scrolled so that `point` of the child's viewport is in view
//   ref_owner {ref}          -> {owner}: whether this document's ref map gave out `ref`
(() => {
  "use strict";

  const g = globalThis;
  const refs = g.__tabpilotRefs;

  const indexIn = (parent, win) => {
    for (let i = 0; i < parent.length; i++) if (parent[i] === win) return i;
    return -1;
  };

  const pathOf = (win) => {
    const steps = [];
    for (let w = win; w.parent !== w; w = w.parent) steps.unshift(indexIn(w.parent, w));
    return steps.join(".");
  };

  const pathOfFrame = (frame) => {
    const win = frame.contentWindow;
    const owner = frame.ownerDocument?.defaultView;
    if (!win || !owner) return null;
    const i = indexIn(owner, win);
    if (i < 0) return null;
    const above = pathOf(owner);
    return above === "" ? String(i) : `${above}.${i}`;
  };

  // Every frame element of this document: in shadow roots (open or closed) and in same-origin
  // frames too. The plain query first; the walk through shadow roots only if that found nothing.
  const findFrame = (path) => {
    const seen = [];
    const search = (root, deep) => {
      for (const el of root.querySelectorAll(deep ? "*" : "iframe, frame")) {
        if (el.localName === "iframe" || el.localName === "frame") {
          if (pathOfFrame(el) === path) return el;
          let inner = null;
          try {
            inner = el.contentDocument;
          } catch {}
          if (inner && !seen.includes(inner)) {
            seen.push(inner);
            const found = search(inner, deep);
            if (found) return found;
          }
        }
        const shadow = deep ? refs.shadowRootOf(el) : null;
        if (shadow) {
          const found = search(shadow, true);
          if (found) return found;
        }
      }
      return null;
    };
    return search(document, false) ?? search(document, true);
  };

  // The content box of a frame element in this window's viewport: where the child's viewport
  // starts, through each same-origin frame the element is in.
  const contentBox = (el) => {
    const box = el.getBoundingClientRect();
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    let x = box.left + el.clientLeft + parseFloat(style.paddingLeft);
    let y = box.top + el.clientTop + parseFloat(style.paddingTop);
    for (let frame = el.ownerDocument.defaultView.frameElement; frame; frame = frame.ownerDocument.defaultView.frameElement) {
      const outer = frame.getBoundingClientRect();
      const css = frame.ownerDocument.defaultView.getComputedStyle(frame);
      x += outer.left + frame.clientLeft + parseFloat(css.paddingLeft);
      y += outer.top + frame.clientTop + parseFloat(css.paddingTop);
    }
    return { x, y, width: el.clientWidth, height: el.clientHeight };
  };

  const refused = (code, message) => Object.assign(new Error(message), { code });

  // A frame painted: the browser hit-tests an out-of-process frame by what was last painted, so
  // trusted input right after a scroll would land where the frame was.
  const painted = () =>
    new Promise((resolve) => {
      requestAnimationFrame(() => requestAnimationFrame(resolve));
      setTimeout(resolve, 200); // a hidden tab paints no frame
    });

  // With `point` (CSS pixels of the child's viewport), the frame is first scrolled so that the point
  // is in this window's view: a scroll inside a cross-origin frame does not move its parents.
  const frameBox = async (message) => {
    const el = typeof message.path === "string" ? findFrame(message.path) : null;
    if (!el) throw refused("stale_ref", "The frame is no longer in its parent page; take a new snapshot.");
    const point = message.point;
    if (point && Number.isFinite(point.x) && Number.isFinite(point.y)) {
      const before = contentBox(el);
      el.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
      const box = contentBox(el);
      const x = box.x + point.x;
      const y = box.y + point.y;
      const dx = x < 0 || x > innerWidth ? x - innerWidth / 2 : 0;
      const dy = y < 0 || y > innerHeight ? y - innerHeight / 2 : 0;
      if (dx || dy) scrollBy({ left: dx, top: dy, behavior: "instant" });
      const after = contentBox(el);
      if (after.x !== before.x || after.y !== before.y) await painted();
    }
    return contentBox(el);
  };

  const refOwner = (message) => {
    try {
      refs.resolveRef(message.ref);
      return { owner: true };
    } catch (err) {
      return { owner: err?.code === "stale_ref" };
    }
  };

  g.__tabpilotFrames = Object.freeze({ pathOf, pathOfFrame });
  g.__tabpilotContentTools ??= {};
  g.__tabpilotContentTools.frame_path = () => ({ path: pathOf(window) });
  g.__tabpilotContentTools.frame_box = frameBox;
  g.__tabpilotContentTools.ref_owner = refOwner;
})();
