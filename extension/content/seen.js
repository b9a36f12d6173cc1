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
//   ownReason(css, rect?, display?) -> why the element and all under it are unseen, or "" (rect:
//                            its box, or a function that measures it, read only when positioned)
//   textReason(css, background) -> why the text the element holds is unseen, or ""
//   backgroundOf(css, parentBackground) -> the opaque colour under it, null where an image paints
//   annotate(element, style, parentStyle) -> sets style.up and style.hidden (for the walks)
//   textHidden(style) -> why the text directly in an annotated style's element is unseen, or ""
//   reasonOf(element) -> why an element is unseen, its ancestors included, or "" (for acts)
//
// Cost: a snapshot judges every element it walks, so each computed property read counts (one to
// four microseconds each: a colour or a length costs most, a keyword least). An element costs one
// read (its opacity), two when its display lets it be positioned; an element holding text three
// more (font size, colour, its own background), each background read once down the walk. Colours
// are parsed and compared once per distinct pair, not once per element.
(() => {
  "use strict";

  // Below this contrast ratio text reads as its background: 1 is the same colour, 1.1 is #f4f4f4
  // on white, which nobody reads.
  const SAME_COLOUR = 1.1;
  const SAME = "same colour as background";
  // A box this small shows no text (the screen-reader-only pattern: 1 × 1 px, overflow hidden).
  const TINY = 1;
  // Positioned this far off the page, nothing is on screen: `left: -9999px`.
  const FAR = 1000;
  const WHITE = Object.freeze([255, 255, 255, 1]);
  // Chrome's computed value for no background colour, the common case: no parse needed.
  const NO_COLOUR = "rgba(0, 0, 0, 0)";

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
    return [top[0] * a + bottom[0] * (1 - a), top[1] * a + bottom[1] * (1 - a), top[2] * a + bottom[2] * (1 - a), 1];
  };

  const linear = (v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (c) => 0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2]);

  const contrast = (a, b) => {
    const x = luminance(a);
    const y = luminance(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  };

  // A page has few distinct colours: each is parsed once. Bounded, as a page may make endless ones.
  const MEMO = 2048;
  const parsed = new Map();
  const colourOf = (css) => {
    let colour = parsed.get(css);
    if (colour === undefined) {
      if (parsed.size >= MEMO) parsed.clear();
      colour = parseColor(css);
      parsed.set(css, colour);
    }
    return colour;
  };

  // The text colour's verdict over an opaque background colour.
  const colourReason = (color, background) => {
    if (!color) return "";
    if (color[3] === 0) return "transparent";
    return background && contrast(over(color, background), background) < SAME_COLOUR ? SAME : "";
  };

  const ZERO_CLIP = /^rect\(\s*0(px)?[,\s]+0(px)?[,\s]+0(px)?[,\s]+0(px)?\s*\)$/;
  const ZERO_CLIP_PATH = /^(inset\(\s*(50|100)%|circle\(\s*0(px)?[\s)]|polygon\(\s*0(px)?\s+0(px)?\s*\))/;

  // Only a positioned element (absolute or fixed) has its box, clip and overflow looked at: the
  // ways to push text off the page or clip it away (the screen-reader-only pattern is one) need it.
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

  // CSS makes an absolutely positioned box block-level, so an element whose computed display is
  // inline-level, a table's part or `contents` is never positioned: its position is not read.
  const mayBePositioned = (display) => !(display.startsWith("inline") || display.startsWith("table-") || display === "contents");

  const positioned = (css) => {
    const position = css.position;
    return position === "absolute" || position === "fixed";
  };

  const UNMEASURED = Object.freeze({ left: 0, top: 0, right: 1, bottom: 1, width: 1, height: 1, pageWidth: 1, pageHeight: 1 });

  // Why the element, and all under it, is unseen, or "": `measure(of)` gives its box, called only
  // when positioned. `display`, where the caller read it already, spares most elements the
  // position read.
  const look = (css, display, measure, of) => {
    const opacity = css.opacity;
    if (opacity !== "1" && Number(opacity) === 0) return "opacity 0";
    if ((display && !mayBePositioned(display)) || !positioned(css)) return "";
    return boxReason(css, measure(of));
  };

  const measured = (rect) => (typeof rect === "function" ? rect() : rect ?? UNMEASURED);
  const ownReason = (css, rect = null, display = "") => look(css, display, measured, rect);

  // `background`: the opaque colour under the element's text, or null when unknown (an image).
  const textReason = (css, background) => {
    if (parseFloat(css.fontSize) === 0) return "zero font size";
    return colourReason(parseColor(css.color), background);
  };

  // The opaque colour under an element: its own background over its parent's; null (unknown,
  // so seen) where an image or a gradient paints it.
  const backgroundOf = (css, parentBackground) => {
    if (parentBackground === null) return null;
    if (css.backgroundImage && css.backgroundImage !== "none") return null;
    const own = parseColor(css.backgroundColor);
    if (!own || own[3] === 0) return parentBackground;
    return own[3] === 1 ? own : over(own, parentBackground);
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

  // For the walks (snapshot.js, read.js): `style` is {css, display, …} as they cache it, one per
  // element; this sets style.up (the parent's style) and style.hidden. The parent's style carries
  // its own judgement, or none where a walk starts below the top (then the ancestors are judged
  // here). The walks' styles carry `up`, `hidden`, `bg` and `text` from the start, so that the
  // objects keep one shape.
  const annotate = (element, style, parentStyle) => {
    if (!style?.css || style.hidden !== undefined) return style;
    const parent = parentStyle?.hidden !== undefined ? parentStyle : chainOf(element.parentElement);
    style.up = parent;
    style.hidden = parent.hidden || look(style.css, style.display, pageRect, element);
    return style;
  };

  // The background under a style's text: {rgb, verdicts} where rgb is an opaque colour, shared
  // down the walk while no element paints its own; `verdicts` keeps the text colours judged over
  // it. Worked out only where text needs it, by colours alone (images: imageUnder).
  const PAGE = () => ({ rgb: WHITE, verdicts: new Map() });
  const underOf = (style) => {
    let bg = style.bg;
    if (bg !== undefined) return bg;
    const under = style.up ? underOf(style.up) : PAGE();
    const own = style.css ? style.css.backgroundColor : NO_COLOUR;
    if (own === NO_COLOUR) bg = under;
    else {
      const colour = colourOf(own);
      bg = !colour || colour[3] === 0 ? under : { rgb: colour[3] === 1 ? colour : over(colour, under.rgb), verdicts: new Map() };
    }
    style.bg = bg;
    return bg;
  };

  const imageUnder = (style) => {
    for (let at = style; at; at = at.up) {
      const css = at.css;
      if (!css) continue;
      if (css.backgroundImage !== "none") return true;
      if (colourOf(css.backgroundColor)?.[3] === 1) return false;
    }
    return false;
  };

  // Why the text directly in an element with this (annotated) style is unseen, or "".
  const textHidden = (style) => {
    if (!style?.css || style.hidden === undefined) return "";
    let why = style.text;
    if (why !== undefined) return why;
    why = style.hidden;
    if (!why) {
      const css = style.css;
      const size = css.fontSize;
      if (size === "0px" || parseFloat(size) === 0) why = "zero font size";
      else {
        const color = css.color;
        const bg = underOf(style);
        why = bg.verdicts.get(color);
        if (why === undefined) {
          why = colourReason(colourOf(color), bg.rgb);
          if (bg.verdicts.size < MEMO) bg.verdicts.set(color, why);
        }
        if (why === SAME && imageUnder(style)) why = "";
      }
    }
    style.text = why;
    return why;
  };

  // The judgement of an element from the top of its document down: a chain of styles as the
  // walks keep them.
  const chainOf = (element) => {
    const chain = [];
    for (let up = element; up && up.nodeType === 1; up = up.parentElement) chain.push(up);
    let state = { css: null, display: "", hidden: "", up: null, bg: undefined, text: undefined };
    for (let i = chain.length - 1; i >= 0; i--) {
      const el = chain[i];
      const css = (el.ownerDocument.defaultView ?? window).getComputedStyle(el);
      let hidden;
      if (css.display === "none") hidden = "not displayed";
      else if (i === 0 && css.visibility !== "visible") hidden = "hidden";
      else hidden = state.hidden || look(css, "", pageRect, el);
      state = { css, display: "", hidden, up: state, bg: undefined, text: undefined };
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
    return element.textContent.trim() ? textHidden(state) : "";
  };

  globalThis.__tabpilotSeen = Object.freeze({ parseColor, over, contrast, ownReason, textReason, backgroundOf, annotate, textHidden, reasonOf, chainOf });
})();
