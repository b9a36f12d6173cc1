"""The daemon's bounds, against a scripted fake extension: a full queue and an oversized script are
refused at once with their own codes, and nothing about them reaches the browser."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from tabpilot.config import Settings
from tabpilot.protocol import CALLS_PATH, MAX_RESULT_CHARS
from tests import figures
from tests.support import Command, Daemon, Reply, connected, fail, ok, run, run_daemon, until

LIMIT = 8
API_PAGE = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    with run_daemon(max_in_flight=LIMIT, max_script_bytes=1000) as running:
        yield running


async def test_past_the_limit_callers_get_429_queue_full_with_retry_after(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    release = asyncio.Event()

    async def hold(command: Command) -> Reply:
        await release.wait()
        return ok(command.params["script"], "string")

    async with connected(daemon, hold) as fake:
        held = [asyncio.create_task(run(client, f"held {i}")) for i in range(LIMIT)]
        while len(fake.commands) < LIMIT:
            await fake.next_command()
        refused = await asyncio.gather(*(run(client, f"extra {i}") for i in range(5)))
        for response in refused:
            assert response.status_code == 429
            body = response.json()
            assert body["success"] is False
            assert body["error"]["code"] == "queue_full"
            assert "Retry after" in body["error"]["message"]
            assert int(response.headers["retry-after"]) >= 1
            assert response.headers["x-request-id"] == body["request_id"]
        # Nothing refused reached the extension, and the held commands still get their answers.
        assert len(fake.commands) == LIMIT
        release.set()
        answers = await asyncio.gather(*held)
        assert sorted(a.json()["result"] for a in answers) == sorted(f"held {i}" for i in range(8))
        # The queue drained: the next caller gets in.
        after = await run(client, "after")
        assert after.status_code == 200 and after.json()["result"] == "after"


async def test_callers_waiting_for_the_extension_count_against_the_limit(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    waiting = [asyncio.create_task(run(client, f"w {i}")) for i in range(LIMIT)]
    bridge = daemon.app.state.bridge
    await until(lambda: bridge.callers == LIMIT, f"{LIMIT} callers waiting for an extension")
    assert bridge.in_flight == 0  # none was sent: there is no extension
    refused = await run(client, "one too many")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "queue_full"
    for response in await asyncio.gather(*waiting):
        assert response.json()["error"]["code"] == "extension_not_connected"


async def test_a_script_past_the_limit_is_413_and_never_sent(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon) as fake:
        at_limit = await run(client, "x" * 1000)
        assert at_limit.status_code == 200
        over = await run(client, "é" * 501)  # 1002 bytes of UTF-8
        huge = await client.post(
            "/execute_javascript",
            content=b'{"script": "' + b"x" * 10_000_000 + b'"}',
            headers={"content-type": "application/json"},
        )
        for response in (over, huge):
            assert response.status_code == 413
            assert response.json()["error"]["code"] == "script_too_large"
            assert "1,000 bytes" in response.json()["error"]["message"]
        assert [c.params["script"] for c in fake.commands] == ["x" * 1000]


async def test_result_too_large_from_the_extension_is_502_and_the_link_stays(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async def big(command: Command) -> Reply:
        if command.params["script"] == "big":
            return fail("result_too_large", "The result is 50,000,000 characters of JSON.")
        return ok("small", "string")

    async with connected(daemon, big):
        response = await run(client, "big")
        assert response.status_code == 502
        assert response.json()["error"]["code"] == "result_too_large"
        assert (await run(client, "next")).json()["result"] == "small"


def test_the_largest_result_fits_in_a_frame() -> None:
    # The extension sends at most MAX_RESULT_CHARS of JSON, 3 bytes a character at worst in
    # UTF-8; the daemon must accept that frame, or a big result would drop the whole link.
    envelope = 64 * 1024
    assert Settings().ws_max_size >= 3 * MAX_RESULT_CHARS + envelope


async def test_by_default_1024_commands_wait_and_the_next_is_refused() -> None:
    """docs/api.md, "Limits": "At most 1024 commands wait at once". All of them come over one
    callers' socket (/ws/calls), which is what a busy `tabpilot mcp` does, and costs the test 1024
    frames instead of 1024 HTTP connections."""
    default = Settings().max_in_flight
    assert default == 1024
    assert f"At most {default} commands wait at once" in API_PAGE
    assert f"({default} by default, `TABPILOT_MAX_IN_FLIGHT`)" in API_PAGE
    release = asyncio.Event()

    async def hold(command: Command) -> Reply:
        await release.wait()
        return ok(command.params["script"], "string")

    with run_daemon() as daemon:  # nothing overrides max_in_flight: the default holds
        assert daemon.settings.max_in_flight == default
        bridge = daemon.app.state.bridge
        async with (
            connected(daemon, hold) as fake,
            connect(f"ws://127.0.0.1:{daemon.settings.port}{CALLS_PATH}", proxy=None) as ws,
        ):
            for n in range(default):
                await ws.send(json.dumps(_call(n)))
            await until(lambda: len(fake.commands) == default, f"{default} commands", 30)
            await ws.send(json.dumps(_call("one too many")))
            refused = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert refused["id"] == "one too many"
            assert refused["envelope"]["error"]["code"] == "queue_full"
            assert f"the limit is {default}," in refused["envelope"]["error"]["message"]
            release.set()
            answers = [json.loads(await asyncio.wait_for(ws.recv(), 10)) for _ in range(default)]
        assert sorted(a["envelope"]["result"] for a in answers) == sorted(
            f"'{n}'" for n in range(default)
        )
        assert bridge.callers == 0
        assert len(fake.commands) == default  # the refused one never reached the extension
    figures.record(
        "Load",
        "a full queue at the default limit, over one callers' socket",
        f"{default:,} commands waiting at once, the next refused with queue_full and never sent; "
        f"all {default:,} answered once the extension answered",
        figures.SCRIPTED,
    )


def _call(call_id: int | str) -> dict[str, object]:
    script = f"'{call_id}'"
    return {
        "type": "call",
        "id": call_id,
        "method": "execute_javascript",
        "params": {"script": script},
    }


def test_the_limits_are_settable_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABPILOT_MAX_IN_FLIGHT", "5")
    monkeypatch.setenv("TABPILOT_MAX_SCRIPT_BYTES", "2048")
    settings = Settings.from_env()
    assert (settings.max_in_flight, settings.max_script_bytes) == (5, 2048)
