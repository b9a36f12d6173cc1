"""The answers about tabs a page opens (tabpilot.tools.page, tabpilot.tools.tabs): the act's
`opened tab 1234: "Checkout"` and browser_tabs list's opener mark, and their tab ids made
daemon-wide in another context. The browser's side is tests/e2e/test_opened_tabs.py."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.browsers.tab_ids import outward
from tabpilot.protocol import ResultFrame
from tabpilot.tools import TOOLS
from tabpilot.tools.page import act_text
from tabpilot.tools.script import script_text
from tabpilot.tools.tabs import browser_tabs_text

TAB = {"id": 7, "url": "https://a.test/", "title": "Shop"}


@pytest.mark.parametrize(
    ("opened", "said"),
    [
        (
            {"id": 12, "url": "https://b.test/pay", "title": "Checkout"},
            '; opened tab 12: "Checkout"',
        ),
        # No title yet: the url says where it went.
        (
            {"id": 12, "url": "https://b.test/pay", "title": ""},
            "; opened tab 12 (https://b.test/pay)",
        ),
        (
            {
                "id": 12,
                "url": "https://b.test/pay",
                "title": "Pay",
                "popup": True,
                "followed": True,
            },
            '; opened tab 12 in a popup window: "Pay", now the active tab',
        ),
        (
            {
                "id": 12,
                "url": "https://b.test/auth",
                "title": "cb",
                "closed": True,
                "ended_url": "https://a.test/cb?code=1",
            },
            "; opened tab 12, which closed itself on https://a.test/cb?code=1",
        ),
    ],
)
def test_an_act_says_the_tabs_it_opened(opened: dict[str, Any], said: str) -> None:
    act = {"description": "Clicked link", "navigated": False, "url": TAB["url"], "opened": [opened]}
    assert act_text({"result": act, "tab": TAB}) == "Clicked link" + said


def test_an_act_in_a_tab_that_closed_itself_says_where_it_ended() -> None:
    act = {"description": "Clicked it", "navigated": True, "closed": True, "opened": [],
           "url": "https://a.test/cb?code=1"}  # fmt: skip
    assert (
        act_text({"result": act}) == "Clicked it; the tab closed itself on https://a.test/cb?code=1"
    )


def test_the_tab_list_marks_each_opener_and_the_popups_that_closed() -> None:
    listed = [
        {**TAB, "active": True, "opener": None},
        {"id": 12, "url": "https://b.test/pay", "title": "Pay", "active": False, "opener": 7},
        {
            "id": 13,
            "url": "https://b.test/auth",
            "title": "",
            "active": False,
            "opener": 7,
            "closed": True,
            "ended_url": "https://a.test/cb",
        },
    ]
    assert browser_tabs_text({"result": listed}) == (
        "7 (active): Shop https://a.test/\n"
        "12 (from 7): Pay https://b.test/pay\n"
        "13 closed (from 7): (untitled) https://b.test/auth, ended on https://a.test/cb"
    )


@pytest.mark.parametrize("tool", ["browser_act", "browser_fill_form"])
def test_the_opened_tabs_ids_are_daemon_wide_in_another_context(tool: str) -> None:
    shift = TOOLS[tool].tab_ids
    assert shift is not None
    result = {"navigated": False, "opened": [{"id": 12, "url": "", "title": ""}]}
    assert shift(result, 2**31) == {
        **result,
        "opened": [{"id": 12 + 2**31, "url": "", "title": ""}],
    }


def test_the_tab_lists_openers_are_daemon_wide_in_another_context() -> None:
    shift = TOOLS["browser_tabs"].tab_ids
    assert shift is not None
    listed = [{"id": 7, "opener": None}, {"id": 12, "opener": 7}]
    assert shift(listed, 10) == [{"id": 17, "opener": None}, {"id": 22, "opener": 17}]


def test_a_script_says_the_tabs_it_opened() -> None:
    opened = [{"id": 12, "url": "https://b.test/pay", "title": "Checkout"}]
    envelope = {"result": None, "result_type": "undefined", "opened": opened}
    assert script_text(envelope) == 'undefined\n[opened tab 12: "Checkout"]'


def test_the_tabs_a_script_opened_are_daemon_wide_in_another_context() -> None:
    frame = ResultFrame(id="1", ok=True, result=None, opened=[{"id": 12, "url": "", "title": ""}])
    assert outward("execute_javascript", frame, 10).opened == [{"id": 22, "url": "", "title": ""}]
