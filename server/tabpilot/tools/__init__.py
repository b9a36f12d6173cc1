"""The tools, defined once: every face of tabpilot is generated from :data:`TOOLS`.

One file per tool family (``navigate.py``, ``page.py``, ``close.py``, ``script.py``, ``tabs.py``,
``screenshot.py``, ``logs.py``, ``functions.py``, ``contexts.py``, ``files.py``) holds each of
its tools' params model, the description a model reads, the text formatter of its answer and its
optional handler, and ends with the family's ``TOOLS``. A :class:`~tabpilot.tools.tool.Tool`'s
name is at once the extension command it sends, the HTTP route (``POST /<name>``), the
``/ws/calls`` method and the MCP tool; its ``cli`` and ``method`` are the CLI subcommand and the
public client's method. The faces that read the table: :mod:`tabpilot.http` (HTTP and
``/ws/calls``), :mod:`tabpilot.mcp`, :mod:`tabpilot.cli` and :mod:`tabpilot.client`. A new family
is one file here, one line below, and one file in the extension's ``worker/tools/``.
"""

from __future__ import annotations

from tabpilot.errors import InvalidRequest
from tabpilot.tools import (
    ask_human,
    close,
    context_storage,
    contexts,
    emulate,
    files,
    find,
    form,
    functions,
    logs,
    mouse,
    navigate,
    network_rules,
    page,
    screenshot,
    script,
    tabs,
    wait,
)
from tabpilot.tools.tool import Tool, describe

#: Every tool, by name, family by family: the order of the OpenAPI paths, MCP's tools/list and
#: the CLI's commands.
TOOLS: dict[str, Tool] = {
    tool.name: tool
    for family in (
        navigate,
        page,
        find,
        form,
        wait,
        mouse,
        files,
        ask_human,
        close,
        script,
        tabs,
        screenshot,
        emulate,
        logs,
        network_rules,
        functions,
        contexts,
        context_storage,
    )
    for tool in family.TOOLS
}

#: The MCP capabilities a client may ask for, as Playwright MCP's `--caps`: `tabpilot mcp --caps
#: contexts`, or `/mcp?caps=contexts`. Every other face has every tool.
CAPS = frozenset(tool.mcp.cap for tool in TOOLS.values() if tool.mcp.cap is not None)


def parse_caps(text: str) -> frozenset[str]:
    """The capabilities of a comma-separated list, or InvalidRequest naming the known ones."""
    asked = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = asked - CAPS
    if unknown:
        raise InvalidRequest(
            f"Unknown MCP capability {sorted(unknown)[0]!r}; the capabilities are "
            f"{', '.join(sorted(CAPS))}."
        )
    return asked


__all__ = ["CAPS", "TOOLS", "Tool", "describe", "parse_caps"]
