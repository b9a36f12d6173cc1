"""The large-output guard: a model sees a preview of a bulky answer, and gets the rest on asking.

Every MCP tool answer is guarded; HTTP, ``/ws/calls`` and the clients answer whole results unless
their body asks with ``"guard": true`` (the tool's default limit) or ``"guard": <characters>``.
Past the limit (:data:`LIMITS`, in characters of the answer's text as a model reads it), the answer
carries a preview instead of the result, and the fields ``truncated``, ``total_length``,
``shown_length``, ``confirm_token`` and ``advice``. The preview of a script's value is a summary
(:func:`summary`); a page tool's long text or list is cut to what fits.

The daemon keeps the whole answer under the token (:class:`Store`: :data:`KEEP_S` seconds, at most
:data:`KEEP_BYTES` in all, oldest out first). The same tool called with ``confirm_token`` alone
answers it, without running anything again: whole up to :data:`PAGE_CHARS` characters of text,
else the next part of its text with a token for the one after.
"""

from __future__ import annotations

import inspect
import json
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, WithJsonSchema

from tabpilot.envelope import answer_body, result_text
from tabpilot.errors import InvalidRequest
from tabpilot.mcp_schema import TOKEN_SCHEMA
from tabpilot.page_errors import (
    ConfirmTokenExpired,
    ConfirmTokenMismatch,
    ConfirmTokenUnknown,
    ConfirmTokenUsed,
)
from tabpilot.protocol import ResultFrame

if TYPE_CHECKING:
    from tabpilot.bridge import Bridge
    from tabpilot.params import Params
    from tabpilot.tools import Tool

#: Characters of an answer's text a model sees at most, by tool; the others: DEFAULT_LIMIT.
LIMITS: dict[str, int] = {
    "execute_javascript": 2_000,
    "browser_snapshot": 24_000,
    "browser_read": 12_000,
    "browser_console_messages": 8_000,
    "browser_network_requests": 8_000,
    "browser_tabs": 8_000,
    "eval_call_function": 2_000,
}
DEFAULT_LIMIT = 4_000
#: The tools whose answers are long often enough to be cut: their MCP input schema names
#: ``confirm_token`` (every tool takes it: a model is told to send it when an answer was cut).
LONG = frozenset(LIMITS)
#: What one confirm_token answers at most: the whole, or a part of this many characters.
PAGE_CHARS = 50_000
#: How long the daemon keeps a cut answer, and how much it keeps in all: each kept answer counts
#: two bytes a character of its text (the text, and the value it was written from).
KEEP_S = 600.0
KEEP_BYTES = 32 * 1024 * 1024
#: The fields a cut answer carries beside its preview.
FIELDS = ("truncated", "total_length", "shown_length", "confirm_token", "advice")
#: The body fields the guard reads; "guard" bounds: a caller's own limit in characters.
KEYS = frozenset({"guard", "confirm_token"})
MIN_GUARD, MAX_GUARD = 200, 1_000_000
#: The result_type of a part of a whole answer's text (its result is that text).
PART = "text_part"

ADVICE: dict[str, str] = {
    "browser_snapshot": "Scope it: browser_snapshot with `ref` (one element's subtree) or "
    "`interactive_only`.",
    "browser_read": "Read less at once: browser_read with `ref` (one element) or a smaller "
    "`limit`.",
    "browser_console_messages": 'Narrow it: `level` "error", a smaller `limit`, or `since`.',
    "browser_network_requests": "Narrow it: `url`, `type` or `status`, or a smaller `limit`.",
    "browser_tabs": "Pass a tab's id as `tab_id` to the other tools.",
}
SCRIPT_ADVICE: dict[str, str] = {
    "string": "For page text use browser_read (with `ref` for one element); or return a slice.",
    "array": "Return fewer items (`.slice(0, 20)`) or only the fields you need "
    "(`.map(x => x.id)`).",
    "object": "Return only the keys you need (`({a: o.a, b: o.b})`).",
    "node": "For elements use browser_snapshot; or return the fields you need.",
}
GENERIC_ADVICE = "Ask for less: narrow the script or use a specialized tool."


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


