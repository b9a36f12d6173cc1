"""The large-output guard: a model sees a preview of a bulky answer, and gets the rest on asking.

Every MCP tool answer is guarded; HTTP, ``/ws/calls`` and the clients answer whole results unless
their body asks with ``"guard": true`` (the tool's default limit) or ``"guard": <characters>``.
Past the limit (:data:`LIMITS`, in characters of the answer's text as a model reads it), the answer
carries a preview instead of the result (:mod:`tabpilot.guard.preview`), and the fields
``truncated``, ``total_length``, ``shown_length``, ``confirm_token`` and ``advice``. The daemon
keeps the whole answer under the token (:mod:`tabpilot.guard.store`); the same tool called with
``confirm_token`` alone, by the same caller, answers it.

This module is what the faces share: how a body asks (:func:`split`; an MCP call:
:mod:`tabpilot.mcp.confirm`) and the guard's line in a model's text (:func:`text`). A call runs as
asked in :func:`tabpilot.browsers.run.run`; each tool's limit, advice and the fields cut first are
its :class:`~tabpilot.tools.tool.GuardRule`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tabpilot.errors import InvalidRequest
from tabpilot.guard.store import PART
from tabpilot.tools import TOOLS

if TYPE_CHECKING:
    from tabpilot.tools.fields import Params
    from tabpilot.tools.tool import Tool

#: Characters of an answer's text a model sees at most, by tool (each tool's ``guard.limit``); the
#: others: DEFAULT_LIMIT.
LIMITS: dict[str, int] = {
    name: tool.guard.limit for name, tool in TOOLS.items() if tool.guard.limit is not None
}
DEFAULT_LIMIT = 4_000
#: The fields a cut answer carries beside its preview.
FIELDS = ("truncated", "total_length", "shown_length", "confirm_token", "advice")
#: The body fields the guard reads; "guard" bounds: a caller's own limit in characters.
KEYS = frozenset({"guard", "confirm_token"})
MIN_GUARD, MAX_GUARD = 200, 1_000_000


@dataclass(frozen=True)
class Ask:
    """What a caller asked of the guard: a limit (None: the whole), or a kept answer's token."""

    limit: int | None = None
    token: str | None = None

    def fields(self) -> dict[str, Any]:
        """The body fields that ask the same, for a call forwarded to the daemon."""
        if self.token is not None:
            return {"confirm_token": self.token}
        return {} if self.limit is None else {"guard": self.limit}


WHOLE = Ask()
ALONE = '`confirm_token` comes alone: send only {"confirm_token": "..."} to get the rest.'


def ask_of(guard: Any = None, token: Any = None, *, name: str = "") -> Ask:
    """The Ask of a body's ``guard`` and ``confirm_token``; raises InvalidRequest."""
    if token is not None:
        if not isinstance(token, str) or not token:
            raise InvalidRequest("Invalid body: `confirm_token` must be the string an answer gave.")
        return Ask(token=token)
    if guard is None or guard is False:
        return WHOLE
    if guard is True:
        return Ask(limit=LIMITS.get(name, DEFAULT_LIMIT))
    if isinstance(guard, int) and MIN_GUARD <= guard <= MAX_GUARD:
        return Ask(limit=guard)
    raise InvalidRequest(
        f"Invalid body: `guard` must be true or a number of characters ({MIN_GUARD} to "
        f'{MAX_GUARD}); send e.g. "guard": true.'
    )


def split(tool: Tool, data: bytes | str | dict[str, Any]) -> tuple[Ask, Params | None]:
    """A body's Ask and its params (None: a confirm_token, which comes alone)."""
    body: Any = data
    if not isinstance(data, dict):
        raw = data.encode() if isinstance(data, str) else data
        if b'"guard"' not in raw and b'"confirm_token"' not in raw:
            return WHOLE, tool.params.parse(data)  # the common case: no second parse
        try:
            body = json.loads(raw)
        except ValueError:
            return WHOLE, tool.params.parse(data)
    if not isinstance(body, dict) or not KEYS & body.keys():
        return WHOLE, tool.params.parse(data)
    ask = ask_of(body.get("guard"), body.get("confirm_token"), name=tool.name)
    rest = {key: value for key, value in body.items() if key not in KEYS}
    if ask.token is not None:
        if rest or "guard" in body:
            raise InvalidRequest(ALONE)
        return ask, None
    return ask, tool.params.parse(rest)


def text(envelope: dict[str, Any], write: Callable[[dict[str, Any]], str]) -> str:
    """A success envelope's text for a model: a part as is, else ``write``; then the guard's
    line."""
    body = envelope["result"] if envelope.get("result_type") == PART else write(envelope)
    if not envelope.get("truncated"):
        return body
    shown, total = envelope.get("shown_length"), envelope.get("total_length")
    token = envelope.get("confirm_token")
    rest = f' The rest: the same tool with only confirm_token="{token}".' if token else ""
    return f"{body}\n[Shown {shown:,} of {total:,} characters.{rest} {envelope.get('advice')}]"


__all__ = [
    "DEFAULT_LIMIT",
    "FIELDS",
    "LIMITS",
    "WHOLE",
    "Ask",
    "ask_of",
    "split",
    "text",
]
