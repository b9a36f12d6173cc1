"""The extension link, through a real daemon and a fake extension on a real WebSocket."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path

import httpx
import pytest

from tabpilot.browsers.refusals import REPORT_DELAY_S
from tabpilot.config import Settings
from tabpilot.protocol import (
    CLOSE_BUSY,
    CLOSE_HELLO_EXPECTED,
    CLOSE_PROTOCOL_MISMATCH,
    PROTOCOL_VERSION,
)
from tests.e2e.harness import spawn_daemon
from tests.support import (
    Command,
    Daemon,
    FakeExtension,
    Reply,
    connected,
    echo,
    fail,
    never,
    ok,
    run,
    run_daemon,
    until,
)

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    with run_daemon(connect_grace_s=0.5, timeout_grace_s=0.3) as running:
        yield running


async def status(client: httpx.AsyncClient) -> dict[str, object]:
    result: dict[str, object] = (await client.get("/status")).json()["result"]
    return result


def error_code(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


async def test_command_reaches_the_extension_with_its_request_id(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon) as fake:
        response = await run(client, "2 + 2", timeout_ms=1000, await_promise=False, tab_id=3)
    body = response.json()
    assert response.status_code == 200
    assert body["result"] == "2 + 2"
    [command] = fake.commands
    assert command.id == body["request_id"] == response.headers["x-request-id"]
    assert command.command == "execute_javascript"
    assert command.params == {
        "script": "2 + 2",
        "timeout_ms": 1000,
        "await_promise": False,
        "tab_id": 3,
        "dialog": "dismiss",
        "prompt_text": None,
        "ref": None,
    }


async def test_sequential_commands_arrive_in_order(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon) as fake:
        answers = [(await run(client, f"n{i}")).json() for i in range(10)]
    assert [a["result"] for a in answers] == [f"n{i}" for i in range(10)]
    assert [c.id for c in fake.commands] == [a["request_id"] for a in answers]


async def test_slow_command_does_not_hold_up_a_fast_one(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    release = asyncio.Event()

    async def handler(command: Command) -> Reply:
        if command.params["script"] == "slow":
            await release.wait()
        return ok(command.params["script"])

    async with connected(daemon, handler) as fake:
        slow = asyncio.create_task(run(client, "slow"))
        await until(lambda: fake.commands, "the slow command to reach the extension")
        # The fast one is answered while the slow one is still held: nothing waits behind it.
        fast = await run(client, "fast")
        assert fast.json()["result"] == "fast"
        assert not slow.done()
        release.set()
        assert (await slow).json()["result"] == "slow"


async def test_100_concurrent_callers_each_get_their_own_answer(daemon: Daemon) -> None:
    count = 100
    arrived: list[Command] = []
    all_in = asyncio.Event()
    release: dict[str, asyncio.Event] = {}

    async def handler(command: Command) -> Reply:
        release[command.id] = asyncio.Event()
        arrived.append(command)
        if len(arrived) == count:
            all_in.set()
        await release[command.id].wait()
        return ok({"echo": command.params["script"]}, "object")

    async def one_caller(i: int) -> httpx.Response:
        # One client per caller: 100 separate connections, as 100 separate agents would be.
        async with daemon.client() as c:
            return await run(c, f"caller-{i}", timeout_ms=20_000)

    async with connected(daemon, handler) as fake:
        callers = [asyncio.create_task(one_caller(i)) for i in range(count)]
        await asyncio.wait_for(all_in.wait(), 20)
        order = list(release)
        random.Random(7).shuffle(order)  # answer in an order unrelated to arrival
        for request_id in order:
            release[request_id].set()
            await asyncio.sleep(0)
        responses = await asyncio.wait_for(asyncio.gather(*callers), 30)
    assert len(fake.commands) == count
    for i, response in enumerate(responses):
        body = response.json()
        assert response.status_code == 200
        assert body["result"] == {"echo": f"caller-{i}"}
        assert body["request_id"] == response.headers["x-request-id"]
    ids = [r.json()["request_id"] for r in responses]
    assert len(set(ids)) == count
    assert set(ids) == fake.seen_ids


async def test_grace_waits_for_an_extension_that_connects(daemon: Daemon) -> None:
    bridge = daemon.app.state.bridge
    async with daemon.client() as client:
        pending = asyncio.create_task(run(client, "late"))
        await until(lambda: bridge.callers == 1, "the caller to wait for an extension")
        assert not pending.done()
        async with connected(daemon):
            response = await asyncio.wait_for(pending, 5)
    assert response.status_code == 200
    assert response.json()["result"] == "late"


async def test_no_extension_after_the_grace_is_503(client: httpx.AsyncClient) -> None:
    started = time.monotonic()
    response = await run(client, "1")
    elapsed = time.monotonic() - started
    assert response.status_code == 503
    assert error_code(response) == "extension_not_connected"
    # The grace is the promise: the caller waited it out (0.5 s here), and then no longer than a
    # generous bound for a busy machine.
    assert 0.45 <= elapsed < 3.0


def test_by_default_a_command_waits_3_s_for_an_extension() -> None:
    """docs/api.md: 503 extension_not_connected when "no extension connected within the grace
    (3 s)"; `tabpilot serve` as a new user starts it, with no --connect-grace (docs/cli.md)."""
    grace = Settings().connect_grace_s
    assert grace == 3.0
    assert f"within the grace ({grace:g} s)" in (DOCS / "api.md").read_text()
    assert f"(default: {grace:g})" in (DOCS / "cli.md").read_text()
    with spawn_daemon() as daemon:
        started = time.monotonic()
        response = daemon.execute("1")
        elapsed = time.monotonic() - started
    assert response.status_code == 503
    assert error_code(response) == "extension_not_connected"
    # The grace is the promise: the caller waited it out, and then no longer than a generous
    # bound for a busy machine.
    assert grace <= elapsed < grace + 2, f"answered after {elapsed:.2f} s"


