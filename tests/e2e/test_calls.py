"""The callers' socket, /ws/calls, in the real browser: calls run in the page, with their own
answers, and `tabpilot mcp`'s client uses it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.client import connect

from tabpilot.client.connection import DaemonClient
from tabpilot.config import Settings
from tabpilot.protocol import CALLS_PATH
from tabpilot.tools.script import ExecuteParams
from tests.e2e.harness import Daemon


async def _calls(daemon: Daemon, frames: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    async with connect(f"ws://127.0.0.1:{daemon.port}{CALLS_PATH}", proxy=None) as ws:
        for frame in frames:
            await ws.send(json.dumps({"type": "call", **frame}))
        answers = [json.loads(await asyncio.wait_for(ws.recv(), 30)) for _ in frames]
    return {a["id"]: a["envelope"] for a in answers}


def test_calls_run_in_the_page_and_each_gets_its_answer(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    tab = page["id"]
    frames = [
        {"id": n, "method": "execute_javascript", "params": {"script": f"{n} * 2", "tab_id": tab}}
        for n in range(20)
    ]
    frames.append(
        {
            "id": "title",
            "method": "execute_javascript",
            "params": {"script": "document.title", "tab_id": tab},
        }
    )
    frames.append({"id": "tabs", "method": "tabs"})
    frames.append({"id": "hop", "method": "ping", "params": {"to": "page", "tab_id": tab}})
    answers = asyncio.run(_calls(daemon, frames))
    assert {n: answers[n]["result"] for n in range(20)} == {n: n * 2 for n in range(20)}
    assert answers["title"]["result"] == page["title"]
    assert answers["title"]["tab"]["id"] == tab
    assert tab in [t["id"] for t in answers["tabs"]["result"]]
    assert answers["hop"]["result"] == "pong"


def test_a_script_error_is_the_routes_envelope(daemon: Daemon, page: dict[str, Any]) -> None:
    script = "throw new TypeError('nope')"
    over_socket = asyncio.run(
        _calls(daemon, [{"id": 1, "method": "execute_javascript", "params": {"script": script}}])
    )[1]
    over_http = daemon.execute(script).json()
    assert over_socket["error"]["code"] == over_http["error"]["code"] == "execution_error"
    assert over_socket["error"]["message"] == over_http["error"]["message"]


def test_the_mcp_client_runs_scripts_over_it(daemon: Daemon, page: dict[str, Any]) -> None:
    async def go() -> list[dict[str, Any]]:
        settings = Settings.from_env(port=daemon.port)
        async with DaemonClient(settings) as client:
            return [await client.execute(ExecuteParams(script=f"{n} + 1")) for n in range(5)]

    assert [a["result"] for a in asyncio.run(go())] == [1, 2, 3, 4, 5]
