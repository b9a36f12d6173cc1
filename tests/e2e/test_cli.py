"""`tabpilot exec` and `tabpilot status` against the real daemon and browser. Without a daemon, and
each option of exec and tabs, in tests/test_cli.py."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.e2e.harness import Daemon


def tabpilot(port: int, *args: str) -> subprocess.CompletedProcess[str]:
    command = args[0]
    return subprocess.run(
        [sys.executable, "-m", "tabpilot", command, "--port", str(port), *args[1:]],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("script", "printed"),
    [
        ("2 + 2", "4"),
        ("'hello' + ' world'", "hello world"),
        ("[1, 2, 3]", "[\n  1,\n  2,\n  3\n]"),
        ("({foo: 'bar'})", '{\n  "foo": "bar"\n}'),
        ("undefined", "undefined"),
        ("true", "true"),
    ],
)
def test_exec_prints_results_as_a_person_reads_them(
    daemon: Daemon, page: dict[str, Any], script: str, printed: str
) -> None:
    done = tabpilot(daemon.port, "exec", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed + "\n"


def test_exec_failure_exits_non_zero(daemon: Daemon, page: dict[str, Any]) -> None:
    done = tabpilot(daemon.port, "exec", "throw new Error('test error')")
    assert done.returncode == 1
    assert done.stderr == "Error: test error\n"
    assert done.stdout == ""


def test_status_says_what_is_connected(daemon: Daemon, page: dict[str, Any]) -> None:
    done = tabpilot(daemon.port, "status")
    assert done.returncode == 0, done.stderr
    assert "connected (version 0.1.0" in done.stdout
    assert "pilot      ON" in done.stdout
