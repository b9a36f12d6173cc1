// browser_act's DOM route, in the content script's isolated world (docs/protocol.md, "Acting on a
// page"). The element comes from its ref (refs.js). Before acting, the element is scrolled into
// view and hit-tested at its centre, through open shadow roots and same-origin iframes, so that a
// click never lands on what covers it. Events are the browser's own sequence, made here; the
// browser's default actions that untrusted events do not trigger (Enter submitting a form, Tab
// moving focus, a link opening a tab) are done explicitly. Typing and keys: act-keys.js.
(() => {
  "use strict";

  const g = globalThis;
  const { fail, checkParams, parseKey, domHandles, sentence, pointerOptions } = g.__tabpilotActCommon;
  const { focused, focusOn, isInput, isDisabled, parentOf, viewOf, fire, typeInto, assertEditable, press, selectAll, FOCUSABLE } = g.__tabpilotActKeys;
  // Where a press lands and what covers an element (act-hit.js).
  const { nameOf, within, hitAt, reaches, hitFromTop, reach, covered, deepFocus } = g.__tabpilotActHit;
  // Code editors (act-editors.js): loaded before this file in a page, absent in node tests.
  const editors = () => g.__tabpilotActEditors;
  const CHECKABLE_ROLES = new Set(["checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"]);
  // ---- pure parts (node tests load them without a DOM) ----

  // The options `wanted` names, by value first, then by label; throws invalid_request listing the
  // options (the first 20) when one is missing. options: [{value, label, disabled}].
  function pickOptions(options, wanted, multiple, what) {
    const listed = () =>
      options
        .slice(0, 20)
        .map((o) => (o.label === o.value ? JSON.stringify(o.label) : `${JSON.stringify(o.label)} (value ${JSON.stringify(o.value)})`))
        .join(", ") + (options.length > 20 ? `, and ${options.length - 20} more` : "");
    if (!multiple && wanted.length > 1) fail("invalid_request", `${what} takes one option, not ${wanted.length}.`);
    return wanted.map((w) => {
      const want = String(w);
      const index = [(o) => o.value === want, (o) => o.label === want, (o) => o.label.toLowerCase() === want.trim().toLowerCase()]
        .map((match) => options.findIndex(match))
        .find((i) => i >= 0);
      if (index === undefined) {
        fail("invalid_request", `${what} has no option ${JSON.stringify(want)}; its options are ${listed() || "none"}.`, {
          options: options.slice(0, 20).map(({ value, label }) => ({ value, label })),
        });
      }
      if (options[index].disabled) fail("invalid_request", `The option ${JSON.stringify(options[index].label)} of ${what} is disabled.`);
      return index;
    });
  }

  // ---- the page ----

  const refs = () => g.__tabpilotRefs;
  const describe = (el) => refs().describe(el);

  function assertEnabled(el, what) {
    if (isDisabled(el)) fail("element_not_interactable", `${what} is disabled.`, { reason: "disabled" });
  }

  function mouseInit(x, y, buttons) {
    return { clientX: x, clientY: y, screenX: x, screenY: y, button: 0, buttons };
  }
  const POINTER = { pointerId: 1, pointerType: "mouse", isPrimary: true, width: 1, height: 1 };

  // The element the pointer was last over, which hears it leave when another one is entered.
  let hovered = null;

  function enter(target, x, y) {
    const at = mouseInit(x, y, 0);
    if (hovered && hovered !== target && hovered.isConnected) {
      fire(hovered, PointerEvent, "pointerout", { ...at, ...POINTER });
      fire(hovered, PointerEvent, "pointerleave", { ...at, ...POINTER, bubbles: false, cancelable: false });
      fire(hovered, MouseEvent, "mouseout", at);
      fire(hovered, MouseEvent, "mouseleave", { ...at, bubbles: false, cancelable: false });
    }
    hovered = target;
    fire(target, PointerEvent, "pointerover", { ...at, ...POINTER });
    fire(target, PointerEvent, "pointerenter", { ...at, ...POINTER, bubbles: false, cancelable: false });
    fire(target, MouseEvent, "mouseover", at);
    fire(target, MouseEvent, "mouseenter", { ...at, bubbles: false, cancelable: false });
    fire(target, PointerEvent, "pointermove", { ...at, ...POINTER });
    fire(target, MouseEvent, "mousemove", at);
  }

  // A link that opens a new tab: an untrusted click hits the popup blocker, so the worker opens it
  // (protocol.md: "a link opening a tab").
  function newTabLink(target) {
    const link = target.closest?.("a[href], area[href]");
    const name = link?.target?.toLowerCase();
    return link && name && !["_self", "_parent", "_top"].includes(name) ? link : null;
  }

  // The url a click on target follows, for the worker to say why nothing opened (page-act.js).
  function linkOf(target) {
    const link = target?.closest?.("a[href], area[href]");
    return link ? { link: link.href } : {};
  }

  // The whole sequence of a left click at (x, y) on target. Returns the url of a tab to open, if any.
  function click(target, x, y) {
    enter(target, x, y);
    // A cancelled pointerdown suppresses the mouse events that follow it, but not the click.
    const mouse = fire(target, PointerEvent, "pointerdown", { ...mouseInit(x, y, 1), ...POINTER, pressure: 0.5 });
    const down = mouse ? fire(target, MouseEvent, "mousedown", { ...mouseInit(x, y, 1), detail: 1 }) : true;
    if (down) focusFor(target);
    fire(target, PointerEvent, "pointerup", { ...mouseInit(x, y, 0), ...POINTER });
    if (mouse) fire(target, MouseEvent, "mouseup", { ...mouseInit(x, y, 0), detail: 1 });
    const link = newTabLink(target);
    let open = null;
    const view = viewOf(target);
    const takeOver = (event) => {
      if (event.defaultPrevented) return;
      event.preventDefault();
      open = link.href;
    };
    if (link) view.addEventListener("click", takeOver);
    try {
      fire(target, MouseEvent, "click", { ...mouseInit(x, y, 0), detail: 1 });
    } finally {
      if (link) view.removeEventListener("click", takeOver);
    }
    return open;
  }

  // What a mousedown focuses: the nearest focusable ancestor, or nothing (the focus leaves).
  function focusFor(target) {
    for (let n = target; n; n = parentOf(n)) {
      if (n.nodeType === 1 && n.matches(FOCUSABLE) && !isDisabled(n)) {
        focusOn(n, { preventScroll: true });
        return;
      }
    }
    focused()?.blur?.();
  }

  // Whether a checkbox, radio button or switch is checked; null for other elements.
  function checkedState(el) {
    if (isInput(el) && (el.type === "checkbox" || el.type === "radio")) return el.checked;
    const role = el.getAttribute("role");
    if (CHECKABLE_ROLES.has(role)) return el.getAttribute("aria-checked") === "true";
    return null;
  }

  function assertCheckable(el, what) {
    const state = checkedState(el);
    if (state === null) fail("element_not_interactable", `${what} is not a checkbox, radio button or switch.`, { reason: "not_checkable" });
    return state;
  }

  function scroll(el, p, what) {
    if (el && !p.direction) {
      el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
      return sentence("scroll", { what, ref: p.ref });
    }
    const direction = p.direction ?? "down";
    const vertical = direction === "up" || direction === "down";
    const sign = direction === "up" || direction === "left" ? -1 : 1;
    let box = el ? scrollable(el, vertical) : null;
    const page = document.scrollingElement ?? document.documentElement;
    box ??= page;
    const size = box === page ? (vertical ? innerHeight : innerWidth) : vertical ? box.clientHeight : box.clientWidth;
    const amount = Number.isInteger(p.amount) && p.amount > 0 ? p.amount : size;
    const position = () => (vertical ? box.scrollTop : box.scrollLeft);
    const before = position();
    box.scrollBy({ [vertical ? "top" : "left"]: sign * amount, behavior: "instant" });
    const moved = Math.round(Math.abs(position() - before));
    return sentence("scroll", { what, ref: el ? p.ref : null, direction, amount, moved });
  }

  function scrollable(el, vertical) {
    for (let n = el; n && n.nodeType === 1; n = parentOf(n)) {
      const style = viewOf(n).getComputedStyle(n);
      const overflow = vertical ? style.overflowY : style.overflowX;
      const more = vertical ? n.scrollHeight > n.clientHeight : n.scrollWidth > n.clientWidth;
      if (more && /(auto|scroll|overlay)/.test(overflow)) return n;
    }
    return null;
  }

  function selectOptions(el, p, what, it) {
    if (el.tagName !== "SELECT") {
      fail("element_not_interactable", `${it} is not a select element; for a custom list, click it and then click the option.`, { reason: "not_selectable" });
    }
    const wanted = Array.isArray(p.values) && p.values.length > 0 ? p.values : [p.text];
    const options = [...el.options];
    const chosen = pickOptions(
      options.map((o) => ({ value: o.value, label: o.label.trim(), disabled: o.disabled })),
      wanted,
      el.multiple,
      it,
    ).map((i) => options[i]);
    for (const option of options) option.selected = chosen.includes(option);
    fire(el, Event, "input", { cancelable: false });
    fire(el, Event, "change", { composed: false, cancelable: false });
    return sentence("select", { what, ref: p.ref, labels: chosen.map((o) => o.label.trim()) });
  }

  // The element a message is about: its ref's, or the focused one.
  function elementOf(p) {
    if (p.ref) return refs().resolveRef(p.ref);
    return focused() ?? document.body;
  }

  // Accessible names need dom-accessibility-api, which refs.js loads on first use.
  const named = () => refs()
    .ready()
    .catch(() => {});

  // Runs one act message on the DOM route; resolves to {description, open?, checked?, navigating}.
  // `navigating` says whether the action started a navigation of this page (a link, a form, a
  // pushState), so that the worker need not wait to see whether one comes otherwise. A link's or a
  // pushState's fires the Navigation API's "navigate" synchronously. A form's is planned for a later
  // task (HTML's form submission): a "submit" event that nothing cancelled says it is coming. A
  // navigation the page starts later (after a timer, say) is not seen here.
  async function run(p) {
    checkParams(p);
    await named();
    const nav = globalThis.navigation;
    let navigating = false;
    const onNavigate = () => (navigating = true);
    const submits = [];
    const onSubmit = (event) => submits.push(event);
    const el = p.kind === "scroll" && !p.ref ? null : elementOf(p);
    const unseen = unseenOf(p, el);
    // A form in a shadow root submits there: its event does not leave the shadow tree.
    const root = p.ref ? el.getRootNode() : null;
    const roots = root && root !== document ? [document, root] : [document];
    nav?.addEventListener?.("navigate", onNavigate);
    for (const at of roots) at.addEventListener("submit", onSubmit, true);
    try {
      const result = { ...(await perform(p, el)), ...keyboardFocus(p), ...unseen };
      if (submits.some(navigates)) navigating = true;
      return typeof nav?.addEventListener === "function" ? { ...result, navigating } : result;
    } finally {
      nav?.removeEventListener?.("navigate", onNavigate);
      for (const at of roots) at.removeEventListener("submit", onSubmit, true);
    }
  }

  // Keys and text for a page that does not have the system's focus (its window is behind another,
  // in a person's Chrome): its own focus() calls fire no events there, so an app that moves the
  // focus itself may not be where the key goes. The worker says so in the answer.
  const keyboardFocus = (p) => ((p.kind === "press" || p.kind === "type") && !document.hasFocus() ? { unfocused: true } : {});

  // A submission that goes on to navigate: not cancelled, and not a dialog's form (method "dialog").
  function navigates(event) {
    if (event.defaultPrevented) return false;
    const method = event.submitter?.getAttribute?.("formmethod") || event.target?.getAttribute?.("method") || "get";
    return String(method).toLowerCase() !== "dialog";
  }

  // `el`: the element acted on (elementOf), null for a scroll of the page.
  async function perform(p, el) {
    const what = el ? describe(el) : "the page";
    const ref = p.ref ?? null;
    const it = ref ? `${what} (${ref})` : what; // in messages
    switch (p.kind) {
      case "click": {
        assertEnabled(el, it);
        const { x, y, target } = reach(el, it);
        // A click with another button, count or modifiers: content/mouse.js.
        const options = p.button || p.count > 1 || p.modifiers?.length ? pointerOptions(p) : null;
        if (options) return { description: sentence("click", { what, ref, options }), ...g.__tabpilotMouse.clickAt(target, x, y, options) };
        const open = click(target, x, y);
        return { description: sentence("click", { what, ref }), ...(open ? { open } : {}), ...linkOf(target) };
      }
      case "hover": {
        const { x, y, target } = reach(el, it);
        enter(target, x, y);
        return { description: sentence("hover", { what, ref }) };
      }
      case "type": {
        assertEnabled(el, it);
        const editor = editors()?.editorOf(el);
        if (editor) return typeInEditor(editor, p, what, it);
        if (ref) reach(el, it);
        const before = el.isContentEditable ? el.textContent : el.value;
        typeInto(el, p.text, it);
        // What the field kept, when it is not what was typed: cut at maxlength, or refused by its
        // type (letters in a number field) or by the page.
        const kept = el.isContentEditable ? el.textContent : el.value;
        // Nothing changed in a field that keeps any text (a number field drops letters itself, and
        // maxlength cuts): the page put back what untrusted input typed.
        if (kept === before && keepsAnyText(el) && kept !== [...p.text].slice(0, el.maxLength >= 0 ? el.maxLength : undefined).join("")) {
          return { needsTrusted: `${it} did not take the text typed through the DOM route: it still holds ${JSON.stringify(kept)}` };
        }
        if (p.submit) press(el, parseKey("Enter"));
        const typed = sentence("type", { what, ref, text: p.text, submit: p.submit === true });
        return { description: kept === p.text ? typed : `${typed}; the field holds ${JSON.stringify(kept)}` };
      }
      case "press": {
        const key = parseKey(p.key);
        const editor = editors()?.editorOf(ref ? el : focused());
        if (editor) return pressInEditor(editor, key, p, what, it);
        if (ref) focusOn(el, { preventScroll: false });
        const to = ref ? el : (focused() ?? document.body);
        if (p.hold_ms != null) {
          const repeats = await g.__tabpilotActKeys.hold(to, key, p.hold_ms);
          return { description: sentence("press", { what, ref, key: key.name, held: p.hold_ms, repeats }) };
        }
        press(to, key);
        return { description: sentence("press", { what, ref, key: key.name, noDefault: !domHandles(key) }) };
      }
      case "scroll":
        return { description: scroll(el, p, what) };
      case "drag":
        return g.__tabpilotDrag.dragRef(el, p, it, reach);
      case "select":
        assertEnabled(el, it);
        return { description: selectOptions(el, p, what, it) };
      case "check":
      case "uncheck": {
        const want = p.kind === "check";
        const state = assertCheckable(el, it);
        if (state === want) return { description: sentence(p.kind, { what, ref, already: true }), checked: state };
        if (!want && isInput(el) && el.type === "radio") {
          fail("element_not_interactable", `${it} is a radio button: it is unchecked by checking another of its group.`, { reason: "not_checkable" });
        }
        assertEnabled(el, it);
        const { x, y, target } = reach(el, it);
        click(target, x, y);
        const final = checkedState(el);
        return { description: sentence(p.kind, { what, ref, state: final }), checked: final };
      }
    }
  }

  const keepsAnyText = (el) => el.isContentEditable || el.tagName === "TEXTAREA" || (isInput(el) && ["text", "search", "url", "tel", "password", "email"].includes(el.type));

  // An editor's textbox is covered by the editor's own lines (CodeMirror 5, Monaco): what must not
  // be covered is the editor.
  function reachEditor(editor, it) {
    reach(editor.root, it);
    return editor;
  }

  async function typeInEditor(editor, p, what, it) {
    if (p.ref) reachEditor(editor, it);
    const typed = await editors().type(editor, p.text, it);
    if (typed.needsTrusted) return typed;
    if (p.submit) {
      const pressed = await editors().pressIn(editor, parseKey("Enter"), it);
      if (pressed.needsTrusted) return pressed;
    }
    const said = sentence("type", { what, ref: p.ref ?? null, text: p.text, submit: p.submit === true });
    const shows = p.submit ? null : typed.shows;
    return { description: shows === null ? said : `${said}; the editor holds ${JSON.stringify(shows)}` };
  }

  async function pressInEditor(editor, key, p, what, it) {
    focusOn(p.ref && editor.root.contains(focused()) ? focused() : editor.input, { preventScroll: false });
    await editors().rendered();
    const pressed = await editors().pressIn(editor, key, it);
    if (pressed.needsTrusted) return pressed;
    return { description: sentence("press", { what, ref: p.ref ?? null, key: key.name }) };
  }

  // An act on an element the person cannot see still happens (the page may rely on it: an
  // invisible file input over its label, say), but its answer says so (content/seen.js).
  const unseenOf = (p, el) => {
    const why = p.ref && el ? g.__tabpilotSeen?.reasonOf(el) : "";
    return why ? { unseen: why } : {};
  };

  // Where the debugger route acts: the element's centre in the top-level viewport, after the same
  // checks as the DOM route. For typing, the element is focused and its text selected, so that
  // Input.insertText replaces it. The first look (not "state", "hit" or "focus") says whether the
  // person sees it.
  async function locate(p) {
    const at = await locateAt(p);
    return p.kind === "state" || p.kind === "hit" || p.kind === "focus" ? at : { ...at, ...unseenOf(p, p.ref ? elementOf(p) : null) };
  }

  async function locateAt(p) {
    await named();
    const el = elementOf(p);
    const what = describe(el);
    const it = p.ref ? `${what} (${p.ref})` : what; // in messages
    const editor = p.kind === "type" || p.kind === "press" || p.kind === "state" ? editors()?.editorOf(el) : null;
    // After trusted typing in an editor: what it holds now.
    if (editor && p.kind === "state") {
      await editors().rendered();
      return { description: what, shows: editors().textOf(editor) };
    }
    // After a trusted click on a checkbox: what it says now.
    if (p.kind === "state") return { description: what, checked: checkedState(el) };
    // Right before a trusted press at (x, y), after the pointer moved there: a page can move
    // something over the target on hover, which would then get the press.
    if (p.kind === "hit") {
      const hit = hitFromTop(p.x, p.y);
      if (!reaches(el, hit)) covered(it, hit, " (it was put there when the pointer came over the element); nothing was clicked");
      return { description: what };
    }
    // Right before trusted text or keys: they go wherever the focus is, which a page can move.
    if (p.kind === "focus") {
      const now = deepFocus();
      if (!now || !within(el, now)) {
        const where = !now || now === document.body ? "the page itself" : `${describe(now)} (${nameOf(now)})`;
        fail("element_not_interactable", `${it} did not keep the focus: the page moved it to ${where}; nothing was ${p.text ? "typed" : "pressed"}. Look at the page (browser_snapshot), or act without trusted.`, {
          reason: "focus_moved",
          focused: nameOf(now),
        });
      }
      return { description: what };
    }
    if (p.kind !== "hover" && p.kind !== "scroll" && p.kind !== "press") assertEnabled(el, it);
    if (editor) {
      if (p.ref) reachEditor(editor, it);
      focusOn(editor.root.contains(focused()) && p.kind === "press" ? focused() : editor.input, { preventScroll: true });
      // The worker selects the editor's text with trusted keys: its own select-all binding.
      return { description: what, ...(p.kind === "type" ? { selectAll: editors().SELECT_ALL } : {}) };
    }
    if (p.kind === "type") {
      assertEditable(el, it);
      if (p.ref) reach(el, it);
      focusOn(el, { preventScroll: true });
      selectAll(el);
      return { description: what, ...keyboardFocus(p) };
    }
    if (p.kind === "press") {
      if (p.ref) focusOn(el);
      return { description: what, ...keyboardFocus(p) };
    }
    if (!p.ref) return { description: what };
    if (p.kind === "scroll" && !p.direction) {
      el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
      return { description: what };
    }
    const checked = p.kind === "check" || p.kind === "uncheck" ? assertCheckable(el, it) : checkedState(el);
    const { topX, topY, target } = reach(el, it);
    const link = p.kind === "click" ? linkOf(target) : {};
    return { x: topX, y: topY, description: what, doc: refs().doc, ...(checked === null ? {} : { checked }), ...link };
  }

  g.__tabpilotAct = Object.freeze({ run, locate, nameOf, pickOptions, hitAt, reach, checkedState, assertEnabled, CHECKABLE_ROLES });
})();
