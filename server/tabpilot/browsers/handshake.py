"""The extension's handshake on ``/ws``: its first frame must be a valid hello of this protocol
version, with the daemon's token when it has one (docs/protocol.md §1); anything else closes the
socket with a code that says why."""

from __future__ import annotations

import asyncio
import logging

from pydantic import ValidationError
from starlette.websockets import WebSocket

from tabpilot.ids import token_matches
from tabpilot.protocol import (
    CLOSE_HELLO_EXPECTED,
    CLOSE_PROTOCOL_MISMATCH,
    CLOSE_UNAUTHORIZED,
    PROTOCOL_VERSION,
    ExtensionHello,
    loads,
    payload,
)

log = logging.getLogger(__name__)

#: A socket that opens and says nothing is not an extension; don't hold it forever.
HELLO_TIMEOUT_S = 10.0


async def read_hello(ws: WebSocket, token: str | None) -> ExtensionHello | None:
    """The extension's hello, the first frame of its socket; None once the socket was closed
    with the code that says why (no hello in time, not a hello, another protocol version, an
    invalid hello, a wrong or missing token)."""
    try:
        async with asyncio.timeout(HELLO_TIMEOUT_S):
            message = await ws.receive()
    except TimeoutError:
        await close_socket(ws, CLOSE_HELLO_EXPECTED, "hello_expected: no hello in time")
        return None
    if message["type"] == "websocket.disconnect":
        return None
    data = loads(payload(message))
    if not isinstance(data, dict) or data.get("type") != "hello":
        reason = "hello_expected: the first frame must be hello"
        await close_socket(ws, CLOSE_HELLO_EXPECTED, reason)
        return None
    version = data.get("protocol_version")
    if version != PROTOCOL_VERSION:
        reason = f"protocol_mismatch: daemon speaks {PROTOCOL_VERSION}, extension {version!r}"
        await close_socket(ws, CLOSE_PROTOCOL_MISMATCH, reason)
        return None
    try:
        hello = ExtensionHello.model_validate(data)
    except ValidationError as exc:
        reason = f"hello_expected: invalid hello ({exc.error_count()} errors)"
        await close_socket(ws, CLOSE_HELLO_EXPECTED, reason)
        return None
    if not token_matches(hello.token, token):
        log.warning("refused an extension: its hello has a wrong or no token")
        reason = "unauthorized: this daemon needs its token; set it in the tabpilot popup"
        await close_socket(ws, CLOSE_UNAUTHORIZED, reason)
        return None
    return hello


async def close_socket(ws: WebSocket, code: int, reason: str) -> None:
    """Close ``ws`` with ``code`` and ``reason``, cut to the 123 bytes RFC 6455 allows; never
    raises."""
    try:
        await ws.close(code, reason.encode()[:123].decode(errors="ignore"))
    except Exception as exc:  # already closed or the peer vanished: nothing left to do
        log.debug("closing a WebSocket failed: %s", exc)