def mcp_ask(tool: Tool, arguments: dict[str, Any]) -> Ask:
    """An MCP call's Ask: always guarded; pops ``confirm_token``, which must come alone."""
    token = arguments.pop("confirm_token", None)
    if token is None:
        return Ask(limit=LIMITS.get(tool.name, DEFAULT_LIMIT))
    if given(arguments, tool.params):
        raise InvalidRequest(ALONE)
    return ask_of(token=token)


#: The MCP tools' own parameter: the token of a cut answer (its schema kept to a few words).
MCP_PARAMETER = inspect.Parameter(
    "confirm_token",
    inspect.Parameter.KEYWORD_ONLY,
    annotation=Annotated[str | None, WithJsonSchema(TOKEN_SCHEMA)],
    default=None,
)


def given(arguments: dict[str, Any], model: type[Params]) -> dict[str, Any]:
    """The arguments an MCP client sent: the SDK hands the defaults of the others too."""
    fields = model.model_fields

    def default(name: str) -> Any:
        return None if fields[name].is_required() else fields[name].default

    return {
        name: value
        for name, value in arguments.items()
        if name not in fields or value != default(name)
    }


async def run(
    tool: Tool, bridge: Bridge, params: Params | None, ask: Ask, request_id: str
) -> ResultFrame:
    """The tool's answer as ``ask`` wants it: whole, previewed, or taken from the store."""
    if ask.token is not None:
        return STORE.take(tool.name, ask.token, request_id)
    assert params is not None
    answer = await tool.run(bridge, params, request_id)
    if ask.limit is None or not answer.ok:
        return answer
    return preview(tool, answer, ask.limit)


class Guarded(ResultFrame):
    """A previewed answer: ``guard`` holds the fields the envelope adds."""

    guard: dict[str, Any] = Field(default_factory=dict)


def preview(tool: Tool, answer: ResultFrame, limit: int) -> ResultFrame:
    """``answer`` if its text fits in ``limit`` characters, else its preview, the whole kept."""
    envelope = answer_body(answer.id, answer, time.perf_counter())
    whole = tool.text(envelope)
    if len(whole) <= limit:
        return answer
    if tool.name == "execute_javascript":
        result: Any = summary(answer.result, answer.result_type)
        advice = SCRIPT_ADVICE.get(str(answer.result_type), GENERIC_ADVICE)
    else:
        result = answer.result
        advice = ADVICE.get(tool.name, GENERIC_ADVICE)
    result = _fit(lambda value: tool.text({**envelope, "result": value}), result, tool, limit)
    shown = tool.text({**envelope, "result": result})
    token = STORE.keep(tool.name, answer, whole)
    fields: dict[str, Any] = {
        "truncated": True,
        "total_length": len(whole),
        "shown_length": len(shown),
        "confirm_token": token,
        "advice": advice if token else f"Too large to keep. {advice}",
    }
    return guarded(answer, fields, result=result)


def _fit(text: Callable[[Any], str], value: Any, tool: Tool, limit: int) -> Any:
    """``value`` with its bulky part cut (a string's end, a list's tail) until ``text`` fits."""
    if len(text(value)) <= limit:
        return value
    if isinstance(value, (str, list)):
        return _shorten(text, value, limit)
    if isinstance(value, dict):
        for name in (*tool.in_text, *value.keys()):
            part = value.get(name)
            if isinstance(part, (str, list)) and len(part) > 0:
                more = {"more": True} if "more" in value else {}
                base = {**value, **more}
                value = {**base, name: _shorten(_with(text, base, name), part, limit)}
                if len(text(value)) <= limit:
                    return value
        return value
    return _shorten(text, result_text(value, None), limit)


def _with(text: Callable[[Any], str], base: dict[str, Any], name: str) -> Callable[[Any], str]:
    return lambda part: text({**base, name: part})


