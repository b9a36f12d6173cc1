"""The MCP tools of tabpilot, defined once and served two ways.

- ``tabpilot mcp`` serves them over stdio and forwards each call to the running daemon over its
  callers' socket (:class:`tabpilot.client.DaemonClient`, one WebSocket for every call).
- The daemon serves them itself at ``/mcp`` (streamable HTTP), calling its bridge directly
  (:class:`LocalBackend`, mounted by :mod:`tabpilot.mcp_http` on first use), behind the same
  Host, Origin and token guard as every other route.

Both hand the same :class:`Backend` to :func:`build_server`, so there is one definition of each
tool. Every call answers a ``CallToolResult``: text written for a model (``42``, ``hello world``,
``{"foo": "bar"}``, or ``Error: <what to do next>`` with ``isError``), and the full envelope as
structured content, described by the output schema (:class:`tabpilot.envelope.Envelope`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
from collections.abc import Callable
from typing import Annotated, Any, Literal, Protocol

from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from tabpilot import __version__
from tabpilot.bridge import Bridge
from tabpilot.envelope import Envelope, envelope_of, failure_body, result_text, success_body
from tabpilot.errors import InvalidRequest
from tabpilot.protocol import (
    MAX_TIMEOUT_MS,
    ExecuteParams,
    TabsParams,
    TimeoutMs,
    invalid_reasons,
)
from tabpilot.security import new_request_id

log = logging.getLogger(__name__)

_DEFAULTS = ExecuteParams.model_fields

INSTRUCTIONS = """\
tabpilot runs JavaScript in the user's real Chrome tab, through the tabpilot extension, while the
user's AI Web Pilot switch is on. Call pilot_status first if unsure, list_tabs to find a tab, then
execute_javascript; browser_tabs opens, selects and closes tabs. Return only the fields you need:
results count against your context."""


class Backend(Protocol):
    """Where the tools send their calls; each method answers one envelope (a plain dict)."""

    async def execute(self, params: ExecuteParams) -> dict[str, Any]: ...

    async def list_tabs(self) -> dict[str, Any]: ...

    async def status(self) -> dict[str, Any]: ...
    async def browser_tabs(self, params: TabsParams) -> dict[str, Any]: ...


class LocalBackend:
    """The daemon's own bridge, for ``/mcp``: no HTTP hop in between."""

    def __init__(self, bridge: Bridge, status: Callable[[], dict[str, Any]]) -> None:
        self._bridge = bridge
        self._status = status

    async def execute(self, params: ExecuteParams) -> dict[str, Any]:
        return await envelope_of(
            new_request_id(),
            lambda request_id: self._bridge.execute(params, request_id),
            "an MCP tool call",
        )

    async def list_tabs(self) -> dict[str, Any]:
        return await envelope_of(new_request_id(), self._bridge.list_tabs, "an MCP tool call")

    async def status(self) -> dict[str, Any]:
        return success_body(new_request_id(), self._status())

    async def browser_tabs(self, params: TabsParams) -> dict[str, Any]:
        return await envelope_of(
            new_request_id(),
            lambda request_id: self._bridge.browser_tabs(params, request_id),
            "an MCP tool call",
        )


def tool_result(envelope: dict[str, Any], text: Callable[[dict[str, Any]], str]) -> CallToolResult:
    """The envelope as a tool result: ``text(envelope)`` on success, ``Error: …`` on failure."""
    if envelope.get("success"):
        body = text(envelope)
        is_error = False
    else:
        body = f"Error: {(envelope.get('error') or {}).get('message') or 'unknown error'}"
        is_error = True
    return CallToolResult(
        content=[TextContent(type="text", text=body)],
        structured_content=envelope,
        is_error=is_error,
    )


def _script_text(envelope: dict[str, Any]) -> str:
    text = result_text(envelope.get("result"), envelope.get("result_type"))
    return text + dialogs_note(envelope.get("dialogs"))


def dialogs_note(dialogs: list[dict[str, Any]] | None) -> str:
    """One line per dialog answered, for the model: it should know a confirm was dismissed."""
    lines = [
        f'\n[{d.get("type")} "{d.get("message", "")}" {d.get("action", "dismissed")}'
        + (f' with "{d["text"]}"' if d.get("text") is not None else "")
        + ("; it was open before this script" if d.get("before") else "")
        + "]"
        for d in dialogs or []
    ]
    return "".join(lines)


