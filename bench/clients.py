"""Lean HTTP clients, so that the figures measure the daemon and not the client.

httpx adds about 0.4 ms a call on these machines, more than the daemon's own work; http.client over
one keep-alive connection, or a bare asyncio loop that writes prebuilt requests, adds a few
microseconds.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
from typing import Any


class LeanClient:
    """One keep-alive connection to the daemon through http.client."""

    def __init__(self, port: int, timeout: float = 60.0) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.conn.connect()
        assert self.conn.sock is not None
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        self.conn.request(method, path, body=body, headers=headers)
        response = self.conn.getresponse()
        return response.status, response.read()

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """POST JSON; returns the envelope, raising unless it says success."""
        status, data = self.request("POST", path, json.dumps(payload).encode())
        body: dict[str, Any] = json.loads(data)
        if status != 200 or body.get("success") is not True:
            raise RuntimeError(f"{path} answered {status}: {data[:300]!r}")
        return body

    def close(self) -> None:
        self.conn.close()


def raw_post(port: int, path: str, payload: dict[str, Any]) -> bytes:
    """A complete HTTP/1.1 keep-alive POST, built once and written as is for every call."""
    body = json.dumps(payload).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class AsyncKeepAlive:
    """One connection, one request at a time: a caller of the throughput suite."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> AsyncKeepAlive:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**26)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(reader, writer)

    async def call(self, request: bytes) -> bytes:
        """Send one prebuilt request; returns the body, raising unless it is a success."""
        self.writer.write(request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        body = await self.reader.readexactly(length)
        if not head.startswith(b"HTTP/1.1 200") or b'"success":true' not in body[:20]:
            raise RuntimeError(f"failed call: {head[:40]!r} {body[:200]!r}")
        return body

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()
