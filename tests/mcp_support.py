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

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextContent

TRANSPORTS = ("stdio", "http")

#: Every test call is bounded: a client that hangs fails the test instead.
CALL_TIMEOUT_S = 60.0


def stdio_parameters(port: int, *extra: str) -> StdioServerParameters:
    """`tabpilot mcp` as an MCP client configuration starts it."""
    env = {"TABPILOT_STATE_DIR": os.environ.get("TABPILOT_STATE_DIR", "")}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "tabpilot", "mcp", "--port", str(port), *extra], env=env
    )


@contextlib.asynccontextmanager
async def open_mcp(transport: str, port: int) -> AsyncIterator[Client]:
    """An initialized MCP client session to tabpilot over ``transport``."""
    server: Any = stdio_parameters(port) if transport == "stdio" else f"http://127.0.0.1:{port}/mcp"
    async with Client(server, read_timeout_seconds=CALL_TIMEOUT_S) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    """The single text block of a tool result."""
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def call(client: Client, tool: str, **arguments: Any) -> tuple[CallToolResult, str]:
    """Call ``tool``; the result and its text."""
    result = await client.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult)
    return result, text_of(result)
