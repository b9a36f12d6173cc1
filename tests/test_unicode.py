"""Lone surrogates: JavaScript strings may hold them, UTF-8 cannot. Every answer of the daemon is
valid UTF-8 JSON, with each lone surrogate the extension reports turned into U+FFFD, on every face:
HTTP, the callers' socket, MCP and the CLI. Against a scripted fake extension, which writes a
Python str holding a lone surrogate as its JSON escape, as Chrome's JSON.stringify does."""

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

from tabpilot.envelope import dumps
from tabpilot.protocol import CALLS_PATH
from tabpilot.unicode import well_formed
from tests.mcp_support import TRANSPORTS, call, open_mcp
from tests.support import TAB, Command, Daemon, Reply, connected, fail, ok, run, run_daemon

LONE = "a\ud800b"
REPLACED = "a\ufffdb"


async def surrogates(command: Command) -> Reply:
    """Answers with lone surrogates in the result, the tab's title, or the error's message."""
    script = command.params.get("script")
    tab = {**TAB, "title": "t\udc00"}
    if script == "throw":
        return {**fail("execution_error", "bad \ud800", "Error: bad \ud800\n    at x"), "tab": tab}
    if script == "nested":
        return ok({"k\udfff": [LONE, {"deep": "\ud83d"}], "pair": "\ud83d\ude00"}, "object", tab)
    return ok(LONE, "string", tab)


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as running:
        yield running


def test_well_formed_keeps_pairs_and_replaces_lone_halves() -> None:
    assert well_formed("x\ud83d\ude00y") == "x\U0001f600y"
    assert well_formed("\udc00\ud800") == "\ufffd\ufffd"
    assert well_formed("plain ✓") == "plain ✓"
    assert dumps({"r": LONE}) == '{"r":"a\ufffdb"}'.encode()


async def test_http_answers_carry_u_fffd(daemon: Daemon, client: httpx.AsyncClient) -> None:
    async with connected(daemon, surrogates):
        response = await run(client, "lone")
        body = json.loads(response.content.decode("utf-8"))  # strict: valid UTF-8
        assert response.status_code == 200, body
        assert body["result"] == REPLACED
        assert body["tab"]["title"] == "t\ufffd"
        nested = (await run(client, "nested")).json()["result"]
        assert nested == {"k\ufffd": [REPLACED, {"deep": "\ufffd"}], "pair": "\U0001f600"}
        thrown = (await run(client, "throw")).json()
        assert thrown["error"]["code"] == "execution_error"
        assert thrown["error"]["message"] == "bad \ufffd"
        assert thrown["error"]["stack"].startswith("Error: bad \ufffd")


@pytest.mark.parametrize("script", ["\ud800", "'\ud800'.length", "x\udc00"])
async def test_a_script_with_a_lone_surrogate_is_refused_with_what_to_write_instead(
    daemon: Daemon, client: httpx.AsyncClient, script: str
) -> None:
    async with connected(daemon) as fake:
        # JSON.stringify writes the escape; so does json.dumps.
        response = await client.post("/execute_javascript", content=json.dumps({"script": script}))
        answer = await _socket_call(
            daemon,
            {"type": "call", "id": 1, "method": "execute_javascript", "params": {"script": script}},
        )
    assert fake.commands == []
    for status, envelope in ((response.status_code, response.json()), (400, answer["envelope"])):
        assert status == 400
        assert envelope["error"]["code"] == "invalid_request"
        assert "`script` holds a lone surrogate" in envelope["error"]["message"]
        assert "\\ud800" in envelope["error"]["message"]


async def _socket_call(daemon: Daemon, frame: dict[str, Any]) -> dict[str, Any]:
    url = f"ws://127.0.0.1:{daemon.settings.port}{CALLS_PATH}"
    async with connect(url, proxy=None, open_timeout=10) as ws:
        await ws.send(json.dumps(frame))
        text = await asyncio.wait_for(ws.recv(decode=False), 10)
    answer: dict[str, Any] = json.loads(text.decode("utf-8"))  # strict: valid UTF-8
    return answer


async def test_the_callers_socket_answers_carry_u_fffd_and_echo_the_callers_id(
    daemon: Daemon,
) -> None:
    async with connected(daemon, surrogates) as fake:
        frame = {"type": "call", "id": 3, "method": "execute_javascript"}
        answer = await _socket_call(daemon, {**frame, "params": {"script": "nested"}})
        assert answer["envelope"]["result"]["k\ufffd"][0] == REPLACED
        # An id with a lone surrogate is refused like any id that is not a string: not echoed.
        weird = await _socket_call(daemon, {**frame, "id": "id\udfff", "params": {"script": "x"}})
        assert weird["id"] is None
        assert "`id` must be a string" in weird["envelope"]["error"]["message"]
        assert len(fake.commands) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_mcp_text_and_structured_content_carry_u_fffd(transport: str) -> None:
    with run_daemon() as daemon:
        async with (
            connected(daemon, surrogates),
            open_mcp(transport, daemon.settings.port) as client,
        ):
            result, text = await call(client, "execute_javascript", script="lone")
            thrown, error_text = await call(client, "execute_javascript", script="throw")
    assert result.is_error is False
    assert text == REPLACED
    assert result.structured_content is not None
    assert result.structured_content["result"] == REPLACED
    assert thrown.is_error is True
    assert error_text == "Error: bad \ufffd"


async def test_the_cli_prints_u_fffd(daemon: Daemon) -> None:
    async with connected(daemon, surrogates):
        for extra in ([], ["--json"]):
            done = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "tabpilot", "exec", "lone", *extra],
                capture_output=True,
                env={"TABPILOT_PORT": str(daemon.settings.port), "PYTHONIOENCODING": "utf-8"},
                timeout=30,
            )
            assert done.returncode == 0, done.stderr
            printed = done.stdout.decode("utf-8")
            assert (json.loads(printed)["result"] if extra else printed.strip()) == REPLACED
