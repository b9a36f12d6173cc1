"""timeout_ms written as a float that holds a whole number (5000.0, as Python and JavaScript
clients write it) is 5000 on every face: the HTTP body, the callers' socket, the MCP tool and the
CLI. Anything else that is not a whole number stays refused, with a clear invalid_request."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from tabpilot.protocol import CALLS_PATH
from tests.mcp_support import TRANSPORTS, call, open_mcp
from tests.support import Daemon, connected, run_daemon

#: (JSON, the int it means)
ACCEPTED: list[tuple[str, int | str]] = [
    ("5000.0", 5000),
    ("5e3", 5000),
    ("1.0", 1),
    ("120000.0", 120_000),
    ("7", 7),
]
#: (JSON, what the message says)
REFUSED: list[tuple[str, int | str]] = [
    ("5000.5", "5000.5 is not a whole number of milliseconds"),
    ("true", "`timeout_ms`: Input should be a valid integer"),
    ('"5000"', "`timeout_ms`: Input should be a valid integer"),
    ("0.0", "greater than or equal to 1"),
    ("120001.0", "less than or equal to 120000"),
]


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as running:
        yield running


def _body(timeout_json: str) -> str:
    return '{"script": "2 + 2", "timeout_ms": ' + timeout_json + "}"


async def _over_socket(daemon: Daemon, timeout_json: str) -> dict[str, Any]:
    frame = '{"type": "call", "id": 1, "method": "execute_javascript", "params": '
    async with connect(
        f"ws://127.0.0.1:{daemon.settings.port}{CALLS_PATH}", proxy=None, open_timeout=10
    ) as ws:
        await ws.send(frame + _body(timeout_json) + "}")
        envelope: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))["envelope"]
    return envelope


@pytest.mark.parametrize(("written", "expected"), ACCEPTED + REFUSED)
async def test_over_http_and_the_socket(
    daemon: Daemon, client: httpx.AsyncClient, written: str, expected: int | str
) -> None:
    """A whole float is accepted as the int it holds; anything else refused, saying why."""
    async with connected(daemon) as fake:
        response = await client.post("/execute_javascript", content=_body(written))
        envelope = await _over_socket(daemon, written)
    sent = [command.params["timeout_ms"] for command in fake.commands]
    if isinstance(expected, int):
        assert response.status_code == 200, response.text
        assert envelope["success"] is True, envelope
        assert sent == [expected, expected]
        assert all(type(value) is int for value in sent)
        return
    assert sent == []
    for status, answer in ((response.status_code, response.json()), (400, envelope)):
        assert status == 400
        assert answer["error"]["code"] == "invalid_request"
        assert expected in answer["error"]["message"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_mcp_tool_takes_a_whole_float_and_refuses_the_rest(transport: str) -> None:
    with run_daemon() as daemon:
        async with connected(daemon) as fake, open_mcp(transport, daemon.settings.port) as client:
            result, _ = await call(client, "execute_javascript", script="1", timeout_ms=5000.0)
            refused = [
                await call(client, "execute_javascript", script="1", timeout_ms=value)
                for value in (5000.5, "5000", True)
            ]
    assert result.is_error is False
    assert [command.params["timeout_ms"] for command in fake.commands] == [5000]
    for tool_result, text in refused:
        assert tool_result.is_error is True, text
        assert "timeout_ms" in text
    assert "not a whole number of milliseconds" in refused[0][1]


async def test_the_cli_takes_a_whole_float(daemon: Daemon) -> None:
    def exec_(timeout: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tabpilot", "exec", "--timeout-ms", timeout, "2 + 2"],
            capture_output=True,
            text=True,
            env={"TABPILOT_PORT": str(daemon.settings.port)},
            timeout=30,
        )

    async with connected(daemon) as fake:
        accepted = await asyncio.to_thread(exec_, "5000.0")
        refused = await asyncio.to_thread(exec_, "5000.5")
    assert accepted.returncode == 0, accepted.stderr
    assert [command.params["timeout_ms"] for command in fake.commands] == [5000]
    assert refused.returncode == 2
    assert "--timeout-ms: 5000.5 is not a whole number of milliseconds" in refused.stderr
