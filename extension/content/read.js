// browser_read in the content script's isolated world: the page's visible text, as innerText gives
// it (hidden elements left out, line breaks where the layout has them), of the body or of the
// element a ref names, in pages of `limit` characters. innerText stops at shadow roots and iframes;
// where the page has those, the text around them is put together here, with innerText for every
// part that has none.
(() => {
  "use strict";

  const refs = globalThis.__tabpilotRefs;
  const INLINE = new Set(["inline", "inline-block", "inline-flex", "inline-grid", "contents", "ruby"]);

  // Blank lines beyond one in a row say nothing an agent needs.
  const tidy = (text) => text.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();

  const frameDocument = (element) => {
    if (element.localName !== "iframe" && element.localName !== "frame") return null;
    try {
      return element.contentDocument; // null when cross-origin
    } catch {
      return null;
    }
  };

  // What is inside `element` that innerText does not read: its shadow root or its frame's page.
  const hiddenFromInnerText = (element) => refs.shadowRootOf(element) ?? frameDocument(element)?.body ?? null;

  // The elements under `root` that hold a shadow root or a same-origin frame, and their ancestors
  // up to `root`: the parts innerText cannot read as a whole.
  const pathsToHidden = (root) => {
    const onPath = new Set();
    const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let element = walker.currentNode; element; element = walker.nextNode()) {
      if (element === root || !hiddenFromInnerText(element)) continue;
      for (let up = element; up && up !== root && !onPath.has(up); up = up.parentNode) onPath.add(up);
    }
    return onPath;
  };

  const innerText = (element) => (typeof element.innerText === "string" ? element.innerText : element.textContent ?? "");

  // {text, block}; `clean` when nothing under the element is hidden from innerText.
  const textOf = (element, clean = false) => {
    const style = (element.ownerDocument.defaultView ?? window).getComputedStyle(element);
    if (style.display === "none") return { text: "", block: false };
    const block = !INLINE.has(style.display);
    if (clean) return { text: innerText(element), block };
    const inner = hiddenFromInnerText(element);
    if (inner) return { text: inner.nodeType === 1 ? textOf(inner).text : childrenText(inner, pathsToHidden(inner)), block: true };
    const onPath = pathsToHidden(element);
    if (onPath.size === 0) return { text: innerText(element), block };
    return { text: childrenText(element, onPath), block };
  };

  // The children of `parent` put together: text and inline parts run on, blocks go on lines of
  // their own. Parts not on a path to hidden content are read by innerText.
  const childrenText = (parent, onPath) => {
    let out = "";
    const add = (text, block) => {
      if (!text) return;
      out += block ? `\n${text}\n` : text;
    };
    for (let node = parent.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === 3) add(node.data.replace(/\s+/g, " "), false);
      else if (node.nodeType !== 1) continue;
      else if (node.localName === "slot") add(Array.from(node.assignedNodes({ flatten: true }), slotted).join(""), false);
      else {
        const part = textOf(node, !onPath.has(node) && !hiddenFromInnerText(node));
        add(part.text, part.block);
      }
    }
    return out;
  };

  const slotted = (node) => (node.nodeType === 3 ? node.data.replace(/\s+/g, " ") : node.nodeType === 1 ? textOf(node).text : "");

  // The frames under `root` whose document this world cannot read (another origin, or sandboxed):
  // their text is in their own frame (content/frames.js), which a read of the iframe's ref reads.
  const unreadFrames = (root) => {
    let count = 0;
    for (const frame of root.querySelectorAll?.("iframe, frame") ?? []) {
      if (!frameDocument(frame) && frame.checkVisibility?.() !== false) count += 1;
    }
    return count;
  };

  /**
   * read({ref, offset, limit}) -> {text, offset, total, more, unread_frames?}, or {frame: path} when
   * the ref names an iframe of another origin: the worker reads that frame instead.
   */
  const read = ({ ref = null, offset = 0, limit = 10000 } = {}) => {
    const root = ref ? refs.resolveRef(ref) : document.body ?? document.documentElement;
    if (ref && (root.localName === "iframe" || root.localName === "frame") && !frameDocument(root)) {
      const path = globalThis.__tabpilotFrames?.pathOfFrame(root);
      if (typeof path === "string") return { frame: path };
    }
    const whole = tidy(textOf(root).text);
    let end = Math.min(offset + limit, whole.length);
    // Never split a character outside the Basic Multilingual Plane between two pages.
    const code = whole.charCodeAt(end - 1);
    if (end < whole.length && end - 1 > offset && code >= 0xd800 && code <= 0xdbff) end--;
    const text = offset < whole.length ? whole.slice(offset, end) : "";
    const unread = unreadFrames(root);
    return { text, offset, total: whole.length, more: offset + text.length < whole.length, ...(unread ? { unread_frames: unread } : {}) };
  };

  globalThis.__tabpilotRead = Object.freeze({ read });
})();