def _shorten(text: Callable[[Any], str], value: Any, limit: int) -> Any:
    """The longest head of ``value`` (a string or a list) whose text fits; a cut string ends
    in an ellipsis."""

    def cut(n: int) -> Any:
        if isinstance(value, str):
            return value if n >= len(value) else value[:n] + "…"
        return value[:n]

    low, high = 0, len(value)
    while low < high:  # the largest n with text(cut(n)) within the limit
        middle = (low + high + 1) // 2
        if len(text(cut(middle))) <= limit:
            low = middle
        else:
            high = middle - 1
    return cut(low)


# --- summaries of bulky values -----------------------------------------------------------------

#: Items an array's summary shows, keys an object's, characters a string item's.
SUMMARY_ITEMS = 3
BRIEF_KEYS = 6
BRIEF_CHARS = 60


def summary(value: Any, result_type: str | None = None) -> Any:
    """A bulky value in one line: ``Array(n) [first 3 items…]``, ``Object(n) {key, key…}``.

    A string (a page's text, a DOM node's line) stays a string, cut to fit by the caller."""
    if isinstance(value, list):
        items = ", ".join(brief(item) for item in value[:SUMMARY_ITEMS])
        more = ", …" if len(value) > SUMMARY_ITEMS else ""
        return f"Array({_length(value)}) [{items}{more}]"
    if isinstance(value, dict):
        return f"Object({len(value)}) {{{', '.join(value)}}}"
    return value


#: The serializer's last item of a list past 100 items: `... 312 more items`.
MORE_ITEMS = re.compile(r"\.\.\. (\d+) more items")


def _length(items: list[Any]) -> int:
    """A list's length in the page, counting the items the serializer left out."""
    last = items[-1] if items else None
    found = MORE_ITEMS.fullmatch(last) if isinstance(last, str) else None
    return len(items) - 1 + int(found[1]) if found else len(items)


def brief(value: Any) -> str:
    """An item of an array's summary: a short scalar as JSON, a container by its shape."""
    if isinstance(value, list):
        return f"Array({len(value)})"
    if isinstance(value, dict):
        keys = list(value)
        return "{" + ", ".join(keys[:BRIEF_KEYS]) + (", …" if len(keys) > BRIEF_KEYS else "") + "}"
    if isinstance(value, str):
        element = element_line(value)
        if element is not None:
            return element
        return json.dumps(
            value if len(value) <= BRIEF_CHARS else value[:BRIEF_CHARS] + "…", ensure_ascii=False
        )
    return json.dumps(value, ensure_ascii=False)


#: An element as the page's serializer writes it: `[BUTTON#buy.btn.primary @ (120,340) 88x32]`.
ELEMENT = re.compile(
    r"\[(?P<tag>[A-Za-z][\w:-]*)(?:#(?P<id>[^\s.@\]]+))?(?P<classes>(?:\.[^\s.@\]]+)*)"
    r"(?P<box> @ \(-?\d+,-?\d+\) \d+x\d+)?\]"
)


def element_line(value: str) -> str | None:
    """An element in one line, `<button id=#buy class=.btn.primary> @ (120,340) 88x32`, or None
    for any other string."""
    found = ELEMENT.fullmatch(value)
    if found is None:
        return None
    attributes = f" id=#{found['id']}" if found["id"] else ""
    attributes += f" class={found['classes']}" if found["classes"] else ""
    return f"<{found['tag'].lower()}{attributes}>{found['box'] or ''}"


# --- the store of whole answers ----------------------------------------------------------------


@dataclass
class Kept:
    """A whole answer kept under a token: its frame, its text, and where the next part starts."""

    tool: str
    answer: ResultFrame
    text: str
    start: int
    until: float

    @property
    def size(self) -> int:
        return 2 * len(self.text)


