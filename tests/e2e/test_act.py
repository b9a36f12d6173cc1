"""browser_act in the real browser: every kind on the DOM route, the refusals, what an action set
going (a navigation, a new tab, a dialog), and the trusted route through chrome.debugger."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.e2e.acting import call, js, ok, open_page, ref, refs, refused
from tests.e2e.harness import POPUP_URL, Daemon, set_pilot, set_popup_switch, wait_for


@pytest.fixture
def tab(page: dict[str, Any]) -> int:
    """The active tab, showing the test page."""
    tab_id: int = page["id"]
    return tab_id


@pytest.fixture
def debugger_on(browser: webdriver.Chrome) -> Iterator[None]:
    """The popup's debugger switch on, as a new user turns it on, and off again after."""
    set_popup_switch(browser, "debugger-toggle", True)
    try:
        yield
    finally:
        set_popup_switch(browser, "debugger-toggle", False)


def act(daemon: Daemon, tab: int, **params: Any) -> dict[str, Any]:
    return ok(daemon, "browser_act", tab_id=tab, **params)


def test_a_form_is_filled_and_submitted(daemon: Daemon, pages: str, tab: int) -> None:
    url = f"{pages}/act/form.html"
    open_page(daemon, tab, url)
    found = refs(daemon, tab)
    name, email = found['textbox "Name"'], found['textbox "Email"']
    typed = act(daemon, tab, kind="type", ref=name, text="Ada")
    assert typed == {
        "description": f'Typed 3 characters into textbox "Name" ({name})',
        "route": "dom",
        "navigated": False,
        "url": url,
        "opened": [],
    }
    act(daemon, tab, kind="type", ref=email, text="ada@example.com")
    colour = found['combobox "Colour"']
    selected = act(daemon, tab, kind="select", ref=colour, text="Blue")
    assert selected["description"] == f'Selected "Blue" in combobox "Colour" ({colour})'
    agree = found['checkbox "Agree"']
    checked = act(daemon, tab, kind="check", ref=agree)
    assert checked["description"] == f'Checked checkbox "Agree" ({agree})'
    again = act(daemon, tab, kind="check", ref=agree)
    assert again["description"] == f'Checkbox "Agree" ({agree}) was already checked'
    act(daemon, tab, kind="type", ref=found['textbox "Notes"'], text="hi")
    sign_up = found['button "Sign up"']
    clicked = act(daemon, tab, kind="click", ref=sign_up)
    assert clicked["description"] == f'Clicked button "Sign up" ({sign_up})'
    received = js(daemon, tab, "document.getElementById('received').textContent")
    assert received.split("\n") == [
        "name=Ada",
        "email=ada@example.com",
        "colour=b",
        "agree=on",
        "notes=hi",
        "fixed=fixed",
        "code=",
        "age=",
    ]
    # A page's change listeners heard each field, as they would from a person.
    assert js(daemon, tab, "changes") == ["name", "email", "colour", "agree", "notes"]
    unchecked = act(daemon, tab, kind="uncheck", ref=agree)
    assert unchecked["description"] == f'Unchecked checkbox "Agree" ({agree})'
    assert js(daemon, tab, "document.querySelector('[name=agree]').checked") is False


