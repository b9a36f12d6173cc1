"""browser_tabs on every face (HTTP, the callers' socket, MCP, the CLI), against a scripted
extension: one parameter model, one command, one envelope. The real browser's side is in
tests/e2e/test_browser_tabs.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tabpilot import cli
from tests.mcp_support import call, open_mcp
from tests.support import Command, Daemon, Reply, connected, ok, run_daemon
from tests.test_calls import call as socket_call
from tests.test_calls import calls_socket

OPENED = {"id": 9, "url": "https://example.com/", "title": "", "active": True, "window_id": 1}


async def tabs_handler(command: Command) -> Reply:
    action = command.params["action"]
    if action == "list":
        return ok([OPENED], "array", tab=None)
    if action == "close":
        return ok({"closed": command.params["tab_id"]}, "object", tab=None)
    return ok(OPENED, "object")


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as d:
        yield d


@pytest.mark.parametrize(
    ("body", "params"),
    [
        ({}, {"action": "list", "url": None, "tab_id": None}),
        ({"action": "new", "url": "https://example.com/"}, None),
        ({"action": "new"}, None),
        ({"action": "select", "tab_id": 9}, None),
        ({"action": "close", "tab_id": 9}, None),
    ],
)
async def test_http_sends_one_command_with_the_params(
    daemon: Daemon, body: dict[str, Any], params: dict[str, Any] | None
) -> None:
    async with connected(daemon, tabs_handler) as fake, daemon.client() as client:
        response = await client.post("/browser_tabs", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["success"] is True
    [command] = fake.commands
    assert command.command == "browser_tabs"
    expected = {"action": "list", "url": None, "tab_id": None, **body}
    assert command.params == (params or expected)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"action": "select"}, "`select` needs `tab_id`"),
        ({"action": "new", "url": "file:///etc/passwd"}, "`url`"),
        ({"action": "new", "url": "javascript:alert(1)"}, "`url`"),
        ({"action": "list", "url": "https://example.com/"}, "`url` goes with the `new` action"),
        ({"action": "reload"}, "`action`"),
    ],
)
async def test_bad_params_are_refused_before_anything_is_sent(
    daemon: Daemon, body: dict[str, Any], says: str
) -> None:
    async with connected(daemon, tabs_handler) as fake, daemon.client() as client:
        response = await client.post("/browser_tabs", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert says in error["message"]
    assert fake.commands == []


async def test_the_socket_answers_the_routes_envelope(daemon: Daemon) -> None:
    async with connected(daemon, tabs_handler), daemon.client() as client:
        over_http = (await client.post("/browser_tabs", json={"action": "new"})).json()
        async with calls_socket(daemon) as ws:
            frame = await socket_call(ws, "browser_tabs", {"action": "new"})
            refused = await socket_call(ws, "browser_tabs", {"action": "select"}, call_id=2)
    envelope = frame["envelope"]
    assert envelope["result"] == over_http["result"] == OPENED
    assert refused["envelope"]["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_mcp_tool_answers_in_a_line_a_model_reads(daemon: Daemon, transport: str) -> None:
    async with (
        connected(daemon, tabs_handler) as fake,
        open_mcp(transport, daemon.settings.port) as client,
    ):
        _, opened = await call(client, "browser_tabs", action="new", url="https://example.com/")
        _, closed = await call(client, "browser_tabs", action="close", tab_id=9)
        result, listed = await call(client, "browser_tabs")
        refused, says = await call(client, "browser_tabs", action="select")
    assert opened == "9 (active): (untitled) https://example.com/"
    assert closed == "Closed tab 9."
    assert listed == "9 (active): (untitled) https://example.com/"
    assert result.structured_content is None  # the text is the whole answer
    assert refused.is_error and "`select` needs `tab_id`" in says
    assert [c.params["action"] for c in fake.commands] == ["new", "close", "list"]


async def test_the_cli_opens_lists_and_closes(
    daemon: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    port = str(daemon.settings.port)
    async with connected(daemon, tabs_handler) as fake:
        # The CLI is synchronous; run it off the event loop the fake extension answers on.
        import asyncio

        run = lambda *argv: asyncio.to_thread(cli.main, [*argv, "--port", port])  # noqa: E731
        assert await run("tabs", "new", "https://example.com/") == 0
        assert await run("tabs", "close", "9") == 0
        assert await run("tabs", "--json") == 0
        assert await run("tabs", "close", "nine") == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split() == ["*", "9", "(untitled)", "https://example.com/"]
    assert lines[1] == "closed 9"
    assert json.loads("\n".join(lines[2:])) == [OPENED]
    assert "needs a tab id" in err
    assert [c.params for c in fake.commands][:2] == [
        {"action": "new", "url": "https://example.com/", "tab_id": None},
        {"action": "close", "url": None, "tab_id": 9},
    ]