class Store:
    """Whole answers by one-time token, for :data:`KEEP_S` seconds and :data:`KEEP_BYTES` in all."""

    def __init__(self, keep_s: float = KEEP_S, keep_bytes: int = KEEP_BYTES) -> None:
        self.keep_s = keep_s
        self.keep_bytes = keep_bytes
        self._kept: OrderedDict[str, Kept] = OrderedDict()
        self._size = 0
        # Tokens that were good once, and why they are no more: "used" or "expired". Bounded.
        self._gone: OrderedDict[str, str] = OrderedDict()

    def keep(self, tool: str, answer: ResultFrame, text: str, start: int = 0) -> str | None:
        """Keep ``answer`` (its text ``text``); its token, or None when it is too large to keep."""
        kept = Kept(tool, answer, text, start, time.monotonic() + self.keep_s)
        if kept.size > self.keep_bytes:
            return None
        self._sweep()
        while self._kept and self._size + kept.size > self.keep_bytes:
            self._drop(next(iter(self._kept)), "expired")  # the oldest first
        token = "ct_" + secrets.token_urlsafe(12)
        self._kept[token] = kept
        self._size += kept.size
        return token

    def take(self, tool: str, token: str, request_id: str) -> ResultFrame:
        """The answer kept under ``token`` for ``tool``: whole, or its next part; raises."""
        self._sweep()
        kept = self._kept.get(token)
        if kept is not None and kept.until <= time.monotonic():
            self._drop(token, "expired")
            kept = None
        if kept is None:
            gone = self._gone.get(token)
            if gone == "used":
                raise ConfirmTokenUsed()
            raise ConfirmTokenExpired() if gone else ConfirmTokenUnknown()
        if kept.tool != tool:
            raise ConfirmTokenMismatch(
                f"That confirm_token belongs to {kept.tool}: call {kept.tool} with it (the token "
                "is still good)."
            )
        self._drop(token, "used")
        end = kept.start + PAGE_CHARS
        if kept.start == 0 and len(kept.text) <= PAGE_CHARS:
            return kept.answer.model_copy(update={"id": request_id})
        part = kept.text[kept.start : end]
        fields: dict[str, Any] = {
            "truncated": end < len(kept.text),
            "total_length": len(kept.text),
            "shown_length": min(end, len(kept.text)),
        }
        if end < len(kept.text):
            fields["confirm_token"] = self.keep(tool, kept.answer, kept.text, end)
            fields["advice"] = (
                f"Characters {kept.start:,} to {end:,} of {len(kept.text):,}; call {tool} with "
                "the new confirm_token for the next part."
            )
        return guarded(kept.answer, fields, id=request_id, result=part, result_type=PART)

    def _drop(self, token: str, why: str) -> None:
        kept = self._kept.pop(token)
        self._size -= kept.size
        self._gone[token] = why
        while len(self._gone) > GONE_TOKENS:
            self._gone.popitem(last=False)

    def _sweep(self) -> None:
        now = time.monotonic()
        while self._kept:
            token, kept = next(iter(self._kept.items()))
            if kept.until > now:
                return
            self._drop(token, "expired")


#: How many spent tokens the store remembers, to say "used" or "expired" rather than "unknown".
GONE_TOKENS = 4096


def guarded(answer: ResultFrame, fields: dict[str, Any], **changes: Any) -> Guarded:
    """``answer`` with ``changes`` and the guard's ``fields``; nothing copied or checked again
    (a large result would cost tens of milliseconds)."""
    frame = {name: getattr(answer, name) for name in type(answer).model_fields}
    return Guarded.model_construct(**{**frame, **changes, "guard": fields})


#: The daemon's one store.
STORE = Store()


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
    "ADVICE",
    "DEFAULT_LIMIT",
    "KEEP_BYTES",
    "KEEP_S",
    "LIMITS",
    "PAGE_CHARS",
    "STORE",
    "WHOLE",
    "Ask",
    "Guarded",
    "Store",
    "ask_of",
    "given",
    "mcp_ask",
    "preview",
    "run",
    "split",
    "summary",
    "text",
]
