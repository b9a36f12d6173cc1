"""Print the README's MCP tool reference from the tools' own metadata (`--write` updates README.md).

The reference is what ``tools/list`` and the server's instructions say, laid out for a person:
each tool's description as the model reads it, its parameters with the defaults and bounds the
params model holds (the lean schema a model reads leaves those out), and the fields of its
structured content (only a script's value has one: every other answer's text is all of it).
``tests/test_tool_reference.py`` keeps the README equal to it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from readme_block import main

from tabpilot.mcp.schema import TOOLS_LIST_BUDGET
from tabpilot.mcp.server import CAP_INSTRUCTIONS, INSTRUCTIONS, build_server
from tabpilot.tools import CAPS, TOOLS

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
        extra = [tool for tool in more if tool["name"] not in {t["name"] for t in tools}]
        parts.append(
            f"With the `{cap}` capability (`tabpilot mcp --caps {cap}`, or `/mcp?caps={cap}`), "
            f"`tools/list` adds {len(extra)} tools, {_size(more) - _size(tools):,} characters, "
            "and the instructions one paragraph:"
        )
        parts.append("> " + CAP_INSTRUCTIONS[cap].strip().replace("\n", "\n> "))
        parts.extend(_tool(tool) for tool in extra)
    return "\n\n".join(parts) + "\n"


def _tool(tool: dict[str, Any]) -> str:
    name = tool["name"]
    reads = (tool.get("annotations") or {}).get("readOnlyHint")
    lines = [f"#### `{name}`{' (reads only)' if reads else ''}", "", tool["description"]]
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
    raise SystemExit(main("tool-reference", reference()))
