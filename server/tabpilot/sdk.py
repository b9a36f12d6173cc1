"""tabpilot's Python client: ``tabpilot.Client`` (blocking) and ``tabpilot.AsyncClient``.

Both speak over the daemon's callers' socket (``/ws/calls``, docs/protocol.md §6): one WebSocket,
opened on the first call and again after the daemon restarts, one frame each way per call. A call
returns the envelope's ``result`` as plain Python data, and raises :class:`ClientError` (code,
message, data, request_id) for any failure, the daemon's or the client's own
(``daemon_unreachable``).

The methods are written once, in :class:`_Methods`, one per tool of :data:`tabpilot.tools.TOOLS`
(tests/test_public_client.py checks each against its params model); each client supplies
``_call``.

The blocking client writes a frame and reads its answer on the calling thread, one call at a time
under a lock (:mod:`tabpilot.sync_socket`): no event loop and no thread hop in the path of a call.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Awaitable
from types import TracebackType
from typing import Any, Generic, Literal, TypeVar

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from tabpilot.client import (
    CLIENT_SLACK_S,
    SHORT_TIMEOUT_S,
    DaemonClient,
    _broke,
    _is_envelope,
    _no_answer,
    _not_running,
    _not_tabpilot,
)
from tabpilot.config import Settings, client_headers
from tabpilot.errors import TabpilotError, error_for_code
from tabpilot.log_params import RequestType
from tabpilot.protocol import CALLS_PATH, CallMethod, loads
from tabpilot.screenshot import image_bytes
from tabpilot.sync_socket import BlockingSocket
from tabpilot.tools import TOOLS, Tool

R = TypeVar("R")


class ClientError(TabpilotError):
    """A call failed: ``code`` and ``message`` say why and what to do, as the API table does.

    ``data`` holds the error's details where it has some (navigation_failed's reason, say),
    ``request_id`` the daemon's id of the call, ``status`` the HTTP status the route would have
    answered.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int = 500,
        data: Any = None,
        request_id: str | None = None,
        stack: str | None = None,
    ) -> None:
        super().__init__(code, message, status, stack)
        self.data = data
        self.request_id = request_id

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    @classmethod
    def from_envelope(cls, envelope: dict[str, Any]) -> ClientError:
        """The error of a failure envelope."""
        error = envelope.get("error") or {}
        code = str(error.get("code") or "internal_error")
        known = error_for_code(code)
        return cls(
            code,
            str(error.get("message") or code),
            status=known.status if known is not None else 503,
            data=error.get("data"),
            request_id=envelope.get("request_id"),
            stack=error.get("stack"),
        )


def result_of(envelope: dict[str, Any]) -> Any:
    """An envelope's result; raises ClientError for a failure envelope."""
    if envelope.get("success"):
        return envelope.get("result")
    raise ClientError.from_envelope(envelope)


def _timeout(method: CallMethod, params: dict[str, Any]) -> float:
    """Seconds to wait for a call: the daemon answers at the tool's own timeout plus its grace."""
    tool = TOOLS.get(method)
    if tool is None:
        return SHORT_TIMEOUT_S
    return tool.timeout_s(_Fields(tool, params)) + CLIENT_SLACK_S


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


def _given(**fields: Any) -> dict[str, Any]:
    # None leaves a field out, so the daemon applies the default its params model documents.
    return {name: value for name, value in fields.items() if value is not None}


