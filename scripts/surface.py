"""Print tabpilot's outward surface as one JSON document (`--write` updates the committed copy).

The surface is what a caller sees without a browser: the OpenAPI document, the MCP server's
instructions and ``tools/list`` by default, with each capability and with all of them, each CLI
command's ``--help``, the public client's method signatures and docstrings, and the error table
(code, status, meaning).
``tests/test_surface.py`` keeps ``tests/fixtures/surface.json`` equal to it, so a change of the
package's inside that changes none of these leaves the file as it was.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

# argparse wraps help to the terminal's width; a fixed width keeps the surface stable.
os.environ["COLUMNS"] = "100"

from tabpilot import AsyncClient, Client
from tabpilot.cli import build_parser
from tabpilot.config import Settings
from tabpilot.errors import error_classes
from tabpilot.http.app import create_app
from tabpilot.mcp.server import build_server
from tabpilot.tools import CAPS

SURFACE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "surface.json"


class _NoBackend:
    """Listing the tools calls nothing."""

    async def run_tool(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError

    async def status(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError


def _mcp() -> dict[str, Any]:
    # Capabilities add to the default set, each its own tools and paragraph, so the default set,
    # each capability alone and all of them together show every part and how they join, without
    # the 2^n combinations (64 for six capabilities, 1.7 MB).
    sets = [(), *((cap,) for cap in sorted(CAPS)), tuple(sorted(CAPS))]
    listings: dict[str, Any] = {}
    for caps in sets:
        server = build_server(_NoBackend(), frozenset(caps))
        tools = asyncio.run(server.list_tools())
        listings[",".join(caps)] = {
            "instructions": server.instructions,
            "tools": [tool.model_dump(exclude_none=True, by_alias=True) for tool in tools],
        }
    return listings


def _cli() -> dict[str, str]:
    helps: dict[str, str] = {}

    def walk(prefix: str, parser: Any) -> None:
        helps[prefix] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(f"{prefix} {name}", sub)

    walk("tabpilot", build_parser())
    return helps


def _client() -> dict[str, Any]:
    def methods(cls: type) -> dict[str, Any]:
        return {
            name: {"signature": str(inspect.signature(member)), "doc": inspect.getdoc(member)}
            for name, member in inspect.getmembers(cls, callable)
            if not name.startswith("_")
        }

    return {"Client": methods(Client), "AsyncClient": methods(AsyncClient)}


def surface() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as state:
        openapi = create_app(Settings(state_dir=Path(state))).openapi()
    return {
        "openapi": openapi,
        "mcp": _mcp(),
        "cli": _cli(),
        "client": _client(),
        "errors": [[cls.code, cls.status, cls.meaning] for cls in error_classes()],
    }


def text() -> str:
    return json.dumps(surface(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":
    if "--write" in sys.argv:
        SURFACE.write_text(text())
    else:
        sys.stdout.write(text())
