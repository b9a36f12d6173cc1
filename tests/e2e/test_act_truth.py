"""browser_act on hostile pages: an answer never names an element, a field or a navigation other
than the one that got the action (hostile_pages.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.e2e.acting import js, ok, open_page, ref, refs, refused
from tests.e2e.harness import POPUP_URL, Daemon, set_popup_switch, wait_for
from tests.e2e.test_act import debugger_on  # noqa: F401  (a fixture)


@pytest.fixture
def tab(page: dict[str, Any]) -> int:
    tab_id: int = page["id"]
    return tab_id


def act(daemon: Daemon, tab: int, **params: Any) -> dict[str, Any]:
    return ok(daemon, "browser_act", tab_id=tab, **params)


def test_a_trusted_click_is_not_pressed_on_what_the_page_moved_over_the_target(
    daemon: Daemon,
    pages: str,
    tab: int,
    debugger_on: None,  # noqa: F811
) -> None:
    open_page(daemon, tab, f"{pages}/hostile/swap.html")
    safe = ref(daemon, tab, 'button "Safe"')
    error = refused(
        daemon, "browser_act", 409, "element_not_interactable", tab_id=tab, kind="click",
        ref=safe, trusted=True,
    )  # fmt: skip
    assert "button#danger" in error["message"] and "nothing was clicked" in error["message"]
    assert js(daemon, tab, "document.getElementById('out').textContent") == ""


def test_trusted_typing_types_nothing_where_the_page_moved_the_focus(
    daemon: Daemon,
    pages: str,
    tab: int,
    debugger_on: None,  # noqa: F811
) -> None:
    open_page(daemon, tab, f"{pages}/hostile/focus-steal.html")
    name = ref(daemon, tab, 'textbox "Name"')
    error = refused(
        daemon, "browser_act", 409, "element_not_interactable", tab_id=tab, kind="type",
        ref=name, text="secret", trusted=True,
    )  # fmt: skip
    assert 'textbox "Other"' in error["message"] and "nothing was typed" in error["message"]
    values = "[document.getElementById('name').value, document.getElementById('other').value]"
    assert js(daemon, tab, values) == ["", ""]


@pytest.mark.parametrize("trusted", [False, True])
def test_elements_in_a_closed_shadow_root_are_clicked_and_checked(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, tab: int, trusted: bool
) -> None:
    open_page(daemon, tab, f"{pages}/hostile/closed.html")
    found = refs(daemon, tab)
    inside, box = found['button "Inside"'], found['checkbox "Closed box"']
    if trusted:
        set_popup_switch(browser, "debugger-toggle", True)
    try:
        act(daemon, tab, kind="hover", ref=inside, trusted=trusted)
        clicked = act(daemon, tab, kind="click", ref=inside, trusted=trusted)
        assert clicked["description"] == f'Clicked button "Inside" ({inside})'
        checked = act(daemon, tab, kind="check", ref=box, trusted=trusted)
        assert checked["description"] == f'Checked checkbox "Closed box" ({box})'
    finally:
        if trusted:
            set_popup_switch(browser, "debugger-toggle", False)
    state = "[document.getElementById('out').textContent, closedBox.checked]"
    assert js(daemon, tab, state) == ["inside ", True]


DEAD_LINKS = {
    "Run": "its href is a javascript: url, which runs a script in the page instead of opening one",
    "Local file": "file: urls cannot be opened from a web page",
    "Settings": "chrome: urls cannot be opened from a web page",
    "Data page": "Chrome does not let a web page open a data: url as a page",
}


@pytest.mark.parametrize("trusted", [False, True])
def test_a_link_that_opens_nothing_says_so_and_why(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, tab: int, trusted: bool
) -> None:
    url = f"{pages}/hostile/links.html"
    if trusted:
        set_popup_switch(browser, "debugger-toggle", True)
    try:
        for name, why in DEAD_LINKS.items():
            open_page(daemon, tab, url)
            link = ref(daemon, tab, f'link "{name}"')
            clicked = act(daemon, tab, kind="click", ref=link, trusted=trusted)
            if name == "Run" and not trusted:
                why = (
                    "its href is a javascript: url, which Chrome does not run for an extension's "
                    "untrusted click; trusted: true clicks it as a person would"
                )
            description = f'Clicked link "{name}" ({link}); no navigation: {why}'
            assert clicked == {
                **clicked,
                "description": description,
                "navigated": False,
                "url": url,
            }
            assert clicked["opened"] == []
            if name == "Run":
                ran = js(daemon, tab, "document.getElementById('out').textContent")
                assert ran == ("ran " if trusted else "")
        # A blob: url of the page's own origin does open, and is answered as any navigation.
        open_page(daemon, tab, url)
        link = ref(daemon, tab, 'link "Blob page"')
        clicked = act(daemon, tab, kind="click", ref=link, trusted=trusted)
        assert clicked["description"] == f'Clicked link "Blob page" ({link})'
        assert clicked["navigated"] is True and clicked["url"].startswith("blob:http://")
        listed = ok(daemon, "browser_tabs", action="list")
        assert [t["title"] for t in listed if t["id"] == tab] == ["blob page"]
    finally:
        if trusted:
            set_popup_switch(browser, "debugger-toggle", False)


def test_a_new_tab_link_to_a_data_url_says_that_no_tab_opened(
    daemon: Daemon, pages: str, tab: int
) -> None:
    """The DOM route opens a link's new tab itself, and only for http(s) urls."""
    open_page(daemon, tab, f"{pages}/hostile/links.html")
    link = ref(daemon, tab, 'link "Data tab"')
    clicked = act(daemon, tab, kind="click", ref=link)
    assert clicked["description"] == (
        f'Clicked link "Data tab" ({link}); no navigation: '
        "Chrome does not let a web page open a data: url as a page"
    )
    assert clicked["opened"] == []


