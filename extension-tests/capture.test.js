// background/capture-image.js and capture.js: the quota queue, the crop and scale arithmetic, image
// sizes from their headers, and the params.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  base64Bytes,
  bytesToBase64,
  base64ToBytes,
  createCaptureQueue,
  cropRect,
  fitScale,
  imageSize,
  stitchOffsets,
} from "../extension/worker/tools/capture-image.js";
import { createCaptureTools, screenshotParams } from "../extension/worker/tools/capture.js";
import { MAX_IMAGE_PX, outputScale, viewClip } from "../extension/worker/tools/capture-params.js";

// A clock that only moves when someone sleeps.
function fakeClock() {
  let t = 0;
  const slept = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
    advance: (ms) => (t += ms),
    slept,
  };
}

test("the queue starts two captures a second at most, and makes the rest wait their turn", async () => {
  const clock = fakeClock();
  const queue = createCaptureQueue(clock);
  const starts = [];
  const capture = async () => starts.push(clock.now());
  await Promise.all([1, 2, 3, 4, 5].map(() => queue.run(capture)));
  assert.deepEqual(starts, [0, 0, 1025, 1025, 2050]);
  // In any second, no more than two.
  for (const t of starts) assert.ok(starts.filter((s) => s >= t && s < t + 1000).length <= 2);
});

test("a capture after a quiet second does not wait", async () => {
  const clock = fakeClock();
  const queue = createCaptureQueue(clock);
  await queue.run(async () => 1);
  await queue.run(async () => 2);
  clock.advance(5000);
  assert.equal(await queue.run(async () => 3), 3);
  assert.deepEqual(clock.slept, []);
});

test("a capture refused for the quota all the same is tried again after a window; other errors are not", async () => {
  const clock = fakeClock();
  const queue = createCaptureQueue(clock);
  let calls = 0;
  const flaky = async () => {
    calls += 1;
    if (calls === 1) throw new Error("This request exceeds the MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND quota.");
    return "ok";
  };
  assert.equal(await queue.run(flaky), "ok");
  assert.equal(calls, 2);
  assert.ok(clock.slept.includes(1000));
  await assert.rejects(
    queue.run(async () => {
      throw new Error("Cannot access contents of url");
    }),
    /Cannot access/,
  );
  // A failed capture does not stop the queue.
  assert.equal(await queue.run(async () => "next"), "next");
});

test("the scale brings the long side to max_size, and 0 means none", () => {
  assert.equal(fitScale(1280, 720, 1568), 1);
  assert.equal(fitScale(3136, 1000, 1568), 0.5);
  assert.equal(fitScale(800, 16000, 1600), 0.1);
  assert.equal(fitScale(5000, 5000, 0), 1);
});

test("an element's crop is its box times the device-pixel ratio, rounded outward and clamped to the image", () => {
  assert.deepEqual(cropRect({ x: 10, y: 20, width: 100, height: 50 }, 1, 800, 600), { x: 10, y: 20, width: 100, height: 50 });
  assert.deepEqual(cropRect({ x: 10.5, y: 20.25, width: 100, height: 50 }, 2, 1600, 1200), { x: 21, y: 40, width: 200, height: 101 });
  // Partly outside the viewport: only what is in the image.
  assert.deepEqual(cropRect({ x: -20, y: 500, width: 100, height: 300 }, 1.5, 1200, 900), { x: 0, y: 750, width: 120, height: 150 });
  assert.equal(cropRect({ x: 0, y: 700, width: 10, height: 10 }, 1, 800, 600), null);
});

test("a stitched page takes one viewport a part, and at least one", () => {
  assert.deepEqual(stitchOffsets(2500, 1000), [0, 1000, 2000]);
  assert.deepEqual(stitchOffsets(2000, 1000), [0, 1000]);
  assert.deepEqual(stitchOffsets(0, 1000), [0]);
});

