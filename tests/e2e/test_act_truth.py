"""browser_act on hostile pages: an answer never names an element, a field or a navigation other
than the one that got the action (hostile_pages.py)."""

from __future__ import annotations

from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.acting import call, js, ok, open_page, ref, refs, refused
from tests.e2e.harness import Daemon
from tests.e2e.test_act import debugger_on  # noqa: F401  (a fixture)


@pytest.fixture
def tab(page: dict[str, Any]) -> int:
    tab_id: int = page["id"]
    return tab_id


def act(daemon: Daemon, tab: int, **params: Any) -> dict[str, Any]:
    return ok(daemon, "browser_act", tab_id=tab, **params)


def test_a_trusted_click_is_not_pressed_on_what_the_page_moved_over_the_target(
    daemon: Daemon, pages: str, tab: int, debugger_on: None  # noqa: F811
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
    daemon: Daemon, pages: str, tab: int, debugger_on: None  # noqa: F811
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
    from tests.e2e.harness import set_popup_switch

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
