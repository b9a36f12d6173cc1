"""The service worker's port to a tab's content script, as the page goes into the back/forward
cache and comes back from it."""

from __future__ import annotations

from typing import Any

from selenium import webdriver

from tests.e2e.harness import Daemon, wait_for


def test_back_to_a_page_kept_in_the_back_forward_cache(
    daemon: Daemon, page: dict[str, Any], browser: webdriver.Chrome, pages: str
) -> None:
    browser.get(f"{pages}/bfcache.html")
    marked = daemon.execute("window.mark = 'first visit'; return document.title")
    assert marked.json()["result"] == "bfcache page", marked.text
    browser.get(f"{pages}/other.html")
    wait_for(
        lambda: daemon.execute("document.title").json().get("result") == "other tab",
        15,
        "the other page",
    )
    browser.back()
    # The page comes back from the cache, the very same document (its mark is still there): the
    # port the worker had to it closed when it went in, and a new one answers now.
    wait_for(
        lambda: daemon.execute("document.title").json().get("result") == "bfcache page",
        15,
        "the page back from the cache",
    )
    assert browser.execute_script("return window.shownFromCache") is True
    answer = daemon.execute("[window.mark, window.shownFromCache]")
    assert answer.json()["result"] == ["first visit", True], answer.text
    # Each command runs once there.
    assert daemon.execute("window.runs = (window.runs || 0) + 1").json()["result"] == 1
    assert daemon.execute("window.runs").json()["result"] == 1