test("an image's size is read from its PNG or JPEG header", () => {
  const png = base64ToBytes("iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAD0lEQVR4nGP8z8DAwMAAAAYIAQHLR3Z1AAAAAElFTkSuQmCC");
  assert.deepEqual(imageSize(png), { width: 2, height: 1 });
  // SOI, an APP0 segment of 16 bytes, then SOF0 of a 1568 x 882 image.
  const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, ...new Array(14).fill(0), 0xff, 0xc0, 0x00, 0x11, 0x08, 0x03, 0x72, 0x06, 0x20, 0x03, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual(imageSize(jpeg), { width: 1568, height: 882 });
  assert.equal(imageSize(Uint8Array.from([1, 2, 3])), null);
});

test("base64 goes both ways, and counts its bytes", () => {
  const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => i % 251);
  const text = bytesToBase64(bytes);
  assert.deepEqual(base64ToBytes(text), bytes);
  assert.equal(base64Bytes(text), 70_000);
  assert.equal(base64Bytes(bytesToBase64(Uint8Array.from([1]))), 1);
});

test("the params default to JPEG at 50 and 1568 px, and refuse what does not go together", () => {
  assert.deepEqual(screenshotParams({}), { format: "jpeg", mime: "image/jpeg", quality: 50, maxSize: 1568, ref: null, fullPage: false, clip: null, zoom: 1, timeoutMs: 30_000 });
  assert.equal(screenshotParams({ format: "png" }).quality, null);
  assert.equal(screenshotParams({ max_size: 0 }).maxSize, 0);
  const clip = { x: 0, y: 0, width: 10, height: 10 };
  assert.deepEqual(screenshotParams({ clip, scale: 4 }).clip, clip);
  assert.equal(screenshotParams({ clip, scale: 4 }).zoom, 4);
  for (const bad of [
    { ref: "e1", full_page: true },
    { format: "png", quality: 50 },
    { format: "gif" },
    { quality: 0 },
    { max_size: -1 },
    { clip, ref: "e1" },
    { clip, full_page: true },
    { clip: { ...clip, width: 0 } },
    { clip: { ...clip, height: -5 } },
    { clip: { x: 0, y: 0, width: 10 } },
    { clip: [0, 0, 10, 10] },
    { scale: 0.5 },
    { scale: 9 },
    { scale: "2" },
  ]) {
    assert.throws(() => screenshotParams(bad), (err) => err.code === "invalid_request", JSON.stringify(bad));
  }
});

// ---- Which route runs, and the tab put back: capture.js with a hand-made chrome.

const PNG_2x1 = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAD0lEQVR4nGP8z8DAwMAAAAYIAQHLR3Z1AAAAAElFTkSuQmCC";

function browser({ managed = false, switchOn = false, active = 1 } = {}) {
  const tabs = new Map([
    [1, { id: 1, windowId: 9, url: "http://127.0.0.1/a", title: "A" }],
    [2, { id: 2, windowId: 9, url: "http://127.0.0.1/b", title: "B" }],
  ]);
  const log = [];
  let front = active;
  const chrome = {
    tabs: {
      get: async (id) => ({ ...tabs.get(id), active: id === front }),
      query: async ({ windowId }) => [...tabs.values()].filter((t) => t.windowId === windowId && t.id === front),
      update: async (id, { active: on }) => {
        if (on) front = id;
        log.push(["activate", id]);
      },
      captureVisibleTab: async (windowId, options) => {
        log.push(["captureVisibleTab", front, options.format]);
        return `data:image/${options.format};base64,${PNG_2x1}`;
      },
    },
    scripting: {
      executeScript: async ({ args: [job] }) => [{ result: { vw: 2, vh: 1, dpr: 1, sx: 0, sy: 0, width: 2, height: 1, op: job.op } }],
    },
  };
  const debug = {
    reload: async () => {},
    isManaged: () => managed,
    allowed: () => managed || switchOn,
    send: async (tabId, method, params) => {
      log.push([method, front, params.format]);
      return { data: PNG_2x1 };
    },
  };
  const { handlers: capture } = createCaptureTools({
    chrome,
    tabs: { resolve: async (id) => tabs.get(id ?? front) },
    debug,
    timers: { setTimeout: (fn) => setTimeout(fn, 0) },
    withTimeout: (promise) => promise,
  });
  return { capture, log, front: () => front };
}

