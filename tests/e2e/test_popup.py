"""The popup's recent activity shows the human what the AI ran, newest first."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.e2e.harness import POPUP_URL, Daemon, wait_for

FAILING = "const reason = 'popup test';\nthrow new Error(reason)"


@contextmanager
def popup(driver: webdriver.Chrome) -> Iterator[None]:
    """The popup in a new tab, as use_popup opens it; afterwards back to the tab before."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(POPUP_URL)
        yield
    finally:
        driver.close()
        driver.switch_to.window(previous)


def rows(driver: webdriver.Chrome) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, "#activity-list > li")


def row_text(row: WebElement, css: str) -> str:
    return row.find_element(By.CSS_SELECTOR, css).text


def test_activity_lists_what_ran_newest_first(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    assert daemon.execute("document.title").json()["result"] == "tabpilot test page"
    failed = daemon.execute(FAILING).json()
    assert failed["error"]["code"] == "execution_error"

    with popup(browser):
        # Earlier tests ran commands in this browser too; ours are the two newest.
        wait_for(lambda: len(rows(browser)) >= 2, 5, "the activity list")
        newest, before = rows(browser)[:2]

        assert row_text(newest, ".script") == "const reason = 'popup test'; …"
        assert newest.find_element(By.CSS_SELECTOR, ".script").get_attribute("title") == FAILING
        outcome = newest.find_element(By.CSS_SELECTOR, ".outcome")
        assert outcome.text == "execution_error"
        assert "failed" in (outcome.get_attribute("class") or "")

        assert row_text(before, ".script") == "document.title"
        assert row_text(before, ".outcome") == "ok"
        assert row_text(before, ".where") == page["url"].split("/")[2]
        assert not browser.find_element(By.ID, "activity-empty").is_displayed()


def test_clear_empties_the_list(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    assert daemon.execute("1 + 1").json()["result"] == 2

    with popup(browser):
        wait_for(lambda: rows(browser), 5, "the activity list")
        browser.find_element(By.ID, "activity-clear").click()
        wait_for(lambda: not rows(browser), 5, "the list to empty")
        empty = browser.find_element(By.ID, "activity-empty")
        assert empty.is_displayed()
        assert empty.text == "Nothing has run yet."

    # The worker's list is empty too, not just the popup's: a fresh popup shows nothing.
    with popup(browser):
        wait_for(
            lambda: browser.find_element(By.ID, "activity-empty").is_displayed(), 5, "empty state"
        )
        assert rows(browser) == []
