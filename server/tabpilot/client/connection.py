"""A client of the daemon, for `tabpilot mcp`: every call answers one envelope.

Calls go over one callers' socket (``/ws/calls``, docs/protocol.md §6), opened on the first call
and again after the daemon restarts: a frame each way costs both sides about a quarter of a
millisecond less CPU than an HTTP request (make bench). A daemon that does not serve the socket
(an older tabpilot) is called over HTTP instead, as is any route the socket does not carry.

The daemon's own answers pass through as they are. When the daemon cannot answer (not running,
stopped mid-call, something else on its port) the client builds the failure envelope itself with
``daemon_unreachable``, so a caller always gets one envelope in bounded time and never an
exception or a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
from types import TracebackType
from typing import Any, Self

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from tabpilot import guard
from tabpilot.client.unreachable import (
    broke,
    is_envelope,
    no_answer,
    not_running,
    not_tabpilot,
)
from tabpilot.config import Settings, client_headers
from tabpilot.protocol import CALLS_PATH, CallMethod, loads
from tabpilot.tools import TOOLS, Tool
from tabpilot.tools.fields import Params
from tabpilot.tools.script import ExecuteParams

#: Seconds a call waits beyond the command's own timeout: the daemon answers at that timeout plus
#: its timeout grace, after at most its connect grace, or the 30 s it gives a managed browser it
#: starts again (bridge.BROWSER_START_GRACE_S), so its own answer always comes first.
CLIENT_SLACK_S = 40.0
#: For calls that run no script (/status, /tabs).
SHORT_TIMEOUT_S = 15.0


class _SocketBroke(Exception):
    """The callers' socket closed with this call in flight."""


class _Link:
    """One open callers' socket and the calls waiting on it, by id."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.reader = asyncio.create_task(self._read())

    @property
    def open(self) -> bool:
        return not self.reader.done()

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                frame = loads(message)
                if not isinstance(frame, dict):
                    continue
                call_id = frame.get("id")
                future = self.waiting.pop(call_id, None) if isinstance(call_id, int) else None
                if future is not None and not future.done():
                    future.set_result(frame.get("envelope"))
        except ConnectionClosed:
            pass
        finally:
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(_SocketBroke())
            self.waiting.clear()


class AsyncClosing:
    """``async with``: the object's ``aclose`` runs on the way out."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        raise NotImplementedError


