"""Fixtures shared by every test: an isolated environment, and an HTTP client of the daemon."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.support import Daemon


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No TABPILOT_* setting leaks in from the shell, and state goes to a temporary dir."""
    for name in list(os.environ):
        if name.startswith("TABPILOT_"):
            monkeypatch.delenv(name)
    state_dir = tmp_path / "state"
    monkeypatch.setenv("TABPILOT_STATE_DIR", str(state_dir))
    return state_dir


@pytest.fixture
async def client(daemon: Daemon) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the module's ``daemon`` fixture (a tests/support.py run_daemon()).

    Room for 200 connections at once, so that tests of many concurrent callers are not queued
    by the client.
    """
    async with daemon.client(limits=httpx.Limits(max_connections=200)) as c:
        yield c


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write docs/reliability.md from the figures this run recorded (see tests/figures.py)."""
    from tests import figures

    figures.write_if_complete(passed=exitstatus == 0)
