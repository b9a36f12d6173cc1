"""The test proxy: forwarding, CONNECT tunnels, Basic authentication, records, refusal."""

from __future__ import annotations

import base64
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from tests.proxy_server import ProxyServer


class _Origin(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"origin saw {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def origin() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Origin)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _exchange(port: int, request: bytes, then: bytes = b"") -> bytes:
    """Send `request`; once its head is answered, send `then` (as a client does in a tunnel)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        chunks = [sock.recv(65536)]
        while then and b"\r\n\r\n" not in chunks[0]:
            chunks[0] += sock.recv(65536)
        sock.sendall(then)
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_forwards_plain_http_and_records_it(origin: int) -> None:
    with ProxyServer() as proxy:
        answer = httpx.get(f"http://127.0.0.1:{origin}/a?b=1", proxy=proxy.url, timeout=5)
    assert answer.status_code == 200
    assert answer.text == "origin saw /a?b=1"
    [record] = proxy.records
    assert (record.method, record.host, record.port) == ("GET", "127.0.0.1", origin)
    assert record.url == f"http://127.0.0.1:{origin}/a?b=1"
    assert record.authorised and record.status == 200
    assert record.client[0] == "127.0.0.1"


def test_asks_for_credentials_then_lets_the_right_ones_through(origin: int) -> None:
    url = f"http://127.0.0.1:{origin}/secret"
    with ProxyServer(realm="r1") as proxy:
        assert httpx.get(url, proxy=proxy.url, timeout=5).status_code == 200
        proxy.require("alice", "s3cret")
        refused = httpx.get(url, proxy=proxy.url, timeout=5)
        wrong = httpx.get(url, proxy=f"http://alice:nope@127.0.0.1:{proxy.port}", timeout=5)
        allowed = httpx.get(url, proxy=proxy.authorised_url, timeout=5)
    assert refused.status_code == 407
    assert refused.headers["proxy-authenticate"] == 'Basic realm="r1"'
    assert wrong.status_code == 407
    assert allowed.status_code == 200 and allowed.text == "origin saw /secret"
    assert [(r.authorised, r.status) for r in proxy.records] == [
        (True, 200),
        (False, 407),
        (False, 407),
        (True, 200),
    ]


def test_tunnels_connect_after_authentication(origin: int) -> None:
    with ProxyServer(username="u", password="p") as proxy:
        challenge = _exchange(
            proxy.port, f"CONNECT 127.0.0.1:{origin} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        tunnelled = _exchange(
            proxy.port,
            (
                f"CONNECT 127.0.0.1:{origin} HTTP/1.1\r\nHost: x\r\n"
                f"Proxy-Authorization: {_basic('u', 'p')}\r\n\r\n"
            ).encode(),
            then=b"GET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
    assert challenge.startswith(b"HTTP/1.1 407")
    assert b'Proxy-Authenticate: Basic realm="tabpilot-test"' in challenge
    assert tunnelled.startswith(b"HTTP/1.1 200 Connection established")
    assert tunnelled.endswith(b"origin saw /through")
    assert [(r.method, r.host, r.port, r.url, r.authorised) for r in proxy.records] == [
        ("CONNECT", "127.0.0.1", origin, None, False),
        ("CONNECT", "127.0.0.1", origin, None, True),
    ]


def test_resolves_names_only_it_knows(origin: int) -> None:
    with ProxyServer(hosts={"site.test": "127.0.0.1"}) as proxy:
        answer = httpx.get(f"http://site.test:{origin}/named", proxy=proxy.url, timeout=5)
    assert answer.text == "origin saw /named"
    assert proxy.records[0].host == "site.test"


def test_answers_bad_requests_and_unreachable_targets_without_hanging() -> None:
    with ProxyServer() as proxy:
        origin_form = _exchange(proxy.port, b"GET /relative HTTP/1.1\r\nHost: x\r\n\r\n")
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))
        dead_port = dead.getsockname()[1]
        try:
            unreachable = httpx.get(f"http://127.0.0.1:{dead_port}/", proxy=proxy.url, timeout=5)
        finally:
            dead.close()
    assert origin_form.startswith(b"HTTP/1.1 400")
    assert unreachable.status_code == 502
    assert [r.status for r in proxy.records] == [400, 502]


def test_refuses_every_connection_when_told(origin: int) -> None:
    with ProxyServer() as proxy:
        assert httpx.get(f"http://127.0.0.1:{origin}/", proxy=proxy.url, timeout=5).is_success
        proxy.refuse()
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{origin}/", proxy=proxy.url, timeout=5)
    with ProxyServer(refuse=True) as refusing:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", refusing.port), timeout=5)
        assert refusing.records == []
