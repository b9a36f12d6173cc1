// Element refs (`e1`, `e2`, …) for the page tools, kept in the content script's ISOLATED world, where
// the page's own scripts can neither read nor forge them. Loaded before content.js in the top frame;
// elements of same-origin iframes and of shadow roots get refs in the same map.
//
// API, on globalThis.__tabpilotRefs (isolated world only):
//   doc                 a random id of this document's ref map; sent with every ref-bearing answer,
//                       so that the worker can tell a ref of an earlier page (stale) from a typo.
//   refOf(element)      -> "eN": the element's ref, given on first ask and kept for the document.
//   peek(element)       -> "eN" | null, without giving one out.
//   resolveRef(ref)     -> the element, or throws a RefError {code, message, data: {ref, doc}}:
//                       "stale_ref" when the element was removed (or its frame navigated),
//                       "ref_not_found" when this map never gave out that ref.
//   roleOf(element)     -> the role a snapshot shows ("button", "textbox", "generic"…); exact once
//                       ready() has resolved.
//   describe(element)   -> 'button "Add to cart"': role and accessible name, for descriptions.
//   shadowRootOf(element) -> its shadow root, open or closed, or null (for the page walks).
//   hostsOf(element)    -> the frames and shadow hosts between the document and it, outermost first.
//   pathTo(element)     -> the steps from the document to it that a script in another world can
//                       follow: a child index, "shadow" (into an open shadow root) or "frame"
//                       (into a same-origin frame's document); null when a closed shadow root is
//                       on the way, which no page script can enter.
//                       Uses dom-accessibility-api once loaded (await ready() first for the exact
//                       name), else a close cheap guess.
//   ready()             -> a Promise of dom-accessibility-api {getRole, computeAccessibleName, …},
//                       imported once from extension/vendor/; rejects if it cannot load.
//   RefError            the error class resolveRef throws (err.code, err.message, err.data).
(() => {
  "use strict";

  // A second injection into the same document (the worker re-injecting content.js) keeps the map,
  // so refs given out before stay valid.
  if (globalThis.__tabpilotRefs) return;

  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  const doc = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

  const refs = new WeakMap(); // element -> ref
  const elements = new Map(); // ref -> WeakRef(element)
  let counter = 0;
  // Refs are given in order, so any `eN` up to the counter was given out: one whose entry is gone
  // reads stale. That lets the entries of collected elements go, on a page that keeps re-rendering.
  const SWEEP_FROM = 10_000;
  let sweepAt = SWEEP_FROM;
  const sweep = () => {
    for (const [ref, held] of elements) if (held.deref() === undefined) elements.delete(ref);
    sweepAt = Math.max(SWEEP_FROM, elements.size * 2);
  };
  const givenOut = (ref) => typeof ref === "string" && /^e[1-9]\d*$/.test(ref) && Number(ref.slice(1)) <= counter;

  class RefError extends Error {
    constructor(code, message, ref) {
      super(message);
      this.code = code;
      this.data = { ref, doc };
    }
  }

  const refOf = (element) => {
    let ref = refs.get(element);
    if (ref === undefined) {
      ref = "e" + ++counter;
      refs.set(element, ref);
      elements.set(ref, new WeakRef(element));
      if (elements.size > sweepAt) sweep();
    }
    return ref;
  };

  const peek = (element) => refs.get(element) ?? null;

  // Removed from its document, or left in a document its frame no longer shows (which keeps the
  // element "connected" to that dead document).
  const gone = (element) => !element.isConnected || !element.ownerDocument?.defaultView;

  const resolveRef = (ref) => {
    const held = typeof ref === "string" ? elements.get(ref) : undefined;
    if (held === undefined && !givenOut(ref)) {
      throw new RefError(
        "ref_not_found",
        `No element has ref ${JSON.stringify(ref)} in this page: refs come from browser_snapshot. Take a snapshot and use a ref from it.`,
        ref,
      );
    }
    const element = held?.deref();
    if (element === undefined || gone(element)) {
      throw new RefError(
        "stale_ref",
        `The element with ref ${ref} is no longer in the page (it was removed or replaced). Take a new snapshot and use its refs.`,
        ref,
      );
    }
    return element;
  };

  const LIBRARY = "vendor/dom-accessibility-api/index.mjs";
  let library = null;
  let loaded = null;
  const ready = () => {
    // A content script cannot be a module, but it may import() one: the module then runs in this
    // isolated world. Chromium 156 refuses import() of a use_dynamic_url resource (a fetch of it
    // works), so the files are web-accessible under the extension's own id.
    library ??= import(chrome.runtime.getURL(LIBRARY)).then(
      (api) => (loaded = api),
      (err) => {
        library = null;
        throw err;
      },
    );
    return library;
  };

  const shadowRootOf = (element) => {
    if (element.shadowRoot) return element.shadowRoot;
    // Closed shadow roots are visible to extensions through chrome.dom (Chrome 88+). The call costs
    // more than the rest of an element's walk, so it is made only where a closed root is likely: a
    // custom element, or an element with no children of its own (a host's light DOM is rarely
    // left unslotted).
    if (!element.localName.includes("-") && element.firstChild !== null) return null;
    try {
      return chrome.dom?.openOrClosedShadowRoot?.(element) ?? null;
    } catch {
      return null;
    }
  };

  const hostsOf = (element) => {
    const hosts = [];
    for (let node = element; ; ) {
      const root = node.getRootNode();
      let host = null;
      if (root.nodeType === 11) host = root.host;
      else if (root !== document) host = root.defaultView?.frameElement ?? null;
      if (!host) break;
      hosts.unshift(host);
      node = host;
    }
    return hosts;
  };

  const pathTo = (element) => {
    const steps = [];
    for (let node = element; node !== document; ) {
      const parent = node.parentNode;
      if (!parent) return null;
      steps.unshift(Array.prototype.indexOf.call(parent.children, node));
      if (parent.nodeType === 11) {
        if (parent.host.shadowRoot !== parent) return null;
        steps.unshift("shadow");
        node = parent.host;
      } else if (parent.nodeType === 9) {
        if (parent === document) break;
        const frame = parent.defaultView?.frameElement;
        if (!frame) return null;
        steps.unshift("frame");
        node = frame;
      } else node = parent;
    }
    return steps;
  };

  // The element where editing starts (its children are editable too, and are its text).
  const editableHost = (element) =>
    element.hasAttribute("contenteditable") && element.isContentEditable && element.parentElement?.isContentEditable !== true;

  const TYPED_FORMATS = new Set(["date", "time", "datetime-local", "month", "week", "color"]);

  // dom-accessibility-api's role, with what a snapshot reads differently: an editable region and a
  // password field are textboxes; section and form are landmarks only when named.
  const roleOf = (element) => {
    const local = element.localName;
    if (editableHost(element) && !element.hasAttribute("role")) return "textbox";
    if (local === "input" && element.type === "password") return "textbox";
    // As Chrome's accessibility tree has it: a file input is a button ("Choose File").
    if (local === "input" && element.type === "file") return "button";
    // Text a person types in a set format; dom-accessibility-api gives these no role, so they
    // would get no ref (browser_fill_form fills them).
    if (local === "input" && TYPED_FORMATS.has(element.type) && !element.hasAttribute("role")) return "textbox";
    if (local === "iframe" || local === "frame") return "iframe";
    if (!loaded) return element.getAttribute("role") || "generic";
    if ((local === "section" || local === "form") && !element.hasAttribute("aria-label") && !element.hasAttribute("aria-labelledby")) return "generic";
    return loaded.getRole(element) || "generic";
  };

  // Before the library loads: the explicit role or the tag, and the aria-label or the text.
  const describe = (element) => {
    const role = roleOf(element);
    const name = loaded
      ? loaded.computeAccessibleName(element)
      : (element.getAttribute("aria-label") ?? element.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 100);
    const label = role === "generic" ? element.localName : role;
    return name ? `${label} ${JSON.stringify(name)}` : label;
  };

  globalThis.__tabpilotRefs = Object.freeze({ doc, refOf, peek, resolveRef, roleOf, describe, shadowRootOf, hostsOf, pathTo, ready, RefError });
})();
