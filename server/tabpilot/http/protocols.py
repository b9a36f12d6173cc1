"""uvicorn's protocols as the daemon runs them: what is not HTTP gets the envelope, and frames on
the callers' socket pass the frame gate.

uvicorn answers bytes it cannot parse (a bad request line, a bad header, garbage) itself, before
any ASGI app runs, with a plain-text "Invalid HTTP request received."; the websockets library
answers a broken WebSocket handshake (no Sec-WebSocket-Key, say) in plain text too. The daemon
promises one JSON envelope and an X-Request-ID on every answer, so its protocols override just
those answers; the parsing and everything after it are uvicorn's own, at the same speed.
"""

from __future__ import annotations

import asyncio
import http
from typing import Any, ClassVar, cast

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from tabpilot.envelope import REQUEST_ID_HEADER, dumps, failure_body
from tabpilot.errors import InvalidRequest
from tabpilot.http.frame_gate import OVERSIZED, FrameGate, Oversized
from tabpilot.ids import new_request_id
from tabpilot.protocol import CALLS_PATH

MALFORMED_HTTP = (
    "Invalid request: the daemon could not read it as HTTP/1.1 (a bad request line, header or "
    "body framing). Send a well-formed request, e.g. with curl or an HTTP library; see /docs."
)


def _invalid(message: str) -> tuple[str, bytes]:
    request_id = new_request_id()
    return request_id, dumps(failure_body(request_id, InvalidRequest(message)))


def malformed_http_response(default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The whole HTTP 400 answer to unparsable bytes, as written to the socket before it closes."""
    request_id, body = _invalid(MALFORMED_HTTP)
    headers = [
        *default_headers,
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (REQUEST_ID_HEADER.encode(), request_id.encode()),
        (b"connection", b"close"),
    ]
    lines = [b"HTTP/1.1 400 Bad Request"] + [name + b": " + value for name, value in headers]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class _EnvelopeOn400:
    """Mixed into a uvicorn HTTP protocol: its answer to unparsable bytes is the envelope."""

    transport: asyncio.Transport
    server_state: ServerState

    def send_400_response(self, msg: str) -> None:
        self.transport.write(malformed_http_response(self.server_state.default_headers))
        self.transport.close()


class EnvelopeH11Protocol(_EnvelopeOn400, H11Protocol):
    """uvicorn's h11 protocol, answering a request it cannot parse in the envelope."""


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is not installed: uvicorn's "auto" would pick h11 too
    HTTP_PROTOCOL: type[asyncio.Protocol] = EnvelopeH11Protocol
else:

    class EnvelopeHttpToolsProtocol(_EnvelopeOn400, HttpToolsProtocol):
        """uvicorn's httptools protocol, answering a request it cannot parse in the envelope."""

    HTTP_PROTOCOL = EnvelopeHttpToolsProtocol


class _EnvelopeServerProtocol(ServerProtocol):
    """The websockets library's handshake, refusing a broken one in the envelope."""

    def reject(self, status: http.HTTPStatus | int, text: str) -> Response:
        response = super().reject(status, text)
        if response.status_code not in (400, 426):  # a broken handshake; 403, 500 are uvicorn's
            return response
        reason = text.splitlines()[0].removeprefix("Failed to open a WebSocket connection: ")
        reason = reason.rstrip(".")
        request_id, body = _invalid(
            f"Invalid request: not a WebSocket handshake the daemon can accept ({reason}). "
            "Open the socket with a WebSocket client; see docs/protocol.md."
        )
        kept = [
            (name, value)
            for name, value in response.headers.raw_items()
            if name.lower() not in ("content-type", "content-length")
        ]
        headers = Headers(
            [
                *kept,
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                (REQUEST_ID_HEADER, request_id),
            ]
        )
        return Response(response.status_code, response.reason_phrase, headers, body)


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol: a broken handshake is refused in the envelope, and the
    frames of ``/ws/calls`` pass a :class:`~tabpilot.http.frame_gate.FrameGate`."""

    #: The limit of a call frame: Settings.max_body_bytes (see :func:`websocket_protocol`).
    max_call_bytes: ClassVar[int]
    _gate: FrameGate | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        conn = self.conn
        self.conn = _EnvelopeServerProtocol(
            extensions=conn.available_extensions,
            max_size=self.config.ws_max_size,
            logger=conn.logger,
        )

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        accepted = self.response.status_code == 101
        if accepted and self.scope["path"].rstrip("/") == CALLS_PATH:
            self._gate = FrameGate(self.max_call_bytes)
            # Should a message get past the gate, the parser closes the socket (1009) rather
            # than read up to ws_max_size.
            self.conn.max_message_size = self.max_call_bytes

    def data_received(self, data: bytes) -> None:
        if self._gate is None:
            super().data_received(data)
            return
        for piece in self._gate.feed(data):
            if not isinstance(piece, Oversized):
                super().data_received(piece)
            elif not self.close_sent:
                message = {"type": "websocket.receive", "text": None, OVERSIZED: bytes(piece)}
                self.queue.put_nowait(cast(Any, message))


def websocket_protocol(max_call_bytes: int) -> type[WebSocketProtocol]:
    """The WebSocket protocol class for uvicorn's ``ws=``, with call frames bounded."""
    return type("WebSocketProtocol", (WebSocketProtocol,), {"max_call_bytes": max_call_bytes})
