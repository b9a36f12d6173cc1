// browser_take_screenshot: the tab's viewport, a region of it (`clip`), one element (`ref`), or the
// whole page (`full_page`), zoomed by `scale`, as JPEG or PNG scaled to at most `max_size` px on its
// long side.
//
// Routes, by what each browser allows (docs in README "browser_take_screenshot"):
// - "debugger": Page.captureScreenshot, with a clip for an element and captureBeyondViewport for the
//   whole page. Always in the daemon's managed browser (no quota; the page is laid out once at its
//   full height, so a sticky header appears once); in the person's Chrome for the whole page only
//   while the popup's debugger switch is on. It too waits for a frame that only the active tab
//   paints, so a background tab is brought to the front for it as below.
// - "capture_visible_tab": chrome.tabs.captureVisibleTab, in the person's Chrome, for the viewport
//   and an element (cropped with the device-pixel ratio). It captures only the active tab of a
//   window, so a background tab is brought to the front for the capture and the person's tab put
//   back; Chrome allows two captures a second, so captures wait their turn (capture-image.js).
// - "stitch": the whole page in the person's Chrome without the debugger: scrolled a viewport at a
//   time, fixed and sticky elements hidden after the first part, each part captured and drawn on
//   one canvas. Bound by the two captures a second: about half a second a viewport.
// A page or an element wider or taller than MAX_FULL_PAGE_PX CSS px is captured to that size, with a
// note naming each side cut; no image is larger than MAX_IMAGE_PX a side (outputScale). A `clip` of
// the viewport and a `scale` (the zoom) take the debugger's route where it runs, drawn anew at the
// zoom, and else are cut out of captureVisibleTab's image and enlarged on a canvas. On the debugger
// route a region taller than PART_PX is captured a part at a time: Chromium answers a taller one
// in parts, and under load a part past the first has come back showing the page's top.
import { CommandError } from "../link/errors.js";
import {
  MAX_IMAGE_PX,
  capped,
  cappedPart,
  clipCut,
  outputScale,
  regionName,
  screenshotParams,
  viewClip,
} from "./capture-params.js";
import { pageError } from "../tab/ref-docs.js";
import { frameOfRefs, frameOffset } from "../tab/ref-frames.js";
import { assertScriptable, tabInfo } from "../tab/tabs.js";
import { shotPage } from "./capture-page.js";
import {
  base64Bytes,
  base64ImageSize,
  base64ToBytes,
  bytesToBase64,
  createCaptureQueue,
  cropRect,
  stitchOffsets,
} from "./capture-image.js";

export { screenshotParams };

// How much of a tall page, or a tall element, a capture covers, in CSS pixels: the texture limit.
export const MAX_FULL_PAGE_PX = MAX_IMAGE_PX;
export const PART_PX = 4096;

const round = (n) => Math.round(n * 10_000) / 10_000;
const roundRect = (r) => ({ x: round(r.x), y: round(r.y), width: round(r.width), height: round(r.height) });

// What the popup's Recent activity says of a screenshot.
function screenshotSummary(params) {
  if (params?.full_page) return "took a full-page screenshot";
  return params?.ref ? `took a screenshot of ${params.ref}` : "took a screenshot";
}

