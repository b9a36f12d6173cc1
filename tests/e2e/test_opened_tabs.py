"""Tabs a page opens (tests/e2e/tabs_pages.py), in a person's Chrome (the DOM route, no popup
blocker under selenium) and in the managed browser (trusted clicks, which its popup blocker lets
open a page's own windows): the act's answer says which tab opened, with its title; the tab is the
AI's, in its group where the window takes groups; browser_tabs list names its opener; `follow`
makes it the tab later calls go to; a popup that closes itself is reported closed, where it ended.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.acting import js, ok, open_page, ref, tabpilot_group
from tests.e2e.harness import Daemon, wait_for


class Where:
    """One browser of the module: its daemon, the start tab, and whether clicks go trusted."""

    def __init__(self, daemon: Daemon, pages: str, other: str, trusted: bool) -> None:
        self.daemon, self.pages, self.other, self.trusted = daemon, pages, other, trusted
        self.tab = ok(daemon, "browser_tabs", action="new", url=f"{pages}/index.html")["id"]

    def start(self) -> None:
        open_page(self.daemon, self.tab, f"{self.pages}/tabs/start.html")

    def click(self, name: str, role: str = "button", **params: Any) -> dict[str, Any]:
        """Click `role "name"` on the start page; the act's result."""
        target = ref(self.daemon, self.tab, f'{role} "{name}"')
        extra = {"trusted": True} if self.trusted else {}
        return ok(
            self.daemon, "browser_act", tab_id=self.tab, kind="click", ref=target, **extra, **params
        )

    def tabs(self) -> dict[int, dict[str, Any]]:
        listed = ok(self.daemon, "browser_tabs", action="list")
        return {t["id"]: t for t in listed if not t.get("closed")}

    def close(self, tab_id: int) -> None:
        ok(self.daemon, "browser_tabs", action="close", tab_id=tab_id)


@pytest.fixture(scope="module", params=["person", "managed"])
def where(request: pytest.FixtureRequest, pages: str, second_origin: str) -> Iterator[Where]:
    if request.param == "person":
        request.getfixturevalue("browser")
        daemon = request.getfixturevalue("daemon")
    else:
        daemon = request.getfixturevalue("managed")
    here = Where(daemon, pages, second_origin, trusted=request.param == "managed")
    yield here
    ok(daemon, "browser_tabs", action="close", tab_id=here.tab)


def the_one_opened(result: dict[str, Any]) -> dict[str, Any]:
    [opened] = result["opened"]
    return opened


@pytest.mark.parametrize(
    ("name", "role", "query"),
    [
        ("Checkout", "link", "blank"),
        ("Checkout alone", "link", "noopener"),
        ("Open by script", "button", "script"),
        ("Open alone", "button", "alone"),
    ],
)
def test_a_tab_a_click_opens_is_said_with_its_title_and_opener(
    where: Where, name: str, role: str, query: str
) -> None:
    where.start()
    clicked = where.click(name, role)
    opened = the_one_opened(clicked)
    try:
        assert opened == {
            "id": opened["id"],
            "url": f"{where.other}/tabs/checkout.html?{query}",
            "title": "Checkout",
        }
        assert clicked["navigated"] is False
        listed = where.tabs()
        assert listed[opened["id"]]["opener"] == where.tab
        assert listed[where.tab]["opener"] is None
        assert js(where.daemon, opened["id"], "document.getElementById('total').textContent") == (
            "Total: 42"
        )
    finally:
        where.close(opened["id"])
    # A tab tabpilot closed did not close itself: the list does not keep it.
    assert opened["id"] not in [t["id"] for t in ok(where.daemon, "browser_tabs", action="list")]


def test_a_popup_window_is_said_and_followed(where: Where) -> None:
    where.start()
    clicked = where.click("Pay in a popup", follow=True)
    opened = the_one_opened(clicked)
    try:
        assert opened == {
            "id": opened["id"],
            "url": f"{where.other}/tabs/checkout.html?popup",
            "title": "Checkout",
            "popup": True,
            "followed": True,
        }
        assert where.tabs()[opened["id"]]["opener"] == where.tab
        # A call without tab_id now goes to the popup.
        body = where.daemon.execute("location.href + ' ' + document.title").json()
        assert body["result"] == f"{opened['url']} Checkout", body
        assert body["tab"]["id"] == opened["id"]
        # Selecting a tab of another window takes the calls there, though the popup window had
        # the focus last (a headless window is not focused on request).
        ok(where.daemon, "browser_tabs", action="select", tab_id=where.tab)
        assert where.daemon.execute("document.title").json()["tab"]["id"] == where.tab
        fresh = ok(where.daemon, "browser_tabs", action="new", url=f"{where.pages}/index.html")
        try:
            assert where.daemon.execute("document.title").json()["result"] == fresh["title"]
        finally:
            where.close(fresh["id"])
    finally:
        where.close(opened["id"])


def test_follow_sends_the_next_call_to_the_opened_tab(where: Where) -> None:
    where.start()
    opened = the_one_opened(where.click("Checkout", "link", follow=True))
    try:
        assert opened["followed"] is True
        body = where.daemon.execute("document.getElementById('total').textContent").json()
        assert (body["result"], body["tab"]["id"]) == ("Total: 42", opened["id"])
        # Back to the start tab: without follow, the answer does not say it was followed.
        ok(where.daemon, "browser_tabs", action="select", tab_id=where.tab)
        assert "followed" not in the_one_opened(where.click("Checkout alone", "link"))
    finally:
        for tab in [t for t, v in where.tabs().items() if v["opener"] == where.tab]:
            where.close(tab)
        ok(where.daemon, "browser_tabs", action="select", tab_id=where.tab)


