// Trusted input through chrome.debugger's Input domain: events the page cannot tell from a
// person's (isTrusted), with the browser's own default actions (Enter submits, a click may open a
// window). Points are CSS pixels of the tab's top-level viewport (content.js "locate" gives them).
// debugger.js decides where the debugger may be used at all.
//
// A click's or a drag's options `o` are shared/act-common.js pointerOptions(): {button, buttons,
// count, bits}; a plain left click when left out.
const LEFT = { button: "left", buttons: 1, count: 1, bits: 0 };
// The steps of a drag's path, and how long the pointer rests on the drop point where the page
// started no HTML5 drag (pointer-event libraries may look where it is on a timer).
const DRAG_STEPS = 5;
const DWELL_MS = 70;
// How long a drag waits for Chrome to say it intercepted an HTML5 drag, after the first move.
const INTERCEPT_MS = 40;
const REST_OVERS = 2;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function createInput({ debug, chrome = globalThis.chrome }) {
  const mouse = (tabId, type, x, y, extra = {}) =>
    debug.send(tabId, "Input.dispatchMouseEvent", { type, x, y, ...extra });
  const intercepted = new Map(); // tab id -> the drag data Chrome held back (Input.dragIntercepted)
  // Registered in the worker's first turn, like every listener Chrome must wake the worker for.
  chrome?.debugger?.onEvent?.addListener((source, method, params) => {
    if (method === "Input.dragIntercepted" && intercepted.has(source.tabId)) intercepted.set(source.tabId, params.data);
  });

  async function move(tabId, x, y, o = null) {
    await mouse(tabId, "mouseMoved", x, y, o ? { button: o.button, buttons: o.buttons, modifiers: o.bits } : { button: "none", buttons: 0 });
  }

  async function down(tabId, x, y, o = LEFT, clickCount = 1) {
    await mouse(tabId, "mousePressed", x, y, { button: o.button, buttons: o.buttons, clickCount, modifiers: o.bits });
  }

  async function up(tabId, x, y, o = LEFT, clickCount = 1) {
    await mouse(tabId, "mouseReleased", x, y, { button: o.button, buttons: 0, clickCount, modifiers: o.bits });
  }

  // count presses, the nth with clickCount n: Chrome makes the second a dblclick, as for a person.
  async function click(tabId, x, y, o = LEFT) {
    await move(tabId, x, y);
    for (let n = 1; n <= (o.count ?? 1); n++) {
      await down(tabId, x, y, o, n);
      await up(tabId, x, y, o, n);
    }
  }

  async function wheel(tabId, x, y, deltaX, deltaY, o = LEFT) {
    await mouse(tabId, "mouseWheel", x, y, { deltaX, deltaY, modifiers: o.bits });
  }

  // A drag from one point to another with the left button. Chrome hands an HTML5 drag it starts to
  // the debugger when asked (Input.setInterceptDrags), as Playwright does: its dragenter, dragover
  // and drop then go through Input.dispatchDragEvent. Returns "html5" or "pointer".
  async function drag(tabId, from, to, o = LEFT) {
    const at = (i) => ({ x: from.x + ((to.x - from.x) * i) / DRAG_STEPS, y: from.y + ((to.y - from.y) * i) / DRAG_STEPS });
    const pressed = { ...o, button: "left", buttons: 1 };
    await move(tabId, from.x, from.y);
    await down(tabId, from.x, from.y, pressed);
    intercepted.set(tabId, null);
    let data = null;
    try {
      await debug.send(tabId, "Input.setInterceptDrags", { enabled: true });
      for (let i = 1; i <= DRAG_STEPS; i++) {
        const p = at(i);
        if (data) {
          await debug.send(tabId, "Input.dispatchDragEvent", { type: "dragOver", ...p, data, modifiers: o.bits });
          continue;
        }
        await move(tabId, p.x, p.y, pressed);
        if (i === 1) {
          for (const started = Date.now(); !intercepted.get(tabId) && Date.now() - started < INTERCEPT_MS; ) await sleep(5);
        }
        data = intercepted.get(tabId);
        if (data) await debug.send(tabId, "Input.dispatchDragEvent", { type: "dragEnter", ...p, data, modifiers: o.bits });
      }
    } finally {
      intercepted.delete(tabId);
      await debug.send(tabId, "Input.setInterceptDrags", { enabled: false }).catch(() => {});
    }
    if (data) {
      // The browser's dragover while the pointer rests, every 50 ms: a list that reorders as the
      // pointer passes (SortableJS) ignores those that come within 30 ms of its last move.
      for (let i = 0; i < REST_OVERS; i++) {
        await sleep(50);
        await debug.send(tabId, "Input.dispatchDragEvent", { type: "dragOver", ...to, data, modifiers: o.bits });
      }
      await debug.send(tabId, "Input.dispatchDragEvent", { type: "drop", ...to, data, modifiers: o.bits });
      return "html5";
    }
    await sleep(DWELL_MS);
    await up(tabId, to.x, to.y, pressed);
    return "pointer";
  }

  // key: what shared/act-common.js parseKey gives. A key that types sends its text with keyDown, as
  // a keyboard does; Enter's is "\r".
  async function key(tabId, k) {
    const fields = {
      key: k.key,
      code: k.code,
      windowsVirtualKeyCode: k.keyCode,
      nativeVirtualKeyCode: k.keyCode,
      modifiers: k.bits,
    };
    const text = k.text ? { text: k.text, unmodifiedText: k.text } : {};
    await debug.send(tabId, "Input.dispatchKeyEvent", { type: k.text ? "keyDown" : "rawKeyDown", ...fields, ...text });
    await debug.send(tabId, "Input.dispatchKeyEvent", { type: "keyUp", ...fields });
  }

  // A key held for ms: its keyDown, the repeats an OS sends while it is down (autoRepeat, typing
  // again where the key types), its keyUp. Returns the number of repeats.
  async function hold(tabId, k, ms, times) {
    const start = Date.now();
    const fields = { key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode, nativeVirtualKeyCode: k.keyCode, modifiers: k.bits };
    const text = k.text ? { text: k.text, unmodifiedText: k.text } : {};
    const keyDown = (autoRepeat) => debug.send(tabId, "Input.dispatchKeyEvent", { type: k.text ? "keyDown" : "rawKeyDown", ...fields, ...text, autoRepeat });
    await keyDown(false);
    for (const at of times) {
      await sleep(at - (Date.now() - start));
      await keyDown(true);
    }
    await sleep(ms - (Date.now() - start));
    await debug.send(tabId, "Input.dispatchKeyEvent", { type: "keyUp", ...fields });
    return times.length;
  }

  const insertText = (tabId, text) => debug.send(tabId, "Input.insertText", { text });

  // The visible part of the page, in CSS pixels.
  async function viewport(tabId) {
    const metrics = await debug.send(tabId, "Page.getLayoutMetrics", {});
    const view = metrics?.cssVisualViewport ?? metrics?.layoutViewport ?? {};
    return { width: view.clientWidth ?? 800, height: view.clientHeight ?? 600 };
  }

  return { move, down, up, click, wheel, drag, key, hold, insertText, viewport };
}
