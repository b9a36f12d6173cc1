"""Reliability fixtures: the end-to-end ones (a real daemon, Chromium and the extension), imported
from tests/e2e so both suites set the browser up the same way, plus tabs of their own."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException

from tests.e2e.conftest import browser, daemon, page, pages
from tests.e2e.harness import Daemon, wait_for

__all__ = ["browser", "daemon", "new_tab", "page", "pages"]

#: The files here that drive the real browser; test_limits.py plays the extension instead.
E2E = ("test_faults.py", "test_load.py", "test_connection.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.fspath))
        if path.parent.name == "reliability" and path.name in E2E:
            item.add_marker(pytest.mark.e2e)


def find_tab(daemon: Daemon, url: str) -> dict[str, Any]:
    """The tab showing `url`, from GET /tabs, once it is there."""

    def find() -> dict[str, Any] | None:
        tabs = daemon.get("/tabs").json()["result"]
        return next((tab for tab in tabs if tab["url"] == url), None)

    tab: dict[str, Any] = wait_for(find, 10, f"{url} in /tabs")
    return tab


@contextlib.contextmanager
def new_tab(driver: webdriver.Chrome, daemon: Daemon, url: str) -> Iterator[dict[str, Any]]:
    """A new tab showing `url` for the length of the block; selenium stays on the tab it was on,
    so that a tab stuck in a script never holds up ChromeDriver. Yields its /tabs entry and, as
    "handle", its window handle (ChromeDriver's handles are CDP target ids)."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    handle = driver.current_window_handle
    driver.get(url)
    driver.switch_to.window(previous)
    try:
        yield {**find_tab(daemon, url), "handle": handle}
    finally:
        if handle in driver.window_handles:
            with contextlib.suppress(WebDriverException):
                driver.execute_cdp_cmd("Target.closeTarget", {"targetId": handle})
