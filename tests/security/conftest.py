"""Fixtures of the hostile-input tests: the e2e ones (real daemon, Chromium and extension), a sink
server that records canary hits, and an attacker's site on an origin of its own."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.e2e.conftest import browser, daemon, page, pages  # noqa: F401

#: path -> a function of the query string that renders the page's HTML.
Site = dict[str, Callable[[], str]]


@dataclass
class Server:
    """A small HTTP server on 127.0.0.1 that serves `site` and records every request path."""

    site: Site = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)
    port: int = 0

    def origin(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}"

    def ran(self, marker: str = "/ran") -> list[str]:
        return [hit for hit in self.hits if hit.startswith(marker)]


def _serve(server: Server) -> Iterator[Server]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.hits.append(self.path)
            render = server.site.get(self.path.split("?")[0])
            data = (render() if render else "ok").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8" if render else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        do_POST = do_GET

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def sink() -> Iterator[Server]:
    """Records the canary: a script that ran anywhere in the browser requests /ran here."""
    yield from _serve(Server())


@pytest.fixture
def attacker() -> Iterator[Server]:
    """An attacker's web site, on an origin of its own; tests put pages in `attacker.site`."""
    yield from _serve(Server())
