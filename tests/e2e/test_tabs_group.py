"""The tabs the AI opens, in a person's browser: grouped as "tabpilot", the only tabs a close
without tab_id may close, and what browser_close closes."""

from __future__ import annotations

from typing import Any

from selenium import webdriver

from tests.e2e.acting import ok, open_page, ref, refused, tabpilot_group
from tests.e2e.harness import Daemon, wait_for


def test_a_tab_the_ai_opens_goes_into_the_tabpilot_group(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, page: dict[str, Any]
) -> None:
    opened = ok(daemon, "browser_tabs", action="new", url=f"{pages}/other.html")["id"]
    try:
        grouped = wait_for(lambda: opened in tabpilot_group(browser), 10, "the tab in the group")
        assert grouped
        assert page["id"] not in tabpilot_group(browser)
    finally:
        ok(daemon, "browser_tabs", action="close", tab_id=opened)


def test_close_without_tab_id_closes_only_a_tab_the_ai_opened(
    daemon: Daemon, pages: str, page: dict[str, Any]
) -> None:
    error = refused(daemon, "browser_tabs", 400, "invalid_request", action="close")
    assert "pass its tab_id" in error["message"]
    opened = ok(daemon, "browser_tabs", action="new", url=f"{pages}/other.html")["id"]
    assert ok(daemon, "browser_tabs", action="close") == {"closed": opened}
    ids = [t["id"] for t in ok(daemon, "browser_tabs", action="list")]
    assert opened not in ids and page["id"] in ids


def test_browser_close_closes_the_tabs_the_ai_opened_and_no_other(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, page: dict[str, Any]
) -> None:
    tab = page["id"]
    opened = ok(daemon, "browser_tabs", action="new", url=f"{pages}/other.html")["id"]
    open_page(daemon, tab, f"{pages}/act/links.html")
    # A tab a click opens is the AI's too.
    clicked = ok(
        daemon,
        "browser_act",
        tab_id=tab,
        kind="click",
        ref=ref(daemon, tab, 'button "Open report"'),
    )
    [by_click] = [t["id"] for t in clicked["opened"]]
    wait_for(lambda: by_click in tabpilot_group(browser), 10, "the clicked tab in the group")
    closed = ok(daemon, "browser_close")
    assert sorted(closed["closed_tabs"]) == sorted([opened, by_click])
    ids = [t["id"] for t in ok(daemon, "browser_tabs", action="list")]
    assert tab in ids and opened not in ids and by_click not in ids
    assert ok(daemon, "browser_close") == {"closed_tabs": []}
