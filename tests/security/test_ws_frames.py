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
from tests.support import Command, Daemon, Reply, connected, never, ok, run, run_daemon, until

#: Small, so frames near and past the limit are cheap to send; the mechanism is the same at the
#: default 64 MiB.
MAX_SIZE = 256 * 1024

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


def _logged(caplog: pytest.LogCaptureFixture, text: str) -> int:
    """How many of the daemon's log lines so far contain `text`."""
    return sum(text in record.getMessage() for record in caplog.records)


async def test_junk_frames_are_each_ignored_logged_and_the_link_keeps_serving(
    daemon: Daemon, client: httpx.AsyncClient, bridge_log: pytest.LogCaptureFixture
) -> None:
    """Every kind of junk, one after another on one link, each followed by a command."""
    async with connected(daemon) as fake:
        for name, frame, logged in JUNK:
            before = _logged(bridge_log, logged)
            await fake.ws.send(frame)
            await until(
                lambda logged=logged, before=before: _logged(bridge_log, logged) > before,
                f"the log of {name!r}",
            )
            response = await run(client, f"after {name}")
            assert response.status_code == 200, (name, response.text)
            assert response.json()["result"] == f"after {name}", name
            assert not fake.closed.is_set(), name
        assert (await client.get("/status")).json()["result"]["in_flight"] == 0
    assert not [r for r in bridge_log.records if r.levelno >= logging.ERROR]
    figures.record(
        "Hostile input",
        "junk frames on a live extension link (not JSON, wrong shapes, binary, deeply nested, "
        "near the size limit, a second hello, results for unknown ids)",
        f"{len(JUNK)} kinds, one of each: each ignored and logged, the next command answered, "
        "the link kept",
        figures.SCRIPTED,
    )


async def test_frames_before_hello_close_only_that_socket(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    frames = ["not json", "[" * 100_000, b"\x00", '{"type": "result", "id": "x", "ok": true}']
    for frame in frames:
        fake = await daemon.extension(say_hello=False).connect()
        await fake.ws.send(frame)
        code, _ = await fake.wait_closed()
        assert code == CLOSE_HELLO_EXPECTED
    async with connected(daemon):
        assert (await run(client, "served")).json()["result"] == "served"
    figures.record(
        "Hostile input",
        "a first frame that is not a hello",
        f"{len(frames)} sockets, one frame each: each closed with 4003, the next extension served",
        figures.SCRIPTED,
    )


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
    figures.record(
        "Hostile input",
        "a frame past the size limit with a command in flight",
        "1 frame: that link closed with 1009, its caller told extension_disconnected, the next "
        "link served",
        figures.SCRIPTED,
    )


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

    callers = 20
    async with connected(daemon, handler) as fake:
        handler.fake = fake  # type: ignore[attr-defined]
        scripts = [f"caller {i}" for i in range(callers)]
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
        last = f"unknown or answered id {answered[-1]!r}"
        await until(lambda: _logged(bridge_log, last), "the log of the last late answer")
        assert (await run(client, "last")).json()["result"] == "last"
    figures.record(
        "Hostile input",
        "concurrent callers whose answers come out of order among hostile frames",
        f"{callers} callers; hostile frames: {callers} garbage, {callers} results for unknown ids "
        f"and {callers} second answers with another caller's script; every caller got its own "
        "answer",
        figures.SCRIPTED,
    )