class DaemonClient(AsyncClosing):
    """The daemon on 127.0.0.1, over one callers' socket, or one keep-alive HTTP pool."""

    def __init__(self, settings: Settings, *, context: str | None = None) -> None:
        self.settings = settings
        #: The context every call names (tabpilot.browsers.contexts); None: the socket's active one.
        self.context = context
        self._link: _Link | None = None
        self._opening = asyncio.Lock()
        self._ids = itertools.count(1)
        # Set when the daemon answers the socket's handshake with an HTTP status and no envelope
        # (an older tabpilot without /ws/calls): HTTP from then on.
        self._http_only = False
        # TCP_NODELAY: httpx sends a request's headers and body in two writes, and without it
        # Nagle holds the body until the daemon's delayed ACK, about 40 ms a call.
        transport = httpx.AsyncHTTPTransport(
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        )
        # trust_env=False: an HTTP(S)_PROXY of the user's shell must not route loopback calls.
        self._http = httpx.AsyncClient(
            base_url=settings.base_url,
            transport=transport,
            trust_env=False,
            # The token (serve --token, TABPILOT_TOKEN or the token file), read by itself.
            headers=client_headers(settings),
            timeout=SHORT_TIMEOUT_S,
        )

    @property
    def _where(self) -> str:
        return f"{self.settings.host}:{self.settings.port}"

    async def aclose(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            await link.ws.close()
            link.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await link.reader
        await self._http.aclose()

    async def execute(self, params: ExecuteParams) -> dict[str, Any]:
        """The envelope of POST /execute_javascript."""
        timeout = params.timeout_ms / 1000 + CLIENT_SLACK_S
        return await self.call("execute_javascript", params.model_dump(), timeout=timeout)

    async def list_tabs(self) -> dict[str, Any]:
        """The envelope of GET /tabs."""
        return await self.call("tabs")

    async def status(self, session: object | None = None) -> dict[str, Any]:
        """The envelope of GET /status, with this socket's active context."""
        return await self.call("status")

    async def run_tool(
        self,
        tool: Tool,
        params: Params | None,
        ask: guard.Ask = guard.WHOLE,
        session: object | None = None,
    ) -> dict[str, Any]:
        """The envelope of a tool's call (``POST /<tool name>``); ``ask``: the guard's fields.
        Every call of this client shares its socket, and so its active context (``session`` is
        the one MCP session of `tabpilot mcp`)."""
        timeout = (tool.timeout(params) if params is not None else 0) + CLIENT_SLACK_S
        # Only what differs from the defaults: the daemon fills in the rest, the same way.
        body = params.model_dump(exclude_defaults=True) if params is not None else {}
        return await self.call(tool.name, {**body, **ask.fields()}, timeout=timeout)

    async def call(
        self,
        method: CallMethod,
        params: dict[str, Any] | None = None,
        *,
        timeout: float = SHORT_TIMEOUT_S,
    ) -> dict[str, Any]:
        """One call over the callers' socket (HTTP if the daemon has none): its envelope."""
        path = _ROUTES[method][1]
        where = self._where
        try:
            async with asyncio.timeout(timeout):
                envelope = await self._call_on_socket(method, params or {})
                if envelope is _NO_SOCKET:
                    return await self._over_http(method, params, timeout)
        except _Refused as refused:
            return refused.envelope
        except OSError:
            return not_running(where)
        except TimeoutError:
            return no_answer(where, path, timeout)
        except (_SocketBroke, ConnectionClosed):
            return broke(where, path)
        if not is_envelope(envelope):
            return not_tabpilot(where, "its answer was not an envelope")
        return dict(envelope)

    async def _call_on_socket(self, method: CallMethod, params: dict[str, Any]) -> Any:
        """The call's envelope as the socket answered it, or _NO_SOCKET."""
        text = ""
        call_id = next(self._ids)
        frame = {"type": "call", "id": call_id, "method": method, "params": params}
        if self.context is not None:
            frame["context"] = self.context
        for attempt in range(2):
            link = await self._open_link()
            if link is None:
                return _NO_SOCKET
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            link.waiting[call_id] = future
            try:
                text = text or json.dumps(frame, ensure_ascii=False)
                try:
                    await link.ws.send(text)
                except ConnectionClosed:
                    # Not sent: the socket had closed (a daemon restarted since the last call)
                    # before its reader noticed. Once more, on a fresh one.
                    if self._link is link:
                        self._link = None
                    if attempt == 0:
                        continue
                    raise
                return await future
            finally:
                link.waiting.pop(call_id, None)
        raise AssertionError("unreachable")

    async def _open_link(self) -> _Link | None:
        """The open socket, opened now if need be; None when the daemon is called over HTTP."""
        async with self._opening:
            if self._http_only:
                return None
            if self._link is not None and self._link.open:
                return self._link
            try:
                ws = await connect(
                    self.settings.ws_url.removesuffix("/ws") + CALLS_PATH,
                    additional_headers=client_headers(self.settings),
                    # Loopback: compressing every frame would only cost CPU.
                    compression=None,
                    # An HTTP(S)_PROXY of the user's shell must not route loopback calls.
                    proxy=None,
                    # The daemon bounds every result (protocol.MAX_RESULT_CHARS).
                    max_size=None,
                    open_timeout=None,  # the call's own timeout bounds the handshake
                )
            except InvalidStatus as exc:
                envelope = loads(bytes(exc.response.body or b""))
                if is_envelope(envelope):  # refused by the daemon: 401 without the token, say
                    raise _Refused(envelope) from None
                self._http_only = True
                return None
            except InvalidHandshake:
                # Not a WebSocket answer at all (or a daemon stopping mid-handshake): this call
                # goes over HTTP, which says what is on the port; the next one tries again.
                return None
            # TCP_NODELAY: each frame goes out at once rather than after Nagle's wait.
            sock = ws.transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._link = _Link(ws)
            return self._link

    async def _over_http(
        self, method: CallMethod, params: dict[str, Any] | None, timeout: float
    ) -> dict[str, Any]:
        verb, path = _ROUTES[method]
        body = json.dumps(params or {}) if verb == "POST" else None
        return await self.request(verb, path, content=body, timeout=timeout)

    async def request(
        self,
        method: str,
        path: str,
        *,
        content: str | None = None,
        timeout: float = SHORT_TIMEOUT_S,
    ) -> dict[str, Any]:
        """One call to the daemon: its envelope, or a ``daemon_unreachable`` failure envelope."""
        where = self._where
        try:
            response = await self._http.request(
                method,
                path,
                content=content,
                headers={"content-type": "application/json"} if content is not None else None,
                timeout=timeout,
            )
        except httpx.ConnectError:
            return not_running(where)
        except httpx.TimeoutException:
            return no_answer(where, path, timeout)
        except httpx.HTTPError as exc:
            return broke(where, f"{path} ({type(exc).__name__})")
        body = loads(response.content)
        if not is_envelope(body):
            return not_tabpilot(where, f"HTTP {response.status_code}")
        return dict(body)


#: The HTTP route that does what each call does: its method, and its path.
_ROUTES: dict[str, tuple[str, str]] = {
    "tabs": ("GET", "/tabs"),
    "status": ("GET", "/status"),
    "ping": ("POST", "/ping"),
    **{name: ("POST", f"/{name}") for name in TOOLS},
}


#: What _call_on_socket answers when the daemon is called over HTTP.
_NO_SOCKET = object()


class _Refused(Exception):
    """The daemon refused the socket's handshake with an envelope of its own."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        super().__init__(envelope)
        self.envelope = envelope
