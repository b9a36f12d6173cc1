"""Test helpers: a real daemon on an unused port, and a scripted fake extension.

``run_daemon()`` runs the real app under uvicorn in a background thread. ``FakeExtension`` is a real
WebSocket client (the ``websockets`` library) that plays the extension's side of docs/protocol.md:
it says hello and answers each command with a scripted handler, which may delay, answer out of
order, never answer, or disconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from tabpilot.config import Settings
from tabpilot.http.app import bind_socket, create_app, make_server
from tabpilot.protocol import PROTOCOL_VERSION

EXTENSION_ORIGIN = "chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf"
TAB = {"id": 7, "url": "http://localhost/test", "title": "Test page"}

Reply = dict[str, Any]


@dataclass
class Daemon:
    """A daemon running in a background thread."""

    settings: Settings
    app: FastAPI

    @property
    def base_url(self) -> str:
        return self.settings.base_url

    @property
    def ws_url(self) -> str:
        return self.settings.ws_url

    def client(self, **kwargs: Any) -> httpx.AsyncClient:
        """An HTTP client for this daemon that ignores proxy settings of the environment."""
        kwargs.setdefault("timeout", 30.0)
        # httpx writes a request's headers and body in two sends; TCP_NODELAY lets the body go
        # at once rather than after Nagle's wait. (The daemon sets it on its own side.)
        transport = httpx.AsyncHTTPTransport(
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
            limits=kwargs.pop("limits", httpx.Limits()),
        )
        return httpx.AsyncClient(
            base_url=self.base_url, trust_env=False, transport=transport, **kwargs
        )

    def extension(self, handler: Handler | None = None, **kwargs: Any) -> FakeExtension:
        """A fake extension for this daemon (not yet connected)."""
        return FakeExtension(self.ws_url, handler, **kwargs)


@contextlib.contextmanager
def run_daemon(
    *, configure_app: Callable[[FastAPI], None] | None = None, **overrides: Any
) -> Iterator[Daemon]:
    """Run the real app with uvicorn on an unused 127.0.0.1 port until the block ends.

    ``overrides`` are Settings fields; tests default to short graces. ``configure_app`` may add
    routes before the server starts.
    """
    values: dict[str, Any] = {"port": 0, "connect_grace_s": 1.0, "timeout_grace_s": 0.5}
    values.update(overrides)
    settings = dataclasses.replace(Settings.from_env(), **values)
    sock = bind_socket(settings)  # bound before the thread starts: no port race
    settings = dataclasses.replace(settings, port=sock.getsockname()[1])
    app = create_app(settings)
    if configure_app is not None:
        configure_app(app)
    server = make_server(settings, app, log_level="warning")
    thread = threading.Thread(
        target=lambda: asyncio.run(server.serve(sockets=[sock])), name="tabpilot-daemon"
    )
    thread.start()
    try:
        deadline = time.monotonic() + 10
        # Start-up wait in a test helper, not in the product: uvicorn has no readiness hook.
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the daemon did not start")
            time.sleep(0.005)
        yield Daemon(settings, app)
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


# ---------------------------------------------------------------------------------------------
# The fake extension


@dataclass
class Command:
    """One command frame the fake extension received."""

    id: str
    command: str
    params: dict[str, Any]


Handler = Callable[[Command], Awaitable[Reply | None]]


def ok(result: Any, result_type: str | None = None, tab: dict[str, Any] | None = TAB) -> Reply:
    """A successful result for a handler to return."""
    return {"ok": True, "result": result, "result_type": result_type, "tab": tab}


def fail(code: str, message: str = "", stack: str | None = None) -> Reply:
    """A failed result for a handler to return."""
    error: dict[str, Any] = {"code": code, "message": message}
    if stack is not None:
        error["stack"] = stack
    return {"ok": False, "error": error, "tab": TAB}


async def echo(command: Command) -> Reply:
    """Default handler: answers a script with itself, a list of tabs with one tab, and a function
    to define with its source, as the extension's syntax check answers one it accepts."""
    listing = command.command == "browser_tabs" and command.params.get("action") == "list"
    if command.command == "list_tabs" or listing:
        return ok([{**TAB, "active": True, "window_id": 1}], "array", tab=None)
    if command.command == "eval_define_function":
        return ok({"source": command.params.get("source")}, "object", tab=None)
    return ok(command.params.get("script"), "string")