async def test_disconnect_mid_command_is_502_and_never_resent(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    first = await daemon.extension(never).connect()
    pending = asyncio.create_task(run(client, "once", timeout_ms=10_000))
    command = await first.next_command()
    await first.close()
    response = await asyncio.wait_for(pending, 5)
    assert response.status_code == 502
    assert error_code(response) == "extension_disconnected"
    assert response.json()["request_id"] == command.id

    async with connected(daemon) as second:
        after = await run(client, "next")
        assert after.status_code == 200
    assert command.id not in second.seen_ids
    assert [c.params["script"] for c in second.commands] == ["next"]


async def test_a_second_extension_waits_while_the_first_holds_the_daemon(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    release = asyncio.Event()

    async def slow(command: Command) -> Reply:
        await release.wait()
        return ok("from-first", "string")

    async with connected(daemon, slow) as first:
        pending = asyncio.create_task(run(client, "on-first", timeout_ms=10_000))
        await first.next_command()
        second = await daemon.extension(echo, say_hello=False).connect()
        await second.send(
            {
                "type": "hello",
                "protocol_version": PROTOCOL_VERSION,
                "extension_version": "9.9.9",
                "pilot_enabled": True,
            }
        )
        code, reason = await second.wait_closed()
        assert code == CLOSE_BUSY
        assert reason is not None and reason.startswith("busy")
        # The first extension's command in flight is untouched by the newcomer.
        release.set()
        response = await asyncio.wait_for(pending, 5)
        assert response.json()["result"] == "from-first"
        assert second.commands == []
        await second.close()
    # Once the first has left, the next extension gets in.
    async with connected(daemon) as third:
        after = await run(client, "on-third")
        assert after.json()["result"] == "on-third"
        assert third.seen_ids == {after.json()["request_id"]}


async def test_pilot_off_in_hello_fails_fast_without_sending(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async def pilot() -> object:
        return (await status(client))["extension"]["pilot_enabled"]  # type: ignore[index]

    async with connected(daemon, pilot_enabled=False) as fake:
        started = time.monotonic()
        response = await run(client, "1", timeout_ms=10_000)
        # Failing fast is the promise: the answer comes long before the 10 s the command could
        # wait (a generous bound, for a busy machine).
        assert time.monotonic() - started < 2
        assert response.status_code == 403
        assert error_code(response) == "pilot_disabled"
        assert await pilot() is False

        await fake.set_pilot(True)
        await until(pilot, "the daemon to see the pilot on")
        assert (await run(client, "now")).json()["result"] == "now"

        await fake.set_pilot(False)
        await until(lambda: _is_false(pilot()), "the daemon to see the pilot off")
        again = await run(client, "again")
        assert (again.status_code, error_code(again)) == (403, "pilot_disabled")
    assert [c.params["script"] for c in fake.commands] == ["now"]


async def test_refusals_the_daemon_answers_itself_reach_the_extension_counted(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    """The popup lists every command, so the daemon tells the extension what it refused without
    sending it; a flood is counted into a few frames, not one each."""

    def refused(fake: FakeExtension) -> list[dict[str, object]]:
        return [f for f in fake.frames if f.get("type") == "refused"]

    async with connected(daemon, pilot_enabled=False) as fake:
        answers = await asyncio.gather(
            *(run(client, f"{i}") for i in range(40)),
            client.post("/browser_snapshot", json={}),
            client.post("/browser_snapshot", json={}),
        )
        assert {error_code(a) for a in answers} == {"pilot_disabled"}

        def counted() -> int:
            return sum(int(f["count"]) for f in refused(fake))  # type: ignore[call-overload]

        await until(lambda: counted() == 42, "42 refusals to be reported")
        frames = refused(fake)
        assert len(frames) <= 3, frames
        assert {f["code"] for f in frames} == {"pilot_disabled"}
        by_name: dict[str, int] = {}
        for frame in frames:
            for name, n in frame["commands"].items():  # type: ignore[attr-defined]
                by_name[name] = by_name.get(name, 0) + n
        assert by_name == {"execute_javascript": 40, "browser_snapshot": 2}

        # With the pilot on, a command is sent and answered, and nothing is reported.
        await fake.set_pilot(True)
        await until(lambda: _is_true(status(client), "extension", "pilot_enabled"), "the pilot on")
        assert (await run(client, "now")).json()["result"] == "now"
        await asyncio.sleep(REPORT_DELAY_S * 2)
        assert counted() == 42
    assert [c.params["script"] for c in fake.commands] == ["now"]


async def _is_true(value: Awaitable[dict[str, object]], *keys: str) -> bool:
    found: object = await value
    for key in keys:
        found = found[key]  # type: ignore[index]
    return found is True


async def _is_false(value: Awaitable[object]) -> bool:
    return await value is False


async def test_extension_refusing_with_pilot_disabled_is_403(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async def handler(command: Command) -> Reply:
        return fail("pilot_disabled", "The switch is off")

    async with connected(daemon, handler):
        response = await run(client, "1")
    assert response.status_code == 403
    assert error_code(response) == "pilot_disabled"


async def test_daemon_timeout_is_504_in_bounded_time(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon, never):
        started = time.monotonic()
        response = await run(client, "while(true){}", timeout_ms=200)
        elapsed = time.monotonic() - started
        assert response.status_code == 504
        assert error_code(response) == "execution_timeout"
        # Bounded time is the promise: 200 ms + the 300 ms grace, and then no longer than a
        # generous bound for a busy machine.
        assert 0.45 <= elapsed < 3.0
        assert (await status(client))["in_flight"] == 0
        assert (await client.get("/health")).status_code == 200


async def test_in_flight_is_counted(daemon: Daemon, client: httpx.AsyncClient) -> None:
    gate = asyncio.Event()

    async def handler(command: Command) -> Reply:
        await gate.wait()
        return ok(1)

    async with connected(daemon, handler) as fake:
        tasks = [asyncio.create_task(run(client, str(i))) for i in range(3)]
        for _ in tasks:
            await fake.next_command()
        assert (await status(client))["in_flight"] == 3
        gate.set()
        await asyncio.gather(*tasks)
        assert (await status(client))["in_flight"] == 0


async def test_unreadable_result_for_a_pending_command_is_502(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon, never) as fake:
        pending = asyncio.create_task(run(client, "1", timeout_ms=10_000))
        command = await fake.next_command()
        await fake.send({"type": "result", "id": command.id, "ok": False})  # no error given
        response = await asyncio.wait_for(pending, 5)
    assert response.status_code == 502
    assert error_code(response) == "extension_error"


async def test_keepalive_is_answered(daemon: Daemon) -> None:
    async with connected(daemon) as fake:
        await fake.send({"type": "keepalive"})
        await until(lambda: {"type": "keepalive"} in fake.frames, "the daemon's keepalive")


async def test_daemon_answers_hello_and_status_shows_the_extension(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon) as fake:
        assert fake.daemon_hello == {
            "type": "hello",
            "protocol_version": 1,
            "daemon_version": daemon.settings.version,
        }
        extension = (await status(client))["extension"]
        assert isinstance(extension, dict)
        assert (extension["connected"], extension["version"], extension["id"]) == (
            True,
            "9.9.9",
            "mmgjobhjaeaocmcbdnjglfiobpnpkdpf",
        )
        assert extension["pilot_enabled"] is True and extension["connected_at"]

    async def gone() -> bool:
        extension = (await status(client))["extension"]
        return isinstance(extension, dict) and extension["connected"] is False

    await until(gone, "/status to show the extension gone")


async def test_wrong_protocol_version_is_closed_with_4001(daemon: Daemon) -> None:
    fake = await daemon.extension(protocol_version=99).connect()
    code, reason = await fake.wait_closed()
    assert code == CLOSE_PROTOCOL_MISMATCH
    assert reason is not None and reason.startswith("protocol_mismatch") and "99" in reason


async def test_first_frame_not_hello_is_closed_with_4003(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    fake = await daemon.extension(say_hello=False).connect()
    await fake.send({"type": "keepalive"})
    code, reason = await fake.wait_closed()
    assert code == CLOSE_HELLO_EXPECTED
    assert reason is not None and reason.startswith("hello_expected")
    assert (await status(client))["extension"]["connected"] is False  # type: ignore[index]