def _tabs_text(envelope: dict[str, Any]) -> str:
    tabs = envelope.get("result") or []
    if not tabs:
        return "No tabs are open."
    lines = []
    for tab in tabs:
        mark = " (active)" if tab.get("active") else ""
        lines.append(f"{tab.get('id')}{mark}: {tab.get('title') or '(untitled)'} {tab.get('url')}")
    return "\n".join(lines)


def _browser_tabs_text(envelope: dict[str, Any]) -> str:
    result = envelope.get("result")
    if isinstance(result, list):
        return _tabs_text(envelope)
    if isinstance(result, dict) and "closed" in result:
        opened = result.get("opened")
        extra = f"; opened {opened.get('id')}: {opened.get('url')}" if opened else ""
        return f"Closed tab {result['closed']}{extra}."
    tab = result if isinstance(result, dict) else {}
    return f"{tab.get('id')} (active): {tab.get('title') or '(untitled)'} {tab.get('url')}"


def _status_text(envelope: dict[str, Any]) -> str:
    status = envelope.get("result") or {}
    extension = status.get("extension") or {}
    lines = [f"Daemon: tabpilot {status.get('daemon_version')}, running."]
    if not extension.get("connected"):
        lines.append(
            "Extension: not connected. Open Chrome with the tabpilot extension, or start the "
            "daemon with `tabpilot serve --browser`."
        )
        return "\n".join(lines)
    lines.append(f"Extension: connected (version {extension.get('version')}).")
    if extension.get("pilot_enabled"):
        lines.append("AI Web Pilot: ON. Scripts may run.")
    else:
        lines.append(
            "AI Web Pilot: OFF. Nothing can run until the user turns on AI Web Pilot in the "
            "tabpilot extension popup."
        )
    return "\n".join(lines)


