"""``tabpilot mcp``: the tools over stdin/stdout, each call forwarded to the running daemon over
its callers' socket (:class:`tabpilot.client.connection.DaemonClient`)."""

from __future__ import annotations

import asyncio
import os

from mcp.server.stdio import stdio_server

from tabpilot.mcp.server import Backend, build_server


async def run_stdio(backend: Backend, caps: frozenset[str] = frozenset()) -> None:
    """Serve the tools over stdin/stdout until the client closes them.

    The SDK's own stdio streams read and write through a worker thread, three thread hops a
    call, which cost about 2 ms a tools/call here (make bench). Handing its ``stdio_server`` lines
    read and written on the event loop's own pipes takes them out. As the SDK does, fds 0 and 1
    then point at /dev/null and stderr, so that nothing else can write into the protocol.
    """
    server = build_server(backend, caps)
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
