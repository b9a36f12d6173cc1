"""A real daemon with no extension connected, and the managed browser of `serve --browser`."""

from __future__ import annotations

import os
import time

import httpx

from tests.e2e.harness import spawn_daemon, wait_for


def test_no_extension_connected_after_the_grace() -> None:
    with spawn_daemon("--connect-grace", "0.5") as lonely:
        started = time.monotonic()
        response = lonely.execute("2 + 2")
        elapsed = time.monotonic() - started
        body = response.json()
        assert response.status_code == 503, body
        assert body["error"]["code"] == "extension_not_connected"
        assert "tabpilot serve --browser" in body["error"]["message"]
        assert 0.5 <= elapsed < 5


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes; its parent (the daemon) is gone too.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] != "Z"


def test_managed_browser_answers_at_once_and_stops_with_the_daemon() -> None:
    with spawn_daemon("--browser", "--connect-grace", "20") as managed:
        # No waiting for the extension first: the grace covers a browser that is still starting,
        # as for a new user's first curl after `make run`.
        response = managed.execute("[navigator.userAgent, location.href, document.title]")
        body = response.json()
        assert response.status_code == 200, body
        agent, url, title = body["result"]
        assert "Chrome" in agent
        # Chromium starts on about:blank; the daemon then loads its landing page in that tab
        # (tabpilot.browsers.supervisor), the one tab there is.
        assert (url, title) == (f"{managed.url}/", "tabpilot")
        assert [tab["url"] for tab in managed.get("/tabs").json()["result"]] == [url]
        # Chrome marks a navigation the extension starts cross-site: the landing page serves it.
        again = httpx.post(f"{managed.url}/browser_navigate", json={"url": url}, timeout=30)
        assert again.json()["success"], again.text
        assert managed.execute("document.title").json()["result"] == "tabpilot"
        status = managed.status()
        assert status["extension"]["pilot_enabled"] is True
        assert status["browser"]["managed"] is True
        assert status["browser"]["running"] is True
        assert status["browser"]["ready"] is True  # the call waited for its first page
        pid = status["browser"]["pid"]
    wait_for(lambda: not _alive(pid), 10, "the managed Chromium to stop with its daemon")