def tool_description(fn: Callable[..., Any]) -> str:
    """A tool's docstring as a model should read it: dedented, each paragraph on one line."""
    paragraphs = inspect.cleandoc(fn.__doc__ or "").split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def build_server(backend: Backend) -> MCPServer:
    """An MCP server whose tools call ``backend``."""
    # log_level: the SDK configures logging only where nothing else has; keep it quiet there.
    server = MCPServer(
        "tabpilot", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    async def execute_javascript(
        script: Annotated[
            str,
            Field(
                min_length=1,
                description="JavaScript: an expression (`document.title`), or statements "
                "with `return` (`const n = document.links.length; return n`). `await` works.",
            ),
        ],
        timeout_ms: Annotated[
            TimeoutMs,
            Field(
                description=f"Give up after this many milliseconds (at most {MAX_TIMEOUT_MS}).",
            ),
        ] = _DEFAULTS["timeout_ms"].default,
        await_promise: Annotated[
            bool,
            Field(description="Await a returned promise and give its value (true), or not."),
        ] = _DEFAULTS["await_promise"].default,
        tab_id: Annotated[
            int | None,
            Field(
                description="The tab to run in, an id from list_tabs. Leave it out for the "
                "active tab of the last focused window."
            ),
        ] = None,
        dialog: Annotated[
            Literal["accept", "dismiss"],
            Field(description="How to answer an alert, confirm or prompt the script raises."),
        ] = "dismiss",
        prompt_text: Annotated[
            str | None, Field(description="What an accepted prompt answers.")
        ] = None,
    ) -> Annotated[CallToolResult, Envelope]:
        """Run JavaScript in the user's real Chrome tab and return its result as JSON.

        Use it to look inside a live page: read the DOM, globals and framework state (a Redux
        store, `window.__NEXT_DATA__`, a Vue or React instance), call functions the page or its
        WebAssembly exports, or act on the page. The script runs in the page's own JavaScript
        world, in the user's browser where they may be logged in, with the page's full
        privileges: what it changes is really changed. It runs only while the user's AI Web
        Pilot switch is on.

        The result is made JSON-safe: DOM nodes, functions, Maps, Sets, cycles and the like come
        back as short descriptions. Return just the fields you need, not whole objects: the
        result is read into your context. Dialogs the script raises are answered (dismissed
        unless `dialog` is "accept") and listed after the result.
        """
        try:
            params = ExecuteParams(
                script=script,
                timeout_ms=timeout_ms,
                await_promise=await_promise,
                tab_id=tab_id,
                dialog=dialog,
                prompt_text=prompt_text,
            )
        except ValidationError as exc:
            error = InvalidRequest(f"Invalid arguments: {exc.errors()[0]['msg']}.")
            return tool_result(failure_body(new_request_id(), error), _script_text)
        return tool_result(await backend.execute(params), _script_text)

    async def list_tabs() -> Annotated[CallToolResult, Envelope]:
        """List the open tabs of the user's browser: id, whether active, title and URL.

        Pass an id as tab_id to execute_javascript to run in a tab other than the active one.
        """
        return tool_result(await backend.list_tabs(), _tabs_text)

    async def browser_tabs(
        action: Annotated[
            Literal["list", "new", "select", "close"],
            Field(description="list the tabs, or open a new one, select or close one."),
        ] = "list",
        url: Annotated[
            str | None, Field(description="For new: an http(s) url; else a blank start page.")
        ] = None,
        tab_id: Annotated[int | None, Field(description="For select and close.")] = None,
    ) -> Annotated[CallToolResult, Envelope]:
        """List, open, select or close tabs of the user's browser.

        A new tab becomes the active one, where execute_javascript runs by default. A tab stuck
        in a script (tab_unresponsive) or crashed (tab_crashed) is freed by closing it and
        opening a new one.
        """
        try:
            params = TabsParams(action=action, url=url, tab_id=tab_id)
        except ValidationError as exc:
            reasons = invalid_reasons(exc.errors(), TabsParams.model_fields)
            error = InvalidRequest(f"Invalid arguments: {reasons}.")
            return tool_result(failure_body(new_request_id(), error), _browser_tabs_text)
        return tool_result(await backend.browser_tabs(params), _browser_tabs_text)

    async def pilot_status() -> Annotated[CallToolResult, Envelope]:
        """Say whether tabpilot can run scripts now: the daemon, the browser extension, and the
        user's AI Web Pilot switch (scripts run only while it is on)."""
        return tool_result(await backend.status(), _status_text)

    reads = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
    acts = ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
    )
    for fn, title, hints in (
        (execute_javascript, "Run JavaScript in the user's browser tab", acts),
        (list_tabs, "List the browser's tabs", reads),
        (browser_tabs, "Open, select or close the browser's tabs", acts),
        (pilot_status, "Is tabpilot ready?", reads),
    ):
        server.add_tool(fn, title=title, description=tool_description(fn), annotations=hints)
    return server


async def run_stdio(backend: Backend) -> None:
    """Serve the tools over stdin/stdout until the client closes them.

    The SDK's own stdio streams read and write through a worker thread, three thread hops a
    call, which cost about 2 ms a tools/call here (make bench). Handing its ``stdio_server`` lines
    read and written on the event loop's own pipes takes them out. As the SDK does, fds 0 and 1
    then point at /dev/null and stderr, so that nothing else can write into the protocol.
    """
    server = build_server(backend)
    try:
        lines, out = await _event_loop_pipes()
    except (OSError, ValueError):
        # Not pipes (a file, a pty): the SDK's threaded streams handle anything.
        await server.run_stdio_async()
        return
    # MCPServer.run_stdio_async() has no way to pass streams; its low-level server does.
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=lines, stdout=out) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def _event_loop_pipes() -> tuple[_PipeLines, _PipeWriter]:
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.fdopen(os.dup(0), "rb", 0), os.fdopen(os.dup(1), "wb", 0)
    try:
        reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), wire_in)
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, wire_out
        )
    except (OSError, ValueError):
        wire_in.close()
        wire_out.close()
        raise
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    with open(os.devnull, "rb") as null:
        os.dup2(null.fileno(), 0)
    os.dup2(2, 1)
    return _PipeLines(reader), _PipeWriter(writer)


#: Longest JSON-RPC line read from the client: far past any script (max_script_bytes).
MAX_LINE_BYTES = 256 * 1024 * 1024


class _PipeLines:
    """The client's lines, as the ``async for`` that ``stdio_server`` reads them with."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _PipeLines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


class _PipeWriter:
    """``write`` and ``flush``, as ``stdio_server`` writes each answer."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode())

    async def flush(self) -> None:
        await self._writer.drain()
