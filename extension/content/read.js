// browser_read in the content script's isolated world: the page's visible text, as innerText gives
// it (hidden elements left out, line breaks where the layout has them), of the body or of the
// element a ref names, in pages of `limit` characters. innerText stops at shadow roots and iframes;
// where the page has those, the text around them is put together here, with innerText for every
// part that has none. Text the person cannot see (content/seen.js) is written
// `⟦not visible: …⟧`, or left out with visible_only, but for the text that labels a control the
// person sees (a screen-reader label), which stays, marked.
(() => {
  "use strict";

  const refs = globalThis.__tabpilotRefs;
  const seen = globalThis.__tabpilotSeen;
  // The roles whose text names a control: unseen text inside one the person sees is its label.
  const CONTROLS = new Set(["a", "button", "label", "summary", "select", "option"]);
  const CONTROL_ROLES = new Set(["button", "link", "tab", "menuitem", "checkbox", "radio", "switch", "option"]);
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

  // One read's judgement of what the person sees: {styles, unseen: Map element -> "label"|"text",
  // visibleOnly}.
  let sight = null;

  const styleOf = (element) => {
    let style = sight.styles.get(element);
    if (style === undefined) {
      const css = (element.ownerDocument.defaultView ?? window).getComputedStyle(element);
      const display = css.display;
      // `up`, `hidden`, `bg`, `text`: content/seen.js's judgement; `display` spares most elements
      // its position read.
      style = display === "none" ? { display } : { css, display, up: undefined, hidden: undefined, bg: undefined, text: undefined };
      sight.styles.set(element, style);
    }
    return style;
  };

  const isControl = (element) => CONTROLS.has(element.localName) || CONTROL_ROLES.has(element.getAttribute("role"));

  // Whether the element (or the text directly in it) is unseen, and if so whether it labels a
  // control the person sees.
  const judge = (element) => {
    const parent = element.parentElement ? sight.styles.get(element.parentElement) : undefined;
    const style = seen.annotate(element, styleOf(element), parent);
    if (!style.css || style.css.visibility !== "visible") return;
    let why = style.hidden && !style.up?.hidden;
    if (!why && !style.hidden) {
      let text = false;
      for (let node = element.firstChild; node && !text; node = node.nextSibling) text = node.nodeType === 3 && /\S/.test(node.data);
      why = text && seen.textHidden(style) !== "";
    }
    if (!why) return;
    let label = false;
    for (let up = element.parentElement; up && !label; up = up.parentElement) {
      if (isControl(up)) label = !seen.annotate(up, styleOf(up), undefined).hidden;
    }
    sight.unseen.set(element, label ? "label" : "text");
  };

  // The elements under `root` that hold a shadow root or a same-origin frame, or text the person
  // cannot see, and their ancestors up to `root`: the parts innerText cannot read as a whole.
  const pathsToHidden = (root) => {
    const onPath = new Set();
    const notShown = { acceptNode: (el) => (styleOf(el).display === "none" ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT) };
    const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, notShown);
    for (let element = walker.currentNode; element; element = walker.nextNode()) {
      if (element !== root && !sight.unseen.has(element.parentElement)) judge(element);
      if (element === root || !(hiddenFromInnerText(element) || sight.unseen.has(element))) continue;
      for (let up = element; up && up !== root && !onPath.has(up); up = up.parentNode) onPath.add(up);
    }
    return onPath;
  };

  // An unseen part, marked; its own brackets are taken out so that it cannot close the mark.
  const unseenText = (element) => {
    const kind = sight.unseen.get(element);
    if (sight.visibleOnly && kind !== "label") return "";
    const text = innerText(element).replace(/[\u27e6\u27e7]/g, "").replace(/\s+/g, " ").trim();
    return text ? `\u27e6not visible: ${text}\u27e7` : "";
  };

  const innerText = (element) => (typeof element.innerText === "string" ? element.innerText : element.textContent ?? "");

  // {text, block}; `clean` when nothing under the element is hidden from innerText.
  const textOf = (element, clean = false) => {
    const style = (element.ownerDocument.defaultView ?? window).getComputedStyle(element);
    if (style.display === "none") return { text: "", block: false };
    const block = !INLINE.has(style.display);
    // A control's label runs on from the control's text.
    if (sight.unseen.has(element)) return sight.unseen.get(element) === "label" ? { text: " " + unseenText(element), block: false } : { text: unseenText(element), block };
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
  const read = ({ ref = null, offset = 0, limit = 10000, visible_only: visibleOnly = false } = {}) => {
    const root = ref ? refs.resolveRef(ref) : document.body ?? document.documentElement;
    if (ref && (root.localName === "iframe" || root.localName === "frame") && !frameDocument(root)) {
      const path = globalThis.__tabpilotFrames?.pathOfFrame(root);
      if (typeof path === "string") return { frame: path };
    }
    sight = { styles: new Map(), unseen: new Map(), visibleOnly: visibleOnly === true };
    let whole;
    try {
      whole = tidy(textOf(root).text);
    } finally {
      sight = null;
    }
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
