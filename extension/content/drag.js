// Dragging on the DOM route (browser_act kind "drag", browser_mouse action "drag"), as a person's
// mouse drags. The button goes down on the source; if the element under it is draggable (HTML5
// drag and drop), the browser's drag events follow with one shared DataTransfer: dragstart,
// dragenter/dragover/dragleave along the way, drop where the last dragover was accepted, dragend.
// Otherwise the pointer and mouse events move along the way and the button is released at the end,
// which is what pointer-event libraries (SortableJS's fallback, dnd-kit…) listen to. Between steps
// the page gets a turn, since libraries start their drag on a timer. A classic script of the
// isolated world, loaded after mouse.js.
(() => {
  "use strict";

  const g = globalThis;
  const { sentence, pointerOptions } = g.__tabpilotActCommon;
  const { fire } = g.__tabpilotActKeys;
  const refs = () => g.__tabpilotRefs;
  const M = () => g.__tabpilotMouse;

  const STEPS = 4;
  // How long the pointer rests on the drop point when no drag and drop started, for libraries that
  // look where the pointer is on a timer (SortableJS's fallback, every 50 ms); it stops as soon as
  // the dragged element moves.
  const DWELL_MS = 70;

  // A turn for the page. After the press and the dragstart, a 0 ms timer, so that the timers of
  // 0 ms a library sets there (SortableJS starts its drag so) run first; between moves, a message
  // task, which comes sooner. A hidden tab's timers run once a second: there, message tasks only.
  const tick = (timer = false) =>
    new Promise((resolve) => {
      if (timer && document.visibilityState === "visible") return void setTimeout(resolve, 0);
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve();
      channel.port2.postMessage(0);
    });
  const along = (from, to, i) => ({ x: from.x + ((to.x - from.x) * i) / STEPS, y: from.y + ((to.y - from.y) * i) / STEPS });

  // The element a press on target would drag: itself or an ancestor that is draggable (an image
  // and a link are by default).
  function draggableOf(target) {
    for (let n = target; n; n = n.parentNode ?? n.host) if (n.nodeType === 1 && n.draggable === true) return n;
    return null;
  }

  // Where an element sits among its shown siblings: {index (from 1), count, parent, node}.
  function placeOf(el) {
    const parent = el?.isConnected ? el.parentElement : null;
    if (!parent) return null;
    const shown = [...parent.children].filter((c) => c === el || c.checkVisibility?.({ visibilityProperty: true }) !== false);
    return { index: shown.indexOf(el) + 1, count: shown.length, parent: refs().describe(parent), node: parent };
  }

  const samePlace = (a, b) => a?.node === b?.node && a?.index === b?.index;

  // Resolves to true once the element has moved in the DOM, to false after ms.
  function moved(el, ms) {
    const before = placeOf(el);
    return new Promise((resolve) => {
      const done = (result) => {
        observer.disconnect();
        clearTimeout(timer);
        resolve(result);
      };
      const observer = new MutationObserver(() => {
        if (!samePlace(placeOf(el), before)) done(true);
      });
      observer.observe(document, { childList: true, subtree: true });
      const timer = setTimeout(() => done(false), ms);
    });
  }
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // A list that reorders as the pointer passes over it (SortableJS) may ignore the events that come
  // soon after a move (30 ms): the pointer rests on the drop point, as a hand does, while the
  // element keeps moving, at most REST_TIMES times.
  const REST_TIMES = 4;
  const OVER_EVERY_MS = 50; // the browser's dragover while the pointer rests

  // The drag from point `from` on source to point `to` (top-level viewport): {over, how}, `over`
  // the element at the drop point, `how` a note when the drop was refused.
  async function dragFrom(source, from, to, o) {
    const mouse = M();
    mouse.moveTo(source, from.x, from.y, o);
    const pressed = mouse.down(source, from.x, from.y, o);
    await tick(true); // a library makes the element draggable on its pointerdown (SortableJS)
    const dragged = o.button === "left" ? draggableOf(source) : null;
    if (dragged) {
      const data = new DataTransfer();
      const at = (p, extra) => ({ ...mouse.init(p.x, p.y, o, o.buttons), dataTransfer: data, ...extra });
      if (fire(dragged, DragEvent, "dragstart", at(from))) {
        // The browser takes the pointer over for its drag: the page hears it cancelled.
        fire(source, PointerEvent, "pointercancel", { ...mouse.init(from.x, from.y, o, 0), pointerId: 1, pointerType: "mouse", isPrimary: true, cancelable: false });
        return htmlDrag(dragged, data, from, to, at);
      }
    }
    for (let i = 1; i <= STEPS; i++) {
      await tick(i === 2); // the first move starts a library's drag, on a timer (SortableJS)
      const p = along(from, to, i);
      mouse.moveTo(mouse.elementAt(p.x, p.y) ?? document.documentElement, p.x, p.y, o, o.buttons);
    }
    for (let i = 0; i < REST_TIMES && (await moved(source, DWELL_MS)); i++);
    const over = mouse.elementAt(to.x, to.y) ?? document.documentElement;
    mouse.up(over, to.x, to.y, o, 1, pressed);
    return { over, how: "" };
  }

  async function htmlDrag(dragged, data, from, to, at) {
    let over = null;
    let accepted = false;
    const start = placeOf(dragged);
    const step = (p) => {
      const el = M().elementAt(p.x, p.y) ?? document.documentElement;
      if (el !== over) {
        fire(el, DragEvent, "dragenter", at(p, { relatedTarget: over }));
        if (over?.isConnected) fire(over, DragEvent, "dragleave", at(p, { relatedTarget: el, cancelable: false }));
        over = el;
      }
      // A page accepts a drop by cancelling dragover.
      accepted = !fire(over, DragEvent, "dragover", at(p));
    };
    for (let i = 1; i <= STEPS; i++) {
      await tick(i === 1);
      step(along(from, to, i));
    }
    await tick();
    if (!samePlace(placeOf(dragged), start)) {
      for (let i = 0; i < REST_TIMES; i++) {
        const before = placeOf(dragged);
        await sleep(OVER_EVERY_MS);
        step(to);
        if (samePlace(placeOf(dragged), before)) break;
      }
    }
    over = over?.isConnected ? over : (M().elementAt(to.x, to.y) ?? document.documentElement);
    if (accepted) fire(over, DragEvent, "drop", at(to));
    else fire(over, DragEvent, "dragleave", at(to, { cancelable: false }));
    fire(dragged, DragEvent, "dragend", at(to, { cancelable: false }));
    return { over, how: accepted ? "" : "; the page accepted no drop there" };
  }

  // browser_act drag on the DOM route: el (the ref's element) onto p.to_ref's element, or to the
  // point (p.to_x, p.to_y). A target ref that is stale fails before anything moves.
  async function dragRef(el, p, it, reach) {
    const onto = p.to_ref ? refs().resolveRef(p.to_ref) : null;
    const ontoWhat = onto ? M().label(onto) : null;
    const named = M().label(el); // `what` by its text where it has no name
    let to;
    if (onto) {
      reach(onto, `${ontoWhat} (${p.to_ref})`);
    } else {
      M().assertInside(p.to_x, p.to_y, "The drop point");
      to = { x: p.to_x, y: p.to_y };
    }
    const start = reach(el, it);
    if (onto) {
      const end = reach(onto, `${ontoWhat} (${p.to_ref})`);
      to = { x: end.topX, y: end.topY };
    }
    const before = placeOf(el);
    const done = await dragFrom(start.target, { x: start.topX, y: start.topY }, to, pointerOptions({ modifiers: p.modifiers }));
    await tick(); // a framework renders the new order after the drop
    const place = placeOf(el);
    if (place) place.moved = place.node !== before?.node || place.index !== before?.index;
    const f = { what: named, ref: p.ref, place, ...(onto ? { toWhat: ontoWhat, toRef: p.to_ref } : { x: p.to_x, y: p.to_y, over: M().named(done.over) }) };
    return { description: sentence("drag", f) + done.how };
  }

  // Where the trusted route's drag left the element (it asks before and after), and how the
  // answer names it and its target.
  function dragPlace(p) {
    const el = refs().resolveRef(p.ref);
    const onto = p.to_ref ? refs().resolveRef(p.to_ref) : null;
    const place = placeOf(el);
    return {
      place: place && { index: place.index, count: place.count, parent: place.parent },
      what: M().label(el),
      ...(onto ? { to: M().label(onto) } : {}),
    };
  }

  g.__tabpilotDrag = Object.freeze({ dragFrom, dragRef, placeOf });
  g.__tabpilotContentTools = { ...g.__tabpilotContentTools, drag_place: dragPlace };
})();
