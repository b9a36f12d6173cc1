"""A body without a length (Transfer-Encoding: chunked) is bounded like one with it: a real daemon
process reads at most its limit of a 200 MB body, answers script_too_large, and keeps serving. The
same holds for a 200 MB frame on the callers' socket, and for a caller there that never reads its
answers: the daemon stops reading that caller instead of holding its answers without end."""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tabpilot.config import Settings
from tests import figures
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


class RawCallsSocket:
    """A WebSocket client of /ws/calls written by hand, to stream a frame larger than memory and
    to not read answers at will."""

    def __init__(self, port: int, *, receive_buffer: int | None = None) -> None:
        self.sock = socket.socket()
        if receive_buffer is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.connect(("127.0.0.1", port))
        self.sock.settimeout(30)
        self.sock.sendall(
            b"GET /ws/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n"
        )
        handshake = b""
        while b"\r\n\r\n" not in handshake:
            handshake += self.sock.recv(1)
        assert handshake.startswith(b"HTTP/1.1 101"), handshake

    def header(self, size: int) -> bytes:
        """A masked text frame's header, with a zero mask: the payload goes as it is."""
        return bytes([0x81, 0x80 | 127]) + struct.pack("!Q", size) + b"\0\0\0\0"

    def send(self, text: str) -> None:
        data = text.encode()
        self.sock.sendall(self.header(len(data)) + data)

    def answer(self) -> dict[str, Any]:
        head = self._read(2)
        size = head[1] & 0x7F
        if size >= 126:
            size = int.from_bytes(self._read(2 if size == 126 else 8), "big")
        frame: dict[str, Any] = json.loads(self._read(size))
        return frame

    def _read(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            assert chunk, "the daemon closed the socket"
            data += chunk
        return data


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
    if path == PATHS[0]:
        figures.record(
            "Hostile input",
            "200 MB chunked request body: answer / daemon's peak memory growth / still serving",
            f"413 script_too_large / {grown / MIB:.0f} MiB / yes",
            figures.SCRIPTED,
        )


def test_a_chunked_body_within_the_limit_is_read(lonely: Daemon) -> None:
    def parts() -> Iterator[bytes]:
        yield b'{"script": "2 +'
        yield b' 2", "timeout_ms": 1000}'

    with httpx.Client(base_url=lonely.url, trust_env=False, timeout=30) as client:
        response = client.post("/execute_javascript", content=parts())
    # Read and parsed: it got as far as looking for the extension.
    assert response.json()["error"]["code"] == "extension_not_connected"


def test_a_200_mb_frame_on_the_callers_socket_is_refused_within_the_limit(lonely: Daemon) -> None:
    pid = lonely.process.pid
    before = _status_kib(pid, "VmRSS")
    ws = RawCallsSocket(lonely.port)
    start = b'{"type": "call", "id": "huge", "method": "execute_javascript", "params": {"script": "'
    ws.sock.sendall(ws.header(SENT) + start)
    block = b"x" * MIB
    for _ in range(SENT // MIB - 1):
        ws.sock.sendall(block)
    ws.sock.sendall(block[: MIB - len(start)])
    refused = ws.answer()
    assert refused["id"] == "huge"
    assert refused["envelope"]["error"]["code"] == "script_too_large"
    ws.send('{"type": "call", "id": 2, "method": "status"}')
    assert ws.answer()["envelope"]["success"] is True  # the same socket serves on
    ws.sock.close()
    grown = _status_kib(pid, "VmHWM") - before
    assert grown < ALLOWED_GROWTH, f"the daemon grew by {grown / MIB:.0f} MiB"
    figures.record(
        "Hostile input",
        "200 MB frame on /ws/calls: answer / daemon's peak memory growth / socket still serving",
        f"script_too_large under its id / {grown / MIB:.0f} MiB / yes",
        figures.SCRIPTED,
    )


def test_a_caller_that_never_reads_its_answers_stops_being_read() -> None:
    """It sends status calls (answered at once) and reads none of the answers: once its answers
    fill the sockets' buffers, the daemon holds a bounded number more and reads no further, so
    the caller's sends stall instead of the daemon's memory growing (by 875 MiB before it was
    bounded)."""
    with spawn_daemon(env={"TABPILOT_MAX_IN_FLIGHT": "4"}) as daemon:
        before = _status_kib(daemon.process.pid, "VmRSS")
        ws = RawCallsSocket(daemon.port, receive_buffer=4096)
        ws.sock.settimeout(3)
        sent = 0
        with pytest.raises(TimeoutError):
            while sent < 2_000_000:
                text = f'{{"type": "call", "id": {sent}, "method": "status"}}'.encode()
                ws.sock.sendall(ws.header(len(text)) + text)
                sent += 1
        grown = _status_kib(daemon.process.pid, "VmHWM") - before
        ws.sock.close()
        assert grown < ALLOWED_GROWTH, f"the daemon grew by {grown / MIB:.0f} MiB"
        assert daemon.get("/health").status_code == 200
    figures.record(
        "Hostile input",
        "/ws/calls caller that never reads its answers: calls sent before its sends stalled / "
        "daemon's memory growth",
        f"{sent:,} / {grown / MIB:.0f} MiB",
        figures.SCRIPTED,
    )
