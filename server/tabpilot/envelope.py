"""The one place the JSON envelope of every HTTP answer is built.

success: ``{"success": true, "request_id", "result", "result_type", "tab", "duration_ms"}``
failure: ``{"success": false, "request_id", "error": {"code", "message", "stack"?}}``

The MCP tools carry the same envelope as their structured content, and :func:`result_text` is
the one way a result is written out as text, for the CLI and for a model.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from tabpilot.errors import InternalError, TabpilotError
from tabpilot.protocol import DialogRecord, ResultFrame, TabInfo
from tabpilot.unicode import utf8

log = logging.getLogger(__name__)

REQUEST_ID_HEADER = "X-Request-ID"


ROUTE_DESCRIPTION = (
    "Scripts only: how the script ran: `page` (the page's own world, the fast path), "
    "`trusted_types` (the same, through a Trusted Types policy), `user_scripts` "
    "(chrome.userScripts, which shares the page's DOM but not its globals) or `debugger` "
    "(chrome.debugger)."
)
DIALOGS_DESCRIPTION = (
    "Scripts only: the alerts, confirms and prompts answered while the script ran (or left "
    "open before it): type, message, action (`accepted`/`dismissed`) and, for a prompt, the "
    "text answered."
)


class SuccessEnvelope(BaseModel):
    """What a successful call answers. Every key is always present, but for ``route`` and
    ``dialogs``, which only a script's answer carries."""

    success: Literal[True] = True
    request_id: str
    result: Any = Field(description="The JSON-safe value the script returned.")
    result_type: str | None = Field(description="JavaScript type of the result; null if none.")
    tab: TabInfo | None = Field(description="The tab the script ran in; null if none.")
    duration_ms: float = Field(description="Time spent in the daemon, in milliseconds.")
    route: str | None = Field(default=None, description=ROUTE_DESCRIPTION)
    dialogs: list[DialogRecord] | None = Field(default=None, description=DIALOGS_DESCRIPTION)
    downloads: list[dict[str, Any]] | None = Field(
        default=None,
        description="Scripts only, when the script started downloads: each one's name, origin, "
        "state, size and path (docs/files.md).",
    )
    opened: list[dict[str, Any]] | None = Field(
        default=None,
        description="Scripts only, when the script opened tabs: each one's id, url and title.",
    )


class ErrorBody(BaseModel):
    """The ``error`` of a failure envelope; ``stack`` only when the script had one, ``route`` and
    ``dialogs`` only when a script ran."""

    code: str
    message: str
    stack: str | None = None
    data: Any = None
    route: str | None = None
    dialogs: list[DialogRecord] | None = None


class FailureEnvelope(BaseModel):
    """What a failed call answers, whatever the HTTP status."""

    success: Literal[False] = False
    request_id: str
    error: ErrorBody


def result_text(result: Any, result_type: str | None, *, indent: int | None = None) -> str:
    """A result as a person or a model reads it: `42`, `hello world`, JSON, `undefined`."""
    if result_type == "undefined":
        return "undefined"
    if isinstance(result, str):
        return result
    return json.dumps(result, indent=indent, ensure_ascii=False)


def success_body(
    request_id: str,
    result: Any,
    *,
    result_type: str | None = None,
    tab: TabInfo | dict[str, Any] | None = None,
    duration_ms: float = 0.0,
    route: str | None = None,
    dialogs: list[dict[str, Any]] | None = None,
    downloads: list[dict[str, Any]] | None = None,
    opened: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The success envelope as a plain dict; ``route`` and ``dialogs`` only for a script, and
    ``downloads`` only for a script that started some."""
    body: dict[str, Any] = {
        "success": True,
        "request_id": request_id,
        "result": result,
        "result_type": result_type,
        "tab": tab.model_dump() if isinstance(tab, TabInfo) else tab,
        "duration_ms": round(duration_ms, 3),
    }
    if route is not None:  # a script's answer: how it ran, and the dialogs answered meanwhile
        body["route"] = route
        body["dialogs"] = dialogs or []
    if downloads:
        body["downloads"] = downloads
    if opened:
        body["opened"] = opened
    return body


def dialog_dicts(dialogs: list[DialogRecord] | None) -> list[dict[str, Any]] | None:
    """The dialogs of a result frame as plain dicts, without the fields that are not set."""
    return [d.model_dump(exclude_none=True) for d in dialogs] if dialogs else None


def answer_body(request_id: str, answer: ResultFrame, started: float) -> dict[str, Any]:
    """The success envelope of the extension's ``answer`` to a call begun at ``started``."""
    body = success_body(
        request_id,
        answer.result,
        result_type=answer.result_type,
        tab=answer.tab,
        duration_ms=(time.perf_counter() - started) * 1000,
        route=answer.route,
        dialogs=dialog_dicts(answer.dialogs),
        downloads=answer.downloads,
        opened=answer.opened,
    )
    # A preview of the large-output guard (tabpilot.guard) adds its fields.
    body.update(getattr(answer, "guard", None) or {})
    return body


def failure_body(request_id: str, error: TabpilotError) -> dict[str, Any]:
    """The failure envelope of ``error`` as a plain dict."""
    detail: dict[str, Any] = {"code": error.code, "message": error.message}
    more = {"stack": error.stack, "data": error.data, "route": error.route}
    detail |= {name: value for name, value in more.items() if value is not None}
    if error.dialogs:
        detail["dialogs"] = error.dialogs
    return {"success": False, "request_id": request_id, "error": detail}


async def envelope_of(
    request_id: str, call: Callable[[str], Awaitable[ResultFrame]], where: str
) -> dict[str, Any]:
    """The envelope of a bridge ``call`` made under ``request_id``: never raises.

    For the ways in that answer an envelope rather than an HTTP response (the MCP tools and the
    callers' socket); an unexpected exception is logged with ``where`` and answers internal_error.
    """
    started = time.perf_counter()
    try:
        answer = await call(request_id)
    except TabpilotError as error:
        return failure_body(request_id, error)
    except Exception:
        log.exception("internal error in %s", where)
        return failure_body(request_id, InternalError())
    return answer_body(request_id, answer, started)


def dumps(body: Any) -> bytes:
    """Compact UTF-8 JSON. Results can be large, so this skips FastAPI's jsonable_encoder.

    Always valid UTF-8: a lone surrogate becomes U+FFFD (tabpilot.unicode).
    """
    return utf8(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
