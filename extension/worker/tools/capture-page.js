// What browser_take_screenshot asks of the page, run by chrome.scripting.executeScript in the top
// frame's isolated world: the world of the content scripts, where content/refs.js keeps the ref map and
// where the page's own scripts cannot change what devicePixelRatio or scrollY answer. The function
// is sent as source, so it is self-contained.
//
// job.op:
//   "measure"  the viewport (CSS pixels, without scrollbars), the device-pixel ratio, the scroll
//              offsets and the size of the scrollable page;
//   "element"  the same, and job.ref's box in the top-level viewport, after scrolling it into view
//              (in a child frame, job.frame: its box in that frame's viewport, always scrolled);
//   "scroll"   scrolls to job.y (hiding fixed and sticky elements first when job.hide), waits for a
//              frame to be painted, and measures;
//   "paint"    waits for a frame to be painted (a tab just brought to the front), and measures;
//   "restore"  shows the hidden elements again and scrolls back to where the page was.
// A failure is answered as {error: {code, message, data}}, never thrown.
export async function shotPage(job) {
  const root = document.documentElement;
  const state = (globalThis.__tabpilotShot ??= { hidden: [], scroll: null });
  // A hidden tab paints no frame: it is given a moment instead.
  const painted = () =>
    new Promise((resolve) => {
      requestAnimationFrame(() => requestAnimationFrame(resolve));
      setTimeout(resolve, 200);
    });
  const measure = () => ({
    vw: root.clientWidth || innerWidth,
    vh: root.clientHeight || innerHeight,
    dpr: devicePixelRatio || 1,
    sx: scrollX,
    sy: scrollY,
    width: Math.max(root.scrollWidth, document.body?.scrollWidth ?? 0),
    height: Math.max(root.scrollHeight, document.body?.scrollHeight ?? 0),
  });
  // An element's box in the top-level viewport: through each same-origin frame it is in.
  const topRect = (el) => {
    const r = el.getBoundingClientRect();
    let x = r.left;
    let y = r.top;
    for (
      let frame = el.ownerDocument.defaultView.frameElement;
      frame;
      frame = frame.ownerDocument.defaultView.frameElement
    ) {
      const box = frame.getBoundingClientRect();
      const style = frame.ownerDocument.defaultView.getComputedStyle(frame);
      x += box.left + frame.clientLeft + parseFloat(style.paddingLeft);
      y += box.top + frame.clientTop + parseFloat(style.paddingTop);
    }
    return { x, y, width: r.width, height: r.height };
  };
  const hideFixed = () => {
    if (state.hidden.length) return;
    for (const el of document.querySelectorAll("body *")) {
      const position = getComputedStyle(el).position;
      if (position !== "fixed" && position !== "sticky") continue;
      state.hidden.push([el, el.style.getPropertyValue("visibility"), el.style.getPropertyPriority("visibility")]);
      el.style.setProperty("visibility", "hidden", "important");
    }
  };
  try {
    if (job.op === "element") {
      const refs = globalThis.__tabpilotRefs;
      if (!refs)
        return {
          error: {
            code: "extension_error",
            message: "The page's content script is not loaded; reload the tab and take a new snapshot.",
          },
        };
      const el = refs.resolveRef(job.ref);
      const what = refs.describe(el);
      let rect = topRect(el);
      if (rect.width === 0 || rect.height === 0) {
        return {
          error: {
            code: "element_not_interactable",
            message: `${what} (${job.ref}) has no size (not rendered): there is nothing to capture.`,
            data: { reason: "hidden" },
          },
        };
      }
      const view = measure();
      // In a child frame (job.frame) the frame itself may be out of the tab's view: the scroll
      // brings both into it.
      if (job.frame || rect.x < 0 || rect.y < 0 || rect.x + rect.width > view.vw || rect.y + rect.height > view.vh) {
        el.scrollIntoView({
          block: rect.height > view.vh ? "start" : "center",
          inline: "nearest",
          behavior: "instant",
        });
        await painted();
        rect = topRect(el);
      }
      return { ...measure(), rect, what };
    }
    if (job.op === "paint") {
      await painted();
      return measure();
    }
    if (job.op === "scroll") {
      state.scroll ??= { x: scrollX, y: scrollY };
      if (job.hide) hideFixed();
      scrollTo({ left: 0, top: job.y, behavior: "instant" });
      await painted();
      return measure();
    }
    if (job.op === "restore") {
      for (const [el, value, priority] of state.hidden) {
        if (value) el.style.setProperty("visibility", value, priority);
        else el.style.removeProperty("visibility");
      }
      state.hidden = [];
      if (state.scroll) scrollTo({ left: state.scroll.x, top: state.scroll.y, behavior: "instant" });
      state.scroll = null;
      return measure();
    }
    return measure();
  } catch (err) {
    const code = typeof err?.code === "string" ? err.code : "extension_error";
    return { error: { code, message: String(err?.message ?? err), data: err?.data } };
  }
}
