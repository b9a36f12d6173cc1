"""browser_find: the elements of the page's snapshot that match a text, a regex, a role or a name,
each with its ref and a line of context, so that an agent that wants one line of a long page
does not take the whole snapshot (extension/worker/tools/find.js)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, model_validator

from tabpilot.tools.fields import Params, result_of
from tabpilot.tools.page import PAGE_WALK_TIMEOUT_S
from tabpilot.tools.tool import ClientFace, CliFace, Tool, describe

#: The longest text, regex, role or name searched for.
MAX_QUERY_CHARS = 200
#: The most matches one answer lists, and how many by default.
MAX_LIMIT = 100
DEFAULT_LIMIT = 10


class FindParams(Params):
    """The snapshot's lines that match, each with its ref and a line of context."""

    example: ClassVar[str] = '{"text": "Item 137"}'

    text: str | None = Field(default=None, min_length=1, max_length=MAX_QUERY_CHARS)
    regex: str | None = Field(default=None, min_length=1, max_length=MAX_QUERY_CHARS)
    role: str | None = Field(default=None, min_length=1, max_length=MAX_QUERY_CHARS)
    name: str | None = Field(default=None, min_length=1, max_length=MAX_QUERY_CHARS)
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT)
    tab_id: int | None = Field(default=None)

    @model_validator(mode="after")
    def _needs(self) -> FindParams:
        if self.text is None and self.regex is None and self.role is None and self.name is None:
            raise ValueError("give `text`, `regex`, or `role` and/or `name`")
        if self.text is not None and self.regex is not None:
            raise ValueError("give `text` or `regex`, not both")
        return self


def find_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_find: `2 matches`, then a line per match with its context, then how many more."""
    found = result_of(envelope)
    total = int(found.get("total") or 0)
    matches = found.get("matches") or []
    lines = [f"{total} match{'' if total == 1 else 'es'}"]
    for match in matches:
        line = f"- {match.get('line', '')}"
        if match.get("context"):
            line += f" \u2014 {match['context']}"
        lines.append(line)
    rest = total - len(matches)
    if rest > 0:
        lines.append(f"\u2026 {rest} more; narrow the query")
    if found.get("searched_chars"):
        lines.append(f"(searched the first {found['searched_chars']:,} characters of the page)")
    return "\n".join(lines)


FIND = Tool(
    name="browser_find",
    params=FindParams,
    title="Find elements in the page",
    description=describe(
        """
        Snapshot lines by text or JS regex (any case), role, name; with refs, context. E.g.
        {"text": "Item 7"} → 1 match⏎- text: Item 7 — in listitem: button "Buy" [ref=e9]
        """
    ),
    timeout_s=PAGE_WALK_TIMEOUT_S,
    text=find_text,
    read_only=True,
    client=ClientFace(
        "find",
        doc="The snapshot's matching lines: ``{total, matches: [{line, ref, context}]}``.",
        positional=("text",),
    ),
    cli=CliFace("find", positional=("text",)),
)

TOOLS = (FIND,)
