"""An agent's view: the official MCP client, over stdio (`tabpilot mcp`) and at /mcp, driving the
real daemon, Chromium and extension. What needs no browser (no extension, no daemon) is in
tests/test_mcp_server.py."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from selenium import webdriver

from tabpilot.tools import TOOLS
from tests.e2e.harness import Daemon, set_pilot
from tests.mcp_support import TRANSPORTS, call, open_mcp

both = pytest.mark.parametrize("transport", TRANSPORTS)

SCRIPTS = [
    ("1 + 1", "2"),
    ("document.querySelector('#test').textContent", "Content"),
    ("({foo: 'bar', count: 5})", '{"foo": "bar", "count": 5}'),
    ("[1, 2, 3]", "[1, 2, 3]"),
    ("document.title.length > 0", "true"),
    ("undefined", "undefined"),
    ("const n = document.querySelectorAll('div').length; return n", "1"),
    ("await new Promise((resolve) => setTimeout(() => resolve('later'), 50))", "later"),
]


@both
async def test_an_agent_runs_scripts_in_the_real_tab(
    transport: str, daemon: Daemon, page: dict[str, Any]
) -> None:
    async with open_mcp(transport, daemon.port) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        # The context tools are listed to a client that asks for them (`--caps contexts`).
        assert tools == {*(n for n, t in TOOLS.items() if t.mcp.cap is None), "pilot_status"}
        for script, text in SCRIPTS:
            result, shown = await call(client, "execute_javascript", script=script)
            assert (shown, result.is_error) == (text, False), script
            # The value as JSON, beside the text (none for undefined).
            assert result.structured_content is not None
            assert set(result.structured_content) == (set() if text == "undefined" else {"result"})


@both
async def test_browser_tabs_then_run_in_a_chosen_tab(
    transport: str, daemon: Daemon, page: dict[str, Any]
) -> None:
    async with open_mcp(transport, daemon.port) as client:
        tabs, text = await call(client, "browser_tabs")
        assert f"{page['id']} (active): tabpilot test page {page['url']}" in text.splitlines()
        assert tabs.structured_content is None  # the text is the whole answer
        result, shown = await call(
            client, "execute_javascript", script="location.href", tab_id=page["id"]
        )
    assert shown == page["url"]
    assert result.structured_content is not None
    assert result.structured_content["result"] == page["url"]


@both
async def test_browser_tabs_opens_a_tab_the_agent_then_runs_in_and_closes(
    transport: str, daemon: Daemon, page: dict[str, Any], pages: str
) -> None:
    url = f"{pages}/other.html"
    async with open_mcp(transport, daemon.port) as client:
        _, line = await call(client, "browser_tabs", action="new", url=url)
        found = re.match(r"(\d+) \(active\): ", line)
        assert found, line
        tab_id = int(found[1])
        # The new tab is the active one, where a script without tab_id runs, once it has loaded.
        title = ""
        for _ in range(200):
            _, title = await call(client, "execute_javascript", script="document.title")
            if title == "other tab":
                break
            await asyncio.sleep(0.05)
        assert title == "other tab"
        _, closed = await call(client, "browser_tabs", action="close", tab_id=tab_id)
        refused, said = await call(client, "browser_tabs", action="new", url="file:///etc/passwd")
    assert closed == f"Closed tab {tab_id}."
    assert refused.is_error and "`url`" in said


@both
async def test_pilot_status_follows_the_switch(
    transport: str, daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    async with open_mcp(transport, daemon.port) as client:
        _, on = await call(client, "pilot_status")
        set_pilot(browser, daemon, False)
        try:
            _, off = await call(client, "pilot_status")
            refused, refusal = await call(client, "execute_javascript", script="1 + 1")
        finally:
            set_pilot(browser, daemon, True)
    assert "Extension: connected" in on and "AI Web Pilot: ON" in on
    assert "AI Web Pilot: OFF" in off
    assert refused.is_error is True
    assert refusal.startswith("Error: ")
    assert "Turn it on in the tabpilot extension popup" in refusal
    assert refused.structured_content and refused.structured_content["error"]["code"] == (
        "pilot_disabled"
    )


@both
async def test_failures_say_what_to_do_next(
    transport: str, daemon: Daemon, page: dict[str, Any]
) -> None:
    async with open_mcp(transport, daemon.port) as client:
        thrown, thrown_text = await call(
            client, "execute_javascript", script="throw new Error('boom')"
        )
        stuck, stuck_text = await call(
            client,
            "execute_javascript",
            script="await new Promise(() => {})",
            timeout_ms=500,
        )
        after, after_text = await call(client, "execute_javascript", script="1 + 1")
    assert thrown.is_error is True
    assert thrown_text == "Error: boom"
    assert (
        thrown.structured_content and "<script>:1:7" in thrown.structured_content["error"]["stack"]
    )
    assert stuck.is_error is True
    assert stuck.structured_content and stuck.structured_content["error"]["code"] == (
        "execution_timeout"
    )
    assert "Narrow the script or raise timeout_ms" in stuck_text
    assert (after_text, after.is_error) == ("2", False)  # the tab still answers
