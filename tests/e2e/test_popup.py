"""The popup's activity shows the human what the AI ran, newest first: every command, refusals
included, and the exports of their cookies kept until they clear them."""

from __future__ import annotations

from typing import Any

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement

from tests.e2e.harness import Daemon, popup_tab, set_pilot, set_popup_switch, wait_for

FAILING = "const reason = 'popup test';\nthrow new Error(reason)"


def rows(driver: webdriver.Chrome, list_id: str = "activity-list") -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, f"#{list_id} > li")


def kept_rows(driver: webdriver.Chrome) -> list[WebElement]:
    return rows(driver, "kept-list")


def row_text(row: WebElement, css: str) -> str:
    return row.find_element(By.CSS_SELECTOR, css).text


def test_activity_lists_what_ran_newest_first(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    assert daemon.execute("document.title").json()["result"] == "tabpilot test page"
    failed = daemon.execute(FAILING).json()
    assert failed["error"]["code"] == "execution_error"

    with popup_tab(browser):
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

    with popup_tab(browser):
        wait_for(lambda: rows(browser), 5, "the activity list")
        browser.find_element(By.ID, "activity-clear").click()
        wait_for(lambda: not rows(browser), 5, "the list to empty")
        empty = browser.find_element(By.ID, "activity-empty")
        assert empty.is_displayed()
        assert empty.text == "Nothing has run yet."

    # The worker's list is empty too, not just the popup's: a fresh popup shows nothing.
    with popup_tab(browser):
        wait_for(
            lambda: browser.find_element(By.ID, "activity-empty").is_displayed(), 5, "empty state"
        )
        assert rows(browser) == []


def test_an_export_stays_kept_after_25_more_scripts_until_the_person_clears_it(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    set_popup_switch(browser, "export-toggle", True)
    try:
        saved = daemon.post_json("/browser_context_save_storage", {}, timeout=60).json()
        assert saved["success"], saved
    finally:
        set_popup_switch(browser, "export-toggle", False)
    # Enough trivial scripts to push the export out of the 20 recent commands, and more.
    for _ in range(25):
        assert daemon.execute("1").json()["result"] == 1

    with popup_tab(browser):
        wait_for(lambda: kept_rows(browser), 5, "the kept list")
        [export] = kept_rows(browser)[:1]
        assert row_text(export, ".script").startswith("saved this browser's cookies and storage (")
        assert row_text(export, ".outcome") == "ok"
        # The recent list holds the 25 scripts' newest 20, and no longer the export.
        wait_for(lambda: len(rows(browser)) == 20, 5, "20 recent rows")
        assert {row_text(r, ".script") for r in rows(browser)} == {"1"}

        # The kept section comes first, and its Clear is a labelled button a keyboard can press.
        sections = browser.find_elements(By.CSS_SELECTOR, "section.activity h2")
        assert [h.text for h in sections] == ["Kept until you clear them", "Recent activity"]
        clear = browser.find_element(By.ID, "kept-clear")
        assert clear.accessible_name == "Clear the kept entries"
        clear.send_keys(Keys.ENTER)
        wait_for(lambda: not kept_rows(browser), 5, "the kept list to empty")
        assert browser.find_element(By.ID, "kept-empty").text == "None so far."
        assert len(rows(browser)) == 20, "the recent list is not the kept list's to clear"

    # The worker's kept list is empty too: a fresh popup shows none.
    with popup_tab(browser):
        wait_for(lambda: browser.find_element(By.ID, "kept-empty").is_displayed(), 5, "none kept")
        assert kept_rows(browser) == []


def test_commands_refused_with_the_pilot_off_are_listed_as_one_entry_with_a_count(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    set_pilot(browser, daemon, False)
    try:
        # The daemon knows the switch is off and refuses at once, without sending the commands.
        refused = [daemon.execute(f"{i}") for i in range(3)]
        refused.append(daemon.post_json("/browser_snapshot", {}))
        assert {(r.status_code, r.json()["error"]["code"]) for r in refused} == {
            (403, "pilot_disabled")
        }
        with popup_tab(browser):
            words = "refused 4 commands while AI Web Pilot was off"
            wait_for(
                lambda: rows(browser) and row_text(rows(browser)[0], ".script") == words,
                5,
                "the refusals in the popup",
            )
            newest = rows(browser)[0]
            outcome = newest.find_element(By.CSS_SELECTOR, ".outcome")
            assert outcome.text == "pilot_disabled"
            assert "refused" in (outcome.get_attribute("class") or "")
            assert newest.find_element(By.CSS_SELECTOR, ".script").get_attribute("title") == (
                "execute_javascript: 3, browser_snapshot: 1"
            )
    finally:
        set_pilot(browser, daemon, True)
