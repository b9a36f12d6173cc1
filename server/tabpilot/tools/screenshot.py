"""browser_take_screenshot: its params, its text, and what its faces do with an image.

The extension answers ``{mime_type, width, height, data, scale, captured, route, bytes, note?}``
with ``data`` the image in base64 (extension/background/capture.js). Each face hands that on its
own way: MCP as an image content block beside one line of text (:func:`image_content`), HTTP as
the JSON envelope or, asked with ``Accept: image/png`` or ``image/jpeg``, the raw bytes
(:func:`negotiate`, :func:`raw_response`), the CLI as a file (:func:`save_image`), the Python
client as bytes (:func:`image_bytes`).
"""

from __future__ import annotations

import base64
import binascii
import sys
import time
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator
from starlette.responses import Response

from tabpilot.errors import InvalidRequest
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import Params, TimeoutMs
from tabpilot.tools.page import TAB_ID_DESCRIPTION, Ref

#: The long side of the image, by default: what Claude's vision reads without downscaling.
MAX_SIZE = 1568
#: JPEG quality when none is asked for. At 50 text stays legible to a model, and the image stays
#: smaller than PNG even on a flat, text-only page, where JPEG at 80 is not: the bench's product
#: page at 1280x720 is 61 KB at 50, 67 KB as PNG, 88 KB at 80. Photos and charts shrink further.
JPEG_QUALITY = 50
#: How much of a tall page a full-page capture covers, in CSS pixels (extension/background/
#: capture.js holds the same number): past it the top part is captured and ``note`` says so.
MAX_FULL_PAGE_PX = 16_384

MIME_TYPES = {"jpeg": "image/jpeg", "png": "image/png"}
EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png"}


class ScreenshotParams(Params):
    """A picture of the tab: its viewport, one element, or the whole page."""

    example: ClassVar[str] = '{"full_page": true, "format": "png"}'

    ref: Ref | None = Field(default=None, description="Only this element.")
    full_page: bool = Field(default=False, description="The whole scrollable page.")
    format: Literal["jpeg", "png"] = Field(default="jpeg", description="png: exact pixels.")
    quality: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="JPEG, 1 to 100.",
    )
    max_size: int = Field(
        default=MAX_SIZE,
        ge=0,
        le=100_000,
        description="Long side max px; 0: full size.",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(default=30_000, description="Give up after this many ms.")

    @model_validator(mode="after")
    def _consistent(self) -> ScreenshotParams:
        if self.full_page and self.ref is not None:
            raise ValueError("`full_page` and `ref` do not go together; send one of them")
        if self.format == "png" and self.quality is not None:
            raise ValueError("`quality` is for jpeg; png is lossless")
        return self


def screenshot_text(envelope: dict[str, Any]) -> str:
    """One line: `Screenshot of the viewport: 1280x720 JPEG, 61 KB, scale 1 (debugger)`."""
    shot = envelope.get("result")
    shot = shot if isinstance(shot, dict) else {}
    kind = str(shot.get("mime_type", "")).removeprefix("image/").upper()
    size = int(shot.get("bytes") or 0)
    text = (
        f"Screenshot of {shot.get('captured')}: {shot.get('width')}x{shot.get('height')} {kind}, "
        f"{_kilobytes(size)}, scale {shot.get('scale')} ({shot.get('route')})"
    )
    if shot.get("note"):
        text += f". {shot['note']}"
    return text


def _kilobytes(size: int) -> str:
    return f"{size} bytes" if size < 1024 else f"{round(size / 1024)} KB"


def image_of(envelope: dict[str, Any]) -> tuple[str, str] | None:
    """The base64 data and mime type of a success envelope's image, or None."""
    result = envelope.get("result")
    if not envelope.get("success") or not isinstance(result, dict):
        return None
    data, mime = result.get("data"), result.get("mime_type")
    if isinstance(data, str) and isinstance(mime, str):
        return data, mime
    return None


def image_bytes(result: Any) -> bytes:
    """The image of a screenshot's result as bytes (the Python client's answer)."""
    data = result.get("data") if isinstance(result, dict) else None
    if not isinstance(data, str):
        raise InvalidRequest("The answer carries no image.")
    try:
        return base64.b64decode(data, validate=True)
    except binascii.Error as exc:
        raise InvalidRequest(f"The answer's image is not base64: {exc}.") from None


def negotiate(accept: str, params: ScreenshotParams) -> tuple[ScreenshotParams, str | None]:
    """The params an HTTP ``Accept`` header asks for, and the raw mime type to answer, if any.

    ``Accept: image/png`` or ``image/jpeg`` picks the format when the body names none; naming the
    other one in the body is a contradiction, refused. Any other Accept: the JSON envelope.
    """
    listed = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    wanted = [m for m in MIME_TYPES.values() if m in listed]
    if len(wanted) != 1:
        return params, None
    mime = wanted[0]
    fmt = "png" if mime == "image/png" else "jpeg"
    if "format" in params.model_fields_set and params.format != fmt:
        raise InvalidRequest(
            f"Accept: {mime} asks for {fmt} but the body's `format` is {params.format!r}; "
            f"drop one of them."
        )
    if "format" in params.model_fields_set:
        return params, mime
    if fmt == "png" and params.quality is not None:
        raise InvalidRequest("`quality` is for jpeg; Accept: image/png asks for png.")
    return params.model_copy(update={"format": fmt}), mime


def raw_response(answer: ResultFrame, request_id: str, header: str) -> Response:
    """The image of ``answer`` as the response body, its size and scale in headers."""
    result = answer.result if isinstance(answer.result, dict) else {}
    envelope = {"success": True, "result": result}
    found = image_of(envelope)
    if found is None:
        raise InvalidRequest("The extension's answer carries no image.")
    data = image_bytes(result)
    headers = {
        header: request_id,
        "X-Image-Width": str(result.get("width")),
        "X-Image-Height": str(result.get("height")),
        "X-Image-Scale": str(result.get("scale")),
        "X-Captured": str(result.get("captured")).encode("ascii", "replace").decode(),
    }
    return Response(data, media_type=found[1], headers=headers)


def save_image(envelope: dict[str, Any], output: str | None) -> str:
    """Write the envelope's image to ``output`` (a default name in the current directory when
    None, stdout for ``-``); the path written."""
    found = image_of(envelope)
    if found is None:
        raise InvalidRequest("The answer carries no image.")
    data = image_bytes(envelope["result"])
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return "-"
    if output is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        output = f"screenshot-{stamp}.{EXTENSIONS.get(found[1], 'img')}"
    Path(output).write_bytes(data)
    return output


OPENAPI_IMAGES = {
    "image/png": {"schema": {"type": "string", "format": "binary"}},
    "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
}
