"""docs/api.md: /mcp keeps "up to 64 client sessions, an idle one closed after 30 minutes". Raw
streamable-HTTP requests against a real daemon, below the SDK's client, so each session is one
initialize."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import httpx
import pytest

from tabpilot.mcp import http as mcp_http
from tabpilot.mcp.http import MCP_MAX_SESSIONS, MCP_PATH, MCP_SESSION_IDLE_S
from tests.mcp_support import INITIALIZE, MCP_HEADERS
from tests.support import run_daemon, until

API_PAGE = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


async def _open(client: httpx.AsyncClient) -> httpx.Response:
    return await client.post(MCP_PATH, json=INITIALIZE, headers=MCP_HEADERS)


async def _list_tools(client: httpx.AsyncClient, session: str) -> httpx.Response:
    headers = {**MCP_HEADERS, "mcp-session-id": session}
    return await client.post(MCP_PATH, json=TOOLS_LIST, headers=headers)


def test_the_docs_state_the_limits_the_daemon_keeps() -> None:
    assert (MCP_MAX_SESSIONS, MCP_SESSION_IDLE_S) == (64, 30 * 60)
    assert "up to 64 client sessions, an idle one closed after 30 minutes" in API_PAGE


async def test_64_sessions_at_most_and_room_again_when_one_ends() -> None:
    with run_daemon() as daemon:
        async with daemon.client() as client:
            sessions = []
            for _ in range(MCP_MAX_SESSIONS):
                opened = await _open(client)
                assert opened.status_code == 200, opened.text
                sessions.append(opened.headers["mcp-session-id"])
            assert len(set(sessions)) == MCP_MAX_SESSIONS

            refused = await _open(client)
            assert refused.status_code == 503, refused.text
            assert "Too many open sessions" in refused.text
            # The sessions already open are unaffected.
            for session in (sessions[0], sessions[-1]):
                assert (await _list_tools(client, session)).status_code == 200

            # A client that leaves (DELETE) makes room for the next.
            left = await client.delete(
                MCP_PATH, headers={**MCP_HEADERS, "mcp-session-id": sessions[0]}
            )
            assert left.status_code == 200, left.text
            assert (await _list_tools(client, sessions[0])).status_code == 404
            assert (await _open(client)).status_code == 200


async def test_an_idle_session_is_closed_and_its_id_answers_404(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    idle_s = 0.5  # for the test; the daemon keeps an idle session 30 minutes
    monkeypatch.setattr(mcp_http, "MCP_SESSION_IDLE_S", idle_s)
    caplog.set_level(logging.INFO, logger="mcp")
    with run_daemon() as daemon:
        async with daemon.client() as client:
            opened = await _open(client)
            session = opened.headers["mcp-session-id"]
            # The session's idle clock starts when the daemon has served this last request: after
            # it was sent.
            last_used = time.monotonic()
            listed = await _list_tools(client, session)
            assert listed.status_code == 200, listed.text

            def closed() -> bool:
                return any(
                    f"Session {session} idle timeout" in r.getMessage() for r in caplog.records
                )

            await until(closed, "the idle session to be closed", timeout=10)
            assert time.monotonic() - last_used >= idle_s
            gone = await _list_tools(client, session)
            assert gone.status_code == 404, gone.text
            assert "Session not found" in gone.text
            # A client that comes back opens a new session.
            assert (await _open(client)).status_code == 200
