// Trusted input through chrome.debugger's Input domain: events the page cannot tell from a
// person's (isTrusted), with the browser's own default actions (Enter submits, a click may open a
// window). Points are CSS pixels of the tab's top-level viewport (content.js "locate" gives them).
// debugger.js decides where the debugger may be used at all.
export function createInput({ debug }) {
  const mouse = (tabId, type, x, y, extra = {}) =>
    debug.send(tabId, "Input.dispatchMouseEvent", { type, x, y, ...extra });

  async function move(tabId, x, y) {
    await mouse(tabId, "mouseMoved", x, y, { button: "none", buttons: 0 });
  }

  // check: run after the move, before the press; it throws to press nothing (the page moved
  // something over the point on hover, say).
  async function click(tabId, x, y, check = null) {
    await move(tabId, x, y);
    if (check) await check();
    await mouse(tabId, "mousePressed", x, y, { button: "left", buttons: 1, clickCount: 1 });
    await mouse(tabId, "mouseReleased", x, y, { button: "left", buttons: 0, clickCount: 1 });
  }

  async function wheel(tabId, x, y, deltaX, deltaY) {
    await mouse(tabId, "mouseWheel", x, y, { deltaX, deltaY });
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

  const insertText = (tabId, text) => debug.send(tabId, "Input.insertText", { text });

  // The visible part of the page, in CSS pixels.
  async function viewport(tabId) {
    const metrics = await debug.send(tabId, "Page.getLayoutMetrics", {});
    const view = metrics?.cssVisualViewport ?? metrics?.layoutViewport ?? {};
    return { width: view.clientWidth ?? 800, height: view.clientHeight ?? 600 };
  }

  return { move, click, wheel, key, insertText, viewport };
}