export function createCaptureTools({ chrome, tabs, ports, debug, timers, withTimeout, now = Date.now, images = globalThis }) {
  const sleep = (ms) => new Promise((resolve) => timers.setTimeout(resolve, ms));
  const queue = createCaptureQueue({ now, sleep });

  async function screenshot(params) {
    const p = screenshotParams(params);
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    await debug.reload();
    const deadline = now() + p.timeoutMs;
    // Page.captureScreenshot waits for a frame that a background tab never paints: it too captures
    // the active tab.
    const work = async () => {
      if (debug.isManaged() && debug.allowed()) return withActive(tab, () => viaDebugger(tab, p));
      if (p.fullPage) return debug.allowed() ? withActive(tab, () => viaDebugger(tab, p)) : stitch(tab, p, deadline);
      return visible(tab, p);
    };
    const shot = await withTimeout(work(), p.timeoutMs, () => {
      return new CommandError(
        "execution_timeout",
        `The screenshot was not done within ${p.timeoutMs} ms: the page is busy, or very tall. ` +
          "Retry, or raise timeout_ms.",
        {
          tab: tabInfo(tab),
        },
      );
    });
    const result = {
      mime_type: p.mime,
      width: shot.width,
      height: shot.height,
      data: shot.data,
      scale: round(shot.scale),
      captured: shot.captured,
      route: shot.route,
      bytes: base64Bytes(shot.data),
    };
    if (shot.clip) result.clip = roundRect(shot.clip);
    if (shot.note) result.note = shot.note;
    return { result, result_type: "object", tab: tabInfo(tab) };
  }

  // Asks the page (capture-page.js); a ref's failure becomes the code the other tools answer. An
  // element of a child frame (tab/ref-frames.js) is measured there, and its box moved into the top
  // viewport, whose measures the answer gives.
  async function inPage(tab, job) {
    const frameId = job.ref ? await frameOfRefs(chrome, ports, tab, [job.ref]) : 0;
    const answer = await inFrame(tab, frameId === 0 ? job : { ...job, frame: true }, frameId);
    if (frameId === 0) return answer;
    const centre = { x: answer.rect.x + answer.rect.width / 2, y: answer.rect.y + answer.rect.height / 2 };
    const off = await frameOffset(chrome, ports, tab, frameId, centre);
    const view = await inFrame(tab, { op: "paint" }, 0);
    return { ...view, what: answer.what, rect: { ...answer.rect, x: answer.rect.x + off.x, y: answer.rect.y + off.y } };
  }

  async function inFrame(tab, job, frameId) {
    let answers;
    try {
      answers = await chrome.scripting.executeScript({
        target: { tabId: tab.id, frameIds: [frameId] },
        func: shotPage,
        args: [job],
      });
    } catch (err) {
      throw new CommandError(
        "extension_error",
        `tabpilot could not reach the page in tab ${tab.id}: ${err?.message ?? err}. Retry once it has loaded.`,
        {
          tab: tabInfo(tab),
        },
      );
    }
    const answer = answers?.[0]?.result;
    if (!answer || typeof answer !== "object") {
      throw new CommandError(
        "extension_error",
        "The page gave no answer: it navigated or closed. Retry once it has loaded.",
        { tab: tabInfo(tab) },
      );
    }
    if (answer.error) throw pageError(tab, { error: answer.error });
    return answer;
  }

  // Runs fn while `tab` is the active tab of its window, then puts back the tab that was.
  async function withActive(tab, fn) {
    const current = await chrome.tabs.get(tab.id);
    if (current.active) return fn(current);
    const [was] = await chrome.tabs.query({ active: true, windowId: current.windowId });
    await chrome.tabs.update(tab.id, { active: true });
    try {
      await inPage(tab, { op: "paint" });
      return await fn(current);
    } finally {
      if (was && was.id !== tab.id) await Promise.resolve(chrome.tabs.update(was.id, { active: true })).catch(() => {});
    }
  }

  const captureVisible = (windowId, options) => queue.run(() => chrome.tabs.captureVisibleTab(windowId, options));
  const dataOf = (url) => url.slice(url.indexOf(",") + 1);

  async function bitmapOf(data, mime) {
    return images.createImageBitmap(new images.Blob([base64ToBytes(data)], { type: mime }));
  }

  // A canvas of the given size in pixels, rounded and at least 1 px a side, that scales smoothly.
  function newCanvas(width, height) {
    const canvas = new images.OffscreenCanvas(Math.max(1, Math.round(width)), Math.max(1, Math.round(height)));
    const ctx = canvas.getContext("2d");
    ctx.imageSmoothingQuality = "high";
    return { canvas, ctx };
  }

  // Draws `src` (device pixels of bitmap) at `scale` and encodes it: {data, width, height}.
  async function render(bitmap, src, scale, p) {
    const { canvas, ctx } = newCanvas(src.width * scale, src.height * scale);
    const { width, height } = canvas;
    const whole = src.x === 0 && src.y === 0 && src.width === bitmap.width && src.height === bitmap.height;
    if (scale <= 1 || whole) {
      ctx.drawImage(bitmap, src.x, src.y, src.width, src.height, 0, 0, width, height);
      return { data: await encode(canvas, p), width, height };
    }
    // Enlarged from a part of the image, the smoothing would blend in pixels from beyond the part's
    // edges: the part is cut out first, so that its edges keep their own colour.
    const part = await images.createImageBitmap(bitmap, src.x, src.y, src.width, src.height);
    try {
      ctx.drawImage(part, 0, 0, width, height);
    } finally {
      part.close?.();
    }
    return { data: await encode(canvas, p), width, height };
  }

  async function encode(canvas, p) {
    const options = { type: p.mime };
    if (p.quality !== null) options.quality = p.quality / 100;
    const blob = await canvas.convertToBlob(options);
    return bytesToBase64(new Uint8Array(await blob.arrayBuffer()));
  }

  // An image as captured, scaled down to p.maxSize when it is larger.
  async function fitted(data, mime, p) {
    const size = base64ImageSize(data) ?? { width: 0, height: 0 };
    const scale = outputScale(size.width, size.height, 1, p.maxSize);
    if (scale === 1 && mime === p.mime) return { data, ...size, scale };
    const bitmap = await bitmapOf(data, mime);
    try {
      return { ...(await render(bitmap, { x: 0, y: 0, width: bitmap.width, height: bitmap.height }, scale, p)), scale };
    } finally {
      bitmap.close?.();
    }
  }

  // The region of the viewport a clip or a zoom shows: {region, cut, captured, clip?}.
  function zoomRegion(tab, p, m) {
    if (!p.clip) return { region: { x: 0, y: 0, width: m.vw, height: m.vh }, cut: false, captured: "the viewport" };
    const { region, cut } = viewClip(p.clip, m.vw, m.vh, tabInfo(tab));
    return { region, cut, captured: regionName(region), clip: region };
  }

  // The viewport or an element, with chrome.tabs.captureVisibleTab.
  async function visible(tab, p) {
    return withActive(tab, async (current) => {
      if (!p.ref && !p.clip && p.zoom === 1) {
        const options = p.quality === null ? { format: p.format } : { format: p.format, quality: p.quality };
        const shot = await fitted(dataOf(await captureVisible(current.windowId, options)), p.mime, p);
        return { ...shot, captured: "the viewport", route: "capture_visible_tab" };
      }
      if (!p.ref) return visibleRegion(tab, p, current);
      const m = await inPage(tab, { op: "element", ref: p.ref });
      const bitmap = await bitmapOf(dataOf(await captureVisible(current.windowId, { format: "png" })), "image/png");
      try {
        const crop = cropRect(m.rect, m.dpr, bitmap.width, bitmap.height);
        if (!crop) {
          throw new CommandError(
            "element_not_interactable",
            `${m.what} (${p.ref}) is not in the viewport and could not be scrolled into it.`,
            {
              tab: tabInfo(tab),
              data: { reason: "hidden" },
            },
          );
        }
        const scale = outputScale(crop.width, crop.height, p.zoom, p.maxSize);
        const shot = await render(bitmap, crop, scale, p);
        const whole =
          crop.width >= Math.floor(m.rect.width * m.dpr) && crop.height >= Math.floor(m.rect.height * m.dpr);
        const note = whole ? null : "The element is larger than the viewport: only its part in view was captured.";
        return { ...shot, scale, captured: `element ${p.ref} (${m.what})`, route: "capture_visible_tab", note };
      } finally {
        bitmap.close?.();
      }
    });
  }

  // A clip of the viewport, or the viewport zoomed: its device pixels in captureVisibleTab's image,
  // cropped and enlarged on a canvas.
  async function visibleRegion(tab, p, current) {
    const m = await inPage(tab, { op: "measure" });
    const { region, cut, captured, clip } = zoomRegion(tab, p, m);
    const bitmap = await bitmapOf(dataOf(await captureVisible(current.windowId, { format: "png" })), "image/png");
    try {
      const crop = cropRect(region, m.dpr, bitmap.width, bitmap.height) ?? { x: 0, y: 0, width: 1, height: 1 };
      const scale = outputScale(crop.width, crop.height, p.zoom, p.maxSize);
      const shot = await render(bitmap, crop, scale, p);
      return { ...shot, scale, captured, clip, route: "capture_visible_tab", note: cut ? clipCut(m) : null };
    } finally {
      bitmap.close?.();
    }
  }

  // The viewport, an element or the whole page with Page.captureScreenshot.
  async function viaDebugger(tab, p) {
    const format = { format: p.format, ...(p.quality === null ? {} : { quality: p.quality }) };
    if (!p.ref && !p.fullPage && !p.clip && p.zoom === 1) {
      const answer = await debug.send(tab.id, "Page.captureScreenshot", format);
      return { ...(await fitted(answer.data, p.mime, p)), captured: "the viewport", route: "debugger" };
    }
    if (!p.ref && !p.fullPage) {
      // The page is drawn anew at the zoom: an enlargement with the detail of a closer look.
      const m = await inPage(tab, { op: "measure" });
      const { region, cut, captured, clip } = zoomRegion(tab, p, m);
      const scale = outputScale(region.width * m.dpr, region.height * m.dpr, p.zoom, p.maxSize);
      const answer = await debug.send(tab.id, "Page.captureScreenshot", {
        ...format,
        clip: { ...region, x: region.x + m.sx, y: region.y + m.sy, scale },
      });
      const size = base64ImageSize(answer.data) ?? { width: 0, height: 0 };
      return { data: answer.data, ...size, scale, captured, clip, route: "debugger", note: cut ? clipCut(m) : null };
    }
    // The whole page from its top: a sticky header sits where the scroll puts it.
    const m = await inPage(tab, p.ref ? { op: "element", ref: p.ref } : { op: "scroll", y: 0, hide: false });
    try {
      return await clipped(tab, p, m, format);
    } finally {
      if (p.fullPage) await inPage(tab, { op: "restore" }).catch(() => {});
    }
  }

  async function clipped(tab, p, m, format) {
    let clip;
    let note = null;
    let captured;
    if (p.ref) {
      // An element past the texture limit is cut to it, as a page is: its top-left part.
      const width = Math.min(m.rect.width, MAX_FULL_PAGE_PX);
      const height = Math.min(m.rect.height, MAX_FULL_PAGE_PX);
      clip = { x: m.rect.x + m.sx, y: m.rect.y + m.sy, width, height };
      captured = `element ${p.ref} (${m.what})`;
      if (width < m.rect.width || height < m.rect.height) {
        note = capped("element", m.rect.width, m.rect.height);
        captured += `, the ${cappedPart(m.rect.width, m.rect.height)}`;
      }
    } else {
      const pageWidth = Math.max(m.width, m.vw);
      clip = { x: 0, y: 0, width: Math.min(pageWidth, MAX_FULL_PAGE_PX), height: Math.min(m.height, MAX_FULL_PAGE_PX) };
      const cut = pageWidth > MAX_FULL_PAGE_PX || m.height > MAX_FULL_PAGE_PX;
      if (cut) note = capped("page", pageWidth, m.height);
      captured = cut ? `the ${cappedPart(pageWidth, m.height)} of the page` : "the full page";
    }
    const scale = outputScale(clip.width * m.dpr, clip.height * m.dpr, p.zoom, p.maxSize);
    // An element wholly in the viewport is captured as it is shown; past it, the page is laid out
    // at its full size for the capture.
    const inView =
      clip.y >= m.sy && clip.y + clip.height <= m.sy + m.vh && clip.x >= m.sx && clip.x + clip.width <= m.sx + m.vw;
    if (clip.height > PART_PX)
      return { ...(await inParts(tab, p, clip, scale, m.dpr)), scale, captured, route: "debugger", note };
    const answer = await debug.send(tab.id, "Page.captureScreenshot", {
      ...format,
      clip: { ...clip, scale },
      captureBeyondViewport: p.fullPage || !inView,
    });
    const size = base64ImageSize(answer.data) ?? { width: 0, height: 0 };
    return { data: answer.data, ...size, scale, captured, route: "debugger", note };
  }

  // A region taller than PART_PX, a part at a time: each part its own capture (PNG, so that only the
  // whole is encoded lossily), drawn on one canvas.
  async function inParts(tab, p, clip, scale, dpr) {
    const k = scale * dpr; // output pixels per CSS pixel
    const { canvas, ctx } = newCanvas(clip.width * k, clip.height * k);
    for (const y of stitchOffsets(clip.height, PART_PX)) {
      const rows = Math.min(PART_PX, clip.height - y);
      const part = await debug.send(tab.id, "Page.captureScreenshot", {
        format: "png",
        clip: { ...clip, y: clip.y + y, height: rows, scale },
        captureBeyondViewport: true,
      });
      const bitmap = await bitmapOf(part.data, "image/png");
      try {
        // Each part is drawn from its own rounded edges, so that the parts meet without a seam.
        const top = Math.round(y * k);
        ctx.drawImage(bitmap, 0, top, canvas.width, Math.round((y + rows) * k) - top);
      } finally {
        bitmap.close?.();
      }
    }
    return { data: await encode(canvas, p), width: canvas.width, height: canvas.height };
  }

  // The whole page, a viewport at a time, with chrome.tabs.captureVisibleTab.
  async function stitch(tab, p, deadline) {
    return withActive(tab, async (current) => {
      const first = await inPage(tab, { op: "scroll", y: 0, hide: false });
      try {
        const total = Math.min(first.height, MAX_FULL_PAGE_PX);
        const scale = outputScale(first.vw * first.dpr, total * first.dpr, p.zoom, p.maxSize);
        const k = first.dpr * scale; // output pixels per CSS pixel
        const { canvas, ctx } = newCanvas(first.vw * k, total * k);
        for (const [i, y] of stitchOffsets(total, first.vh).entries()) {
          if (now() > deadline) break; // withTimeout answers; this only stops the work
          const m = i === 0 ? first : await inPage(tab, { op: "scroll", y, hide: true });
          const bitmap = await bitmapOf(dataOf(await captureVisible(current.windowId, { format: "png" })), "image/png");
          try {
            // At the bottom the page scrolls less than asked: the part starts lower in the image.
            const rows = Math.min(first.vh, total - y);
            const top = (y - m.sy) * m.dpr;
            ctx.drawImage(
              bitmap,
              0,
              top,
              m.vw * m.dpr,
              rows * m.dpr,
              0,
              Math.round(y * k),
              canvas.width,
              Math.round(rows * k),
            );
          } finally {
            bitmap.close?.();
          }
        }
        const note = first.height > MAX_FULL_PAGE_PX ? capped("page", first.vw, first.height) : null;
        const captured = note ? `the ${cappedPart(first.vw, first.height)} of the page` : "the full page";
        const data = await encode(canvas, p);
        return { data, width: canvas.width, height: canvas.height, scale, captured, route: "stitch", note };
      } finally {
        await inPage(tab, { op: "restore" }).catch(() => {});
      }
    });
  }

  return {
    handlers: { browser_take_screenshot: screenshot },
    summaries: { browser_take_screenshot: screenshotSummary },
  };
}