async def never(command: Command) -> None:
    """A handler that never answers."""
    return None


@dataclass
class FakeExtension:
    """The extension's side of the protocol, over a real WebSocket."""

    url: str
    handler: Handler | None = None
    pilot_enabled: bool = True
    protocol_version: int = PROTOCOL_VERSION
    origin: str | None = EXTENSION_ORIGIN
    say_hello: bool = True
    token: str | None = None
    #: The context its hello names (a person's Chrome: `chrome` when None).
    context: str | None = None
    context_key: str | None = None
    #: False when the daemon is expected to refuse the hello (a wrong token, say).
    expect_daemon_hello: bool = True

    commands: list[Command] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)
    daemon_hello: dict[str, Any] | None = None
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    _queue: asyncio.Queue[Command] = field(default_factory=asyncio.Queue)
    _ws: ClientConnection | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def ws(self) -> ClientConnection:
        assert self._ws is not None, "not connected"
        return self._ws

    @property
    def seen_ids(self) -> set[str]:
        """Ids of every command this extension received."""
        return {c.id for c in self.commands}

    async def connect(self) -> FakeExtension:
        """Open the socket, say hello and wait for the daemon's hello."""
        self._ws = await connect(
            self.url,
            origin=Origin(self.origin) if self.origin else None,
            max_size=None,
            proxy=None,
            open_timeout=10,
        )
        if self.say_hello:
            hello: dict[str, Any] = {
                "type": "hello",
                "protocol_version": self.protocol_version,
                "extension_version": "9.9.9",
                "pilot_enabled": self.pilot_enabled,
            }
            if self.token is not None:
                hello["token"] = self.token
            if self.context is not None:
                hello["context"] = self.context
            if self.context_key is not None:
                hello["context_key"] = self.context_key
            await self.send(hello)
            if self.protocol_version == PROTOCOL_VERSION and self.expect_daemon_hello:
                self.daemon_hello = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
        self._spawn(self._read())
        return self

    async def __aenter__(self) -> FakeExtension:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def send(self, frame: dict[str, Any] | str) -> None:
        """Send one frame (a dict as JSON, a str as is)."""
        await self.ws.send(frame if isinstance(frame, str) else json.dumps(frame))

    async def set_pilot(self, enabled: bool) -> None:
        """Report the AI Web Pilot switch, as the popup would."""
        await self.send({"type": "pilot", "enabled": enabled})

    async def next_command(self, timeout: float = 5.0) -> Command:
        """The next command received (in arrival order)."""
        return await asyncio.wait_for(self._queue.get(), timeout)

    async def close(self) -> None:
        """Close the socket (as a service worker going away would) and stop the handlers."""
        for task in list(self._tasks):
            task.cancel()
        if self._ws is not None:
            await self._ws.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def wait_closed(self, timeout: float = 5.0) -> tuple[int | None, str | None]:
        """Wait until the daemon closes the socket; its close code and reason."""
        await asyncio.wait_for(self.closed.wait(), timeout)
        return self.ws.close_code, self.ws.close_reason

    def _spawn(self, coro: Awaitable[None]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                frame = json.loads(text)
                self.frames.append(frame)
                if frame.get("type") == "command":
                    command = Command(frame["id"], frame["command"], frame.get("params", {}))
                    self.commands.append(command)
                    self._queue.put_nowait(command)
                    self._spawn(self._answer(command))
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()

    async def _answer(self, command: Command) -> None:
        reply = await (self.handler or echo)(command)
        if reply is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.send({"type": "result", "id": command.id, **reply})


async def run(client: httpx.AsyncClient, script: str, **params: object) -> httpx.Response:
    """POST /execute_javascript with ``script`` and any other fields."""
    return await client.post("/execute_javascript", json={"script": script, **params})


@contextlib.asynccontextmanager
async def connected(
    daemon: Daemon, handler: Handler | None = None, **kwargs: Any
) -> AsyncIterator[FakeExtension]:
    """A connected fake extension for the length of the block."""
    async with daemon.extension(handler, **kwargs) as fake:
        yield fake


async def until(
    predicate: Callable[[], object | Awaitable[object]], what: str, timeout: float = 5.0
) -> None:
    """Wait until ``predicate()`` (sync or async) is truthy; fail naming ``what`` after
    ``timeout`` s. The way a test waits for something to have happened, instead of a sleep."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if isinstance(value, Awaitable):
            value = await value
        if value:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.005)
