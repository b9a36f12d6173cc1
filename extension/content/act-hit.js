// browser_act's hit test, in the content script's isolated world: where a press at a point lands,
// through open and closed shadow roots and same-origin frames; the point a person would click on
// an element, scrolled into view; what covers it; where the focus is. act.js acts on what it
// finds; mouse.js and drag.js use it through act.js.
(() => {
  "use strict";

  const g = globalThis;
  const { fail } = g.__tabpilotActCommon;
  const { isInput, parentOf, viewOf } = g.__tabpilotActKeys;

  // ---- pure parts (node tests load them without a DOM) ----

  // `div#cookie-banner.overlay`: how a message names the element in the way.
  function nameOf(el) {
    if (!el || typeof el.tagName !== "string") return "an unknown element";
    let name = el.tagName.toLowerCase();
    if (el.id) name += `#${el.id}`;
    const classes = [...(el.classList ?? [])].slice(0, 3);
    if (classes.length > 0) name += `.${classes.join(".")}`;
    return name;
  }

  // ---- the page ----

  function within(el, node) {
    for (let n = node; n; n = parentOf(n)) if (n === el) return true;
    return false;
  }

  // An element's shadow root, closed ones included: the page's elementFromPoint stops at a closed
  // root's host, but the elements tabpilot gave refs to inside it are as much in the page.
  function shadowOf(el) {
    if (el.shadowRoot) return el.shadowRoot;
    try {
      return chrome.dom?.openOrClosedShadowRoot?.(el) ?? null;
    } catch {
      return null;
    }
  }

  // The topmost element at a point, through open and closed shadow roots.
  function hitAt(doc, x, y) {
    let hit = doc.elementFromPoint(x, y);
    for (let root = hit && shadowOf(hit); root; root = shadowOf(hit)) {
      const inner = root.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  // Whether a click at a point that hits `hit` reaches el: el itself, inside it, or its label.
  const reaches = (el, hit) => Boolean(hit) && (within(el, hit) || (isInput(el) && [...(el.labels ?? [])].some((l) => within(l, hit))));

  // Where a frame's content starts, in its parent's viewport.
  function frameOffset(frame) {
    const box = frame.getBoundingClientRect();
    const style = viewOf(frame).getComputedStyle(frame);
    return { x: box.left + frame.clientLeft + parseFloat(style.paddingLeft), y: box.top + frame.clientTop + parseFloat(style.paddingTop) };
  }

  // The element a press at a point of the top-level viewport would land on, through same-origin
  // frames: what trusted input hits.
  function hitFromTop(x, y) {
    let hit = hitAt(document, x, y);
    for (;;) {
      let inner = null;
      try {
        inner = hit?.localName === "iframe" || hit?.localName === "frame" ? hit.contentDocument : null;
      } catch {}
      if (!inner) return hit;
      const at = frameOffset(hit);
      x -= at.x;
      y -= at.y;
      hit = hitAt(inner, x, y) ?? hit;
      if (hit.ownerDocument !== inner) return hit;
    }
  }

  // Scrolls el into view and finds the point a person would click: its centre, in its own
  // frame's viewport (x, y) and in the top-level viewport (topX, topY). Fails hidden or covered.
  function reach(el, what) {
    const view = viewOf(el);
    let rect = el.getBoundingClientRect();
    const visible = el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : true;
    if (!visible || rect.width === 0 || rect.height === 0) {
      fail("element_not_interactable", `${what} is hidden (not rendered, or of zero size); it cannot be acted on.`, { reason: "hidden" });
    }
    // Scrolled when it, or a frame it is in, is not wholly in view; scrollIntoView scrolls the
    // frames' documents too.
    const outside = (r, v) => r.top < 0 || r.left < 0 || r.bottom > v.innerHeight || r.right > v.innerWidth;
    let hidden = outside(rect, view);
    for (let frame = view.frameElement; frame && !hidden; frame = viewOf(frame).frameElement) {
      hidden = outside(frame.getBoundingClientRect(), viewOf(frame));
    }
    if (hidden) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      rect = el.getBoundingClientRect();
    }
    // The centre of the part inside the viewport.
    const left = Math.max(rect.left, 0);
    const top = Math.max(rect.top, 0);
    const x = (left + Math.min(rect.right, view.innerWidth)) / 2;
    const y = (top + Math.min(rect.bottom, view.innerHeight)) / 2;
    const hit = hitAt(el.ownerDocument, x, y);
    if (!reaches(el, hit)) covered(what, hit);
    const label = !within(el, hit);
    let topX = x;
    let topY = y;
    for (let frame = view.frameElement; frame; frame = viewOf(frame).frameElement) {
      const at = frameOffset(frame);
      topX += at.x;
      topY += at.y;
      const over = hitAt(frame.ownerDocument, topX, topY);
      if (over !== frame) covered(what, over);
    }
    return { x, y, topX, topY, target: label ? el : hit };
  }

  function covered(what, cover, done = "") {
    const name = nameOf(cover);
    fail("element_not_interactable", `${what} is covered by ${name}, which would get the click${done}. Close or remove ${name} first (a banner or dialog, say), or scroll.`, {
      reason: "covered",
      cover: name,
    });
  }

  // The focused element, through open and closed shadow roots and same-origin frames.
  function deepFocus() {
    let el = document.activeElement;
    for (;;) {
      let inner = el ? shadowOf(el)?.activeElement : null;
      if (!inner && (el?.localName === "iframe" || el?.localName === "frame")) {
        try {
          inner = el.contentDocument?.activeElement ?? null;
        } catch {}
      }
      if (!inner || inner === el) return el;
      el = inner;
    }
  }

  g.__tabpilotActHit = Object.freeze({ nameOf, within, shadowOf, hitAt, reaches, hitFromTop, reach, covered, deepFocus });
})();
