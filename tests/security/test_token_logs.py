"""README, "Security model": tokens are never logged. Neither the daemon's own token nor a wrong one
a caller sent appears in any log line, whichever way it came: an HTTP header, the extension's
hello, the callers' socket or /mcp.

Checked in the log of a real `tabpilot serve` process at both of the levels it has: its INFO lines
by default, and with --access-log a line per request besides. (Below those, at DEBUG, which no
setting of the daemon turns on, uvicorn would log WebSocket handshake headers, Authorization with
them.)
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tabpilot.protocol import CALLS_PATH, CLOSE_UNAUTHORIZED
from tests.e2e.harness import spawn_daemon
from tests.mcp_support import INITIALIZE, MCP_HEADERS
from tests.support import FakeExtension

TOKEN = "own-token-7d1f3b9c2e5a"
WRONG = "wrong-token-4b8e6a0c1d3f"


async def _traffic(port: int) -> None:
    """Present the right and a wrong token on every way in."""
    base = f"http://127.0.0.1:{port}"
    ws_base = f"ws://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=30) as http:
        for token in (TOKEN, WRONG):
            bearer = {"Authorization": f"Bearer {token}"}
            await http.get("/status", headers=bearer)
            await http.post("/execute_javascript", json={"script": token}, headers=bearer)
            await http.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **bearer})
            try:
                async with connect(
                    ws_base + CALLS_PATH, additional_headers=bearer, proxy=None, open_timeout=10
                ):
                    pass
            except InvalidStatus as refused:
                assert token == WRONG and refused.response.status_code == 401
        # The extension's hello: a wrong token is refused with 4004, the right one is taken.
        wrong = await FakeExtension(
            f"{ws_base}/ws", token=WRONG, expect_daemon_hello=False
        ).connect()
        assert (await wrong.wait_closed())[0] == CLOSE_UNAUTHORIZED
        async with FakeExtension(f"{ws_base}/ws", token=TOKEN) as right:
            bearer = {"Authorization": f"Bearer {TOKEN}"}
            answer = await http.post("/execute_javascript", json={"script": "1"}, headers=bearer)
            assert answer.json()["result"] == "1"
            assert right.commands


@pytest.mark.parametrize("flags", [(), ("--access-log",)], ids=["default", "access-log"])
def test_no_token_in_the_log_of_a_real_daemon(flags: tuple[str, ...]) -> None:
    with spawn_daemon(*flags, env={"TABPILOT_TOKEN": TOKEN}) as daemon:
        asyncio.run(_traffic(daemon.port))
        log = (daemon.state_dir / "daemon.log").read_text(errors="replace")
    # The log is really there: the refusals, the extension refused, and with --access-log a
    # line per request.
    assert "refused http /execute_javascript: unauthorized" in log
    assert "refused websocket /ws/calls: unauthorized" in log
    assert "refused an extension: its hello has a wrong or no token" in log
    if flags:
        assert '"POST /execute_javascript HTTP/1.1" 401' in log
        assert '"POST /mcp HTTP/1.1" 200' in log
    assert TOKEN not in log
    assert WRONG not in log