test("in a person's Chrome a background tab is brought to the front for captureVisibleTab, and their tab put back", async () => {
  const { capture, log, front } = browser();
  const answer = await capture.browser_take_screenshot({ tab_id: 2, format: "png" });
  assert.deepEqual(log, [
    ["activate", 2],
    ["captureVisibleTab", 2, "png"],
    ["activate", 1],
  ]);
  assert.equal(front(), 1);
  assert.deepEqual(
    { ...answer.result, data: undefined },
    { mime_type: "image/png", width: 2, height: 1, data: undefined, scale: 1, captured: "the viewport", route: "capture_visible_tab", bytes: 72 },
  );
});

test("the managed browser takes the debugger's route, the active tab staying where it is", async () => {
  const { capture, log } = browser({ managed: true });
  const answer = await capture.browser_take_screenshot({ format: "png" });
  assert.deepEqual(log, [["Page.captureScreenshot", 1, "png"]]);
  assert.equal(answer.result.route, "debugger");
});

test("a whole page in a person's Chrome goes through the debugger only while its switch is on", async () => {
  const { capture, log } = browser({ switchOn: true });
  const answer = await capture.browser_take_screenshot({ full_page: true, format: "png" });
  assert.equal(answer.result.route, "debugger");
  assert.equal(answer.result.captured, "the full page");
  assert.deepEqual(log, [["Page.captureScreenshot", 1, "png"]]);
});

// ---- The zoom: a clip of the viewport and a scale, and the caps at MAX_IMAGE_PX.

test("a clip inside the viewport is its own region; one past an edge is cut to it; one outside is refused", () => {
  assert.deepEqual(viewClip({ x: 10, y: 20, width: 30, height: 40 }, 800, 600), {
    region: { x: 10, y: 20, width: 30, height: 40 },
    cut: false,
  });
  assert.deepEqual(viewClip({ x: 780, y: -10, width: 50, height: 40 }, 800, 600), {
    region: { x: 780, y: 0, width: 20, height: 30 },
    cut: true,
  });
  for (const clip of [
    { x: 800, y: 0, width: 10, height: 10 },
    { x: 0, y: -20, width: 10, height: 20 },
    { x: -50, y: 10, width: 40, height: 10 },
  ]) {
    assert.throws(
      () => viewClip(clip, 800, 600),
      (err) => err.code === "clip_outside_viewport" && err.data.width === 800 && err.data.height === 600,
    );
  }
});

test("the output scale is the zoom, brought down to max_size and always to the texture limit", () => {
  assert.equal(outputScale(100, 50, 4, 0), 4);
  assert.equal(outputScale(400, 100, 4, 800), 2);
  assert.equal(outputScale(400, 100, 1, 1568), 1);
  assert.equal(outputScale(120, 20_000, 1, 0), MAX_IMAGE_PX / 20_000);
  assert.equal(outputScale(5000, 100, 8, 0), MAX_IMAGE_PX / 5000);
});

