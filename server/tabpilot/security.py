"""Refuse what a web page could send us, and give every request an id.

A pure ASGI middleware, because ``@app.middleware("http")`` never sees WebSocket handshakes and the
WebSocket is exactly what a hostile page would like to reach.

- Host must be 127.0.0.1, localhost or [::1], with or without a port: a DNS-rebinding page reaches
  127.0.0.1 under its own name, so its Host header gives it away.
- No web page may call the daemon. Browsers send ``Origin`` on every cross-origin request and on
  every POST, including the "simple" text/plain and form posts that skip CORS preflight, so an
  http(s) Origin (or the opaque ``null`` of a sandboxed frame or a data: page) is refused.
- The WebSocket takes only ``chrome-extension://`` origins.
"""

from __future__ import annotations

import logging
import re
import secrets
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabpilot.envelope import REQUEST_ID_HEADER, dumps, failure_body
from tabpilot.errors import ForbiddenHost, ForbiddenOrigin, TabpilotError

log = logging.getLogger(__name__)

ALLOWED_HOSTNAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
EXTENSION_ORIGIN_PREFIX = "chrome-extension://"
_HOST_RE = re.compile(r"^(?P<name>\[[^\]]*\]|[^:\[\]]*)(?::(?P<port>\d{1,5}))?$")
_HEADER_NAME = REQUEST_ID_HEADER.lower().encode()


def new_request_id() -> str:
    """A fresh request id: 16 hex characters."""
    return secrets.token_hex(8)


def host_allowed(host: str | None) -> bool:
    """Whether a Host header names the loopback interface (any port, or none)."""
    if not host:
        return False
    match = _HOST_RE.match(host.strip().lower())
    return match is not None and match["name"] in ALLOWED_HOSTNAMES


def origin_refused(origin: str | None, *, websocket: bool) -> bool:
    """Whether a request with this Origin comes from somewhere the daemon must not serve."""
    if websocket:
        # Only the extension's service worker may hold the socket; Chrome always sends its
        # Origin on a WebSocket handshake, so a missing one is some other client.
        return not (origin or "").lower().startswith(EXTENSION_ORIGIN_PREFIX)
    if origin is None:
        return False  # curl, scripts, the CLI: no browser, no Origin
    return not origin.lower().startswith(EXTENSION_ORIGIN_PREFIX)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


class SecurityMiddleware:
    """Host and Origin checks for HTTP and WebSocket, and an X-Request-ID on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = new_request_id()
        # Starlette's request.state reads scope["state"]; uvicorn puts the lifespan state there.
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id
        is_ws = scope["type"] == "websocket"

        error: TabpilotError | None = None
        if not host_allowed(_header(scope, b"host")):
            error = ForbiddenHost()
        elif origin_refused(_header(scope, b"origin"), websocket=is_ws):
            error = ForbiddenOrigin(
                "Only the tabpilot extension (a chrome-extension:// origin) may open the WebSocket."
                if is_ws
                else None
            )
        if error is not None:
            log.warning(
                "refused %s %s: %s (host=%r origin=%r)",
                scope["type"],
                scope.get("path"),
                error.code,
                _header(scope, b"host"),
                _header(scope, b"origin"),
            )
            await _refuse(scope, receive, send, request_id, error)
            return

        if is_ws:
            await self.app(scope, receive, send)
            return

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k != _HEADER_NAME]
                headers.append((_HEADER_NAME, request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_id)


async def _refuse(
    scope: Scope, receive: Receive, send: Send, request_id: str, error: TabpilotError
) -> None:
    body = dumps(failure_body(request_id, error))
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (_HEADER_NAME, request_id.encode()),
    ]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": error.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    # A WebSocket handshake: answer it with a plain HTTP response where the server supports the
    # ASGI denial-response extension (uvicorn does), else a close before accept, which servers
    # turn into HTTP 403.
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if "websocket.http.response" in scope.get("extensions", {}):
        await send(
            {"type": "websocket.http.response.start", "status": error.status, "headers": headers}
        )
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})