def test_a_form_sent_to_a_new_tab_is_followed(where: Where) -> None:
    where.start()
    query = ref(where.daemon, where.tab, 'textbox "Query"')
    submit = ref(where.daemon, where.tab, 'button "Search in a new tab"')
    fields = [{"ref": query, "value": "shoes"}]
    filled = ok(
        where.daemon, "browser_fill_form", tab_id=where.tab, fields=fields, submit=submit,
        follow=True,
    )  # fmt: skip
    opened = the_one_opened(filled)
    try:
        assert opened["url"] == f"{where.pages}/tabs/checkout.html?q=shoes"
        assert (opened["title"], opened["followed"]) == ("Checkout", True)
        assert where.daemon.execute("location.search").json()["result"] == "?q=shoes"
    finally:
        where.close(opened["id"])
        ok(where.daemon, "browser_tabs", action="select", tab_id=where.tab)


def test_a_popup_that_closes_itself_is_reported_closed_where_it_ended(where: Where) -> None:
    where.start()
    clicked = where.click("Sign in")
    opened = the_one_opened(clicked)
    callback = f"{where.pages}/tabs/callback.html?code=abc"
    if opened.get("closed"):
        assert opened == {
            "id": opened["id"],
            "url": f"{where.other}/tabs/authorize.html",
            "title": "callback",
            "closed": True,
            "ended_url": callback,
        }
    else:
        # The callback's title showed and the answer went before its window.close() took effect
        # (a loaded machine): the answer says where the tab was, never that it closed; it says the
        # tab is in a popup window unless that window was already going.
        assert opened.pop("popup", True) is True
        assert opened == {"id": opened["id"], "url": callback, "title": "callback"}
    assert js(where.daemon, where.tab, "document.getElementById('status').textContent") == (
        "signed in"
    )

    # browser_tabs list says it closed, for a while, where it ended, with the tab that opened it.
    def listed_closed() -> dict[str, Any] | None:
        listed = ok(where.daemon, "browser_tabs", action="list")
        return next((t for t in listed if t["id"] == opened["id"] and t.get("closed")), None)

    gone = wait_for(listed_closed, 10, "the popup listed as closed")
    assert gone["ended_url"] == callback
    assert (gone["opener"], gone["active"], gone["title"]) == (where.tab, False, "callback")
    if opened.get("closed"):
        assert gone == {**opened, "opener": where.tab, "active": False}


# Only in a person's Chrome: the group is how the person sees which tabs are the AI's, and the
# managed browser, which no one looks at, groups nothing.
@pytest.mark.parametrize("where", ["person"], indirect=True)
def test_the_tabs_a_click_opens_join_the_ai_group_but_a_popup_window_cannot(
    where: Where, request: pytest.FixtureRequest
) -> None:
    browser: webdriver.Chrome = request.getfixturevalue("browser")
    where.start()
    tab = the_one_opened(where.click("Open by script"))["id"]
    popup = the_one_opened(where.click("Pay in a popup"))["id"]
    try:
        grouped = wait_for(lambda: tab in tabpilot_group(browser) or None, 10, "the tab grouped")
        assert grouped and popup not in tabpilot_group(browser)
        # Both are the AI's: browser_close closes them, and not the start tab's opener page.
        closed = ok(where.daemon, "browser_close")["closed_tabs"]
        assert {tab, popup} <= set(closed)
    finally:
        where.tab = ok(where.daemon, "browser_tabs", action="new", url=f"{where.pages}/index.html")[
            "id"
        ]


def test_a_script_that_opens_a_tab_says_so(where: Where) -> None:
    where.start()
    script = "window.open(other + '/tabs/checkout.html?exec') === null"
    body = where.daemon.execute(script, tab_id=where.tab).json()
    assert body["success"], body
    if where.trusted:
        # The managed browser's popup blocker stops a script that no click started.
        assert (body["result"], "opened" in body) == (True, False)
        return
    [opened] = body["opened"]
    try:
        assert body["result"] is False
        assert opened == {
            "id": opened["id"],
            "url": f"{where.other}/tabs/checkout.html?exec",
            "title": "Checkout",
        }
        assert where.tabs()[opened["id"]]["opener"] == where.tab
    finally:
        where.close(opened["id"])


def test_a_followed_sign_in_popup_sent_and_closed_says_where_it_ended(where: Where) -> None:
    where.start()
    popup = the_one_opened(where.click("Sign in by form", follow=True))["id"]
    assert popup != where.tab
    # Without tab_id: the popup, followed.
    snap = ok(where.daemon, "browser_snapshot")["snapshot"]
    user = re.search(r'textbox "User" \[ref=(e\d+)\]', snap)
    button = re.search(r'button "Sign in" \[ref=(e\d+)\]', snap)
    assert user and button, snap
    sent = ok(
        where.daemon, "browser_fill_form", fields=[{"ref": user[1], "value": "ada"}],
        submit=button[1],
    )  # fmt: skip
    assert sent["closed"] is True
    assert sent["url"] == f"{where.pages}/tabs/callback.html?user=ada"
    assert popup not in where.tabs()
    assert js(where.daemon, where.tab, "document.getElementById('status').textContent") == (
        "signed in"
    )
