"""tabpilot's Python client: ``tabpilot.Client`` (blocking) and ``tabpilot.AsyncClient``.

Both speak over the daemon's callers' socket (``/ws/calls``, docs/protocol.md §6): one WebSocket,
opened on the first call and again after the daemon restarts, one frame each way per call. A call
returns the envelope's ``result`` as plain Python data, and raises :class:`ClientError` (code,
message, data, request_id) for any failure, the daemon's or the client's own
(``daemon_unreachable``). With ``guard``, an answer past its limit comes as a :class:`Preview`.

The methods are written once, in :mod:`tabpilot.client.methods`, one per tool of
:data:`tabpilot.tools.TOOLS`; each client here supplies ``_call``: how a call travels.

The blocking client writes a frame and reads its answer on the calling thread, one call at a time
under a lock (:mod:`tabpilot.client.blocking_socket`): no event loop and no thread hop in the path
of a call.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Awaitable
from types import TracebackType
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from tabpilot.client.blocking_socket import BlockingSocket
from tabpilot.client.connection import (
    CLIENT_SLACK_S,
    SHORT_TIMEOUT_S,
    AsyncClosing,
    DaemonClient,
)
from tabpilot.client.methods import ClientError, Preview, result_of
from tabpilot.client.tool_methods import _Methods
from tabpilot.client.unreachable import broke, is_envelope, no_answer, not_running, not_tabpilot
from tabpilot.config import client_headers
from tabpilot.envelope import failure_body
from tabpilot.ids import new_request_id
from tabpilot.protocol import CALLS_PATH, CallMethod, loads
from tabpilot.tools import TOOLS, Tool
from tabpilot.tools.screenshot import image_bytes


def _timeout(method: CallMethod, params: dict[str, Any]) -> float:
    """Seconds to wait for a call: the daemon answers at the tool's own timeout plus its grace."""
    tool = TOOLS.get(method)
    if tool is None:
        return SHORT_TIMEOUT_S
    return tool.timeout(_Fields(tool, params)) + CLIENT_SLACK_S


class _Fields:
    """The params as given, the model's defaults for the rest: what a tool's timeout rule reads.
    A tenth of the cost of ``model_construct``, on every call."""

    def __init__(self, tool: Tool, given: dict[str, Any]) -> None:
        self._tool = tool
        self._given = given

    def __getattr__(self, name: str) -> Any:
        if name in self._given:
            return self._given[name]
        return self._tool.params.model_fields[name].default


class Client(_Methods[Any]):
    """The daemon on 127.0.0.1, called from plain (blocking) code; one call at a time.

    ``port`` and ``token`` default to TABPILOT_PORT and the token (TABPILOT_TOKEN or the token
    file), as the CLI reads them. ``guard``: True (each tool's limit) or a number of characters
    (200 to 1,000,000) asks the large-output guard on every tool call: an answer past it comes as
    a :class:`Preview`, and :meth:`rest` fetches the rest. ``context`` names the browser context
    every call runs in (tabpilot.browsers.contexts); without it, the client's own active context,
    which :meth:`context_switch` moves. Use it as a context manager, or call :meth:`close`.
    """

    def _start(self, context: str | None) -> None:
        #: The context every call names; None: this client's active one (:meth:`context_switch`
        #: moves it), else the daemon's default context.
        self.context = context
        self._ws: BlockingSocket | None = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the socket; the next call opens a new one."""
        with self._lock:
            self._drop()

    def _image(self, result: Any) -> bytes | Preview:
        return result if isinstance(result, Preview) else image_bytes(result)

    def _call(self, method: CallMethod, params: dict[str, Any]) -> Any:
        timeout = _timeout(method, params)
        with self._lock:
            envelope = self._round_trip(method, params, timeout)
        return result_of(envelope, method)

    def envelope(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One call's whole envelope, as its HTTP route answers it, a failure's included: never
        raises. ``method`` is a tool's name (``browser_read``) or ``status``; a daemon that does
        not answer is a failure with the code ``daemon_unreachable``."""
        params = params or {}
        with self._lock:
            try:
                return self._round_trip(method, params, _timeout(method, params))
            except ClientError as error:  # no socket: no daemon there, or it refused (401)
                return failure_body(error.request_id or new_request_id(), error)

    def _round_trip(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        where = f"{self.settings.host}:{self.settings.port}"
        call_id = next(self._ids)
        frame: dict[str, Any] = {"type": "call", "id": call_id, "method": method, "params": params}
        if self.context is not None:
            frame["context"] = self.context
        text = json.dumps(frame, ensure_ascii=False)
        deadline = time.monotonic() + timeout
        if self._ws is not None and not self._ws.alive():
            self._drop()
        for attempt in range(2):
            ws = self._ws or self._open(where)
            try:
                ws.send(text)
                break
            except (ConnectionClosed, OSError):
                # Not sent: the daemon restarted since the last call. Once more, on a new socket.
                self._drop()
                if attempt:
                    return broke(where, method)
        while True:
            try:
                message = ws.recv(deadline - time.monotonic())
            except TimeoutError:
                return no_answer(where, f"the {method} call", timeout)
            except ConnectionClosed:
                self._drop()
                return broke(where, f"the {method} call")
            answer = loads(message)
            # An answer to an earlier call that timed out is skipped: ids tell them apart.
            if isinstance(answer, dict) and answer.get("id") == call_id:
                envelope = answer.get("envelope")
                if not isinstance(envelope, dict) or not is_envelope(envelope):
                    return not_tabpilot(where, "its answer was not an envelope")
                return dict(envelope)

    def _drop(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            ws.close()

    def _open(self, where: str) -> BlockingSocket:
        url = f"ws://{self.settings.host}:{self.settings.port}{CALLS_PATH}"
        try:
            ws = BlockingSocket.open(url, client_headers(self.settings), SHORT_TIMEOUT_S)
        except InvalidStatus as exc:
            envelope = loads(bytes(exc.response.body or b""))
            if is_envelope(envelope):  # refused by the daemon: 401 without the token, say
                raise ClientError.from_envelope(envelope) from None
            raise ClientError.from_envelope(not_tabpilot(where, "no /ws/calls")) from None
        except (InvalidHandshake, TimeoutError):
            raise ClientError.from_envelope(not_tabpilot(where, "no WebSocket")) from None
        except OSError:
            raise ClientError.from_envelope(not_running(where)) from None
        self._ws = ws
        return ws


class AsyncClient(AsyncClosing, _Methods[Awaitable[Any]]):
    """The daemon on 127.0.0.1, called from asyncio code; calls may run concurrently.

    ``port``, ``token``, ``guard`` and ``context`` as for :class:`Client`. Use it as an async
    context manager, or await :meth:`aclose`.
    """

    def _start(self, context: str | None) -> None:
        self._daemon = DaemonClient(self.settings, context=context)

    async def aclose(self) -> None:
        """Close the socket."""
        await self._daemon.aclose()

    async def _call(self, method: CallMethod, params: dict[str, Any]) -> Any:
        envelope = await self._daemon.call(method, params, timeout=_timeout(method, params))
        return result_of(envelope, method)

    async def envelope(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One call's whole envelope, as :meth:`Client.envelope` answers it."""
        params = params or {}
        return await self._daemon.call(method, params, timeout=_timeout(method, params))

    async def _image(self, result: Awaitable[Any]) -> bytes | Preview:
        answer = await result
        return answer if isinstance(answer, Preview) else image_bytes(answer)


__all__ = ["AsyncClient", "Client", "ClientError", "Preview"]
