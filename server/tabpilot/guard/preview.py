"""The guard's previews: what a model sees of an answer past its limit.

:func:`preview` keeps the whole answer (:mod:`tabpilot.guard.store`) and answers what fits in the
limit, with the guard's fields and one line of advice. A script's value is summed up
(:func:`summary`): an array as ``Array(n) [first 3 items, …]``, an object as ``Object(n) {keys}``,
a DOM element as one line (:func:`element_line`); a page tool's long text or list is cut to what
fits.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tabpilot.envelope import answer_body, result_text
from tabpilot.guard.store import STORE, Caller, guarded
from tabpilot.protocol import ResultFrame

if TYPE_CHECKING:
    from tabpilot.tools.tool import Tool

SCRIPT_ADVICE: dict[str, str] = {
    "string": "For page text use browser_read (with `ref` for one element); or return a slice.",
    "array": "Return fewer items (`.slice(0, 20)`) or only the fields you need "
    "(`.map(x => x.id)`).",
    "object": "Return only the keys you need (`({a: o.a, b: o.b})`).",
    "node": "For elements use browser_snapshot; or return the fields you need.",
}
GENERIC_ADVICE = "Ask for less: narrow the script or use a specialized tool."


def preview(tool: Tool, answer: ResultFrame, limit: int, caller: Caller) -> ResultFrame:
    """``answer`` if its text fits in ``limit`` characters, else its preview, the whole kept for
    ``caller``."""
    envelope = answer_body(answer.id, answer, time.perf_counter())
    whole = tool.text(envelope, None)
    if len(whole) <= limit:
        return answer
    if tool.guard.summarize:
        result: Any = summary(answer.result, answer.result_type)
        advice = SCRIPT_ADVICE.get(str(answer.result_type), GENERIC_ADVICE)
    else:
        result = answer.result
        advice = tool.guard.advice or GENERIC_ADVICE
    result = _fit(lambda value: tool.text({**envelope, "result": value}, None), result, tool, limit)
    shown = tool.text({**envelope, "result": result}, None)
    token = STORE.keep(caller, tool.name, answer, whole)
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
        for name in (*tool.guard.cut_first, *value.keys()):
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


__all__ = [
    "GENERIC_ADVICE",
    "SCRIPT_ADVICE",
    "brief",
    "element_line",
    "preview",
    "summary",
]