def test_type_with_submit_presses_enter_which_submits_the_form(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/form.html")
    name = ref(daemon, tab, 'textbox "Name"')
    typed = act(daemon, tab, kind="type", ref=name, text="Bob", submit=True)
    assert typed["description"] == (
        f'Typed 3 characters into textbox "Name" ({name}) and pressed Enter'
    )
    assert js(daemon, tab, "[submits, document.getElementById('received').textContent]") == [
        1,
        "name=Bob\nemail=\ncolour=r\nnotes=\nfixed=fixed\ncode=\nage=",
    ]
    # Typing replaces what the field held.
    act(daemon, tab, kind="type", ref=name, text="Eve")
    assert js(daemon, tab, "document.querySelector('[name=name]').value") == "Eve"
    # What a field does not take, as for a person, is said.
    found = refs(daemon, tab)
    code, age = found['textbox "Code"'], found['spinbutton "Age"']
    cut = act(daemon, tab, kind="type", ref=code, text="123456")
    assert cut["description"] == (
        f'Typed 6 characters into textbox "Code" ({code}); the field holds "1234"'
    )
    refused_text = act(daemon, tab, kind="type", ref=age, text="abc")
    assert refused_text["description"].endswith('; the field holds ""')


def test_press_sends_keys_to_the_focused_element_and_tab_moves_focus(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/keys.html")
    first = ref(daemon, tab, 'textbox "First"')
    pressed = act(daemon, tab, kind="press", key="a", ref=first)
    assert pressed["description"] == f'Pressed a in textbox "First" ({first})'
    act(daemon, tab, kind="press", key="Shift+b")
    assert js(daemon, tab, "document.getElementById('first').value") == "aB"
    assert act(daemon, tab, kind="press", key="Tab")["description"] == "Pressed Tab"
    assert js(daemon, tab, "document.activeElement.id") == "second"
    act(daemon, tab, kind="press", key="Shift+Tab")
    assert js(daemon, tab, "document.activeElement.id") == "first"
    act(daemon, tab, kind="press", key="Backspace")
    assert js(daemon, tab, "[document.getElementById('first').value, keys]") == [
        "a",
        ["a", "B", "Tab", "Tab", "Backspace"],
    ]
    # Without a ref, text goes to the focused element.
    typed = act(daemon, tab, kind="type", text="zz")
    assert typed["description"] == 'Typed 2 characters into textbox "First"'
    assert js(daemon, tab, "document.getElementById('first').value") == "zz"


def test_a_controlled_input_keeps_the_typed_text(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/act/react.html")
    search = ref(daemon, tab, 'textbox "Search"')
    act(daemon, tab, kind="type", ref=search, text="shoes")
    read = "[document.getElementById('state').textContent, document.getElementById('q').value]"
    assert js(daemon, tab, read) == ["shoes", "shoes"]
    # The page's tracker is faithful: a plain assignment from the page's world does not stick.
    naive = "const q = document.getElementById('q'); q.value = 'naive';"
    naive += "q.dispatchEvent(new Event('input', { bubbles: true }));"
    js(daemon, tab, naive)
    assert js(daemon, tab, read) == ["shoes", "shoes"]


def test_a_click_sends_the_whole_pointer_sequence(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/act/pointer.html")
    act(daemon, tab, kind="click", ref=ref(daemon, tab, 'button "Open menu"'))
    sequence = ["pointerover", "pointerenter", "mouseover", "mouseenter", "pointermove"]
    sequence += ["mousemove", "pointerdown", "mousedown", "focus", "pointerup", "mouseup", "click"]
    assert js(daemon, tab, "[document.getElementById('menu').hidden, seen]") == [False, sequence]


def test_a_click_in_a_page_without_the_focus_still_fires_the_focus_events(
    browser: webdriver.Chrome, daemon: Daemon, pages: str, tab: int
) -> None:
    """The person is in another tab (or window): Chrome moves the page's focus but holds back
    its focus events, which the DOM route then fires itself, as a focused page gets them."""
    open_page(daemon, tab, f"{pages}/act/pointer.html")
    previous = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        wait_for(lambda: js(daemon, tab, "document.hasFocus()") is False, 10, "another tab")
        act(daemon, tab, kind="click", ref=ref(daemon, tab, 'button "Open menu"'))
        seen = js(daemon, tab, "seen")
        assert seen.count("focus") == 1, seen
        assert seen.index("mousedown") < seen.index("focus") < seen.index("pointerup"), seen
        assert js(daemon, tab, "document.activeElement.id") == "trigger"
        # A second click on the focused element fires no focus, as in a focused window.
        act(daemon, tab, kind="click", ref=ref(daemon, tab, 'button "Open menu"'))
        assert js(daemon, tab, "seen").count("focus") == 1
    finally:
        browser.close()
        browser.switch_to.window(previous)


def test_hover_moves_the_pointer_over_the_element(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/act/pointer.html")
    trigger = ref(daemon, tab, 'button "Open menu"')
    hovered = act(daemon, tab, kind="hover", ref=trigger)
    assert hovered["description"] == f'Hovered over button "Open menu" ({trigger})'
    assert js(daemon, tab, "[window.hovered, document.getElementById('menu').hidden]") == [
        True,
        True,
    ]


def test_an_editable_element_takes_typed_text(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/act/editable.html")
    notes = ref(daemon, tab, 'textbox "Notes"')
    act(daemon, tab, kind="type", ref=notes, text="new text")
    script = "[document.getElementById('notes').textContent, inputs]"
    assert js(daemon, tab, script) == ["new text", ["insertText"]]


def test_elements_in_a_shadow_root_and_a_same_origin_frame_are_clicked(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/keys.html")
    found = refs(daemon, tab)
    act(daemon, tab, kind="click", ref=found['button "Inside shadow"'])
    act(daemon, tab, kind="click", ref=found['button "In frame"'])
    assert js(daemon, tab, "[shadowClicks, window.frameClicks]") == [1, 1]


@pytest.mark.parametrize(
    ("button", "reason"),
    [('button "Buy now"', "covered"), ('button "Disabled"', "disabled")],
)
def test_a_blocked_button_is_not_clicked(
    daemon: Daemon, pages: str, tab: int, button: str, reason: str
) -> None:
    open_page(daemon, tab, f"{pages}/act/covered.html")
    error = refused(
        daemon, "browser_act", 409, "element_not_interactable", tab_id=tab, kind="click",
        ref=ref(daemon, tab, button),
    )  # fmt: skip
    assert error["data"]["reason"] == reason
    if reason == "covered":
        assert error["data"]["cover"] == "div#cookie-banner.overlay"
        assert "covered by div#cookie-banner.overlay" in error["message"]
    assert js(daemon, tab, "clicks") == 0


def test_a_hidden_element_is_not_clicked_and_the_cover_gone_it_is(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/covered.html")
    found = refs(daemon, tab)
    js(daemon, tab, "document.getElementById('gone').style.display = 'none'")
    error = refused(
        daemon, "browser_act", 409, "element_not_interactable", tab_id=tab, kind="click",
        ref=found['button "Vanishing"'],
    )  # fmt: skip
    assert error["data"] == {"reason": "hidden"}
    js(daemon, tab, "document.getElementById('cookie-banner').remove()")
    act(daemon, tab, kind="click", ref=found['button "Buy now"'])
    assert js(daemon, tab, "clicks") == 1


@pytest.mark.parametrize(
    ("kind", "what", "extra", "reason"),
    [
        ("type", 'textbox "Read only"', {"text": "x"}, "not_editable"),
        ("type", 'button "Sign up"', {"text": "x"}, "not_editable"),
        ("select", 'textbox "Name"', {"text": "x"}, "not_selectable"),
        ("check", 'button "Sign up"', {}, "not_checkable"),
    ],
)
def test_the_wrong_kind_of_element_is_refused(
    daemon: Daemon, pages: str, tab: int, kind: str, what: str, extra: dict[str, Any], reason: str
) -> None:
    open_page(daemon, tab, f"{pages}/act/form.html")
    error = refused(
        daemon, "browser_act", 409, "element_not_interactable", tab_id=tab, kind=kind,
        ref=ref(daemon, tab, what), **extra,
    )  # fmt: skip
    assert error["data"]["reason"] == reason


def test_an_unknown_option_is_refused_with_the_options(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/form.html")
    colour = ref(daemon, tab, 'combobox "Colour"')
    error = refused(
        daemon, "browser_act", 400, "invalid_request", tab_id=tab, kind="select", ref=colour,
        values=["Purple"],
    )  # fmt: skip
    assert error["message"] == (
        f'combobox "Colour" ({colour}) has no option "Purple"; its options are '
        '"Red" (value "r"), "Green" (value "g"), "Blue" (value "b").'
    )
    assert error["data"]["options"][2] == {"value": "b", "label": "Blue"}


def test_scroll_moves_the_page_an_element_or_an_element_into_view(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/scroll.html")
    found = refs(daemon, tab)
    viewport = js(daemon, tab, "innerHeight")
    page = act(daemon, tab, kind="scroll")
    assert page["description"] == f"Scrolled down {viewport} px"
    assert js(daemon, tab, "scrollY") == viewport
    act(daemon, tab, kind="scroll", direction="up", amount=50)
    assert js(daemon, tab, "scrollY") == viewport - 50
    far = act(daemon, tab, kind="scroll", amount=100_000)
    assert far["description"].endswith("of the 100000 asked: the page is at its bottom")
    log = found['region "Log"']
    inside = act(daemon, tab, kind="scroll", ref=log, direction="down", amount=300)
    assert inside["description"] == f'Scrolled down 300 px inside region "Log" ({log})'
    assert js(daemon, tab, "document.getElementById('box').scrollTop") == 300
    bottom = found['button "At the bottom"']
    act(daemon, tab, kind="scroll", direction="up", amount=100_000)
    into = act(daemon, tab, kind="scroll", ref=bottom)
    assert into["description"] == f'Scrolled button "At the bottom" ({bottom}) into view'
    visible = "const r = document.getElementById('bottom').getBoundingClientRect();"
    assert js(daemon, tab, visible + "r.top >= 0 && r.bottom <= innerHeight") is True


def test_a_ref_of_the_page_before_a_navigation_is_stale(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/form.html")
    name = ref(daemon, tab, 'textbox "Name"')
    open_page(daemon, tab, f"{pages}/act/form.html")
    error = refused(daemon, "browser_act", 410, "stale_ref", tab_id=tab, kind="click", ref=name)
    assert "snapshot" in error["message"]
    # Once this page gave refs, a ref it never gave is unknown rather than stale.
    refs(daemon, tab)
    refused(daemon, "browser_act", 404, "ref_not_found", tab_id=tab, kind="click", ref="e9999")


def test_an_unknown_kind_is_refused_by_the_daemon(daemon: Daemon, tab: int) -> None:
    refused(daemon, "browser_act", 400, "invalid_request", tab_id=tab, kind="drag", ref="e1")


def test_a_link_click_navigates_and_says_so(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/act/links.html")
    link = ref(daemon, tab, 'link "Next page"')
    clicked = act(daemon, tab, kind="click", ref=link)
    assert clicked == {
        "description": f'Clicked link "Next page" ({link})',
        "route": "dom",
        "navigated": True,
        "url": f"{pages}/act/landed.html",
        "opened": [],
    }
    # The new page is there when the answer comes: its DOM can be read at once.
    assert js(daemon, tab, "document.body.textContent") == "You arrived."


def test_a_form_submission_is_waited_for_and_said(daemon: Daemon, pages: str, tab: int) -> None:
    # A form's navigation starts a task after the submit, unlike a link's: the answer waits for it.
    open_page(daemon, tab, f"{pages}/act/links.html")
    search = ref(daemon, tab, 'textbox "Search"')
    typed = act(daemon, tab, kind="type", ref=search, text="shoes", submit=True)
    assert (typed["navigated"], typed["url"]) == (True, f"{pages}/act/landed.html?q=shoes")
    assert js(daemon, tab, "document.body.textContent") == "You arrived."
    open_page(daemon, tab, f"{pages}/act/links.html")
    clicked = act(daemon, tab, kind="click", ref=ref(daemon, tab, 'button "Go"'))
    assert (clicked["navigated"], clicked["url"]) == (True, f"{pages}/act/landed.html?from=button")
    assert js(daemon, tab, "document.body.textContent") == "You arrived."


def test_a_link_to_a_new_tab_opens_one_and_says_so(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/act/links.html")
    clicked = act(daemon, tab, kind="click", ref=ref(daemon, tab, 'button "Open report"'))
    assert clicked["navigated"] is False
    [opened] = clicked["opened"]
    assert opened["url"] == f"{pages}/act/opened.html"
    try:
        tabs = {t["id"]: t for t in ok(daemon, "browser_tabs", action="list")}
        assert tabs[opened["id"]]["url"] == opened["url"]
    finally:
        ok(daemon, "browser_tabs", action="close", tab_id=opened["id"])


def test_a_dialog_an_action_raises_is_dismissed_and_listed(
    daemon: Daemon, pages: str, tab: int, debugger_on: None
) -> None:
    open_page(daemon, tab, f"{pages}/act/links.html")
    clicked = act(daemon, tab, kind="click", ref=ref(daemon, tab, 'button "Delete"'))
    assert clicked["dialogs"] == [
        {"type": "confirm", "message": "Delete everything?", "action": "dismissed"}
    ]
    assert js(daemon, tab, "document.getElementById('answer').textContent") == "kept"


def test_without_the_debugger_a_dialog_an_action_raises_is_reported(
    daemon: Daemon, pages: str
) -> None:
    fresh = ok(daemon, "browser_tabs", action="new", url=f"{pages}/act/links.html")["id"]
    try:
        error = refused(
            daemon, "browser_act", 409, "dialog_open", tab_id=fresh, kind="click",
            ref=ref(daemon, fresh, 'button "Delete"'),
        )  # fmt: skip
        assert "Delete everything?" in error["message"]
    finally:
        ok(daemon, "browser_tabs", action="close", tab_id=fresh)


def test_trusted_input_needs_the_debugger_switch_in_a_persons_browser(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/trusted.html")
    go = ref(daemon, tab, 'button "Go"')
    error = refused(
        daemon, "browser_act", 403, "debugger_disabled", tab_id=tab, kind="click", ref=go,
        trusted=True,
    )  # fmt: skip
    assert 'popup switch "Strict pages: allow the debugger"' in error["message"]
    # The DOM route's events are not trusted, which this page tells apart.
    act(daemon, tab, kind="click", ref=go)
    assert js(daemon, tab, "document.getElementById('out').textContent") == "untrusted click"
    set_popup_switch(browser, "debugger-toggle", True)
    try:
        clicked = act(daemon, tab, kind="click", ref=go, trusted=True)
        assert clicked["route"] == "debugger"
        assert clicked["description"] == f'Clicked button "Go" ({go})'
        out = "document.getElementById('out').textContent"
        assert js(daemon, tab, out) == "trusted click"
        code = ref(daemon, tab, 'textbox "Code"')
        typed = act(daemon, tab, kind="type", ref=code, text="1234", trusted=True)
        assert typed["description"] == f'Typed 4 characters into textbox "Code" ({code})'
        assert js(daemon, tab, out) == "trusted input 1234"
        act(daemon, tab, kind="press", key="Enter", trusted=True)
        assert js(daemon, tab, out) == "trusted enter"
    finally:
        set_popup_switch(browser, "debugger-toggle", False)


def test_pilot_off_refuses_acting_and_navigating(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/form.html")
    name = ref(daemon, tab, 'textbox "Name"')
    set_pilot(browser, daemon, False)
    try:
        refused(daemon, "browser_act", 403, "pilot_disabled", tab_id=tab, kind="click", ref=name)
        refused(
            daemon, "browser_navigate", 403, "pilot_disabled", tab_id=tab,
            url=f"{pages}/act/landed.html",
        )  # fmt: skip
    finally:
        set_pilot(browser, daemon, True)
    assert js(daemon, tab, "location.pathname") == "/act/form.html"
    assert call(daemon, "browser_act", tab_id=tab, kind="click", ref=name)["success"]


def test_the_managed_browser_takes_trusted_input_without_a_switch(
    managed: Daemon, pages: str
) -> None:
    tab = ok(managed, "browser_tabs", action="new", url=f"{pages}/act/trusted.html")["id"]
    go = ref(managed, tab, 'button "Go"')
    clicked = act(managed, tab, kind="click", ref=go, trusted=True)
    assert clicked["route"] == "debugger"
    assert js(managed, tab, "document.getElementById('out').textContent") == "trusted click"
    # A caret key needs the browser's own action, so it takes the trusted route there by itself.
    code = ref(managed, tab, 'textbox "Code"')
    act(managed, tab, kind="type", ref=code, text="abc")
    pressed = act(managed, tab, kind="press", key="ArrowLeft")
    assert pressed == {**pressed, "route": "debugger", "description": "Pressed ArrowLeft"}
    assert js(managed, tab, "document.getElementById('code').selectionStart") == 2


def test_a_link_to_a_new_tab_opens_one_where_the_popup_blocker_is_on(
    managed: Daemon, pages: str
) -> None:
    """The managed browser blocks pages' own pop-ups (selenium's browser does not): the click's
    new tab comes from the extension, and only one."""
    tab = ok(managed, "browser_tabs", action="new", url=f"{pages}/act/links.html")["id"]
    assert js(managed, tab, "window.open('/act/opened.html') === null") is True
    clicked = act(managed, tab, kind="click", ref=ref(managed, tab, 'button "Open report"'))
    [opened] = clicked["opened"]
    assert opened["url"] == f"{pages}/act/opened.html"
    urls = [t["url"] for t in ok(managed, "browser_tabs", action="list")]
    assert urls.count(opened["url"]) == 1
    ok(managed, "browser_tabs", action="close", tab_id=opened["id"])


def test_the_popup_says_in_words_what_the_page_tools_did(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/form.html")
    act(daemon, tab, kind="type", ref=ref(daemon, tab, 'textbox "Email"'), text="a@b.example")
    act(daemon, tab, kind="click", ref=ref(daemon, tab, 'button "Sign up"'))
    words = [
        "clicked button 'Sign up'",
        "took a snapshot",
        "typed into textbox 'Email'",
        "took a snapshot",
        f"navigated to {pages.split('/')[2]}",
    ]
    previous = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        browser.get(POPUP_URL)

        def newest() -> list[str]:
            rows = browser.find_elements(By.CSS_SELECTOR, "#activity-list > li .script")
            return [row.text for row in rows[: len(words)]]

        wait_for(lambda: newest() == words, 5, f"the activity to read {words}")
        # What was typed is not shown.
        assert "a@b.example" not in browser.find_element(By.ID, "activity-list").text
    finally:
        browser.close()
        browser.switch_to.window(previous)
