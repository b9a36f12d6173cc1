"""Frames on the callers' socket are bounded as tightly as route bodies: a call frame past the
limit is answered script_too_large (with its id when it can be read) and the socket keeps
serving. Against a scripted fake extension; the memory bound is measured on a real daemon process
in test_chunked_body.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from tabpilot.http.calls import id_from_head
from tabpilot.protocol import CALLS_PATH
from tests.support import Daemon, connected, run_daemon

SCRIPT_LIMIT = 1000


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon(max_script_bytes=SCRIPT_LIMIT) as running:
        yield running


@asynccontextmanager
async def calls(daemon: Daemon, path: str = CALLS_PATH) -> AsyncIterator[ClientConnection]:
    url = f"ws://127.0.0.1:{daemon.settings.port}{path}"
    async with connect(url, proxy=None, max_size=None, open_timeout=10) as ws:
        yield ws


async def answer(ws: ClientConnection) -> dict[str, Any]:
    frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
    return frame


def call_text(call_id: Any, script: str) -> str:
    params = {"script": script}
    return json.dumps(
        {"type": "call", "id": call_id, "method": "execute_javascript", "params": params}
    )


def assert_too_large(frame: dict[str, Any], call_id: Any, limit: int) -> None:
    assert frame["type"] == "answer"
    assert frame["id"] == call_id
    error = frame["envelope"]["error"]
    assert error["code"] == "script_too_large"
    assert f"call frame is larger than {limit:,} bytes" in error["message"]


async def test_a_frame_past_the_limit_is_answered_and_the_socket_serves_on(daemon: Daemon) -> None:
    limit = daemon.settings.max_body_bytes
    huge = "x" * limit
    async with connected(daemon) as fake, calls(daemon) as ws:
        await ws.send(call_text("big", huge))
        assert_too_large(await answer(ws), "big", limit)
        # In fragments, none past the limit alone: refused all the same.
        text = call_text(7, huge)
        await ws.send([text[i : i + 5000] for i in range(0, len(text), 5000)])
        assert_too_large(await answer(ws), 7, limit)
        # Binary, and an id that comes after the script: too late to be read.
        late = json.dumps({"type": "call", "params": {"script": huge}, "id": 8})
        await ws.send(late.encode())
        assert_too_large(await answer(ws), None, limit)
        # A call just within the limit, whole and in fragments, is served.
        script = "y" * (limit - len(call_text("fits", "")))
        await ws.send(call_text("fits", script))
        within = await answer(ws)
        await ws.send([call_text("small", "2 + 2")[:9], call_text("small", "2 + 2")[9:]])
        small = await answer(ws)
    assert within["id"] == "fits" and within["envelope"]["error"]["code"] == "script_too_large"
    assert "The script is" in within["envelope"]["error"]["message"]  # the bridge's own check
    assert small["id"] == "small" and small["envelope"]["result"] == "2 + 2"
    assert [command.params["script"] for command in fake.commands] == ["2 + 2"]


async def test_a_trailing_slash_is_the_same_socket_with_the_same_bound(daemon: Daemon) -> None:
    async with calls(daemon, CALLS_PATH + "/") as ws:
        await ws.send(call_text(1, "x" * daemon.settings.max_body_bytes))
        assert_too_large(await answer(ws), 1, daemon.settings.max_body_bytes)
        await ws.send(json.dumps({"type": "call", "id": 2, "method": "status"}))
        assert (await answer(ws))["envelope"]["success"] is True


@pytest.mark.parametrize(
    ("head", "call_id"),
    [
        (b'{"type": "call", "id": "abc", "method": "execute_javascript", "params": {"scr', "abc"),
        (b' { "id" : 42 , "params": {"script": "xxxx', 42),
        (b'{"type": "call", "method": "x", "params": {"script": "xx', None),
        (b'{"id": {"nested": 1}, "params"', None),
        (b'{"id": "' + b"i" * 200 + b'", "params"', None),
        (b'{"id": "caf\xc3', None),
        (b"[1, 2", None),
        (b"", None),
        (b'{"type": "call", "id": -3', None),
        (b'{"type": "call", "id": -3,', -3),
    ],
)
def test_the_id_is_read_from_the_first_bytes_when_it_can_be(head: bytes, call_id: Any) -> None:
    assert id_from_head(head) == call_id
