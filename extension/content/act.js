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
  const CHECKABLE_ROLES = new Set(["checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio"]);
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

  function within(el, node) {
    for (let n = node; n; n = parentOf(n)) if (n === el) return true;
    return false;
  }

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
    // Scrolled when it, or a frame it is in, is not wholly in view; scrollIntoView scrolls the
    // frames' documents too.
    const outside = (r, v) => r.top < 0 || r.left < 0 || r.bottom > v.innerHeight || r.right > v.innerWidth;
    let hidden = outside(rect, view);
    for (let frame = view.frameElement; frame && !hidden; frame = viewOf(frame).frameElement) {
      hidden = outside(frame.getBoundingClientRect(), viewOf(frame));
    }
    if (hidden) {
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
    // A form in a shadow root submits there: its event does not leave the shadow tree.
    const root = p.ref ? el.getRootNode() : null;
    const roots = root && root !== document ? [document, root] : [document];
    nav?.addEventListener?.("navigate", onNavigate);
    for (const at of roots) at.addEventListener("submit", onSubmit, true);
    try {
      const result = await perform(p, el);
      if (submits.some(navigates)) navigating = true;
      return typeof nav?.addEventListener === "function" ? { ...result, navigating } : result;
    } finally {
      nav?.removeEventListener?.("navigate", onNavigate);
      for (const at of roots) at.removeEventListener("submit", onSubmit, true);
    }
  }

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
        return { description: sentence("click", { what, ref }), ...(open ? { open } : {}) };
      }
      case "hover": {
        const { x, y, target } = reach(el, it);
        enter(target, x, y);
        return { description: sentence("hover", { what, ref }) };
      }
      case "type": {
        assertEnabled(el, it);
        if (ref) reach(el, it);
        typeInto(el, p.text, it);
        // What the field kept, when it is not what was typed: cut at maxlength, or refused by its
        // type (letters in a number field) or by the page.
        const kept = el.isContentEditable ? el.textContent : el.value;
        if (p.submit) press(el, parseKey("Enter"));
        const typed = sentence("type", { what, ref, text: p.text, submit: p.submit === true });
        return { description: kept === p.text ? typed : `${typed}; the field holds ${JSON.stringify(kept)}` };
      }
      case "press": {
        const key = parseKey(p.key);
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

  // Where the debugger route acts: the element's centre in the top-level viewport, after the same
  // checks as the DOM route. For typing, the element is focused and its text selected, so that
  // Input.insertText replaces it.
  async function locate(p) {
    await named();
    const el = elementOf(p);
    const what = describe(el);
    const it = p.ref ? `${what} (${p.ref})` : what; // in messages
    // After a trusted click on a checkbox: what it says now.
    if (p.kind === "state") return { description: what, checked: checkedState(el) };
    if (p.kind !== "hover" && p.kind !== "scroll" && p.kind !== "press") assertEnabled(el, it);
    if (p.kind === "type") {
      assertEditable(el, it);
      if (p.ref) reach(el, it);
      focusOn(el, { preventScroll: true });
      selectAll(el);
      return { description: what };
    }
    if (!p.ref) return { description: what };
    if (p.kind === "press") {
      focusOn(el);
      return { description: what };
    }
    if (p.kind === "scroll" && !p.direction) {
      el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
      return { description: what };
    }
    const checked = p.kind === "check" || p.kind === "uncheck" ? assertCheckable(el, it) : checkedState(el);
    const { topX, topY } = reach(el, it);
    return { x: topX, y: topY, description: what, doc: refs().doc, ...(checked === null ? {} : { checked }) };
  }

  g.__tabpilotAct = Object.freeze({ run, locate, nameOf, pickOptions, hitAt, reach, checkedState, assertEnabled, CHECKABLE_ROLES });
})();
