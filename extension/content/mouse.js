// The mouse at a point, on the DOM route (browser_mouse, and browser_act's clicks with a button,
// a count or modifiers): the events a real mouse makes, in the browser's order, with its button,
// buttons, detail and modifier fields. What untrusted events do not do by themselves is done here:
// a wheel scrolls the scrollable box under the point. A classic script of the isolated world,
// loaded after act.js, whose hit test it shares.
//
// Points are CSS pixels of the top-level viewport: the frame of a viewport screenshot at scale 1.
(() => {
  "use strict";

  const g = globalThis;
  const { fail, mouseOptions, mouseSentence } = g.__tabpilotActCommon;
  const { fire, focusOn, focused, isDisabled, parentOf, viewOf, FOCUSABLE } = g.__tabpilotActKeys;
  const refs = () => g.__tabpilotRefs;

  const POINTER = { pointerId: 1, pointerType: "mouse", isPrimary: true, width: 1, height: 1 };
  const PASSING = { bubbles: false, cancelable: false }; // enter and leave events

  // The fields of a mouse event at (x, y): o is pointerOptions(), buttons what is held after it.
  const init = (x, y, o, buttons, detail = 0) => ({
    clientX: x,
    clientY: y,
    screenX: x,
    screenY: y,
    button: o.code,
    buttons,
    detail,
    ...o.modifiers,
  });

  // The topmost element at a point of the top-level viewport, through open shadow roots and
  // same-origin frames; null outside the page.
  function elementAt(x, y) {
    let doc = document;
    for (;;) {
      const hit = g.__tabpilotAct.hitAt(doc, x, y);
      if (hit?.tagName !== "IFRAME" && hit?.tagName !== "FRAME") return hit;
      let inner;
      try {
        inner = hit.contentDocument;
      } catch {}
      if (!inner) return hit;
      const box = hit.getBoundingClientRect();
      x -= box.left + hit.clientLeft;
      y -= box.top + hit.clientTop;
      doc = inner;
    }
  }

  // Refuses a point outside the viewport, naming its size.
  function assertInside(x, y, name = "The point") {
    const width = document.documentElement.clientWidth || innerWidth;
    const height = document.documentElement.clientHeight || innerHeight;
    if (!(Number.isFinite(x) && Number.isFinite(y) && x >= 0 && y >= 0 && x < width && y < height)) {
      fail(
        "point_outside_viewport",
        `${name} (${x}, ${y}) is outside the viewport, which is ${width}x${height} CSS pixels from (0, 0). ` +
          "Use a point of a viewport screenshot at scale 1, or scroll first.",
        { width, height },
      );
    }
  }

  // `button "Save"`; an element without an accessible name (a list item, say) by its text, as the
  // snapshot shows it: `listitem "Task B"`.
  function label(el) {
    const what = refs().describe(el);
    if (what.includes('"')) return what;
    const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
    return text && text.length <= 60 ? `${what} ${JSON.stringify(text)}` : what;
  }

  // `button "Save" (e7)`: what is at a point, with its ref if a snapshot gave it one.
  function named(el) {
    if (!el) return "nothing";
    const ref = refs().peek(el);
    return ref ? `${label(el)} (${ref})` : label(el);
  }

  // The element the pointer is over; it hears the pointer leave when another one is entered.
  let over = null;

  function moveTo(target, x, y, o, buttons = 0) {
    const at = init(x, y, o, buttons);
    if (over !== target) {
      if (over?.isConnected) {
        fire(over, PointerEvent, "pointerout", { ...at, ...POINTER, relatedTarget: target });
        fire(over, PointerEvent, "pointerleave", { ...at, ...POINTER, ...PASSING });
        fire(over, MouseEvent, "mouseout", { ...at, relatedTarget: target });
        fire(over, MouseEvent, "mouseleave", { ...at, ...PASSING });
      }
      const from = over?.isConnected ? over : null;
      over = target;
      fire(target, PointerEvent, "pointerover", { ...at, ...POINTER, relatedTarget: from });
      fire(target, PointerEvent, "pointerenter", { ...at, ...POINTER, ...PASSING });
      fire(target, MouseEvent, "mouseover", { ...at, relatedTarget: from });
      fire(target, MouseEvent, "mouseenter", { ...at, ...PASSING });
    }
    // A cancelled pointermove does not hold back the mousemove (only a cancelled pointerdown does).
    fire(target, PointerEvent, "pointermove", { ...at, ...POINTER, pressure: buttons ? 0.5 : 0 });
    fire(target, MouseEvent, "mousemove", at);
  }

  // Pressing: pointerdown, then mousedown unless the page cancelled the pointerdown; a left or
  // middle press moves the focus as the browser does. Returns whether the mouse events go on.
  function down(target, x, y, o, detail = 1) {
    const mouse = fire(target, PointerEvent, "pointerdown", { ...init(x, y, o, o.buttons), ...POINTER, pressure: 0.5 });
    if (mouse && fire(target, MouseEvent, "mousedown", init(x, y, o, o.buttons, detail)) && o.button !== "right") focusFrom(target);
    if (mouse && o.button === "right") fire(target, MouseEvent, "contextmenu", init(x, y, o, o.buttons, detail));
    return mouse;
  }

  function up(target, x, y, o, detail = 1, mouse = true) {
    fire(target, PointerEvent, "pointerup", { ...init(x, y, o, 0), ...POINTER });
    if (mouse) fire(target, MouseEvent, "mouseup", init(x, y, o, 0, detail));
  }

  function focusFrom(target) {
    for (let n = target; n; n = parentOf(n)) {
      if (n.nodeType === 1 && n.matches(FOCUSABLE) && !isDisabled(n)) {
        focusOn(n, { preventScroll: true });
        return;
      }
    }
    focused()?.blur?.();
  }

  // A click of any button, count times (a double click is two, the second with detail 2 and a
  // dblclick): click for the left button, auxclick for the others, contextmenu on a right press.
  function clickAt(target, x, y, o) {
    moveTo(target, x, y, o);
    for (let n = 1; n <= o.count; n++) {
      const mouse = down(target, x, y, o, n);
      up(target, x, y, o, n, mouse);
      const kind = o.button === "left" ? "click" : "auxclick";
      fire(target, PointerEvent, kind, { ...init(x, y, o, 0, n), ...POINTER });
      if (n === 2 && o.button === "left") fire(target, MouseEvent, "dblclick", init(x, y, o, 0, 2));
    }
  }

  // The nearest box under the point that scrolls along the axis, or the page.
  function scrollerAt(el, vertical) {
    for (let n = el; n && n.nodeType === 1; n = parentOf(n)) {
      const style = viewOf(n).getComputedStyle(n);
      const overflow = vertical ? style.overflowY : style.overflowX;
      const more = vertical ? n.scrollHeight > n.clientHeight : n.scrollWidth > n.clientWidth;
      if (more && /(auto|scroll|overlay)/.test(overflow)) return n;
    }
    return document.scrollingElement ?? document.documentElement;
  }

  // A wheel turn over target: the wheel event, then, unless the page cancelled it, the scroll an
  // untrusted wheel event never makes. Returns the pixels scrolled, [x, y].
  function wheel(target, x, y, dx, dy, o) {
    moveTo(target, x, y, o);
    const go = fire(target, WheelEvent, "wheel", { ...init(x, y, o, 0), deltaX: dx, deltaY: dy, deltaMode: 0 });
    if (!go) return [0, 0];
    const moved = [0, 0];
    for (const [axis, delta] of [[0, dx], [1, dy]]) {
      if (!delta) continue;
      const box = scrollerAt(target, axis === 1);
      const position = () => (axis === 1 ? box.scrollTop : box.scrollLeft);
      const before = position();
      box.scrollBy({ [axis === 1 ? "top" : "left"]: delta, behavior: "instant" });
      moved[axis] = Math.round(position() - before);
    }
    return moved;
  }

  // browser_mouse on the DOM route: {action, x, y, to_x, to_y, delta_x, delta_y, modifiers,
  // button} -> {description}.
  async function mouse(p) {
    await refs().ready().catch(() => {});
    const o = mouseOptions(p);
    assertInside(p.x, p.y);
    if (p.action === "drag") assertInside(p.to_x, p.to_y, "The drop point");
    const target = elementAt(p.x, p.y) ?? document.documentElement;
    const f = { x: p.x, y: p.y, element: named(target), names: o.names, button: o.button, dx: p.delta_x ?? 0, dy: p.delta_y ?? 0 };
    switch (p.action) {
      case "move":
        moveTo(target, p.x, p.y, o);
        break;
      case "down":
        moveTo(target, p.x, p.y, o);
        down(target, p.x, p.y, o);
        break;
      case "up":
        up(target, p.x, p.y, o);
        break;
      case "wheel":
        f.moved = wheel(target, p.x, p.y, f.dx, f.dy, o);
        break;
      case "drag": {
        const done = await g.__tabpilotDrag.dragFrom(target, { x: p.x, y: p.y }, { x: p.to_x, y: p.to_y }, o);
        return { description: mouseSentence("drag", { ...f, to_x: p.to_x, to_y: p.to_y, to: named(done.over) }) + done.how };
      }
      default:
        clickAt(target, p.x, p.y, o);
    }
    return { description: mouseSentence(p.action, f) };
  }

  // Where the trusted route aims: what is at the point (and the drop point), in the viewport.
  async function mouseAt(p) {
    await refs().ready().catch(() => {});
    assertInside(p.x, p.y);
    if (p.to_x != null) assertInside(p.to_x, p.to_y, "The drop point");
    const result = { element: named(elementAt(p.x, p.y)) };
    if (p.to_x != null) result.to = named(elementAt(p.to_x, p.to_y));
    return result;
  }

  g.__tabpilotMouse = Object.freeze({ init, elementAt, assertInside, label, named, moveTo, down, up, clickAt, wheel });
  g.__tabpilotContentTools = { ...g.__tabpilotContentTools, mouse, mouse_at: mouseAt };
})();