class _Methods(Generic[R]):
    """The calls, once for both clients: ``R`` is the result, or an awaitable of it."""

    def _call(self, method: CallMethod, params: dict[str, Any]) -> R:
        raise NotImplementedError

    def execute(
        self,
        script: str,
        *,
        ref: str | None = None,
        timeout_ms: int | None = None,
        await_promise: bool | None = None,
        tab_id: int | None = None,
        dialog: Literal["accept", "dismiss"] | None = None,
        prompt_text: str | None = None,
    ) -> R:
        """Run ``script`` in a tab; its result (JSON-safe data). With ``ref``, ``script`` is a
        function called with that element: ``"(el) => el.value"``."""
        fields = _given(
            script=script,
            ref=ref,
            timeout_ms=timeout_ms,
            await_promise=await_promise,
            tab_id=tab_id,
            dialog=dialog,
            prompt_text=prompt_text,
        )
        return self._call("execute_javascript", fields)

    def navigate(
        self,
        url: str | None = None,
        *,
        action: Literal["goto", "back", "forward", "reload"] | None = None,
        tab_id: int | None = None,
        timeout_ms: int | None = None,
    ) -> R:
        """Load ``url`` (or go back, forward, reload) and wait for it: ``{url, title, status}``."""
        fields = _given(url=url, action=action, tab_id=tab_id, timeout_ms=timeout_ms)
        return self._call("browser_navigate", fields)

    def snapshot(
        self,
        *,
        ref: str | None = None,
        interactive_only: bool | None = None,
        max_chars: int | None = None,
        tab_id: int | None = None,
    ) -> R:
        """The page's accessibility tree with refs: ``{snapshot, refs, chars, truncated}``."""
        fields = _given(
            ref=ref, interactive_only=interactive_only, max_chars=max_chars, tab_id=tab_id
        )
        return self._call("browser_snapshot", fields)

    def act(
        self,
        kind: Literal["click", "type", "press", "scroll", "hover", "select", "check", "uncheck"],
        ref: str | None = None,
        *,
        text: str | None = None,
        key: str | None = None,
        direction: Literal["up", "down", "left", "right"] | None = None,
        amount: int | None = None,
        submit: bool | None = None,
        values: list[str] | None = None,
        trusted: bool | None = None,
        tab_id: int | None = None,
        timeout_ms: int | None = None,
    ) -> R:
        """One action on the element ``ref``: ``{description, route, navigated, url, new_tabs}``."""
        fields = _given(
            kind=kind,
            ref=ref,
            text=text,
            key=key,
            direction=direction,
            amount=amount,
            submit=submit,
            values=values,
            trusted=trusted,
            tab_id=tab_id,
            timeout_ms=timeout_ms,
        )
        return self._call("browser_act", fields)

    def read(
        self,
        *,
        ref: str | None = None,
        offset: int | None = None,
        limit: int | None = None,
        tab_id: int | None = None,
    ) -> R:
        """A slice of the page's visible text: ``{text, offset, total, more}``."""
        fields = _given(ref=ref, offset=offset, limit=limit, tab_id=tab_id)
        return self._call("browser_read", fields)

    def tabs(
        self,
        action: Literal["list", "new", "select", "close"] = "list",
        *,
        url: str | None = None,
        tab_id: int | None = None,
    ) -> R:
        """List the tabs, or open, select or close one."""
        return self._call("browser_tabs", _given(action=action, url=url, tab_id=tab_id))

    def console_messages(
        self,
        *,
        level: Literal["error", "warning", "info", "debug"] | None = None,
        since: int | None = None,
        limit: int | None = None,
        all_pages: bool | None = None,
        clear: bool | None = None,
        tab_id: int | None = None,
    ) -> R:
        """The tab's console messages: ``{messages, matched, total, shown, evicted, last_seq,
        page, pages, level, all_pages, cleared?}``; each message ``{seq, page, level, type, text,
        time, url?, line?, column?, stack?}``."""
        fields = _given(
            level=level, since=since, limit=limit, all_pages=all_pages, clear=clear, tab_id=tab_id
        )
        return self._call("browser_console_messages", fields)

    def network_requests(
        self,
        *,
        url: str | None = None,
        type: RequestType | None = None,
        status: str | None = None,
        include_static: bool | None = None,
        include_body: int | None = None,
        since: int | None = None,
        limit: int | None = None,
        all_pages: bool | None = None,
        clear: bool | None = None,
        tab_id: int | None = None,
    ) -> R:
        """The tab's network requests: ``{requests, matched, total, shown, hidden, evicted,
        last_seq, page, pages, all_pages, cleared?}``, each request ``{seq, page, request_id,
        method, url, type, status, start, duration, size, from_cache, failed, redirect_to?}``;
        with ``include_body``, ``{request, body: {text, size, truncated, cap, source, note?}}``."""
        fields = _given(
            url=url,
            type=type,
            status=status,
            include_static=include_static,
            include_body=include_body,
            since=since,
            limit=limit,
            all_pages=all_pages,
            clear=clear,
            tab_id=tab_id,
        )
        return self._call("browser_network_requests", fields)

    def close_browser(self) -> R:
        """Close the tabs the AI opened (and stop the daemon's managed browser):
        ``{closed_tabs, browser?}``."""
        return self._call("browser_close", {})

    def status(self) -> R:
        """The daemon, the extension, the AI Web Pilot switch, the managed browser."""
        return self._call("status", {})

    def screenshot(
        self,
        *,
        ref: str | None = None,
        full_page: bool | None = None,
        format: Literal["jpeg", "png"] | None = None,
        quality: int | None = None,
        max_size: int | None = None,
        tab_id: int | None = None,
        timeout_ms: int | None = None,
    ) -> Any:
        """The tab's viewport, one element (``ref``) or the whole page (``full_page``) as image
        bytes: JPEG by default, or ``format="png"``; at most ``max_size`` px on its long side
        (default 1568; 0: no scaling)."""
        fields = _given(
            ref=ref,
            full_page=full_page,
            format=format,
            quality=quality,
            max_size=max_size,
            tab_id=tab_id,
            timeout_ms=timeout_ms,
        )
        return self._image(self._call("browser_take_screenshot", fields))

    def define_function(self, name: str, source: str) -> R:
        """Define (or replace) the function ``name`` for eval_call_function, daemon-wide; the
        extension checks its syntax without running it: ``{name, replaced}``."""
        return self._call("eval_define_function", {"name": name, "source": source})

    def call_function(
        self,
        name: str,
        args_json: str | list[Any] | None = None,
        *,
        ref: str | None = None,
        tab_id: int | None = None,
        timeout_ms: int | None = None,
    ) -> R:
        """Call the defined function ``name`` in a tab with ``args_json`` (JSON text of the
        arguments' array, or a list, encoded here); with ``ref``, the element comes first. Its
        result, as :meth:`execute` answers."""
        if args_json is not None and not isinstance(args_json, str):
            args_json = json.dumps(args_json)
        fields = _given(
            name=name, args_json=args_json, ref=ref, tab_id=tab_id, timeout_ms=timeout_ms
        )
        return self._call("eval_call_function", fields)

    def list_functions(self) -> R:
        """The defined functions: ``{functions: [{name, first_line}], limit}``."""
        return self._call("eval_list_functions", {})

    def remove_function(self, name: str) -> R:
        """Remove the defined function ``name``: ``{name, removed}``."""
        return self._call("eval_remove_function", {"name": name})

    def _image(self, result: R) -> Any:
        raise NotImplementedError


