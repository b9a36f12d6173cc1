// Whether the person at the browser can see an element or its text: the one judgement that
// browser_snapshot, browser_read and browser_act share. Text a person cannot see (pushed off the
// page, clipped away, zero-sized, transparent, or in its background's colour) still reaches the
// DOM, so a page can aim instructions at the agent with it; tabpilot marks it `[not visible]`.
// The colour and geometry tests are pure, so node:test loads this file; in the content script's
// isolated world it is globalThis.__tabpilotSeen.
//
//   parseColor(css) -> [r, g, b, a] | null
//   over(top, bottom) -> the colour top shows over an opaque bottom
//   contrast(a, b) -> the WCAG contrast ratio of two opaque colours
//   ownReason(css, rect?) -> why the element and all under it are unseen, or "" (rect: its box,
//                            or a function that measures it, read only when positioned)
//   textReason(css, background) -> why the text the element holds is unseen, or ""
//   annotate(element, style, parentStyle) -> sets style.hidden and style.bg (for the walks)
//   reasonOf(element) -> why an element is unseen, its ancestors included, or "" (for acts)
(() => {
  "use strict";

  // Below this contrast ratio text reads as its background: 1 is the same colour, 1.1 is #f4f4f4
  // on white, which nobody reads.
  const SAME_COLOUR = 1.1;
  // A box this small shows no text (the screen-reader-only pattern: 1 × 1 px, overflow hidden).
  const TINY = 1;
  // Positioned this far off the page, nothing is on screen: `left: -9999px`.
  const FAR = 1000;
  const WHITE = Object.freeze([255, 255, 255, 1]);

  const parseColor = (css) => {
    if (typeof css !== "string") return null;
    if (css === "transparent") return [0, 0, 0, 0];
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%?))?\s*\)$/.exec(css);
    if (!m) return null;
    const alpha = m[4] === undefined ? 1 : Number(m[4]) / (m[5] ? 100 : 1);
    return [Number(m[1]), Number(m[2]), Number(m[3]), alpha];
  };

  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
  };

  const luminance = (c) => {
    const lin = (v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  };

  const contrast = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };

  const ZERO_CLIP = /^rect\(\s*0(px)?[,\s]+0(px)?[,\s]+0(px)?[,\s]+0(px)?\s*\)$/;
  const ZERO_CLIP_PATH = /^(inset\(\s*(50|100)%|circle\(\s*0(px)?[\s)]|polygon\(\s*0(px)?\s+0(px)?\s*\))/;

  // Each computed property read costs a few microseconds on every element of a snapshot, so only
  // a positioned element (absolute or fixed) has its box, clip and overflow looked at: the ways
  // to push text off the page or clip it away (the screen-reader-only pattern is one) need it.
  // `rect`: the element's box in page coordinates {left, top, right, bottom, width, height}, and
  // the page's size {pageWidth, pageHeight}.
  const boxReason = (css, rect) => {
    if (ZERO_CLIP.test(css.clip) || ZERO_CLIP_PATH.test(css.clipPath)) return "clipped";
    const overflow = css.overflow;
    const clips = overflow !== "visible" && overflow !== "auto" && overflow !== "scroll";
    if (clips && (rect.width <= TINY || rect.height <= TINY)) return "clipped";
    if (rect.right <= -FAR / 10 || rect.bottom <= -FAR / 10) return "off-screen";
    if (rect.left >= rect.pageWidth + FAR || rect.top >= rect.pageHeight + FAR) return "off-screen";
    return "";
  };

  const positioned = (css) => {
    const position = css.position;
    return position === "absolute" || position === "fixed";
  };

  // Why the element, and all under it, is unseen, or "": `rect` is read only when positioned.
  // `display`, where the caller read it already: an element displayed "inline" is never
  // positioned (CSS makes an absolutely positioned box a block), which spares a read.
  const ownReason = (css, rect = null, display = "") => {
    if (Number(css.opacity) === 0) return "opacity 0";
    if (display === "inline" || !positioned(css)) return "";
    return boxReason(css, typeof rect === "function" ? rect() : rect ?? { left: 0, top: 0, right: 1, bottom: 1, width: 1, height: 1, pageWidth: 1, pageHeight: 1 });
  };

  // `background`: the opaque colour under the element's text, or null when unknown (an image).
  const textReason = (css, background) => {
    if (parseFloat(css.fontSize) === 0) return "zero font size";
    const color = parseColor(css.color);
    if (color && color[3] === 0) return "transparent";
    if (color && background && contrast(over(color, background), background) < SAME_COLOUR) return "same colour as background";
    return "";
  };

  // The opaque colour under an element: its own background over its parent's; null (unknown,
  // so seen) where an image or a gradient paints it.
  const backgroundOf = (css, parentBackground) => {
    if (parentBackground === null) return null;
    if (css.backgroundImage && css.backgroundImage !== "none") return null;
    return colourOver(css, parentBackground);
  };

  const colourOver = (css, under) => {
    const own = parseColor(css.backgroundColor);
    if (!own || own[3] === 0) return under;
    return own[3] === 1 ? own : over(own, under);
  };

  const pageRect = (element) => {
    const view = element.ownerDocument.defaultView ?? window;
    const box = element.getBoundingClientRect();
    const root = element.ownerDocument.documentElement;
    return {
      left: box.left + view.scrollX,
      top: box.top + view.scrollY,
      right: box.right + view.scrollX,
      bottom: box.bottom + view.scrollY,
      width: box.width,
      height: box.height,
      pageWidth: root.scrollWidth,
      pageHeight: root.scrollHeight,
    };
  };

  const hiddenOf = (element, css, parentHidden, display) => parentHidden || ownReason(css, () => pageRect(element), display);

  // For the walks (snapshot.js, read.js): `style` is {css, …} as they cache it, one per element;
  // the parent's style carries its own judgement, or none where a walk starts below the top (then
  // the ancestors are judged here).
  const annotate = (element, style, parentStyle) => {
    if (!style?.css || style.hidden !== undefined) return style;
    const parent = parentStyle?.hidden !== undefined ? parentStyle : chainOf(element.parentElement);
    style.up = parent;
    style.hidden = hiddenOf(element, style.css, parent.hidden, style.display);
    return style;
  };

  // The background colour under a style's text, worked out only where text needs it and by
  // colours alone; the images, a second read each, are looked for only where the colours match.
  const colourOf = (style) => {
    if (style.bg === undefined) style.bg = style.css ? colourOver(style.css, colourOf(style.up)) : WHITE;
    return style.bg;
  };

  const imageUnder = (style) => {
    for (let at = style; at; at = at.up) {
      if (at.up === undefined) return at.bg === null; // the top of a judged chain (chainOf)
      const css = at.css;
      if (css.backgroundImage !== "none") return true;
      if (parseColor(css.backgroundColor)?.[3] === 1) return false;
    }
    return false;
  };

  // Why the text directly in an element with this (annotated) style is unseen, or "".
  const textHidden = (style) => {
    if (!style?.css || style.hidden === undefined) return "";
    if (style.textHidden === undefined) {
      let why = style.hidden || textReason(style.css, colourOf(style));
      if (why === "same colour as background" && imageUnder(style)) why = "";
      style.textHidden = why;
    }
    return style.textHidden;
  };

  // The judgement of an element from the top of its document down.
  const chainOf = (element) => {
    const chain = [];
    for (let up = element; up && up.nodeType === 1; up = up.parentElement) chain.push(up);
    let state = { hidden: "", bg: WHITE };
    for (let i = chain.length - 1; i >= 0; i--) {
      const el = chain[i];
      const css = (el.ownerDocument.defaultView ?? window).getComputedStyle(el);
      if (css.display === "none") state = { hidden: "not displayed", bg: state.bg };
      else if (css.visibility !== "visible" && i === 0) state = { hidden: "hidden", bg: state.bg };
      else state = { hidden: hiddenOf(el, css, state.hidden), bg: backgroundOf(css, state.bg) };
      state.css = css;
    }
    return state;
  };

  // Why the element is unseen: its box or an ancestor's, or its own text's (an act on a button
  // whose label is the page's colour).
  const reasonOf = (element) => {
    if (!element || element.nodeType !== 1) return "";
    const state = chainOf(element);
    if (state.hidden) return state.hidden;
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) return "zero size";
    return textReason(state.css, state.bg) && element.textContent.trim() ? textReason(state.css, state.bg) : "";
  };

  globalThis.__tabpilotSeen = Object.freeze({ parseColor, over, contrast, ownReason, textReason, backgroundOf, annotate, textHidden, reasonOf, chainOf });
})();
