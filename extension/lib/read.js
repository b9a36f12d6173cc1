// browser_read in the content script's isolated world: the page's visible text, as innerText gives
// it (hidden elements left out, line breaks where the layout has them), of the body or of the
// element a ref names, in pages of `limit` characters.
(() => {
  "use strict";

  const refs = globalThis.__tabpilotRefs;

  // Blank lines beyond one in a row say nothing an agent needs.
  const tidy = (text) => text.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();

  /** read({ref, offset, limit}) -> {text, offset, total, more} */
  const read = ({ ref = null, offset = 0, limit = 10000 } = {}) => {
    const root = ref ? refs.resolveRef(ref) : document.body ?? document.documentElement;
    // innerText needs an HTML element; an SVG element, say, has only its textContent.
    const whole = tidy(typeof root.innerText === "string" ? root.innerText : root.textContent ?? "");
    let end = Math.min(offset + limit, whole.length);
    // Never split a character outside the Basic Multilingual Plane between two pages.
    const code = whole.charCodeAt(end - 1);
    if (end < whole.length && end - 1 > offset && code >= 0xd800 && code <= 0xdbff) end--;
    const text = offset < whole.length ? whole.slice(offset, end) : "";
    return { text, offset, total: whole.length, more: offset + text.length < whole.length };
  };

  globalThis.__tabpilotRead = Object.freeze({ read });
})();
