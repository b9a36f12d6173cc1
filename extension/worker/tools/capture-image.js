// The arithmetic and the codecs of browser_take_screenshot (capture.js), apart so that node --test
// can check them: how far to scale, which device pixels an element covers, an image's size from its
// header, base64, and the queue that keeps chrome.tabs.captureVisibleTab under its quota.

// Chrome refuses a third captureVisibleTab within a second
// (chrome.tabs.MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND, a bucket of two refilled each second).
export const CAPTURES_PER_WINDOW = 2;
export const CAPTURE_WINDOW_MS = 1000;
// A little past the second, so that the bucket has surely been refilled.
const CAPTURE_MARGIN_MS = 25;
const QUOTA_ERROR = /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND|quota/i;

// The factor that brings the long side of a w x h image to at most maxSize (0: no scaling).
export function fitScale(width, height, maxSize) {
  const long = Math.max(width, height);
  if (!maxSize || long <= maxSize) return 1;
  return maxSize / long;
}

// The device pixels of an image of the viewport that show `rect` (CSS pixels of the viewport):
// clamped to the image, rounded outward so that no edge of the element is lost. `ratio` is the
// image's pixels per CSS pixel (the device-pixel ratio). Null when nothing of it is in view.
export function cropRect(rect, ratio, imageWidth, imageHeight) {
  const left = Math.max(0, Math.floor(rect.x * ratio));
  const top = Math.max(0, Math.floor(rect.y * ratio));
  const right = Math.min(imageWidth, Math.ceil((rect.x + rect.width) * ratio));
  const bottom = Math.min(imageHeight, Math.ceil((rect.y + rect.height) * ratio));
  if (right <= left || bottom <= top) return null;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

// The scroll offsets of a stitched full-page capture: one viewport each, the last one ending at the
// bottom of what is captured (`total`, CSS pixels).
export function stitchOffsets(total, viewportHeight) {
  const offsets = [];
  for (let y = 0; y < total; y += viewportHeight) offsets.push(y);
  return offsets.length ? offsets : [0];
}

// An image's width and height from its PNG or JPEG header; null for anything else.
export function imageSize(bytes) {
  if (bytes.length >= 24 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    const u32 = (i) => ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0;
    return { width: u32(16), height: u32(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return null;
      const marker = bytes[i + 1];
      if (marker === 0xff) {
        i += 1; // fill byte
        continue;
      }
      // A start of frame (SOF0-SOF15, but DHT C4, JPG C8 and DAC CC) holds the size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: (bytes[i + 5] << 8) | bytes[i + 6], width: (bytes[i + 7] << 8) | bytes[i + 8] };
      }
      i += 2 + ((bytes[i + 2] << 8) | bytes[i + 3]);
    }
  }
  return null;
}

export function base64ToBytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64(bytes) {
  let binary = "";
  const CHUNK = 0x8000; // String.fromCharCode takes so many arguments at most
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

// How many bytes base64 `text` holds.
export function base64Bytes(text) {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

// The size of a base64 image: its header is in its first bytes.
export function base64ImageSize(text) {
  return imageSize(base64ToBytes(text.slice(0, 65536 - (65536 % 4))));
}

// Runs captures one at a time, at most CAPTURES_PER_WINDOW starting in any CAPTURE_WINDOW_MS: a
// caller waits its turn rather than being refused. A capture refused for the quota all the same
// (another copy of the worker, say) is tried again after a window.
export function createCaptureQueue({
  now,
  sleep,
  perWindow = CAPTURES_PER_WINDOW,
  windowMs = CAPTURE_WINDOW_MS,
  retries = 2,
}) {
  const started = []; // start times of the latest captures, oldest first
  let tail = Promise.resolve();

  async function slot() {
    while (started.length >= perWindow) {
      const wait = started[0] + windowMs + CAPTURE_MARGIN_MS - now();
      if (wait > 0) await sleep(wait);
      started.shift();
    }
    started.push(now());
  }

  async function attempt(capture) {
    for (let tries = 0; ; tries += 1) {
      await slot();
      try {
        return await capture();
      } catch (err) {
        if (tries >= retries || !QUOTA_ERROR.test(String(err?.message ?? err))) throw err;
        await sleep(windowMs);
      }
    }
  }

  // Resolves with capture()'s answer once it has had its turn.
  function run(capture) {
    const turn = tail.then(() => attempt(capture));
    tail = turn.catch(() => {});
    return turn;
  }

  return { run, pending: () => started.length };
}
