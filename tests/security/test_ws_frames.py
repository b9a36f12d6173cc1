"""Hostile frames on the extension's WebSocket: garbage, wrong shapes, binary, out of order,
oversized, and answers to the wrong ids.

Each is ignored and logged, the connection and the daemon keep serving, and every caller gets its
own answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterator

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from tabpilot.protocol import CLOSE_HELLO_EXPECTED
from tests import figures
from tests.support import Command, Daemon, Reply, connected, never, ok, run, run_daemon

#: Small, so frames near and past the limit are cheap to send; the mechanism is the same at the
#: default 64 MiB.
MAX_SIZE = 256 * 1024

_sent: dict[str, int] = {}

JUNK: list[tuple[str, str | bytes, str]] = [
    # (name, frame, what the daemon logs)
    ("not JSON", "not json at all", "ignoring a malformed frame"),
    ("empty text", "", "ignoring a malformed frame"),
    ("JSON array", "[1, 2]", "ignoring a malformed frame"),
    ("JSON string", '"result"', "ignoring a malformed frame"),
    ("JSON null", "null", "ignoring a malformed frame"),
    ("no type", '{"no": "type"}', "ignoring a malformed frame"),
    ("unknown type", '{"type": "mystery"}', "ignoring a malformed frame of type 'mystery'"),
    ("type not a string", '{"type": 5}', "ignoring a malformed frame"),
    ("result without id", '{"type": "result", "ok": true}', "ignoring a malformed frame"),
    ("result, id a number", '{"type": "result", "id": 5, "ok": true}', "malformed frame"),
    ("pilot without enabled", '{"type": "pilot"}', "ignoring a malformed frame of type 'pilot'"),
    ("deeply nested", "[" * 100_000 + "]" * 100_000, "ignoring a malformed frame"),
    ("deeply nested object", '{"a":' * 20_000 + "1" + "}" * 20_000, "malformed frame"),
    ("invalid UTF-8 bytes", b"\xff\xfe\x00binary", "ignoring a malformed frame"),
    ("binary JSON", b'{"type": "mystery"}', "ignoring a malformed frame"),
    ("near max size", "x" * (MAX_SIZE - 1024), "ignoring a malformed frame"),
    (
        "second hello",
        json.dumps(
            {"type": "hello", "protocol_version": 1, "extension_version": "x"}
            | {"pilot_enabled": True}
        ),
        "ignoring a second hello",
    ),
    (
        "result for an unknown id",
        '{"type": "result", "id": "nobody-asked", "ok": true, "result": "stolen"}',
        "ignoring a result for an unknown or answered id 'nobody-asked'",
    ),
]


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    with run_daemon(ws_max_size=MAX_SIZE, connect_grace_s=2.0) as running:
        yield running


@pytest.fixture
def bridge_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="tabpilot")
    return caplog


def _logged(caplog: pytest.LogCaptureFixture, text: str) -> bool:
    return any(text in record.getMessage() for record in caplog.records)


async def _until_logged(caplog: pytest.LogCaptureFixture, text: str) -> None:
    for _ in range(500):
        if _logged(caplog, text):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the daemon never logged {text!r}")


@pytest.mark.parametrize(("name", "frame", "logged"), JUNK, ids=[j[0] for j in JUNK])
async def test_junk_frame_is_ignored_logged_and_the_link_keeps_serving(
    daemon: Daemon,
    client: httpx.AsyncClient,
    bridge_log: pytest.LogCaptureFixture,
    name: str,
    frame: str | bytes,
    logged: str,
) -> None:
    async with connected(daemon) as fake:
        await fake.ws.send(frame)
        await _until_logged(bridge_log, logged)
        response = await run(client, f"after {name}")
        assert response.status_code == 200
        assert response.json()["result"] == f"after {name}"
        assert not fake.closed.is_set()
    assert not [r for r in bridge_log.records if r.levelno >= logging.ERROR]
    _sent["junk"] = _sent.get("junk", 0) + 1


async def test_frames_before_hello_close_only_that_socket(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    for frame in ["not json", "[" * 100_000, b"\x00", '{"type": "result", "id": "x", "ok": true}']:
        fake = await daemon.extension(say_hello=False).connect()
        await fake.ws.send(frame)
        code, _ = await fake.wait_closed()
        assert code == CLOSE_HELLO_EXPECTED
        _sent["before hello"] = _sent.get("before hello", 0) + 1
    async with connected(daemon):
        assert (await run(client, "served")).json()["result"] == "served"


async def test_frame_past_max_size_drops_that_link_and_the_daemon_serves_the_next(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon, never) as fake:
        pending = asyncio.create_task(run(client, "in flight", timeout_ms=30_000))
        await fake.next_command()
        # A result too big for the limit: the server closes with 1009 (message too big).
        with contextlib.suppress(ConnectionClosed):
            await fake.ws.send("x" * (MAX_SIZE + 1))
        code, _ = await fake.wait_closed(10)
        assert code == 1009
        response = await asyncio.wait_for(pending, 10)
        assert response.status_code == 502
        assert response.json()["error"]["code"] == "extension_disconnected"
    async with connected(daemon):
        assert (await run(client, "next")).json()["result"] == "next"
    _sent["oversized"] = 1


async def test_interleaved_junk_and_wrong_ids_never_give_a_caller_another_answer(
    daemon: Daemon, client: httpx.AsyncClient, bridge_log: pytest.LogCaptureFixture
) -> None:
    """Twenty callers at once; the extension answers each one out of order, after junk, after a
    result for an unknown id, and once more after the real answer (with another caller's script)."""
    answered: list[str] = []

    async def handler(command: Command) -> Reply:
        fake = handler.fake  # type: ignore[attr-defined]
        await fake.send("garbage")
        await fake.send({"type": "result", "id": command.id + "-not", "ok": True, "result": "x"})
        await asyncio.sleep((hash(command.id) % 20) / 1000)
        return ok(command.params["script"], "string")

    async with connected(daemon, handler) as fake:
        handler.fake = fake  # type: ignore[attr-defined]
        scripts = [f"caller {i}" for i in range(20)]
        responses = await asyncio.gather(*(run(client, s) for s in scripts))
        for script, response in zip(scripts, responses, strict=True):
            body = response.json()
            assert response.status_code == 200, body
            assert body["result"] == script
            answered.append(body["request_id"])
        # Answer them all again, each with someone else's script: nobody is listening any more.
        for i, request_id in enumerate(answered):
            stolen = {"type": "result", "id": request_id, "ok": True, "result": scripts[i - 1]}
            await fake.send(stolen)
        await _until_logged(bridge_log, f"unknown or answered id {answered[-1]!r}")
        assert (await run(client, "last")).json()["result"] == "last"
    _sent["interleaved"] = 20 * 3 + 20
    junk = _sent.get("junk", 0) + _sent.get("before hello", 0) + _sent.get("oversized", 0)
    figures.record(
        "Hostile input",
        "malformed, oversized and out-of-order WebSocket frames sent / daemon still serving",
        f"{junk + _sent['interleaved']} / yes, every caller got its own answer",
    )
