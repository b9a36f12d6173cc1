"""The idle stop of a daemon `tabpilot mcp --browser` started (tabpilot.http.idle): a caller's
request or socket keeps it, the extension's socket does not, and a daemon started by hand has
none."""

from __future__ import annotations

import asyncio
from typing import Any

from tabpilot.cli import build_parser
from tabpilot.config import Settings
from tabpilot.http.idle import IdleWatch

IDLE_S = 0.2


async def _held(watch: IdleWatch, scope: dict[str, Any], release: asyncio.Event) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await release.wait()

    await watch.middleware(app)(scope, None, None)  # type: ignore[arg-type]


async def test_a_callers_socket_keeps_the_daemon_and_the_extensions_does_not() -> None:
    watch = IdleWatch(IDLE_S)
    stopped = asyncio.Event()
    release = asyncio.Event()
    loop = asyncio.get_running_loop()
    extension = asyncio.create_task(
        _held(watch, {"type": "websocket", "path": "/ws"}, asyncio.Event())
    )
    caller = asyncio.create_task(_held(watch, {"type": "websocket", "path": "/ws/calls"}, release))
    started = loop.time()
    watching = asyncio.create_task(watch.run(stopped.set))
    await asyncio.sleep(IDLE_S * 4)
    assert not stopped.is_set()  # a forwarder is connected, however long it is quiet
    release.set()
    await caller
    left = loop.time()
    await asyncio.wait_for(stopped.wait(), IDLE_S * 4)
    # Counted from when the last caller left, not from the start.
    assert loop.time() - left >= IDLE_S
    assert loop.time() - started >= IDLE_S * 5
    await watching
    extension.cancel()


async def test_nobody_at_all_stops_it_after_the_idle_time() -> None:
    watch = IdleWatch(IDLE_S)
    stopped = asyncio.Event()
    await asyncio.wait_for(watch.run(stopped.set), IDLE_S * 5)
    assert stopped.is_set()


def test_a_daemon_started_by_hand_never_stops_by_itself() -> None:
    assert Settings().idle_stop_s is None
    args = build_parser().parse_args(["serve", "--browser"])
    assert args.idle_stop is None
    started = build_parser().parse_args(["mcp", "--browser"])
    assert (started.idle_stop, started.stay) == (600.0, False)
