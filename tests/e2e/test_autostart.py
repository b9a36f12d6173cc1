"""`tabpilot mcp --browser`, as an MCP client's one-line configuration starts it: the first call
gets a working browser with no daemon started by hand, two clients at once share one daemon, the
daemon stops once no client is left for its idle time, and a start that cannot work answers a
clear error instead of hanging."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tabpilot.cli.autostart import START_LINE
from tests.e2e.harness import free_port, managed_daemons, serving, spawn_daemon, wait_for
from tests.mcp_support import CALL_TIMEOUT_S, call

#: The idle time the tests give the daemons they start: short, so that the stop is seen.
IDLE_S = 3


@pytest.fixture
def state_dir() -> Iterator[Path]:
    """A fresh state dir; any daemon still running on the test's port is stopped after."""
    folder = Path(tempfile.mkdtemp(prefix="tabpilot-autostart-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def port() -> Iterator[int]:
    port = free_port()
    yield port
    for pid in managed_daemons(port):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


@contextlib.asynccontextmanager
async def one_line_client(
    port: int, state_dir: Path, *extra: str, env: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """An MCP client whose configuration is the one line: `tabpilot mcp --browser`."""
    args = ["-m", "tabpilot", "mcp", "--browser", "--port", str(port), *extra]
    parameters = StdioServerParameters(
        command=sys.executable,
        args=args,
        env={"TABPILOT_STATE_DIR": str(state_dir), **(env or {})},
    )
    async with Client(parameters, read_timeout_seconds=CALL_TIMEOUT_S, mode="legacy") as client:
        yield client


async def test_two_clients_started_at_once_share_one_daemon_that_stops_when_idle(
    port: int, state_dir: Path
) -> None:
    async def session(ready: asyncio.Event, done: asyncio.Event) -> list[str]:
        async with one_line_client(port, state_dir, "--idle-stop", str(IDLE_S)) as client:
            _, first = await call(client, "execute_javascript", script="1 + 1")
            ready.set()
            await done.wait()
            _, later = await call(client, "execute_javascript", script="2 + 3")
            return [first, later]

    ready = [asyncio.Event(), asyncio.Event()]
    done = asyncio.Event()
    both = asyncio.gather(*(session(r, done) for r in ready))
    async with asyncio.timeout(120):
        for event in ready:
            await event.wait()
        assert len(managed_daemons(port)) == 1, "the two clients started one daemon between them"
        # Connected clients keep it, however long they stay quiet.
        await asyncio.sleep(IDLE_S + 1.5)
        assert len(managed_daemons(port)) == 1
        done.set()
        answers = await both
    assert answers == [["2", "5"], ["2", "5"]]
    log = (state_dir / f"daemon-{port}.log").read_text()
    assert log.count(START_LINE) == 1, log
    assert log.count("managed Chromium of context default started") == 1
    # No client left: the daemon and its browser stop after the idle time.
    wait_for(lambda: not managed_daemons(port), IDLE_S + 15, "the idle daemon to stop")
    assert "no caller for 3 s: stopping" in (state_dir / f"daemon-{port}.log").read_text()


async def test_the_daemon_already_on_the_port_is_used_as_it_is(state_dir: Path) -> None:
    with spawn_daemon() as daemon:  # a person's `tabpilot serve`, for the extension in Chrome
        async with one_line_client(daemon.port, daemon.state_dir) as client:
            _, text = await call(client, "pilot_status")
        assert text.startswith("Daemon: tabpilot ")
        assert "Extension: not connected" in text
        assert (
            managed_daemons(daemon.port) == []
        )  # no managed browser's daemon was started beside it
        assert daemon.process.poll() is None


class _NotTabpilot(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(b"<h1>some other server</h1>")

    def log_message(self, *args: object) -> None:
        pass


async def test_a_port_held_by_something_else_is_a_clear_error(state_dir: Path) -> None:
    with serving(_NotTabpilot) as other:
        async with one_line_client(other, state_dir) as client:
            result, text = await call(client, "execute_javascript", script="1 + 1")
    assert result.is_error
    assert result.structured_content == {"error": {"code": "daemon_unreachable"}}
    assert text == (
        f"Error: Something answered on 127.0.0.1:{other} (HTTP 200), but it is not a tabpilot "
        "daemon. Start tabpilot on another port with `tabpilot serve --port N` and point this "
        "client at it (--port or TABPILOT_PORT)."
    )
    assert managed_daemons(other) == []


async def test_no_chromium_answers_the_reason_on_the_first_call(port: int, state_dir: Path) -> None:
    started = time.monotonic()
    missing = {"TABPILOT_CHROMIUM": "/nonexistent/chromium"}
    async with one_line_client(port, state_dir, env=missing) as client:
        result, text = await call(client, "execute_javascript", script="1 + 1")
        # The next call tries again, and says the same.
        again, _ = await call(client, "pilot_status")
    assert time.monotonic() - started < 30
    assert result.is_error and again.is_error
    assert result.structured_content == {"error": {"code": "browser_unavailable"}}
    assert text == (
        f"Error: The tabpilot daemon `tabpilot mcp --browser` started on 127.0.0.1:{port} "
        "exited: TABPILOT_CHROMIUM=/nonexistent/chromium is not an executable file. Its log: "
        f"{state_dir}/daemon-{port}.log. Fix that, then call again."
    )
    assert managed_daemons(port) == []


async def test_a_daemon_gone_since_is_started_again_by_the_next_call(
    port: int, state_dir: Path
) -> None:
    async with one_line_client(port, state_dir, "--idle-stop", str(IDLE_S)) as client:
        _, first = await call(client, "execute_javascript", script="1 + 1")
        (pid,) = managed_daemons(port)
        os.kill(pid, signal.SIGTERM)  # stopped by hand while the client runs
        wait_for(lambda: not managed_daemons(port), 20, "the daemon to stop")
        _, again = await call(client, "execute_javascript", script="2 + 2")
        assert len(managed_daemons(port)) == 1
    assert (first, again) == ("2", "4")
    assert (state_dir / f"daemon-{port}.log").read_text().count(START_LINE) == 2
