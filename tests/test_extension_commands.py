"""The extension implements exactly the commands the daemon sends: each tool's command
(tabpilot.tools.TOOLS, `Tool.command`) and the daemon's own (protocol.DAEMON_COMMANDS), read from
the worker's real handler map (extension-tests/support/command-names.mjs) with node."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tabpilot.protocol import DAEMON_COMMANDS
from tabpilot.tools import TOOLS

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "extension-tests" / "support" / "command-names.mjs"


def handled() -> set[str]:
    """The commands the extension's service worker dispatches."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to read the extension's handlers (make test installs it)")
    run = subprocess.run([node, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return set(json.loads(run.stdout))


def sent() -> set[str]:
    """The commands the daemon sends: each tool's own, and those it uses itself."""
    return {t.command for t in TOOLS.values() if t.command is not None} | set(DAEMON_COMMANDS)


def test_the_extension_handles_every_command_the_daemon_sends_and_no_other() -> None:
    extension = handled()
    assert sent() - extension == set(), "sent, but the extension has no handler"
    assert extension - sent() == set(), "handled, but the daemon never sends it"


def test_a_tool_the_extension_does_not_know_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison itself: a tool whose command the worker lacks is named.
    from dataclasses import replace

    renamed = replace(TOOLS["browser_read"], command="browser_read_more")
    monkeypatch.setitem(TOOLS, "browser_read", renamed)
    assert sent() - handled() == {"browser_read_more"}
