// browser_snapshot in the content script's isolated world: walks the page (open and closed shadow
// roots, same-origin iframes) into the tree snapshot-format.js writes, giving refs
// (refs.js) to what an agent can act on. Roles come from dom-accessibility-api; names too,
// except where the walk already holds the text a name from content would be (buttons, links,
// headings…), which saves most of the time on a long page.
(() => {
  "use strict";

  const refs = globalThis.__tabpilotRefs;
  const seen = globalThis.__tabpilotSeen;
  const { format } = globalThis.__tabpilotSnapshotFormat;

  const SKIP = new Set([
    "script", "style", "noscript", "template", "head", "meta", "link", "title", "base", "param", "source", "track",
  ]);
  // Roles whose name is their text (ARIA "name from content"), when no author label is given. A
  // row's would repeat its cells, so a row has none.
  const NAME_FROM_CONTENT = new Set([
    "button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "radio", "rowheader", "switch", "tab", "tooltip", "treeitem",
  ]);
  // Roles an agent acts on: these always get a ref.
  const ACTIONABLE = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox", "menuitemradio",
    "option", "combobox", "listbox", "textbox", "searchbox", "slider", "spinbutton", "treeitem", "gridcell",
  ]);
  // Containers that get a ref, so that a snapshot of just that part can be asked for.
  const SECTIONS = new Set([
    "main", "navigation", "banner", "contentinfo", "complementary", "region", "form", "search", "list",
    "table", "dialog", "alertdialog", "menu", "menubar", "tablist", "tree", "grid", "iframe",
  ]);
  const NO_LINE = new Set([
    "generic", "none", "presentation", "rowgroup", "paragraph", "strong", "emphasis", "code", "time",
    "deletion", "insertion", "subscript", "superscript", "mark", "term", "definition", "caption", "legend",
  ]);
  // Elements whose name comes from labels, alt or the like: dom-accessibility-api computes it.
  const LABELLED = new Set([
    "input", "select", "textarea", "img", "area", "fieldset", "table", "figure", "meter", "progress", "output",
    "iframe",
  ]);
  // Roles with a checked state, and the roles of an input whose value is shown as its text.
  const CHECKABLE = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
  const VALUE_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "slider"]);
  const INLINE = new Set(["inline", "inline-block", "inline-flex", "inline-grid", "contents"]);

  const normalize = (text) => text.replace(/\s+/g, " ").trim();
  const SEPARATOR = Object.freeze({ role: "" });

  const originOf = (frame) => {
    try {
      return new URL(frame.src || "about:blank", frame.baseURI).origin;
    } catch {
      return "unknown";
    }
  };

  // A frame whose document this world cannot read (another origin, or sandboxed): its line carries
  // the worker's mark (`mark`, a per-snapshot nonce), the frame's path (content/frames.js) and the
  // origin its src names; the worker asks that frame for its part and writes it under the line
  // (worker/tab/frame-snapshot.js). Without a mark the line only says what is there.
  const frameMark = (frame, mark) => {
    const path = mark ? globalThis.__tabpilotFrames?.pathOfFrame(frame) : null;
    if (path == null) return `[cross-origin: ${originOf(frame)}] (not readable; open its url in a tab)`;
    return `\u27e6${mark}:${path}:${originOf(frame)}\u27e7`;
  };

  // What the person cannot see (content/seen.js) is written with this mark; with visible_only it
  // is left out, but for the text that names a control the person sees (a screen-reader label).
  const NOT_VISIBLE = "[not visible]";

  function walker(api, mark, visibleOnly = false) {
    // How many controls the person sees the walk is inside: hidden text there is their label.
    let inControl = 0;
    // How many hidden text nodes the walk has kept: none, and no name needs looking through.
    let unseenTexts = 0;
    const styles = new Map();
    const styleOf = (element) => {
      let style = styles.get(element);
      if (style === undefined) {
        // Each property read costs a few microseconds: each is read once, the cursor only when
        // asked (pointer()).
        try {
          const css = (element.ownerDocument.defaultView ?? window).getComputedStyle(element);
          const display = css.display;
          const shown = css.visibility === "visible";
          // `up`, `hidden`, `bg`, `text`: content/seen.js's judgement, set on the walk.
          style = display === "none" ? { display } : { css, display, shown, pointer: undefined, up: undefined, hidden: undefined, bg: undefined, text: undefined };
        } catch {
          style = null;
        }
        styles.set(element, style);
      }
      return style;
    };

    const pointer = (style) => (style ? (style.pointer ??= style.css.cursor === "pointer") : false);

    const interactive = (element, role, style, parentStyle) => {
      if (ACTIONABLE.has(role)) return true;
      if (element.hasAttribute("tabindex") && element.tabIndex >= 0) return true;
      if (element.hasAttribute("onclick")) return true;
      if (element.getAttribute("draggable") === "true") return true; // a drag's source
      // A click handler the isolated world cannot see often shows as the pointer cursor, which the
      // element's children inherit: only the outermost such element counts.
      return pointer(style) && !pointer(parentStyle);
    };

    const states = (element, role) => {
      const props = [];
      const aria = (name) => element.getAttribute(name);
      if (CHECKABLE.has(role)) {
        const input = element.localName === "input";
        const checked = input ? (element.indeterminate ? "mixed" : element.checked) : aria("aria-checked");
        if (checked === true || checked === "true") props.push("checked");
        else if (checked === "mixed") props.push("checked=mixed");
      }
      if (element.disabled === true || aria("aria-disabled") === "true") props.push("disabled");
      const expanded = element.localName === "summary" ? element.parentElement?.open : aria("aria-expanded");
      if (expanded === true || expanded === "true") props.push("expanded");
      const selected = element.localName === "option" && element.selected;
      if (selected || aria("aria-selected") === "true") props.push("selected");
      if (aria("aria-pressed") === "true") props.push("pressed");
      if (role === "heading") {
        const level = Number(aria("aria-level")) || Number(element.localName.slice(1)) || 2;
        props.push("level=" + level);
      }
      return props.length ? props : undefined;
    };

    // The text a name from content reads: the walked text of the children and the names of
    // nested nodes (an image's alt, say).
    const textOf = (items) => {
      let text = "";
      for (const item of items) {
        const part = typeof item === "string" ? item : item.name || textOf(item.children ?? []);
        if (part) text += (text ? " " : "") + part;
      }
      return normalize(text);
    };

    const labelled = (element) =>
      element.hasAttribute("aria-label") || element.hasAttribute("aria-labelledby") || LABELLED.has(element.localName);

    // Walks the children of `parent` (of its shadow root if it has one; a slot's assigned nodes)
    // into `out`; `style` is the parent's, which says whether their text is shown.
    const walkChildren = (parent, style, out) => {
      const local = parent.localName;
      if (local === "slot") {
        const assigned = parent.assignedNodes({ flatten: true });
        if (assigned.length > 0) {
          for (const node of assigned) walkNode(node, style, out);
          return;
        }
      }
      const root = parent.nodeType === 1 ? refs.shadowRootOf(parent) : null;
      const from = root ?? parent;
      for (let node = from.firstChild; node; node = node.nextSibling) walkNode(node, style, out);
    };

    // Text is kept as written (whitespace collapsed) while inline runs join, and trimmed at the
    // end (tidy), so that `$<b>19</b>.99` reads "$19.99". A space alone opening an inline
    // element is kept too: `<b>3</b><span> </span><span>items</span>` reads "3 items", as
    // innerText has it.
    const walkNode = (node, parentStyle, out) => {
      if (node.nodeType === 3) {
        if (parentStyle && !parentStyle.shown) return;
        if (/\S/.test(node.data) && seen.textHidden(parentStyle)) {
          const text = normalize(node.data);
          if (text && (!visibleOnly || inControl > 0)) {
            out.push({ role: "text", note: NOT_VISIBLE, unseen: text, children: [text] });
            unseenTexts++;
          }
          return;
        }
        const text = node.data.replace(/\s+/g, " ");
        const last = out.length - 1;
        if (last >= 0 && typeof out[last] === "string") out[last] += text;
        else if (text !== " " && text !== "") out.push(text);
        else if (text === " " && last < 0 && parentStyle && INLINE.has(parentStyle.display)) out.push(text);
        return;
      }
      if (node.nodeType !== 1) return;
      walkElement(node, parentStyle, out);
    };

    // The element's style, or null when it shows nothing to read: a kind that is never read, a
    // table's caption (its name already), an element hidden from assistive technology or not
    // displayed, a hidden input.
    const readableStyle = (element, local) => {
      if (SKIP.has(local) || local === "caption") return null;
      if (element.getAttribute("aria-hidden") === "true" || element.hasAttribute("inert")) return null;
      const style = styleOf(element);
      if (style?.display === "none" && labelledFileInput(element, local)) return SHOWN_BY_LABEL;
      if (!style || style.display === "none") return null;
      if (local === "input" && element.type === "hidden") return null;
      return style;
    };

    // A file input that a page hides behind its styled label still takes files (browser_upload):
    // it keeps its line, named by the label, whose text would otherwise vanish with it.
    const SHOWN_BY_LABEL = { display: "inline-block", shown: true, pointer: false };
    const labelledFileInput = (element, local) =>
      local === "input" && element.type === "file" && [...(element.labels ?? [])].some((label) => styleOf(label)?.display !== "none");

    const walkElement = (element, parentStyle, out) => {
      const local = element.localName;
      const style = seen.annotate(element, readableStyle(element, local), parentStyle);
      if (!style) return;
      if (visibleOnly && style.hidden && inControl === 0) return;
      const shown = style.shown;
      if (local === "iframe" || local === "frame") {
        if (shown) out.push(frameNode(element));
        return;
      }
      // An unlabelled svg is an icon: nothing to read.
      if (local === "svg" && !element.hasAttribute("aria-label") && !element.hasAttribute("aria-labelledby")) {
        if (!element.querySelector(":scope > title")) return;
      }
      const role = local === "svg" ? "img" : refs.roleOf(element);
      if (role === "presentation" && local === "img") return;
      const act = shown && interactive(element, role, style, parentStyle);
      const control = act && !style.hidden;
      if (control) inControl++;
      let kids;
      try {
        kids = childrenOf(element, local, style);
      } finally {
        if (control) inControl--;
      }
      if (!act && NO_LINE.has(role)) {
        flatten(kids, style, out);
        return;
      }
      if (!shown && !act) {
        for (const kid of kids) out.push(kid);
        return;
      }
      const node = nodeOf(element, role, act, kids);
      // Hidden whole: the line's mark says it of the name too.
      if (style.hidden) {
        node.note = NOT_VISIBLE;
        delete node.unseen;
      }
      out.push(node);
    };

    // What the element holds, by its kind: a select's options, no text for the controls whose text
    // is their value or drawing, a closed details' summary, else its children.
    const childrenOf = (element, local, style) => {
      const kids = [];
      if (local === "select") {
        for (const option of element.options) {
          const name = normalize(option.label);
          kids.push(option.selected ? { role: "option", name, props: ["selected"] } : { role: "option", name });
        }
      } else if (local === "textarea" || local === "input" || local === "svg") {
        // Their own text is their value, shown below, or drawing.
      } else if (local === "details" && !element.open) {
        // Closed: only the summary shows.
        const summary = element.querySelector(":scope > summary");
        if (summary) walkElement(summary, style, kids);
      } else walkChildren(element, style, kids);
      // A label's text is its control's name already.
      if (local === "label" && element.control) {
        for (let i = kids.length - 1; i >= 0; i--) if (typeof kids[i] === "string") kids.splice(i, 1);
      }
      return kids;
    };

    // An element with no line of its own: its children are its parent's. A block element's text is a
    // line of its own; an inline element's joins the text around it. A block holding several things
    // (a product card of divs, say) stays a group, so that a run of them can collapse; written out,
    // a group is flattened again (snapshot-format.js).
    const flatten = (kids, style, out) => {
      const block = !INLINE.has(style.display);
      if (block && kids.length > 1) {
        out.push({ role: "generic", flat: true, children: kids });
        return;
      }
      const last = () => out[out.length - 1];
      if (block && typeof last() === "string") out.push(SEPARATOR);
      if (!block && kids.length && typeof kids[0] === "string" && typeof last() === "string") {
        out[out.length - 1] += kids.shift();
      }
      for (const kid of kids) out.push(kid);
      if (block && typeof last() === "string") out.push(SEPARATOR);
    };

    // The element's own line: its role, name, states, ref, url and value, and its children.
    const nodeOf = (element, role, act, kids) => {
      const node = { role: act && NO_LINE.has(role) ? "generic" : role };
      let fromContent = false;
      if (labelled(element) || !NAME_FROM_CONTENT.has(role)) {
        const named = labelled(element) || element.hasAttribute("title");
        if (named) node.name = normalize(api.computeAccessibleName(element));
        if (!node.name && VALUE_ROLES.has(role)) node.name = refs.placeholderOf(element);
        // An author's label over text that says something else: interactive_only, which leaves
        // the text out, shows it beside the name.
        if (node.name && NAME_FROM_CONTENT.has(role)) {
          const shown = refs.shows(node.name, textOf(kids));
          if (shown) node.shown = shown;
        }
        // The name of a file input not displayed (labelledFileInput): its labels' text.
        if (named && !node.name && element.localName === "input" && element.type === "file") node.name = normalize([...element.labels].map((l) => l.textContent).join(" "));
      } else {
        node.name = textOf(kids);
        fromContent = true;
        const unseen = unseenTexts > 0 ? textOf(unseenOf(kids)) : "";
        if (unseen) node.unseen = unseen;
        if (!node.name && element.hasAttribute("title")) node.name = normalize(element.title);
      }
      // A code editor's textbox that its page left unnamed (content/act-editors.js).
      if (!node.name && role === "textbox") node.name = globalThis.__tabpilotActEditors?.nameOf(element);
      if (node.name && element.hasAttribute("aria-labelledby") && labelUnseen(element)) {
        if (visibleOnly) node.name = fromContent ? "" : NAME_FROM_CONTENT.has(role) ? textOf(kids) : "";
        else node.unseen = node.name;
      }
      if (!node.name) delete node.name;
      node.props = states(element, role);
      if (!node.props) delete node.props;
      if (act || SECTIONS.has(role)) node.ref = refs.refOf(element);
      if (role === "link" && element.hasAttribute("href")) node.url = element.getAttribute("href");
      const value = valueOf(element, role);
      // A name from content already says what the text children say.
      const children = fromContent ? kids.filter((kid) => typeof kid !== "string" && holdsRef(kid)) : kids;
      if (value) children.unshift(value);
      if (children.length) node.children = children;
      return node;
    };

    // The hidden text among a name's parts, for its mark.
    const unseenOf = (items, out = []) => {
      for (const item of items) {
        if (typeof item === "string" || item.ref) continue;
        if (item.unseen && item.role === "text") out.push(item.unseen);
        else unseenOf(item.children ?? [], out);
      }
      return out;
    };

    // Whether aria-labelledby names the element with text the person cannot see.
    const labelUnseen = (element) => {
      const root = element.getRootNode();
      return element.getAttribute("aria-labelledby").split(/\s+/).some((id) => {
        const target = id && root.getElementById?.(id);
        return target ? seen.reasonOf(target) !== "" : false;
      });
    };

    const holdsRef = (node) =>
      Boolean(node.ref) || (node.children ?? []).some((kid) => typeof kid !== "string" && holdsRef(kid));

    const valueOf = (element, role) => {
      const local = element.localName;
      if (local === "textarea" || (local === "input" && VALUE_ROLES.has(role))) {
        return element.type === "password" ? (element.value ? "••••" : "") : normalize(element.value ?? "");
      }
      return "";
    };

    const frameNode = (frame) => {
      const node = { role: "iframe", ref: refs.refOf(frame) };
      const title = frame.getAttribute("title");
      if (title) node.name = normalize(title);
      let inner = null;
      try {
        inner = frame.contentDocument;
      } catch {}
      if (!inner) {
        node.note = frameMark(frame, mark);
        return node;
      }
      const kids = [];
      if (inner.body) walkChildren(inner.body, seen.annotate(inner.body, styleOf(inner.body), null), kids);
      if (kids.length) node.children = kids;
      return node;
    };

    return { walkElement, walkChildren, styleOf };
  }

  // Trims the text and drops the separators walkElement left between blocks of text.
  const tidy = (items) => {
    const out = [];
    for (const item of items) {
      if (typeof item === "string") {
        const text = item.trim();
        if (text) out.push(text);
      } else if (item !== SEPARATOR) {
        if (item.children) item.children = tidy(item.children);
        out.push(item);
      }
    }
    return out;
  };

  /**
   * snapshot({ref, interactive_only, max_chars, ref_floor, frame_mark}) -> Promise of {snapshot,
   * refs, chars, truncated, doc, top, minted, path, origin}: `top`, the highest ref number of this
   * document; `minted`, the [first, last] numbers this snapshot gave out, if any (refs.js
   * raise()); `path` and `origin`, this frame's (content/frames.js).
   */
  const snapshot = async (options = {}) => {
    const { ref = null, interactive_only: interactiveOnly = false, max_chars: maxChars = 20000, visible_only: visibleOnly = false } = options;
    const api = await refs.ready();
    refs.raise(options.ref_floor);
    const before = refs.top();
    const root = ref ? refs.resolveRef(ref) : document.body ?? document.documentElement;
    const walk = walker(api, typeof options.frame_mark === "string" ? options.frame_mark : null, visibleOnly === true);
    const items = [];
    if (ref) walk.walkElement(root, root.parentElement ? walk.styleOf(root.parentElement) : null, items);
    else walk.walkChildren(root, seen.annotate(root, walk.styleOf(root), null), items);
    const written = format(tidy(items), { maxChars, interactiveOnly, collapse: options.collapse !== false });
    const { text, chars, truncated } = written;
    const top = refs.top();
    const place = { path: globalThis.__tabpilotFrames?.pathOf(window) ?? "", origin: self.origin };
    return { snapshot: text, refs: written.refs, chars, truncated, doc: refs.doc, top, ...place, ...(top > before ? { minted: [before + 1, top] } : {}) };
  };

  globalThis.__tabpilotSnapshot = Object.freeze({ snapshot });
})();
