"""browser_take_screenshot: its params, its text, and what its faces do with an image.

The extension answers ``{mime_type, width, height, data, scale, captured, route, bytes, note?}``
with ``data`` the image in base64 (extension/worker/tools/capture.js). Each face hands that on its
own way: MCP as an image content block beside one line of text (:func:`image_content`), HTTP as
the JSON envelope or, asked with ``Accept: image/png`` or ``image/jpeg``, the raw bytes
(:func:`negotiate`, :func:`raw_response`), the CLI as a file (:func:`save_image`), the Python
client as bytes (:func:`image_bytes`).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tabpilot.errors import InvalidRequest
from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, Ref, TimeoutMs
from tabpilot.tools.tool import ClientFace, CliFace, HttpFace, McpFace, Tool, describe, timeout_ms

#: The long side of the image, by default: what Claude's vision reads without downscaling.
MAX_SIZE = 1568
#: The most a `scale` may enlarge (extension/worker/tools/capture-params.js MAX_ZOOM).
MAX_ZOOM = 8

MIME_TYPES = {"jpeg": "image/jpeg", "png": "image/png"}


class Clip(BaseModel):
    """A region of the viewport, in CSS pixels: what a viewport screenshot at scale 1 shows."""

    model_config = ConfigDict(extra="forbid")

    #: How the CLI's --clip shows and explains it (:meth:`from_cli`).
    cli_metavar: ClassVar[str] = "X,Y,W,H"
    cli_help: ClassVar[str] = "A region of the viewport, CSS px: x,y,width,height (300,60,160,40)."

    x: float
    y: float
    width: float = Field(gt=0)
    height: float = Field(gt=0)

    @classmethod
    def from_cli(cls, text: str) -> dict[str, Any]:
        """``300,60,160,40``: a clip as the CLI's --clip writes it (or its JSON object)."""
        if text.lstrip().startswith("{"):
            value = json.loads(text)
            if not isinstance(value, dict):
                raise ValueError(f"--clip takes X,Y,W,H, such as 300,60,160,40, not {text!r}")
            return value
        parts = text.split(",")
        try:
            x, y, width, height = (float(part) for part in parts)
        except ValueError:
            raise ValueError(f"--clip takes X,Y,W,H, such as 300,60,160,40, not {text!r}") from None
        return {"x": x, "y": y, "width": width, "height": height}


class ScreenshotParams(Params):
    """A picture of the tab: its viewport, one element, or the whole page."""

    example: ClassVar[str] = '{"full_page": true, "format": "png"}'

    ref: Ref | None = Field(default=None, description="This element.")
    full_page: bool = Field(default=False, description="The whole scrollable page.")
    clip: Clip | None = Field(default=None, description="Viewport CSS px.")
    scale: float = Field(default=1, ge=1, le=MAX_ZOOM, description="Zoom 1-8.")
    format: Literal["jpeg", "png"] = Field(default="jpeg", description="png: exact pixels.")
    quality: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="JPEG 1-100.",
    )
    max_size: int = Field(
        default=MAX_SIZE,
        ge=0,
        le=100_000,
        description="Long side max px; 0: none.",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(default=30_000, description="Give up after this many ms.")

    @model_validator(mode="after")
    def _consistent(self) -> ScreenshotParams:
        if self.full_page and self.ref is not None:
            raise ValueError("`full_page` and `ref` do not go together; send one of them")
        if self.clip is not None and (self.ref is not None or self.full_page):
            other = "ref" if self.ref is not None else "full_page"
            raise ValueError(
                f"`clip` is a region of the viewport and does not go with `{other}`; send one of "
                "them (to zoom on an element, send `ref` and `scale`)"
            )
        if self.format == "png" and self.quality is not None:
            raise ValueError("`quality` is for jpeg; png is lossless")
        return self


def screenshot_text(envelope: dict[str, Any], params: Any = None) -> str:
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


SCREENSHOT = Tool(
    name="browser_take_screenshot",
    params=ScreenshotParams,
    title="See the page as an image",
    description=describe(
        """
        An image of the viewport, an element (`ref`) or the whole page; browser_snapshot finds
        things cheaper. E.g. {} → Screenshot of the viewport: 1280x720 JPEG, 61 KB, scale 1
        """
    ),
    timeout_s=timeout_ms,
    text=screenshot_text,
    read_only=True,
    client=ClientFace(
        "screenshot",
        doc=(
            "The tab's viewport, one element (``ref``) or the whole page (``full_page``) as image "
            'bytes: JPEG by default, or ``format="png"``; at most ``max_size`` px on its long side '
            "(default 1568; 0: no scaling)."
        ),
    ),
    cli=CliFace("screenshot"),
    mcp=McpFace(image="data"),
    http=HttpFace(negotiate=negotiate),
)

TOOLS = (SCREENSHOT,)
