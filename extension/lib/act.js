// browser_act's DOM route, in the content script's isolated world (docs/protocol.md, "Acting on a
// page"). The element comes from its ref (lib/refs.js). Before acting, the element is scrolled into
// view and hit-tested at its centre, through open shadow roots and same-origin iframes, so that a
// click never lands on what covers it. Events are the browser's own sequence, made here; the
// browser's default actions that untrusted events do not trigger (Enter submitting a form, Tab
// moving focus, a link opening a tab) are done explicitly.
//
// The isolated world has its own prototypes, which no page script can reach: the value setter
// taken from them bypasses what a page defines on an element (React's value tracker), as typing
// does, so that controlled inputs keep the text.
(() => {
  "use strict";

  const g = globalThis;
  const { ActError, checkParams, parseKey, domHandles, sentence } = g.__tabpilotActCommon;
  const fail = (code, message, data) => {
    throw new ActError(code, message, data);
  };
  const setterOf = (name) => (typeof g[name] === "function" ? Object.getOwnPropertyDescriptor(g[name].prototype, "value").set : null);
  const setInputValue = setterOf("HTMLInputElement");
  const setTextareaValue = setterOf("HTMLTextAreaElement");

  // Input types whose value is text a person types.
  const TEXT_TYPES = new Set(["text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "time", "week", "color"]);
  const SELECTION_TYPES = new Set(["text", "search", "url", "tel", "password"]);
  const CHECKABLE_ROLES = new Set(["checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"]);
  const FOCUSABLE = "a[href], area[href], button, input, select, textarea, iframe, summary, [tabindex], [contenteditable]:not([contenteditable='false'])";

  // ---- pure parts (node tests load them without a DOM) ----

  // `div#cookie-banner.overlay`: how a message names the element in the way.
  function nameOf(el) {
    if (!el || typeof el.tagName !== "string") return "an unknown element";
    let name = el.tagName.toLowerCase();
    if (el.id) name += `#${el.id}`;
    const classes = [...(el.classList ?? [])].slice(0, 3);
    if (classes.length > 0) name += `.${classes.join(".")}`;
    return name;
  }

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

  // The focused element, through open shadow roots and same-origin iframes.
  function focused() {
    let el = document.activeElement;
    for (;;) {
      if (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      else if (el?.tagName === "IFRAME" && sameOrigin(el)?.activeElement) el = el.contentDocument.activeElement;
      else return el;
    }
  }
  function sameOrigin(frame) {
    try {
      return frame.contentDocument;
    } catch {
      return null;
    }
  }

  const isInput = (el) => el?.tagName === "INPUT";
  const isTextField = (el) => (isInput(el) && TEXT_TYPES.has(el.type)) || el?.tagName === "TEXTAREA";
  const isEditable = (el) => isTextField(el) || el?.isContentEditable === true;
  const isDisabled = (el) => el.matches?.(":disabled") || el.closest?.("[aria-disabled='true']") !== null;
  const parentOf = (node) => node.parentNode ?? node.host ?? null; // through shadow roots
  function within(el, node) {
    for (let n = node; n; n = parentOf(n)) if (n === el) return true;
    return false;
  }

  const viewOf = (el) => el.ownerDocument.defaultView;

  function assertEnabled(el, what) {
    if (isDisabled(el)) fail("element_not_interactable", `${what} is disabled.`, { reason: "disabled" });
  }

  // The topmost element at a point, through open shadow roots.
  function hitAt(doc, x, y) {
    let hit = doc.elementFromPoint(x, y);
    while (hit?.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  // Scrolls el into view and finds the point a person would click: its centre, in its own
  // frame's viewport (x, y) and in the top-level viewport (topX, topY). Fails hidden or covered.
  function reach(el, what) {
    const view = viewOf(el);
    let rect = el.getBoundingClientRect();
    const visible = el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : true;
    if (!visible || rect.width === 0 || rect.height === 0) {
      fail("element_not_interactable", `${what} is hidden (not rendered, or of zero size); it cannot be acted on.`, { reason: "hidden" });
    }
    if (rect.top < 0 || rect.left < 0 || rect.bottom > view.innerHeight || rect.right > view.innerWidth) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      rect = el.getBoundingClientRect();
    }
    // The centre of the part inside the viewport.
    const left = Math.max(rect.left, 0);
    const top = Math.max(rect.top, 0);
    const x = (left + Math.min(rect.right, view.innerWidth)) / 2;
    const y = (top + Math.min(rect.bottom, view.innerHeight)) / 2;
    const hit = hitAt(el.ownerDocument, x, y);
    const label = isInput(el) && [...(el.labels ?? [])].some((l) => within(l, hit));
    if (!hit || !(within(el, hit) || label)) covered(what, hit);
    let topX = x;
    let topY = y;
    for (let frame = view.frameElement; frame; frame = viewOf(frame).frameElement) {
      const box = frame.getBoundingClientRect();
      const style = viewOf(frame).getComputedStyle(frame);
      topX += box.left + frame.clientLeft + parseFloat(style.paddingLeft);
      topY += box.top + frame.clientTop + parseFloat(style.paddingTop);
      const over = hitAt(frame.ownerDocument, topX, topY);
      if (over !== frame) covered(what, over);
    }
    return { x, y, topX, topY, target: label || !hit ? el : hit };
  }

  function covered(what, cover) {
    const name = nameOf(cover);
    fail("element_not_interactable", `${what} is covered by ${name}, which would get the click. Close or remove ${name} first (a banner or dialog, say), or scroll.`, {
      reason: "covered",
      cover: name,
    });
  }

  function fire(target, Type, type, init) {
    return target.dispatchEvent(new Type(type, { bubbles: true, cancelable: true, composed: true, view: viewOf(target), ...init }));
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
        n.focus({ preventScroll: true });
        return;
      }
    }
    focused()?.blur?.();
  }

  function insertEvents(el, inputType, data) {
    if (!fire(el, InputEvent, "beforeinput", { inputType, data })) return false;
    return true;
  }

  // Replaces a text field's value as typing does: through the isolated world's own setter, with
  // the events a framework listens for.
  function setValue(el, value, inputType, data) {
    if (!insertEvents(el, inputType, data)) return false;
    (el.tagName === "TEXTAREA" ? setTextareaValue : setInputValue).call(el, value);
    fire(el, InputEvent, "input", { inputType, data, cancelable: false });
    return true;
  }

  function assertEditable(el, what) {
    if (!isEditable(el)) {
      fail("element_not_interactable", `${what} does not take typed text; type into a textbox, a text area or an editable element.`, { reason: "not_editable" });
    }
    if (el.readOnly) fail("element_not_interactable", `${what} is read-only.`, { reason: "not_editable" });
  }

  function typeInto(el, text, what) {
    assertEditable(el, what);
    el.focus({ preventScroll: true });
    if (el.isContentEditable) {
      // execCommand edits as the browser does, with its own (trusted) beforeinput and input events.
      const selection = el.ownerDocument.getSelection();
      selection.selectAllChildren(el);
      if (!el.ownerDocument.execCommand("insertText", false, text)) {
        el.textContent = text;
        fire(el, InputEvent, "input", { inputType: "insertText", data: text, cancelable: false });
      }
      return;
    }
    if (setValue(el, text, "insertText", text)) fire(el, Event, "change", { composed: false, cancelable: false });
  }

  // Inserts a key's text where the caret is (or over the selection) in a text field.
  function insertAtCaret(el, text) {
    if (el.isContentEditable) {
      el.ownerDocument.execCommand(text === "\n" ? "insertLineBreak" : "insertText", false, text);
      return;
    }
    const value = el.value;
    const selectable = el.tagName === "TEXTAREA" || SELECTION_TYPES.has(el.type);
    const start = selectable ? el.selectionStart : value.length;
    const end = selectable ? el.selectionEnd : value.length;
    const inputType = text === "\n" ? "insertLineBreak" : "insertText";
    if (setValue(el, value.slice(0, start) + text + value.slice(end), inputType, text === "\n" ? null : text) && selectable) {
      el.setSelectionRange(start + text.length, start + text.length);
    }
  }

  function deleteAtCaret(el, forward) {
    const value = el.value;
    const selectable = el.tagName === "TEXTAREA" || SELECTION_TYPES.has(el.type);
    let start = selectable ? el.selectionStart : value.length;
    let end = selectable ? el.selectionEnd : value.length;
    if (start === end) {
      if (forward) end = Math.min(value.length, end + 1);
      else start = Math.max(0, start - 1);
    }
    if (setValue(el, value.slice(0, start) + value.slice(end), forward ? "deleteContentForward" : "deleteContentBackward", null) && selectable) {
      el.setSelectionRange(start, start);
    }
  }

  // Implicit submission (HTML §4.10.21.2): Enter in a form's field clicks its default button, or
  // submits a form that has none.
  function submitFrom(el) {
    const form = el.form;
    if (!form) return;
    const button = [...form.elements].find((e) => e.matches("button[type=submit], button:not([type]), input[type=submit], input[type=image]"));
    if (button) {
      if (!isDisabled(button)) button.click();
    } else {
      form.requestSubmit();
    }
  }

  // Tab order: positive tabindex first, then document order; into open shadow roots and
  // same-origin iframes.
  function tabbables(doc) {
    const found = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll("*")) {
        if (el.matches(FOCUSABLE) && el.tabIndex >= 0 && !isDisabled(el) && el.checkVisibility?.({ visibilityProperty: true }) !== false) {
          if (el.tagName !== "IFRAME") found.push(el);
        }
        if (el.shadowRoot) walk(el.shadowRoot);
        if (el.tagName === "IFRAME" && sameOrigin(el)?.body) walk(el.contentDocument);
      }
    };
    walk(doc);
    const positive = found.filter((el) => el.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex);
    return [...positive, ...found.filter((el) => el.tabIndex === 0)];
  }

  function moveFocus(from, back) {
    const order = tabbables(document);
    if (order.length === 0) return;
    const at = order.indexOf(from);
    const next = at < 0 ? (back ? order.at(-1) : order[0]) : order[(at + (back ? -1 : 1) + order.length) % order.length];
    next.focus();
  }

  const CLICKS_ON_ENTER = (el) => el.matches("a[href], area[href], button, input[type=submit], input[type=button], input[type=reset], input[type=image], summary");
  const CLICKS_ON_SPACE = (el) => el.matches("button, input[type=checkbox], input[type=radio], input[type=submit], input[type=button], input[type=reset], summary, [role=button], [role=checkbox], [role=switch]");

  // keydown, keypress (for keys that type), the browser's own action where one is emulated, keyup.
  function press(el, key) {
    const init = { key: key.key, code: key.code, keyCode: key.keyCode, which: key.keyCode, ...key.modifiers };
    const down = fire(el, KeyboardEvent, "keydown", init);
    let clickOnUp = false;
    if (down) {
      const typing = key.text !== "" && fire(el, KeyboardEvent, "keypress", { ...init, charCode: key.text.charCodeAt(0), keyCode: key.text.charCodeAt(0) });
      const { ctrlKey, metaKey, altKey, shiftKey } = key.modifiers;
      const editable = isEditable(el) && !el.readOnly && !isDisabled(el);
      if (key.key === "Tab" && !ctrlKey && !metaKey && !altKey) moveFocus(el, shiftKey);
      else if (key.key === "Enter" && typing) {
        if (isInput(el)) submitFrom(el);
        else if (el.tagName === "TEXTAREA" || el.isContentEditable) insertAtCaret(el, "\n");
        else if (CLICKS_ON_ENTER(el)) el.click();
      } else if (key.key === " " && typing && CLICKS_ON_SPACE(el) && !editable) clickOnUp = true;
      else if (typing && editable) insertAtCaret(el, key.text);
      else if ((key.key === "Backspace" || key.key === "Delete") && editable && !el.isContentEditable) deleteAtCaret(el, key.key === "Delete");
      else if (key.key.toLowerCase() === "a" && (ctrlKey || metaKey) && !altKey) selectAll(el);
    }
    fire(el, KeyboardEvent, "keyup", init);
    if (clickOnUp) el.click();
  }

  function selectAll(el) {
    if (isTextField(el)) el.select();
    else el.ownerDocument.getSelection().selectAllChildren(el.isContentEditable ? el : el.ownerDocument.body);
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

  function selectOptions(el, p, what) {
    if (el.tagName !== "SELECT") {
      fail("element_not_interactable", `${what} is not a select element; for a custom list, click it and then click the option.`, { reason: "not_selectable" });
    }
    const wanted = Array.isArray(p.values) && p.values.length > 0 ? p.values : [p.text];
    const options = [...el.options];
    const chosen = pickOptions(
      options.map((o) => ({ value: o.value, label: o.label.trim(), disabled: o.disabled })),
      wanted,
      el.multiple,
      what,
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

  // Accessible names need dom-accessibility-api, which lib/refs.js loads on first use.
  const named = () => refs()
    .ready()
    .catch(() => {});

  // Runs one act message on the DOM route; resolves to {description, open?, checked?}.
  async function run(p) {
    checkParams(p);
    await named();
    const el = p.kind === "scroll" && !p.ref ? null : elementOf(p);
    const what = el ? describe(el) : "the page";
    const ref = p.ref ?? null;
    switch (p.kind) {
      case "click": {
        assertEnabled(el, what);
        const { x, y, target } = reach(el, what);
        const open = click(target, x, y);
        return { description: sentence("click", { what, ref }), ...(open ? { open } : {}) };
      }
      case "hover": {
        const { x, y, target } = reach(el, what);
        enter(target, x, y);
        return { description: sentence("hover", { what, ref }) };
      }
      case "type": {
        assertEnabled(el, what);
        if (ref) reach(el, what);
        typeInto(el, p.text, what);
        if (p.submit) press(el, parseKey("Enter"));
        return { description: sentence("type", { what, ref, text: p.text, submit: p.submit === true }) };
      }
      case "press": {
        const key = parseKey(p.key);
        if (ref) el.focus({ preventScroll: false });
        press(ref ? el : (focused() ?? document.body), key);
        return { description: sentence("press", { what, ref, key: key.name, noDefault: !domHandles(key) }) };
      }
      case "scroll":
        return { description: scroll(el, p, what) };
      case "select":
        assertEnabled(el, what);
        return { description: selectOptions(el, p, what) };
      case "check":
      case "uncheck": {
        const want = p.kind === "check";
        const state = assertCheckable(el, what);
        if (state === want) return { description: sentence(p.kind, { what, ref, already: true }), checked: state };
        if (!want && isInput(el) && el.type === "radio") {
          fail("element_not_interactable", `${what} is a radio button: it is unchecked by checking another of its group.`, { reason: "not_checkable" });
        }
        assertEnabled(el, what);
        const { x, y, target } = reach(el, what);
        click(target, x, y);
        const final = checkedState(el);
        return { description: sentence(p.kind, { what, ref, state: final }), checked: final };
      }
    }
  }

  // Where the debugger route acts: the element's centre in the top-level viewport, after the same
  // checks as the DOM route. For typing, the element is focused and its text selected, so that
  // Input.insertText replaces it.
  async function locate(p) {
    await named();
    const el = elementOf(p);
    const what = describe(el);
    // After a trusted click on a checkbox: what it says now.
    if (p.kind === "state") return { description: what, checked: checkedState(el) };
    if (p.kind !== "hover" && p.kind !== "scroll" && p.kind !== "press") assertEnabled(el, what);
    if (p.kind === "type") {
      assertEditable(el, what);
      if (p.ref) reach(el, what);
      el.focus({ preventScroll: true });
      selectAll(el);
      return { description: what };
    }
    if (!p.ref) return { description: what };
    if (p.kind === "press") {
      el.focus();
      return { description: what };
    }
    if (p.kind === "scroll" && !p.direction) {
      el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
      return { description: what };
    }
    const checked = p.kind === "check" || p.kind === "uncheck" ? assertCheckable(el, what) : checkedState(el);
    const { topX, topY } = reach(el, what);
    return { x: topX, y: topY, description: what, doc: refs().doc, ...(checked === null ? {} : { checked }) };
  }

  g.__tabpilotAct = Object.freeze({ run, locate, nameOf, pickOptions });
})();
