"""Fixtures shared by every test: an isolated environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No TABPILOT_* setting leaks in from the shell, and state goes to a temporary dir."""
    for name in list(os.environ):
        if name.startswith("TABPILOT_"):
            monkeypatch.delenv(name)
    state_dir = tmp_path / "state"
    monkeypatch.setenv("TABPILOT_STATE_DIR", str(state_dir))
    return state_dir


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write docs/reliability.md from the figures this run recorded (see tests/figures.py)."""
    from tests import figures

    figures.write_if_complete(passed=exitstatus == 0)
