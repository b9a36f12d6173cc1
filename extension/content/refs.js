// Element refs (`e1`, `e2`, …) for the page tools, kept in the content script's ISOLATED world, where
// the page's own scripts can neither read nor forge them. Loaded before content.js in the top frame;
// elements of same-origin iframes and of shadow roots get refs in the same map.
//
// API, on globalThis.__tabpilotRefs (isolated world only):
//   doc                 a random id of this document's ref map; sent with every ref-bearing answer,
//                       so that the worker can tell a ref of an earlier page (stale) from a typo.
//   refOf(element)      -> "eN": the element's ref, given on first ask and kept for the document.
//   raise(floor)        the next ref given out is numbered above floor: the worker passes the
//                       highest number any document of this browser gave out, so that no two
//                       documents share a ref, and a ref sent to a tab it did not come from finds
//                       nothing there (docs/protocol.md, "Refs").
//   top()               -> the highest number this map gave out (or was raised to).
//   peek(element)       -> "eN" | null, without giving one out.
//   resolveRef(ref)     -> the element, or throws a RefError {code, message, data: {ref, doc}}:
//                       "stale_ref" when the element was removed (or its frame navigated),
//                       "ref_not_found" when this map never gave out that ref.
//   roleOf(element)     -> the role a snapshot shows ("button", "textbox", "generic"…); exact once
//                       ready() has resolved.
//   describe(element)   -> 'button "Add to cart"': role and accessible name, for descriptions;
//                       'button "Save draft" (shows "Delete account")' when the name is not what
//                       the element shows.
//   shows(name, text)   -> the shown text, bounded, when it differs from the name (see below); "".
//   placeholderOf(element) -> a text box's placeholder, its name when nothing else names it.
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
  const given = []; // [first, last]: the runs of numbers this map gave out (raise() starts a new one)
  // Refs are given in order, so any `eN` in a run was given out: one whose entry is gone reads
  // stale. That lets the entries of collected elements go, on a page that keeps re-rendering.
  const SWEEP_FROM = 10_000;
  let sweepAt = SWEEP_FROM;
  const sweep = () => {
    for (const [ref, held] of elements) if (held.deref() === undefined) elements.delete(ref);
    sweepAt = Math.max(SWEEP_FROM, elements.size * 2);
  };
  const givenOut = (ref) => {
    if (typeof ref !== "string" || !/^e[1-9]\d*$/.test(ref)) return false;
    const n = Number(ref.slice(1));
    return given.some(([first, last]) => first <= n && n <= last);
  };
  const raise = (floor) => {
    if (Number.isSafeInteger(floor) && floor > counter) counter = floor;
  };

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
      const n = ++counter;
      const run = given.at(-1);
      if (run && run[1] === n - 1) run[1] = n;
      else given.push([n, n]);
      ref = "e" + n;
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

  const normalize = (text) => String(text ?? "").replace(/\s+/g, " ").trim();

  // A text box named by nothing else is named by its placeholder, as Chrome's accessibility tree
  // does it (dom-accessibility-api leaves it out).
  const placeholderOf = (element) => {
    const local = element.localName;
    const attribute = local === "input" || local === "textarea" ? "placeholder" : "aria-placeholder";
    return normalize(element.getAttribute?.(attribute));
  };

  // The text an element shows, when its accessible name says something else: a page can label
  // a button "Save draft" that reads "Delete account" on screen. The two are compared without case
  // or spacing; text without a letter or digit (an icon, "×") and text the name contains, or that
  // contains the name ("Menu" in "Open menu"), do not count.
  const SHOWN_CHARS = 60;
  const shows = (name, text) => {
    const seen = normalize(text);
    const a = normalize(name).toLowerCase();
    const b = seen.toLowerCase();
    if (!/[\p{L}\p{N}]/u.test(b) || a.includes(b) || b.includes(a)) return "";
    return seen.length > SHOWN_CHARS ? seen.slice(0, SHOWN_CHARS - 1) + "\u2026" : seen;
  };

  // Roles whose name comes from their text unless an author labels them otherwise.
  const FROM_CONTENT = new Set(["button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "option", "switch", "checkbox", "radio", "treeitem", "cell", "gridcell"]);
  const relabelled = (element, role) =>
    FROM_CONTENT.has(role) && (element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby"));

  // Before the library loads: the explicit role or the tag, and the aria-label or the text.
  const describe = (element) => {
    const role = roleOf(element);
    let name = loaded
      ? loaded.computeAccessibleName(element)
      : normalize(element.getAttribute("aria-label") ?? element.textContent).slice(0, 100);
    if (!name && (role === "textbox" || role === "searchbox" || role === "combobox")) name = placeholderOf(element);
    const label = role === "generic" ? element.localName : role;
    if (!name && role === "textbox") name = globalThis.__tabpilotActEditors?.nameOf(element) ?? "";
    if (!name) return label;
    const shown = relabelled(element, role) ? shows(name, element.innerText ?? element.textContent) : "";
    return `${label} ${JSON.stringify(name)}${shown ? ` (shows ${JSON.stringify(shown)})` : ""}`;
  };

  globalThis.__tabpilotRefs = Object.freeze({
    doc, refOf, raise, top: () => counter, peek, resolveRef, roleOf, describe, shows, placeholderOf, shadowRootOf, hostsOf, pathTo, ready, RefError,
  });
})();