class Client(_Methods[Any]):
    """The daemon on 127.0.0.1, called from plain (blocking) code; one call at a time.

    ``port`` and ``token`` default to TABPILOT_PORT and the token (TABPILOT_TOKEN or the token
    file), as the CLI reads them. Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, port: int | None = None, *, token: str | None = None) -> None:
        self.settings = Settings.from_env(port=port, token=token)
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

    def _image(self, result: Any) -> bytes:
        return image_bytes(result)

    def _call(self, method: CallMethod, params: dict[str, Any]) -> Any:
        timeout = _timeout(method, params)
        with self._lock:
            envelope = self._round_trip(method, params, timeout)
        return result_of(envelope)

    def _round_trip(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        where = f"{self.settings.host}:{self.settings.port}"
        call_id = next(self._ids)
        frame = {"type": "call", "id": call_id, "method": method, "params": params}
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
                    return _broke(where, method)
        while True:
            try:
                message = ws.recv(deadline - time.monotonic())
            except TimeoutError:
                return _no_answer(where, f"the {method} call", timeout)
            except ConnectionClosed:
                self._drop()
                return _broke(where, f"the {method} call")
            answer = loads(message)
            # An answer to an earlier call that timed out is skipped: ids tell them apart.
            if isinstance(answer, dict) and answer.get("id") == call_id:
                envelope = answer.get("envelope")
                if not isinstance(envelope, dict) or not _is_envelope(envelope):
                    return _not_tabpilot(where, "its answer was not an envelope")
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
            if _is_envelope(envelope):  # refused by the daemon: 401 without the token, say
                raise ClientError.from_envelope(envelope) from None
            raise ClientError.from_envelope(_not_tabpilot(where, "no /ws/calls")) from None
        except (InvalidHandshake, TimeoutError):
            raise ClientError.from_envelope(_not_tabpilot(where, "no WebSocket")) from None
        except OSError:
            raise ClientError.from_envelope(_not_running(where)) from None
        self._ws = ws
        return ws


class AsyncClient(_Methods[Awaitable[Any]]):
    """The daemon on 127.0.0.1, called from asyncio code; calls may run concurrently.

    ``port`` and ``token`` as for :class:`Client`. Use it as an async context manager, or await
    :meth:`aclose`.
    """

    def __init__(self, port: int | None = None, *, token: str | None = None) -> None:
        self.settings = Settings.from_env(port=port, token=token)
        self._daemon = DaemonClient(self.settings)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the socket."""
        await self._daemon.aclose()

    async def _call(self, method: CallMethod, params: dict[str, Any]) -> Any:
        envelope = await self._daemon.call(method, params, timeout=_timeout(method, params))
        return result_of(envelope)

    async def _image(self, result: Awaitable[Any]) -> bytes:
        return image_bytes(await result)
