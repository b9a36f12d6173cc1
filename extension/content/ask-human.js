// browser_ask_human's outline, in the content script's isolated world (docs/handoff.md): a box
// drawn over the element the agent points the person at, kept on it as the page scrolls or moves
// it, until the worker clears it (the person answered, the request timed out or was withdrawn).
// Not in the manifest: the worker injects this file only while a request with a ref is open
// (worker/tools/ask-human.js). Registers `handoff_outline` and `handoff_clear` in
// globalThis.__tabpilotContentTools.
//
// The box is an element of its own, fixed over the page, that takes no pointer events, so the
// person clicks the element itself; its styles are inline and !important, which a page's style
// sheets cannot override. It removes itself at the request's deadline, should the worker that
// drew it be gone by then.
(() => {
  "use strict";

  const g = globalThis;
  if (g.__tabpilotContentTools?.handoff_outline) return; // injected again for a later request

  const ATTRIBUTE = "data-tabpilot-handoff";
  const SLACK_MS = 5000;
  const COLOR = "#e8710a";
  let current = null; // {id, box, element, frame, expiry}

  function place() {
    if (!current) return;
    const { box, element } = current;
    if (!element.isConnected) {
      box.style.setProperty("display", "none", "important");
    } else {
      const rect = element.getBoundingClientRect();
      const set = (name, value) => box.style.setProperty(name, value, "important");
      set("display", "block");
      set("left", `${rect.left}px`);
      set("top", `${rect.top}px`);
      set("width", `${rect.width}px`);
      set("height", `${rect.height}px`);
    }
    current.frame = requestAnimationFrame(place);
  }

  function clear(message) {
    if (!current || (message?.id !== undefined && message.id !== current.id)) return { cleared: false };
    cancelAnimationFrame(current.frame);
    clearTimeout(current.expiry);
    current.box.remove();
    current = null;
    return { cleared: true };
  }

  function outline(message) {
    clear();
    // stale_ref or ref_not_found, as every ref-taking tool answers (content/refs.js).
    const element = g.__tabpilotRefs.resolveRef(message.ref);
    element.scrollIntoView?.({ block: "center", inline: "center" });
    const box = document.createElement("div");
    box.setAttribute(ATTRIBUTE, message.id);
    box.setAttribute("aria-hidden", "true");
    const styles = {
      position: "fixed",
      margin: "0",
      padding: "0",
      "box-sizing": "border-box",
      outline: `3px solid ${COLOR}`,
      "outline-offset": "2px",
      "box-shadow": "0 0 0 6px rgba(232, 113, 10, 0.35)",
      "border-radius": "4px",
      background: "transparent",
      "pointer-events": "none",
      "z-index": "2147483647",
    };
    for (const [name, value] of Object.entries(styles)) box.style.setProperty(name, value, "important");
    // An element of a same-origin frame (refs.js gives those refs too) is placed in its frame's
    // own viewport.
    (element.ownerDocument ?? document).documentElement.append(box);
    const ms = Number.isInteger(message.timeout_ms) ? message.timeout_ms + SLACK_MS : 0;
    current = { id: message.id, box, element, frame: 0, expiry: ms ? setTimeout(() => clear({ id: message.id }), ms) : 0 };
    place();
    return { outlined: true };
  }

  g.__tabpilotContentTools = { ...g.__tabpilotContentTools, handoff_outline: outline, handoff_clear: clear };
})();
