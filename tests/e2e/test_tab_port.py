"""The service worker's port to a tab's content script, as the page goes away and comes back."""

from __future__ import annotations

import time
from typing import Any

from selenium import webdriver

from tests.e2e.harness import Daemon, wait_for


def test_a_page_that_reloads_mid_command_fails_it_at_once_and_the_next_runs(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    started = time.monotonic()
    response = daemon.execute(
        "setTimeout(() => location.reload(), 0); return new Promise(() => {})", timeout_ms=20_000
    )
    elapsed = time.monotonic() - started
    assert response.status_code == 409, response.text
    assert response.json()["error"]["code"] == "tab_navigated"
    assert elapsed < 15, f"took {elapsed:.1f} s: the closed port should fail it, not the timeout"

    # The reloaded page gets a new port; each command runs once there.
    def runs() -> bool:
        answer = daemon.execute("window.runs = (window.runs || 0) + 1").json()
        return answer.get("result") == 1

    wait_for(runs, 15, "a command on the reloaded page")
    assert daemon.execute("window.runs").json()["result"] == 1


def test_back_to_a_page_kept_in_the_back_forward_cache(
    daemon: Daemon, page: dict[str, Any], browser: webdriver.Chrome, pages: str
) -> None:
    assert daemon.execute("window.mark = 'first visit'; return document.title").json()[
        "result"
    ] == ("tabpilot test page")
    browser.get(f"{pages}/other.html")
    wait_for(
        lambda: daemon.execute("document.title").json().get("result") == "other tab",
        15,
        "the other page",
    )
    browser.back()
    wait_for(
        lambda: daemon.execute("document.title").json().get("result") == "tabpilot test page",
        15,
        "the first page again",
    )
    # Restored from the cache, or loaded anew: either way one answer, from the live page.
    assert daemon.execute("window.mark ?? 'reloaded'").json()["result"] in (
        "first visit",
        "reloaded",
    )
