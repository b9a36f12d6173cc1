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
  const elements = new Map(); // ref -> WeakRef(element); entries stay so that a removed element reads stale
  let counter = 0;

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
    }
    return ref;
  };

  const peek = (element) => refs.get(element) ?? null;

  // Removed from its document, or left in a document its frame no longer shows (which keeps the
  // element "connected" to that dead document).
  const gone = (element) => !element.isConnected || !element.ownerDocument?.defaultView;

  const resolveRef = (ref) => {
    const held = typeof ref === "string" ? elements.get(ref) : undefined;
    if (held === undefined) {
      throw new RefError(
        "ref_not_found",
        `No element has ref ${JSON.stringify(ref)} in this page: refs come from browser_snapshot. Take a snapshot and use a ref from it.`,
        ref,
      );
    }
    const element = held.deref();
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

  // The element where editing starts (its children are editable too, and are its text).
  const editableHost = (element) =>
    element.hasAttribute("contenteditable") && element.isContentEditable && element.parentElement?.isContentEditable !== true;

  // dom-accessibility-api's role, with what a snapshot reads differently: an editable region and a
  // password field are textboxes; section and form are landmarks only when named.
  const roleOf = (element) => {
    const local = element.localName;
    if (editableHost(element) && !element.hasAttribute("role")) return "textbox";
    if (local === "input" && element.type === "password") return "textbox";
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

  globalThis.__tabpilotRefs = Object.freeze({ doc, refOf, peek, resolveRef, roleOf, describe, ready, RefError });
})();
