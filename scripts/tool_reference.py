"""Print the MCP tool reference of docs/tools.md and the README's table of the tools, from the
tools' own metadata (`--write` updates both files).

The reference is what ``tools/list`` and the server's instructions say, laid out for a person:
each tool's description as the model reads it, its parameters with the defaults and bounds the
params model holds (the lean schema a model reads leaves those out), and the fields of its
structured content (only a script's value has one: every other answer's text is all of it). The
table has a row a tool: its title, and a link to its entry in the reference.
``tests/test_tool_reference.py`` keeps both equal to it.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from readme_block import DOCS, README, REPO, Block, anchor, main

from tabpilot.mcp.schema import TOOLS_LIST_BUDGET
from tabpilot.mcp.server import CAP_INSTRUCTIONS, INSTRUCTIONS, build_server
from tabpilot.tools import CAPS, TOOLS

TOOLS_PAGE = DOCS / "tools.md"
#: What a tool without an output schema answers as structured content.
NONE = "none on success (the text is the whole answer); `error` on a failure"


class _NoBackend:
    """Listing the tools calls nothing."""

    async def run_tool(self, tool: Any, params: Any) -> dict[str, Any]:
        raise NotImplementedError

    async def status(self) -> dict[str, Any]:
        raise NotImplementedError


def listed(caps: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """The tools as ``tools/list`` answers them, with the capabilities ``caps``."""
    tools = asyncio.run(build_server(_NoBackend(), caps).list_tools())
    return [tool.model_dump(exclude_none=True, by_alias=True) for tool in tools]


def _size(tools: list[dict[str, Any]]) -> int:
    return len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False))


def reference() -> str:
    tools = listed()
    parts = [
        f"`tools/list` is {_size(tools):,} characters of compact JSON for its {len(tools)} tools "
        f"(the budget, checked by a test: {TOOLS_LIST_BUDGET:,}); the server's instructions, "
        f"which a client shows its model once, are {len(INSTRUCTIONS):,}:",
        "\n".join(f"> {line}" if line else ">" for line in INSTRUCTIONS.splitlines()),
    ]
    for tool in tools:
        parts.append(_tool(tool))
    for cap in sorted(CAPS):
        more = listed(frozenset({cap}))
        extra = _added(tools, more)
        parts.append(
            f"With the `{cap}` capability (`tabpilot mcp --caps {cap}`, or `/mcp?caps={cap}`), "
            f"`tools/list` adds {len(extra)} tools, {_size(more) - _size(tools):,} characters, "
            "and the instructions one paragraph:"
        )
        parts.append("> " + CAP_INSTRUCTIONS[cap].strip().replace("\n", "\n> "))
        parts.extend(_tool(tool) for tool in extra)
    return "\n\n".join(parts) + "\n"


def table() -> str:
    """The README's table: a row a tool, in the reference's order, linking to its entry there."""
    tools = listed()
    rows = [(tool, "always") for tool in tools]
    for cap in sorted(CAPS):
        rows += [(tool, f"with `--caps {cap}`") for tool in _added(tools, listed(frozenset({cap})))]
    page = TOOLS_PAGE.relative_to(REPO)
    lines = ["| tool | what it does | MCP lists it |", "|---|---|---|"]
    for tool, when in rows:
        link = f"[`{tool['name']}`]({page}#{anchor(_heading(tool))})"
        lines.append(f"| {link} | {_title(tool)} | {when} |")
    return "\n".join(lines) + "\n"


def _added(tools: list[dict[str, Any]], more: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools of ``more`` that ``tools`` lacks."""
    return [tool for tool in more if tool["name"] not in {t["name"] for t in tools}]


def _title(tool: dict[str, Any]) -> str:
    """The table's short human title; the first sentence of the description for a tool that is
    not in the table (``pilot_status``)."""
    entry = TOOLS.get(tool["name"])
    return entry.title if entry else re.split(r"(?<=[.?!]) ", tool["description"], maxsplit=1)[0]


def _heading(tool: dict[str, Any]) -> str:
    reads = (tool.get("annotations") or {}).get("readOnlyHint")
    return f"`{tool['name']}`{' (reads only)' if reads else ''}"


def _tool(tool: dict[str, Any]) -> str:
    name = tool["name"]
    lines = [f"### {_heading(tool)}", "", tool["description"]]
    table = TOOLS.get(name)
    fields = table.params.model_json_schema().get("properties", {}) if table else {}
    required = set(table.params.model_json_schema().get("required", ())) if table else set()
    if fields:
        lines += ["", "| parameter | type | default | meaning |", "|---|---|---|---|"]
        for field, schema in fields.items():
            default = "required" if field in required else _default(schema)
            meaning = schema.get("description", "")
            lines.append(f"| `{field}` | {_type(schema)} | {default} | {meaning} |")
    fields = tool.get("outputSchema", {}).get("properties", {})
    answers = ", ".join(f"`{key}`" for key in fields) or NONE
    lines += ["", f"Structured content: {answers}."]
    return "\n".join(lines)


def _type(schema: dict[str, Any]) -> str:
    options = [o for o in schema.get("anyOf", [schema]) if o.get("type") != "null"]
    option = options[0] if options else schema
    if "enum" in option:
        return " \\| ".join(f"`{value}`" for value in option["enum"])
    kinds = option.get("type", "any")
    kind = " \\| ".join(kinds) if isinstance(kinds, list) else str(kinds)
    bounds = [
        f"{word} {option[key]:,}"
        for key, word in (("minimum", "≥"), ("maximum", "≤"), ("maxLength", "length ≤"))
        if key in option
    ]
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def _default(schema: dict[str, Any]) -> str:
    value = schema.get("default")
    return "" if value is None else f"`{json.dumps(value)}`"


if __name__ == "__main__":
    raise SystemExit(
        main(Block(TOOLS_PAGE, "tool-reference", reference()), Block(README, "tool-table", table()))
    )
