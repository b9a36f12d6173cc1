"""MCP clients for the tests: the official SDK's own client, over stdio or streamable HTTP.

``open_mcp("stdio", port)`` spawns ``tabpilot mcp --port PORT`` as an agent's MCP configuration
would; ``open_mcp("http", port)`` talks to the daemon's own ``/mcp``. A context manager, not a
fixture: the SDK's task groups must be entered and left in the same task.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, ImageContent, Implementation, TextContent

from tabpilot.mcp.hints import PREFIX

TRANSPORTS = ("stdio", "http")

#: A raw streamable-HTTP request to /mcp, for tests that check the route itself, below the SDK:
#: the headers every request carries, and the initialize that opens a session.
MCP_HEADERS = {"accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}

#: Every test call is bounded: a client that hangs fails the test instead.
CALL_TIMEOUT_S = 60.0


def stdio_parameters(
    port: int, token: str | None = None, caps: str | None = None
) -> StdioServerParameters:
    """`tabpilot mcp` as an MCP client configuration starts it."""
    env = {"TABPILOT_STATE_DIR": os.environ.get("TABPILOT_STATE_DIR", "")}
    if token is not None:
        env["TABPILOT_TOKEN"] = token
    args = ["-m", "tabpilot", "mcp", "--port", str(port)]
    if caps is not None:
        args += ["--caps", caps]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


@contextlib.asynccontextmanager
async def open_mcp(
    transport: str,
    port: int,
    token: str | None = None,
    mode: str = "auto",
    caps: str | None = None,
    name: str | None = None,
) -> AsyncIterator[Client]:
    """An initialized MCP client session to tabpilot over ``transport``.

    With ``token``, `tabpilot mcp` gets it in TABPILOT_TOKEN, and the HTTP client sends it in an
    Authorization header, as an agent's HTTP configuration would. ``mode`` is the SDK client's:
    "auto" speaks the 2026-07-28 revision (over HTTP each request on its own, no session),
    "legacy" the initialize handshake, which opens a session (Mcp-Session-Id over HTTP).
    ``caps``: the MCP capabilities asked for (`--caps`, `/mcp?caps=`). ``name``: the client
    program's name in its ``clientInfo``.
    """
    info = Implementation(name=name, version="1") if name is not None else None
    if transport == "stdio":
        async with Client(
            stdio_parameters(port, token, caps),
            read_timeout_seconds=CALL_TIMEOUT_S,
            mode=mode,
            client_info=info,
        ) as client:
            yield client
        return
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with httpx2.AsyncClient(headers=headers, trust_env=False) as http:
        query = f"?caps={caps}" if caps is not None else ""
        streams = streamable_http_client(f"http://127.0.0.1:{port}/mcp{query}", http_client=http)
        async with Client(
            streams, read_timeout_seconds=CALL_TIMEOUT_S, mode=mode, client_info=info
        ) as client:
            yield client


def text_of(result: CallToolResult) -> str:
    """The single text block of a tool result (a screenshot's image block follows it), without
    the hints that may end it (:func:`hints_of`)."""
    return _split(result)[0]


def hints_of(result: CallToolResult) -> list[str]:
    """The hints that end a result's text (tabpilot.mcp.hints): its last lines starting `Tip: `."""
    return _split(result)[1]


def _split(result: CallToolResult) -> tuple[str, list[str]]:
    assert len(result.content) == 1 or all(isinstance(b, ImageContent) for b in result.content[1:])
    block = result.content[0]
    assert isinstance(block, TextContent)
    lines = block.text.split("\n")
    hints: list[str] = []
    while len(lines) > 1 and lines[-1].startswith(PREFIX):
        hints.insert(0, lines.pop())
    # Hints live in the text only: a client that forwards the structured content too pays once.
    assert "hints" not in (result.structured_content or {})
    return "\n".join(lines), hints


async def call(client: Client, tool: str, **arguments: Any) -> tuple[CallToolResult, str]:
    """Call ``tool``; the result and its text."""
    result = await client.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult)
    return result, text_of(result)
