"""The daemon's client: one envelope for every call, over the callers' socket or HTTP, whatever
happens to the daemon."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fastapi import FastAPI

from tabpilot.client.connection import DaemonClient
from tabpilot.config import Settings
from tabpilot.protocol import CALLS_PATH
from tabpilot.tools.script import ExecuteParams
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


def _without_route(path: str) -> Callable[[FastAPI], None]:
    def configure(app: FastAPI) -> None:
        app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", "") != path]

    return configure


async def test_calls_go_over_the_callers_socket() -> None:
    # With the HTTP route gone, only the socket can have carried the call.
    with run_daemon(configure_app=_without_route("/execute_javascript")) as daemon:
        async with connected(daemon), DaemonClient(daemon.settings) as client:
            answers = [await client.execute(ExecuteParams(script=f"'{n}'")) for n in range(3)]
            tabs = await client.list_tabs()
    assert [a["result"] for a in answers] == ["'0'", "'1'", "'2'"]
    assert tabs["result"][0]["id"] == 7


async def test_a_daemon_without_the_socket_is_called_over_http() -> None:
    with run_daemon(configure_app=_without_route(CALLS_PATH)) as daemon:
        async with connected(daemon), DaemonClient(daemon.settings) as client:
            first = await client.execute(ExecuteParams(script="'one'"))
            second = await client.status()
    assert first["result"] == "'one'"
    assert second["result"]["extension"]["connected"] is True


async def test_a_restarted_daemon_is_called_again_on_a_new_socket() -> None:
    port = free_port()
    async with DaemonClient(_settings(port)) as client:
        with run_daemon(port=port) as daemon:
            async with connected(daemon):
                before = await client.execute(ExecuteParams(script="'before'"))
        gone = await client.execute(ExecuteParams(script="'gone'"))
        with run_daemon(port=port) as daemon:
            async with connected(daemon):
                after = await client.execute(ExecuteParams(script="'after'"))
    assert before["result"] == "'before'"
    assert gone["error"]["code"] == "daemon_unreachable"
    assert after["result"] == "'after'"


async def test_the_daemons_refusal_of_the_socket_is_its_envelope() -> None:
    with run_daemon(token="s3cret") as daemon:
        without_token = dataclasses.replace(daemon.settings, token=None)
        async with DaemonClient(without_token) as client:
            answer = await client.execute(ExecuteParams(script="1"))
    assert answer["error"]["code"] == "unauthorized"
    assert "token" in answer["error"]["message"]


async def test_concurrent_calls_share_one_socket_and_get_their_own_answers() -> None:
    with run_daemon() as daemon:
        async with connected(daemon), DaemonClient(daemon.settings) as client:
            answers = await asyncio.gather(
                *(client.execute(ExecuteParams(script=f"'{n}'")) for n in range(40))
            )
    assert [a["result"] for a in answers] == [f"'{n}'" for n in range(40)]