def test_a_name_that_is_not_what_the_element_shows_is_answered_with_both(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/hostile/names.html")
    shown = ok(daemon, "browser_snapshot", tab_id=tab, interactive_only=True)["snapshot"]
    # Refs are numbered across the browser's documents: e{n + 1} and on, here.
    n = int(re.search(r"\[ref=e(\d+)\]", shown)[1]) - 1  # type: ignore[index]
    e = [f"e{n + i}" for i in range(9)]
    long = "Leave and pay $500 now to get your account back, in full, b\u2026"
    assert shown.split("\n") == [
        f'- button "Save draft" (shows "Delete account") [ref={e[1]}]',
        f'- button "Open menu" [ref={e[2]}]',
        f'- button "Close" [ref={e[3]}]',
        f'- button "Go" [ref={e[4]}]',
        f'- link "Home" (shows "{long}") [ref={e[5]}]:',
        "  - /url: #top",
        f'- textbox "Search products" [ref={e[6]}]',
        f'- textbox "Your message" [ref={e[7]}]',
        f'- textbox "Labelled" [ref={e[8]}]',
    ]
    # The whole snapshot shows the text itself.
    full = ok(daemon, "browser_snapshot", tab_id=tab)["snapshot"]
    assert f'- button "Save draft" [ref={e[1]}]: Delete account' in full.split("\n")
    clicked = act(daemon, tab, kind="click", ref=e[1])
    description = f'Clicked button "Save draft" (shows "Delete account") ({e[1]})'
    assert clicked["description"] == description
    assert js(daemon, tab, "document.getElementById('out').textContent") == "deleted"
    typed = act(daemon, tab, kind="type", ref=e[6], text="lamp")
    assert typed["description"] == f'Typed 4 characters into textbox "Search products" ({e[6]})'
    previous = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        browser.get(POPUP_URL)
        rows = "#activity-list > li .script"
        words = [
            "typed into textbox 'Search products'",
            "clicked button 'Save draft' (shows 'Delete account')",
        ]

        def newest() -> list[str]:
            found = [row.text for row in browser.find_elements(By.CSS_SELECTOR, rows)]
            return [text for text in found if not text.startswith("document.")][:2]

        wait_for(lambda: newest() == words, 5, f"the activity to read {words}")
    finally:
        browser.close()
        browser.switch_to.window(previous)


def test_the_managed_browsers_first_tab_hears_the_pages_own_focus_calls(
    managed: Daemon, pages: str
) -> None:
    """Headless, the first tab's page never has the system's focus: without focus emulation, a
    page's own focus() moves the focus silently, and keyboard-driven apps lose track."""
    first = ok(managed, "browser_tabs", action="list")[0]["id"]
    open_page(managed, first, f"{pages}/hostile/focus.html")
    act(managed, first, kind="click", ref=ref(managed, first, 'button "Focus it"'))
    read = "[document.getElementById('log').textContent, document.hasFocus()]"
    assert js(managed, first, read) == ["focus ", True]


UNFOCUSED = (
    "; the page's window does not have the focus, so the page's own focus changes fire no events "
    "and a key may not reach what it expects (bring its window to the front)"
)


def test_keys_for_a_page_whose_window_has_no_focus_say_so(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/hostile/focus.html")
    field = ref(daemon, tab, 'textbox "Field"')
    pressed = act(daemon, tab, kind="press", key="a", ref=field)
    assert pressed["description"] == f'Pressed a in textbox "Field" ({field})'
    previous = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        wait_for(
            lambda: js(daemon, tab, "document.hasFocus()") is False, 10, "another tab in front"
        )
        pressed = act(daemon, tab, kind="press", key="b", ref=field)
        assert pressed["description"] == f'Pressed b in textbox "Field" ({field}){UNFOCUSED}'
        typed = act(daemon, tab, kind="type", ref=field, text="cd")
        assert (
            typed["description"] == f'Typed 2 characters into textbox "Field" ({field}){UNFOCUSED}'
        )
    finally:
        browser.close()
        browser.switch_to.window(previous)
    assert js(daemon, tab, "document.getElementById('f').value") == "cd"


def test_a_ref_acts_only_in_the_document_it_came_from(daemon: Daemon, pages: str, tab: int) -> None:
    url = f"{pages}/act/form.html"
    open_page(daemon, tab, url)
    sign_up = ref(daemon, tab, 'button "Sign up"')
    other = ok(daemon, "browser_tabs", action="new", url=url)["id"]
    try:
        theirs = ref(daemon, other, 'button "Sign up"')
        assert theirs != sign_up
        error = refused(
            daemon, "browser_act", 404, "ref_not_found", tab_id=other, kind="click", ref=sign_up
        )
        assert f"is from a snapshot of tab {tab}, not of tab {other}" in error["message"]
        assert js(daemon, other, "submits") == 0
        # The same page loaded again is another document: the old page's refs are stale there.
        open_page(daemon, tab, url)
        assert ref(daemon, tab, 'button "Sign up"') != sign_up
        refused(daemon, "browser_act", 410, "stale_ref", tab_id=tab, kind="click", ref=sign_up)
        assert js(daemon, tab, "submits") == 0
    finally:
        ok(daemon, "browser_tabs", action="close", tab_id=other)
