"""A body without a length (Transfer-Encoding: chunked) is bounded like one with it: a real daemon
process reads at most its limit of a 200 MB body, answers script_too_large, and keeps serving."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tabpilot.config import Settings
from tests.e2e.harness import Daemon, spawn_daemon

MIB = 1024 * 1024
SENT = 200 * MIB
#: What the daemon may grow by while it refuses the body: its limit (about 6 MiB by default) and
#: the buffers around it, nowhere near the body's size.
ALLOWED_GROWTH = 40 * MIB
PATHS = ["/execute_javascript", "/ping", "/mcp", "/execute_javascript/"]


def _status_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} for pid {pid}")


def _chunks() -> Iterator[bytes]:
    # A generator has no length, so httpx sends it with Transfer-Encoding: chunked.
    chunk = b'{"script": "' + b"x" * (MIB - 12)
    for _ in range(SENT // MIB):
        yield chunk


@pytest.fixture(scope="module")
def lonely() -> Iterator[Daemon]:
    with spawn_daemon("--connect-grace", "0.2") as daemon:
        yield daemon


@pytest.mark.parametrize("path", PATHS)
def test_a_200_mb_chunked_body_is_refused_within_the_limit(lonely: Daemon, path: str) -> None:
    pid = lonely.process.pid
    before = _status_kib(pid, "VmRSS")
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    with httpx.Client(base_url=lonely.url, trust_env=False, timeout=60) as client:
        response = client.post(path, content=_chunks(), headers=headers)
        assert response.request.headers["transfer-encoding"] == "chunked"
        body = response.json()
        assert response.status_code == 413, body
        assert body["success"] is False
        assert body["error"]["code"] == "script_too_large"
        assert f"{Settings().max_body_bytes:,} bytes" in body["error"]["message"]
        assert response.headers["x-request-id"] == body["request_id"]
        # The same connection serves the next request: the rest of the body was thrown away.
        again = client.post("/execute_javascript", json={"script": ""})
        assert again.status_code == 400
        assert again.json()["error"]["code"] == "invalid_request"
    # Peak memory, not just what is left: a body read whole and then dropped would show here.
    grown = _status_kib(pid, "VmHWM") - before
    assert grown < ALLOWED_GROWTH, f"the daemon grew by {grown / MIB:.0f} MiB"
    assert lonely.get("/health").status_code == 200
    answer = lonely.execute("2 + 2")
    assert answer.json()["error"]["code"] == "extension_not_connected"


def test_a_chunked_body_within_the_limit_is_read(lonely: Daemon) -> None:
    def parts() -> Iterator[bytes]:
        yield b'{"script": "2 +'
        yield b' 2", "timeout_ms": 1000}'

    with httpx.Client(base_url=lonely.url, trust_env=False, timeout=30) as client:
        response = client.post("/execute_javascript", content=parts())
    # Read and parsed: it got as far as looking for the extension.
    assert response.json()["error"]["code"] == "extension_not_connected"
