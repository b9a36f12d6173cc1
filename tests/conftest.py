"""Fixtures shared by every test: an isolated environment, and an HTTP client of the daemon."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import figures
from tests.support import Daemon

_WRITTEN = pytest.StashKey[Path]()


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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Each test's figures belong to it alone, and count only if it passes (tests/figures.py)."""
    figures.begin(item.nodeid, e2e=item.get_closest_marker("e2e") is not None)
    try:
        yield
    finally:
        figures.end()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        figures.failed()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write the figures of a complete, passing run (see tests/figures.py for where)."""
    written = figures.write_if_complete(passed=exitstatus == 0)
    if written is not None:
        session.config.stash[_WRITTEN] = written


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    written = config.stash.get(_WRITTEN, None)
    if written is not None:
        terminalreporter.write_line(f"reliability figures written to {written}")
