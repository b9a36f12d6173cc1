"""Hints in execute_javascript's MCP answers, in a real tab of both browsers: a script that reads
the page's text is pointed to browser_read, and every call the hints show, made as shown, works
and answers what the script did. The rules themselves: tests/test_nudges.py."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from tabpilot.mcp.hints import FIRST_USE
from tabpilot.mcp.redo import REDOS
from tabpilot.tools import TOOLS
from tests.e2e.log_pages import log_daemon
from tests.mcp_support import hints_of, open_mcp, text_of

READ = next(redo.hint for redo in REDOS if redo.tool == "browser_read")


def _shown_calls(hints: list[str]) -> list[tuple[str, str]]:
    """The `tool {…}` calls the hints show that need no ref from a snapshot."""
    return [
        (tool, arguments)
        for tool, arguments in re.findall(r"\b([a-z_]+) (\{[^{}]*\})", "\n".join(hints))
        if '"ref"' not in arguments
    ]


async def _agent(port: int, tab: int) -> None:
    async with open_mcp("http", port, mode="legacy") as client:
        ran = await client.call_tool(
            "execute_javascript", {"script": "document.body.innerText", "tab_id": tab}
        )
        assert ran.is_error is False
        # The page's text, then the first-use line, which names browser_read already: the redo
        # line comes with the next such script. In the text only.
        assert (text_of(ran), hints_of(ran)) == ("Content", [FIRST_USE])
        assert ran.structured_content == {"result": "Content"}
        shown = _shown_calls([FIRST_USE, READ])
        assert {tool for tool, _ in shown} >= {"browser_read", "browser_snapshot"}
        for tool, arguments in shown:
            assert TOOLS[tool].read_only, tool
            answer = await client.call_tool(tool, {**json.loads(arguments), "tab_id": tab})
            assert answer.is_error is False, (tool, answer)
            assert hints_of(answer) == [] and answer.structured_content is None, tool
            if tool == "browser_read":  # what the script read
                assert text_of(answer) == "Content"
        again = await client.call_tool(
            "execute_javascript", {"script": "document.body.innerText", "tab_id": tab}
        )
        assert (text_of(again), hints_of(again)) == ("Content", [READ])
        third = await client.call_tool(
            "execute_javascript", {"script": "document.body.innerText", "tab_id": tab}
        )
        assert (text_of(third), hints_of(third)) == ("Content", [])


@pytest.mark.parametrize("browser_kind", ["managed", "browser"])
def test_a_script_that_reads_the_page_is_pointed_to_browser_read(
    request: pytest.FixtureRequest, browser_kind: str, pages: str
) -> None:
    daemon = log_daemon(request, browser_kind)
    opened = daemon.post_json("/browser_tabs", {"action": "new", "url": f"{pages}/index.html"})
    tab: Any = opened.json()["result"]["id"]
    try:
        asyncio.run(_agent(daemon.port, tab))
    finally:
        daemon.post_json("/browser_tabs", {"action": "close", "tab_id": tab})
