"""The daemon's HTTP client: one envelope for every call, whatever happens to the daemon."""

from __future__ import annotations

import dataclasses
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tabpilot.client import DaemonClient
from tabpilot.config import Settings
from tabpilot.protocol import ExecuteParams
from tests.e2e.harness import free_port
from tests.support import connected, run_daemon


def _settings(port: int) -> Settings:
    return dataclasses.replace(Settings.from_env(), port=port)


class _NotTabpilot(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html>some other server</html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def _server(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def test_the_daemons_answers_pass_through() -> None:
    with run_daemon() as daemon:
        async with connected(daemon), DaemonClient(daemon.settings) as client:
            answer = await client.execute(ExecuteParams(script="document.title"))
            status = await client.status()
    assert (answer["success"], answer["result"]) == (True, "document.title")
    assert status["result"]["extension"]["connected"] is True


async def test_no_daemon() -> None:
    async with DaemonClient(_settings(free_port())) as client:
        answer = await client.list_tabs()
    assert answer["success"] is False
    assert answer["error"]["code"] == "daemon_unreachable"
    assert "tabpilot serve" in answer["error"]["message"]


async def test_another_server_on_the_port() -> None:
    with _server(_NotTabpilot) as port:
        async with DaemonClient(_settings(port)) as client:
            answer = await client.status()
    assert answer["error"]["code"] == "daemon_unreachable"
    assert "not a tabpilot daemon" in answer["error"]["message"]


async def test_a_daemon_that_never_answers_is_given_up_on() -> None:
    with socket.socket() as silent:  # accepts connections (backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        async with DaemonClient(_settings(silent.getsockname()[1])) as client:
            answer = await client.request("GET", "/status", timeout=0.3)
    assert answer["error"]["code"] == "daemon_unreachable"
    assert "did not answer /status within 0.3 s" in answer["error"]["message"]
