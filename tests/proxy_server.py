"""A small, real forward proxy for tests, standard library only.

It forwards plain HTTP (absolute-URI requests) and tunnels HTTPS through `CONNECT`. With
credentials set it answers 407 and `Proxy-Authenticate: Basic realm=...` until the right
`Proxy-Authorization` arrives. Every request is recorded, so that a test can check what passed
through it, whether it was authorised, and from where.

    with ProxyServer(username="u", password="p") as proxy:
        httpx.get("http://127.0.0.1:8000/", proxy=proxy.authorised_url)
        assert proxy.records[-1].authorised

`hosts` maps names that only the proxy can resolve (`{"site.test": "127.0.0.1"}`): a page that
loads from such a name has certainly gone through the proxy, never direct.

`refuse()` (or `ProxyServer(refuse=True)`) keeps the port bound but not listening, so every
connection to it is refused: the proxy of a test that checks there is no fallback to direct.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import select
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

#: Headers that belong to one hop and are never forwarded (RFC 9110 section 7.6.1).
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
_UPSTREAM_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class ProxyRecord:
    """One request the proxy received: `url` is None for a CONNECT tunnel."""

    method: str
    host: str
    port: int
    url: str | None
    authorised: bool
    client: tuple[str, int]
    status: int


class ProxyServer:
    """A threaded forward proxy on 127.0.0.1 and a free port; a context manager."""

    def __init__(
        self,
        username: str | None = None,
        password: str | None = None,
        realm: str = "tabpilot-test",
        hosts: dict[str, str] | None = None,
        refuse: bool = False,
    ) -> None:
        self.username = username
        self.password = password
        self.realm = realm
        self.hosts = dict(hosts or {})
        self._records: list[ProxyRecord] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._placeholder: socket.socket | None = None
        self._refuse_at_start = refuse
        self.port = 0

    # -- life cycle --------------------------------------------------------------------------

    def __enter__(self) -> ProxyServer:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        if self._refuse_at_start:
            self._placeholder = _bound_not_listening(0)
            self.port = self._placeholder.getsockname()[1]
            return
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), daemon=True, name="proxy"
        )
        self._thread.start()

    def refuse(self) -> None:
        """From now on, refuse every connection (the port stays bound, without a listener)."""
        self._close_server()
        if self._placeholder is None:
            self._placeholder = _bound_not_listening(self.port)

    def require(self, username: str, password: str) -> None:
        """From now on, answer 407 until these credentials come."""
        self.username, self.password = username, password

    def stop(self) -> None:
        """Stop serving and close every socket; safe to call twice."""
        self._close_server()
        if self._placeholder is not None:
            self._placeholder.close()
            self._placeholder = None

    def _close_server(self) -> None:
        self._stopping.set()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # -- what tests read ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def authorised_url(self) -> str:
        """The proxy's URL with its credentials, as httpx's `proxy=` takes it."""
        if self.username is None:
            return self.url
        return f"http://{self.username}:{self.password}@127.0.0.1:{self.port}"

    @property
    def records(self) -> list[ProxyRecord]:
        """A copy of every request recorded so far, in order of arrival."""
        with self._lock:
            return list(self._records)

    def clear(self) -> None:
        with self._lock:
            self._records.clear()

    # -- used by the handler -----------------------------------------------------------------

    def record(self, entry: ProxyRecord) -> None:
        with self._lock:
            self._records.append(entry)

    def is_authorised(self, header: str | None) -> bool:
        if self.username is None:
            return True
        if not header or not header.lower().startswith("basic "):
            return False
        try:
            decoded = base64.b64decode(header[6:].strip(), validate=True).decode()
        except (ValueError, UnicodeDecodeError):
            return False
        return decoded == f"{self.username}:{self.password}"

    def resolve(self, host: str) -> str:
        return self.hosts.get(host.lower(), host)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()


def _bound_not_listening(port: int) -> socket.socket:
    # A TCP socket that is bound but never listens makes Linux answer every SYN with a reset:
    # connections are refused at once, and no other program can take the port meanwhile.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    return sock


def _handler_for(proxy: ProxyServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_ProxyHandler):
        owner = proxy

    return Handler


class _ProxyHandler(BaseHTTPRequestHandler):
    owner: ProxyServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle(self) -> None:
        # A browser drops connections it no longer needs (a 407 it will retry on a fresh one, a
        # tab closed mid-load): that is no error of the proxy's.
        with contextlib.suppress(ConnectionError, TimeoutError):
            super().handle()

    def _record(self, host: str, port: int, url: str | None, authorised: bool, status: int) -> None:
        client = (str(self.client_address[0]), int(self.client_address[1]))
        self.owner.record(ProxyRecord(self.command, host, port, url, authorised, client, status))

    def _plain_answer(self, status: int, body: str, extra: dict[str, str] | None = None) -> None:
        headers = [*(extra or {}).items(), ("Content-Type", "text/plain; charset=utf-8")]
        self._answer(status, None, headers, body.encode())

    def _answer(
        self, status: int, reason: str | None, headers: list[tuple[str, str]], data: bytes
    ) -> None:
        """Answer with `data` as the whole body, then close the connection."""
        self.send_response(status, reason)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.close_connection = True

    def _authorised(self, host: str, port: int, url: str | None) -> bool:
        if self.owner.is_authorised(self.headers.get("Proxy-Authorization")):
            return True
        self._record(host, port, url, False, 407)
        challenge = {"Proxy-Authenticate": f'Basic realm="{self.owner.realm}"'}
        # The body must be read (or the connection dropped) before the client may retry on it.
        self._discard_body()
        self._plain_answer(407, "proxy authentication required", challenge)
        return False

    def _discard_body(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)

    def do_CONNECT(self) -> None:
        host, _, port_text = self.path.rpartition(":")
        if not host or not port_text.isdigit():
            self._record(self.path, 0, None, False, 400)
            self._plain_answer(400, "CONNECT needs host:port")
            return
        host, port = host.strip("[]"), int(port_text)
        if not self._authorised(host, port, None):
            return
        try:
            upstream = socket.create_connection(
                (self.owner.resolve(host), port), timeout=_UPSTREAM_TIMEOUT_S
            )
        except OSError as error:
            self._record(host, port, None, True, 502)
            self._plain_answer(502, f"cannot reach {host}:{port}: {error}")
            return
        self._record(host, port, None, True, 200)
        self.send_response(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        with upstream:
            self._relay(self.connection, upstream)

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        sockets = [client, upstream]
        while not self.owner.stopping:
            readable, _, broken = select.select(sockets, [], sockets, 0.5)
            if broken:
                return
            for source in readable:
                try:
                    data = source.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                (upstream if source is client else client).sendall(data)

    def _forward(self) -> None:
        parts = urlsplit(self.path)
        if parts.scheme != "http" or not parts.hostname:
            self._record("", 0, self.path, False, 400)
            self._plain_answer(400, "a proxy request needs an absolute http:// URI")
            return
        host, port = parts.hostname, parts.port or 80
        if not self._authorised(host, port, self.path):
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        target = parts.path or "/"
        if parts.query:
            target += f"?{parts.query}"
        upstream = http.client.HTTPConnection(
            self.owner.resolve(host), port, timeout=_UPSTREAM_TIMEOUT_S
        )
        try:
            upstream.request(self.command, target, body=body, headers=headers)
            response = upstream.getresponse()
            data = response.read()
        except OSError as error:
            self._record(host, port, self.path, True, 502)
            self._plain_answer(502, f"cannot reach {host}:{port}: {error}")
            return
        finally:
            upstream.close()
        self._record(host, port, self.path, True, response.status)
        passed = [
            (name, value)
            for name, value in response.getheaders()
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length"
        ]
        self._answer(response.status, response.reason, passed, data)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = _forward
