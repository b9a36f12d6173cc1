// browser_take_screenshot's params, checked as the daemon's model checks them
// (server/tabpilot/tools/screenshot.py), and the arithmetic of a zoom: which part of the viewport a
// clip shows, how far its image may be enlarged, and what the answer says of a capture cut to the
// texture limit. Apart from capture.js so that node --test can check them.
import { CommandError } from "../link/errors.js";
import { fitScale } from "./capture-image.js";

// The long side of the image by default, as the daemon's model says (tools/screenshot.py MAX_SIZE;
// tests/test_extension_constants.py compares them).
export const MAX_SIZE = 1568;
// JPEG quality when none is asked for. At 50 text stays legible to a model, and the image stays
// smaller than PNG even on a flat, text-only page, where JPEG at 80 is not: the bench's product
// page at 1280x720 is 61 KB at 50, 67 KB as PNG, 88 KB at 80. Photos and charts shrink further.
export const JPEG_QUALITY = 50;
// The zoom a `scale` may ask for (tools/screenshot.py MAX_ZOOM). Past a few times the device's
// pixels an enlargement of captureVisibleTab's image shows no more detail, only bigger pixels.
export const MAX_ZOOM = 8;
// Chrome's limit on a texture, and so on a canvas or a capture: 16,384 pixels a side. Past it a
// capture comes back blank or fails, and an OffscreenCanvas cannot be encoded.
export const MAX_IMAGE_PX = 16_384;
const DEFAULT_TIMEOUT_MS = 30_000;
const MIME = { jpeg: "image/jpeg", png: "image/png" };

function invalid(message) {
  return new CommandError("invalid_request", message);
}

function clipOf(clip) {
  if (clip === undefined || clip === null) return null;
  const sides = ["x", "y", "width", "height"];
  if (typeof clip !== "object" || Array.isArray(clip) || !sides.every((k) => Number.isFinite(clip[k])))
    throw invalid(`clip must be {x, y, width, height} in CSS pixels of the viewport; got ${JSON.stringify(clip)}.`);
  if (clip.width <= 0 || clip.height <= 0)
    throw invalid(`clip's width and height must be more than 0; got ${clip.width}x${clip.height}.`);
  return { x: clip.x, y: clip.y, width: clip.width, height: clip.height };
}

export function screenshotParams(params) {
  const format = params.format ?? "jpeg";
  if (!Object.hasOwn(MIME, format)) throw invalid(`format must be "jpeg" or "png"; got ${JSON.stringify(format)}.`);
  const quality = params.quality ?? null;
  if (quality !== null && (!Number.isInteger(quality) || quality < 1 || quality > 100))
    throw invalid(`quality must be an integer from 1 to 100; got ${JSON.stringify(quality)}.`);
  if (quality !== null && format === "png") throw invalid("quality is for jpeg; png is lossless.");
  const maxSize = params.max_size ?? MAX_SIZE;
  if (!Number.isInteger(maxSize) || maxSize < 0)
    throw invalid(`max_size must be a whole number of pixels, 0 for no scaling; got ${JSON.stringify(maxSize)}.`);
  const ref = params.ref ?? null;
  if (ref !== null && (typeof ref !== "string" || ref === ""))
    throw invalid(`ref must be a ref from browser_snapshot such as "e12"; got ${JSON.stringify(ref)}.`);
  const fullPage = params.full_page === true;
  if (fullPage && ref !== null) throw invalid("full_page and ref do not go together; send one of them.");
  const clip = clipOf(params.clip);
  if (clip && (ref !== null || fullPage))
    throw invalid(
      `clip is a region of the viewport and does not go with ${ref !== null ? "ref" : "full_page"}; ` +
        "send one of them (to zoom on an element, send ref and scale).",
    );
  const zoom = params.scale ?? 1;
  if (!Number.isFinite(zoom) || zoom < 1 || zoom > MAX_ZOOM)
    throw invalid(`scale must be a number from 1 to ${MAX_ZOOM}; got ${JSON.stringify(zoom)}.`);
  const timeoutMs =
    Number.isInteger(params.timeout_ms) && params.timeout_ms > 0 ? params.timeout_ms : DEFAULT_TIMEOUT_MS;
  return {
    format,
    mime: MIME[format],
    quality: format === "jpeg" ? (quality ?? JPEG_QUALITY) : null,
    maxSize,
    ref,
    fullPage,
    clip,
    zoom,
    timeoutMs,
  };
}

// The part of `clip` (CSS pixels of the viewport) inside a viewport of vw x vh: the region the
// image shows, and `cut` when that is less than the clip. Throws clip_outside_viewport when none
// of it is inside.
export function viewClip(clip, vw, vh, tab = null) {
  const x = Math.max(0, clip.x);
  const y = Math.max(0, clip.y);
  const right = Math.min(vw, clip.x + clip.width);
  const bottom = Math.min(vh, clip.y + clip.height);
  if (right <= x || bottom <= y) {
    throw new CommandError(
      "clip_outside_viewport",
      `The clip {x: ${clip.x}, y: ${clip.y}, width: ${clip.width}, height: ${clip.height}} is outside the ` +
        `viewport (${vw}x${vh} CSS px). Take a screenshot without clip and pick a region of it at ` +
        "scale 1, or scroll the region into view first.",
      { tab, data: { width: vw, height: vh } },
    );
  }
  const region = { x, y, width: right - x, height: bottom - y };
  const cut =
    region.x !== clip.x || region.y !== clip.y || region.width !== clip.width || region.height !== clip.height;
  return { region, cut };
}

// The image's pixels per device pixel for a region of width x height device pixels: the zoom
// asked for, brought down so that the long side fits maxSize (0: no limit) and, always, the
// texture limit.
export function outputScale(width, height, zoom, maxSize) {
  const long = Math.max(width, height);
  const scale = zoom * fitScale(width * zoom, height * zoom, maxSize);
  return long * scale > MAX_IMAGE_PX ? MAX_IMAGE_PX / long : scale;
}

// What the answer says it shows: "the viewport", "the viewport region x=10 y=20 300x150".
export function regionName(region) {
  const n = (v) => Math.round(v * 100) / 100;
  return `the viewport region x=${n(region.x)} y=${n(region.y)} ${n(region.width)}x${n(region.height)}`;
}

// What a capture cut to MAX_IMAGE_PX a side covers: "top 16384 px", "left 16384 px",
// "top-left 16384x16384 px".
export function cappedPart(width, height) {
  const wide = width > MAX_IMAGE_PX;
  const tall = height > MAX_IMAGE_PX;
  if (wide && tall) return `top-left ${MAX_IMAGE_PX}x${MAX_IMAGE_PX} px`;
  return `${wide ? "left" : "top"} ${MAX_IMAGE_PX} px`;
}

// The note of a capture cut to MAX_IMAGE_PX a side, naming each side that was cut.
export function capped(what, width, height) {
  const wide = width > MAX_IMAGE_PX;
  const tall = height > MAX_IMAGE_PX;
  const w = Math.round(width);
  const h = Math.round(height);
  const size = wide && tall ? `${w}x${h} px` : wide ? `${w} px wide` : `${h} px tall`;
  return (
    `The ${what} is ${size}; only its ${cappedPart(width, height)} were captured. ` +
    "Scroll (browser_act) and take viewport screenshots, with clip, for the rest."
  );
}

// The note of a clip that reached past the viewport.
export function clipCut(m) {
  return `The clip reached past the viewport (${m.vw}x${m.vh} CSS px): only its part inside was captured.`;
}
