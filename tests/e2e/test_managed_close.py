"""The managed browser of `serve --browser` comes back by itself: after browser_close stopped it,
and after it crashed, the next call starts it again, with no daemon restart."""

from __future__ import annotations

import os
import signal

from tests.e2e.harness import Daemon, spawn_daemon, wait_for
from tests.e2e.test_daemon_alone import _alive


def _runs(daemon: Daemon, script: str, expected: object) -> int:
    """Run ``script``, check its result, and return the managed Chromium's pid."""
    response = daemon.execute(script, timeout=60)
    assert response.status_code == 200, response.text
    assert response.json()["result"] == expected
    browser = daemon.status()["browser"]
    assert browser["running"] is True
    pid: int = browser["pid"]
    return pid


def test_a_crashed_or_closed_managed_browser_is_started_by_the_next_call() -> None:
    with spawn_daemon("--browser", "--connect-grace", "20") as daemon:
        first = _runs(daemon, "1 + 1", 2)

        # A crash: Chromium killed outright. The daemon sees its extension leave...
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: not daemon.status()["extension"]["connected"], 20, "the link to drop")
        # ...and the next call starts a new Chromium and runs in it.
        second = _runs(daemon, "2 + 2", 4)
        assert second != first

        closed = daemon.post_json("/browser_close", {}, timeout=60)
        assert closed.status_code == 200, closed.text
        result = closed.json()["result"]
        assert result["browser"] == "stopped"
        assert isinstance(result["closed_tabs"], list)
        status = daemon.status()
        assert status["browser"]["running"] is False
        assert status["extension"]["connected"] is False
        assert not _alive(second)

        # Closing a stopped browser does not start it only to stop it again.
        again = daemon.post_json("/browser_close", {}, timeout=60).json()["result"]
        assert again == {"closed_tabs": [], "browser": "stopped"}
        assert daemon.status()["browser"]["running"] is False

        third = _runs(daemon, "3 + 3", 6)
        assert third not in (first, second)
