"""The members of ``browser_toolset_20260801`` that look: ``screenshot`` at scale 1 (one image
pixel per CSS pixel, so a point read off it is the point the hands act at) and ``zoom``."""

from __future__ import annotations

from typing import Any

from anthropic.tools import BetaScreenshotResult

from tabpilot.claude.errors import refuse
from tabpilot.claude.state import Session, Steps

#: zoom enlarges its region to about this many pixels on its long side, at scale 1 to 8.
ZOOM_LONG_SIDE = 1024
#: Screenshot JPEG quality: legible small text at a fraction of PNG's bytes.
JPEG_QUALITY = 75


def viewport(s: Session, tab: int) -> Steps[int | None]:
    """The viewport's long side in CSS pixels, None if the page would not say."""
    envelope = yield from s.attempt(
        "execute_javascript", {"script": "Math.max(innerWidth, innerHeight)", "tab_id": tab}
    )
    value = envelope.get("result") if envelope.get("success") else None
    return int(value) if isinstance(value, int | float) and value > 0 else None


def image(result: dict[str, Any]) -> BetaScreenshotResult:
    data = str(result.get("data") or "")
    if result.get("mime_type") == "image/png":
        return BetaScreenshotResult(data=data, media_type="image/png")
    return BetaScreenshotResult(data=data, media_type="image/jpeg")


def screenshot(s: Session, input: Any) -> Steps[BetaScreenshotResult]:
    tab = yield from s.tab(input.tab_id)
    # At scale 1 an image pixel is a CSS pixel: capping the long side at the viewport's undoes a
    # device pixel ratio above 1, so that coordinates read off the image are the viewport's.
    long_side = yield from viewport(s, tab)
    result = yield from s.call(
        "browser_take_screenshot",
        {"format": "jpeg", "quality": JPEG_QUALITY, "max_size": long_side or 0, "tab_id": tab},
    )
    return image(result)


def zoom(s: Session, input: Any) -> Steps[BetaScreenshotResult]:
    tab = yield from s.tab(input.tab_id)
    region = list(input.region)
    if len(region) != 4 or region[2] <= region[0] or region[3] <= region[1]:
        raise refuse("region is [x0, y0, x1, y1] in viewport pixels, with x1 > x0 and y1 > y0.")
    x0, y0, x1, y1 = region
    width, height = x1 - x0, y1 - y0
    scale = max(1.0, min(8.0, ZOOM_LONG_SIDE / max(width, height)))
    result = yield from s.call(
        "browser_take_screenshot",
        {
            "clip": {"x": x0, "y": y0, "width": width, "height": height},
            "scale": round(scale, 3),
            "format": "jpeg",
            "quality": JPEG_QUALITY,
            "tab_id": tab,
        },
    )
    return image(result)
