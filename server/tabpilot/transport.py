"""uvicorn's HTTP protocols as the daemon runs them: a request that is not HTTP gets the envelope.

uvicorn answers bytes it cannot parse (a bad request line, a bad header, garbage) itself, before
any ASGI app runs, with a plain-text "Invalid HTTP request received.". The daemon promises one JSON
envelope and an X-Request-ID on every answer, so its protocols override just that answer; the
parsing and everything after it are uvicorn's own, at the same speed.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from tabpilot.envelope import REQUEST_ID_HEADER, dumps, failure_body
from tabpilot.errors import InvalidRequest
from tabpilot.security import new_request_id

MALFORMED_HTTP = (
    "Invalid request: the daemon could not read it as HTTP/1.1 (a bad request line, header or "
    "body framing). Send a well-formed request, e.g. with curl or an HTTP library; see /docs."
)


def malformed_http_response(default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The whole HTTP 400 answer to unparsable bytes, as written to the socket before it closes."""
    request_id = new_request_id()
    body = dumps(failure_body(request_id, InvalidRequest(MALFORMED_HTTP)))
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
