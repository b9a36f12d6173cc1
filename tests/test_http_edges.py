"""The edges of the daemon's HTTP: paths with a trailing slash, malformed requests, and bodies
that only say their size as they arrive. Against a scripted fake extension."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import uvicorn

from tabpilot.config import Settings
from tabpilot.http.app import bind_socket, create_app
from tabpilot.http.protocols import EnvelopeH11Protocol
from tests.support import Command, Daemon, Reply, connected, echo, ok, run_daemon

#: Small, so that bodies past the limit are cheap to send; the reading is the same at 1 MiB.
SCRIPT_LIMIT = 1000


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon(max_script_bytes=SCRIPT_LIMIT) as running:
        yield running


async def echo_or_pong(command: Command) -> Reply:
    return ok("pong", "string") if command.command == "ping" else await echo(command)


#: (method, path, body, HTTP status, the result or the error code)
SLASHED = [
    ("POST", "/execute_javascript/", {"script": "slashed"}, 200, "slashed"),
    ("POST", "/execute_javascript//", {"script": "twice"}, 200, "twice"),
    ("POST", "/ping/", {}, 200, "pong"),
    ("GET", "/tabs/", None, 200, None),
    ("GET", "/status/", None, 200, None),
    ("GET", "/health/", None, 200, None),
    ("GET", "/execute_javascript/", None, 405, "method_not_allowed"),
    ("POST", "/nowhere/", None, 404, "not_found"),
    ("POST", "/execute_javascript/extra", None, 404, "not_found"),
]


@pytest.mark.parametrize(("method", "path", "body", "status", "expected"), SLASHED)
async def test_a_trailing_slash_answers_like_the_route_never_a_redirect(
    daemon: Daemon,
    client: httpx.AsyncClient,
    method: str,
    path: str,
    body: dict[str, str] | None,
    status: int,
    expected: str | None,
) -> None:
    async with connected(daemon, echo_or_pong):
        response = await client.request(method, path, json=body)
    assert response.status_code == status, response.text
    answer = response.json()
    assert response.headers["x-request-id"] == answer["request_id"]
    assert answer["success"] is (status == 200)
    if status != 200:
        assert answer["error"]["code"] == expected
    elif expected is not None:
        assert answer["result"] == expected


async def _chunked(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def test_a_chunked_body_past_the_limit_is_413_and_the_connection_serves_on(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    limit = daemon.settings.max_body_bytes
    part = b"x" * 4096
    parts = [b'{"script": "'] + [part] * (limit // len(part) + 2)
    response = await client.post("/execute_javascript", content=_chunked(*parts))
    assert response.request.headers["transfer-encoding"] == "chunked"
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "script_too_large"
    assert f"{limit:,} bytes" in error["message"] and f"{SCRIPT_LIMIT:,} bytes" in error["message"]
    async with connected(daemon):
        after = await client.post("/execute_javascript", content=_chunked(b'{"script"', b': "ok"}'))
    assert after.status_code == 200 and after.json()["result"] == "ok"


async def test_a_content_length_past_the_limit_is_413_before_reading(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    body = b'{"script": "' + b"x" * daemon.settings.max_body_bytes + b'"}'
    response = await client.post("/ping", content=body)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "script_too_large"


async def test_mcp_bodies_are_bounded_too(daemon: Daemon, client: httpx.AsyncClient) -> None:
    limit = daemon.settings.max_body_bytes
    headers = {"Accept": "application/json, text/event-stream"}
    for content in (b"x" * (limit + 1), _chunked(*[b"x" * 4096] * (limit // 4096 + 2))):
        response = await client.post("/mcp", content=content, headers=headers)
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "script_too_large"
    # Within the limit, even chunked, the SDK reads the body as before.
    initialize = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": '
        b'"2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}'
    )
    response = await client.post(
        "/mcp",
        content=_chunked(initialize[:40], initialize[40:]),
        headers={**headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["result"]["serverInfo"]["name"] == "tabpilot"


MALFORMED = [
    ("garbage bytes", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 hello\r\n\r\n"),
    ("bad request line", b"GET /health HTTP/9.9 extra\r\nHost: 127.0.0.1\r\n\r\n"),
    ("bad header", b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nbad header line\r\n\r\n"),
    ("space in header name", b"GET /health HTTP/1.1\r\nHo st: 127.0.0.1\r\n\r\n"),
    (
        "bad chunk size",
        b"POST /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ),
    (
        "two content lengths",
        b"POST /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    ),
]


def _raw_exchange(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(data)
        answer = b""
        while chunk := conn.recv(65536):  # the daemon closes after its answer
            answer += chunk
    return answer


def assert_malformed_answer(answer: bytes) -> None:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 400 Bad Request", answer
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    envelope = json.loads(body)
    assert envelope["success"] is False
    assert envelope["error"]["code"] == "invalid_request"
    assert "HTTP/1.1" in envelope["error"]["message"]
    assert headers["x-request-id"] == envelope["request_id"]


@pytest.mark.parametrize(("name", "data"), MALFORMED, ids=[m[0] for m in MALFORMED])
async def test_malformed_http_gets_the_envelope_with_a_request_id(
    daemon: Daemon, client: httpx.AsyncClient, name: str, data: bytes
) -> None:
    answer = await asyncio.to_thread(_raw_exchange, daemon.settings.port, data)
    assert_malformed_answer(answer)
    assert (await client.get("/health")).status_code == 200


def test_the_h11_protocol_answers_in_the_envelope_too() -> None:
    """Where httptools is not installed, uvicorn's h11 protocol serves, with the same answer."""
    settings = dataclasses.replace(Settings.from_env(), port=0)
    sock = bind_socket(settings)
    config = uvicorn.Config(create_app(settings), http=EnvelopeH11Protocol, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive()
            time.sleep(0.01)
        assert_malformed_answer(_raw_exchange(sock.getsockname()[1], MALFORMED[1][1]))
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.mark.parametrize(
    ("path", "headers", "status", "reason"),
    [
        ("/ws/calls", b"Sec-WebSocket-Version: 13\r\n", 400, "Sec-WebSocket-Key"),
        ("/ws", b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", 400, "Sec-WebSocket-Version"),
        (
            "/ws/calls",
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n",
            400,
            "invalid Sec-WebSocket-Version header: 8",
        ),
    ],
)
async def test_a_broken_websocket_handshake_gets_the_envelope(
    daemon: Daemon, client: httpx.AsyncClient, path: str, headers: bytes, status: int, reason: str
) -> None:
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\n".encode()
        + headers
        + b"\r\n"
    )
    answer = await asyncio.to_thread(_raw_exchange, daemon.settings.port, request)
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0].startswith(f"HTTP/1.1 {status} "), answer
    names = [line.split(": ", 1)[0].lower() for line in lines[1:]]
    assert len(names) == len(set(names)), head  # each header once
    fields = dict(line.lower().split(": ", 1) for line in lines[1:])
    assert int(fields["content-length"]) == len(body)
    envelope = json.loads(body)
    assert fields["content-type"] == "application/json"
    assert fields["x-request-id"] == envelope["request_id"]
    assert envelope["error"]["code"] == "invalid_request"
    assert reason in envelope["error"]["message"]
    assert (await client.get("/health")).status_code == 200