// The browser() above, with the page's measures and a canvas a node process can stand in for.
function zoomBrowser({ managed = true, page = {}, rect = null } = {}) {
  const measures = { vw: 800, vh: 600, dpr: 1, sx: 0, sy: 300, width: 800, height: 600, ...page };
  const log = [];
  const tab = { id: 1, windowId: 9, url: "http://127.0.0.1/a", title: "A", active: true };
  const chrome = {
    tabs: {
      get: async () => tab,
      captureVisibleTab: async () => `data:image/png;base64,${PNG_2x1}`,
    },
    scripting: {
      executeScript: async ({ args: [job] }) => [
        { result: job.op === "element" ? { ...measures, rect, what: 'button "long"' } : measures },
      ],
    },
  };
  const debug = {
    reload: async () => {},
    isManaged: () => managed,
    allowed: () => managed,
    send: async (tabId, method, params) => {
      log.push(params);
      return { data: PNG_2x1 };
    },
  };
  const images = {
    Blob: class {},
    createImageBitmap: async (source, x, y, width, height) => {
      log.push(["bitmap", x, y, width, height]);
      return { width: width ?? 1600, height: height ?? 1200, close() {} };
    },
    OffscreenCanvas: class {
      constructor(width, height) {
        Object.assign(this, { width, height });
        log.push(["canvas", width, height]);
      }
      getContext() {
        return { drawImage: () => {} };
      }
      async convertToBlob() {
        return { arrayBuffer: async () => new ArrayBuffer(8) };
      }
    },
  };
  const { handlers } = createCaptureTools({
    chrome,
    tabs: { resolve: async () => tab },
    debug,
    timers: { setTimeout: (fn) => setTimeout(fn, 0) },
    withTimeout: (promise) => promise,
    images,
  });
  return { shoot: handlers.browser_take_screenshot, log };
}

test("the debugger's route draws a clip at the zoom, where the page is scrolled to", async () => {
  const { shoot, log } = zoomBrowser();
  const answer = await shoot({ clip: { x: 10, y: 20, width: 30, height: 40 }, scale: 2 });
  assert.deepEqual(log, [{ format: "jpeg", quality: 50, clip: { x: 10, y: 320, width: 30, height: 40, scale: 2 } }]);
  assert.equal(answer.result.captured, "the viewport region x=10 y=20 30x40");
  assert.deepEqual(answer.result.clip, { x: 10, y: 20, width: 30, height: 40 });
  assert.equal(answer.result.scale, 2);
});

test("captureVisibleTab's route cuts the clip out of the image at the device-pixel ratio, then enlarges it", async () => {
  const { shoot, log } = zoomBrowser({ managed: false, page: { dpr: 2 } });
  const answer = await shoot({ clip: { x: 10, y: 20, width: 30, height: 40 }, scale: 3, format: "png" });
  assert.deepEqual(log.slice(1), [["canvas", 180, 240], ["bitmap", 20, 40, 60, 80]]);
  assert.equal(answer.result.route, "capture_visible_tab");
  assert.deepEqual([answer.result.width, answer.result.height, answer.result.scale], [180, 240, 3]);
  assert.equal(answer.result.note, undefined);
});

test("an element taller than the cap at full size is captured to the cap, with a note, not as a canvas past it", async () => {
  const rect = { x: 0, y: 0, width: 120, height: 20_000 };
  const { shoot, log } = zoomBrowser({ page: { sy: 0 }, rect });
  const answer = await shoot({ ref: "e1", max_size: 0, format: "png" });
  const parts = log.filter((entry) => entry.clip).map((entry) => entry.clip);
  assert.equal(parts.at(-1).y + parts.at(-1).height, MAX_IMAGE_PX);
  assert.deepEqual(log.find((entry) => entry[0] === "canvas"), ["canvas", 120, MAX_IMAGE_PX]);
  assert.equal(answer.result.captured, 'element e1 (button "long"), the top 16384 px');
  assert.match(answer.result.note, /^The element is 20000 px tall; only its top 16384 px were captured\./);
});

test("a page wider than the cap says it was cut in width; one past both sides names both", async () => {
  const wide = await zoomBrowser({ page: { width: 20_000, height: 300 } }).shoot({ full_page: true });
  assert.equal(wide.result.captured, "the left 16384 px of the page");
  assert.match(wide.result.note, /^The page is 20000 px wide; only its left 16384 px were captured\./);
  const both = await zoomBrowser({ page: { width: 20_000, height: 30_000 } }).shoot({ full_page: true });
  assert.equal(both.result.captured, "the top-left 16384x16384 px of the page");
  assert.match(both.result.note, /^The page is 20000x30000 px; only its top-left 16384x16384 px were captured\./);
});
