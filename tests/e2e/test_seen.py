"""Text the person cannot see (content/seen.js): browser_snapshot and browser_read mark it, leave
it out with `visible_only` (but for the screen-reader label of a control the person sees, which
stays, marked), and browser_act says when it acted on an element the person cannot see. In a
person's Chrome and in the managed browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tabpilot.tools.page import act_text
from tests.e2e.acting import call, js, ok, open_page
from tests.e2e.harness import Daemon
from tests.e2e.hidden_pages import HIDDEN, SHOWN

PATH = "/hidden/text.html"
MARK = re.compile(r"\u27e6not visible: ([^\u27e6\u27e7]*)\u27e7")


@pytest.fixture
def tab(page: dict[str, Any], daemon: Daemon, pages: str) -> int:
    tab_id: int = page["id"]
    open_page(daemon, tab_id, f"{pages}{PATH}")
    return tab_id


def snap(daemon: Daemon, tab: int, **params: Any) -> str:
    text: str = ok(daemon, "browser_snapshot", tab_id=tab, **params)["snapshot"]
    return text


def line_of(text: str, needle: str) -> str:
    found = [line for line in text.split("\n") if needle in line]
    assert len(found) == 1, (needle, text)
    return found[0].strip()


def check_marked_snapshot(text: str) -> None:
    for hidden in HIDDEN:
        assert line_of(text, hidden) == f"- text [not visible]: {hidden}", text
    for shown in SHOWN:
        assert "not visible" not in line_of(text, shown), text
    assert line_of(text, "Docs").startswith(
        '- link "Docs (opens in a new tab)" [not visible: "(opens in a new tab)"] [ref='
    )
    assert line_of(text, "Close dialog").startswith(
        '- button "Close dialog" [not visible: "Close dialog"] [ref='
    )
    assert line_of(text, 'button "Hidden label"').startswith(
        '- button "Hidden label" [not visible: "Hidden label"] [ref='
    )
    assert re.fullmatch(r'- button "Ghost" \[ref=e\d+\] \[not visible\]', line_of(text, "Ghost"))


def test_snapshot_marks_each_hidden_text_and_no_shown_text(daemon: Daemon, tab: int) -> None:
    check_marked_snapshot(snap(daemon, tab))


def test_snapshot_visible_only_leaves_hidden_text_out_but_keeps_labels(
    daemon: Daemon, tab: int
) -> None:
    text = snap(daemon, tab, visible_only=True)
    assert "Hidden" not in text and "Ghost" not in text, text
    for shown in SHOWN:
        assert "not visible" not in line_of(text, shown), text
    assert line_of(text, "Docs").startswith(
        '- link "Docs (opens in a new tab)" [not visible: "(opens in a new tab)"] [ref='
    )
    assert line_of(text, "Close dialog").startswith('- button "Close dialog" [not visible:')
    assert line_of(text, "Shown buy").startswith('- button "Shown buy" [ref=')


def test_read_marks_each_hidden_text_and_visible_only_leaves_it_out(
    daemon: Daemon, tab: int
) -> None:
    text = ok(daemon, "browser_read", tab_id=tab)["text"]
    marked = MARK.findall(text)
    for hidden in HIDDEN:
        assert hidden in marked, (hidden, text)
    assert "(opens in a new tab)" in marked and "Close dialog" in marked, text
    outside = MARK.sub("", text)
    assert "Hidden" not in outside, text
    for shown in SHOWN:
        assert shown in outside, text
    only = ok(daemon, "browser_read", tab_id=tab, visible_only=True)["text"]
    assert "Hidden" not in only and "Ghost" not in only, only
    assert MARK.findall(only) == ["(opens in a new tab)", "Close dialog"], only
    for shown in SHOWN:
        assert shown in only, only


def ghost_click(daemon: Daemon, tab: int, **params: Any) -> dict[str, Any]:
    ref = re.search(r"\[ref=(e\d+)\]", line_of(snap(daemon, tab), "Ghost"))
    assert ref
    body = call(daemon, "browser_act", tab_id=tab, kind="click", ref=ref.group(1), **params)
    assert body["success"], body
    assert js(daemon, tab, "document.getElementById('ghost').dataset.clicked") == "yes"
    result: dict[str, Any] = body["result"]
    assert result["not_visible"] == "opacity 0", result
    assert act_text(body).endswith("; the element is not visible to the person (opacity 0)"), body
    return result


def test_act_on_an_opacity_0_button_acts_and_says_so(daemon: Daemon, tab: int) -> None:
    assert ghost_click(daemon, tab)["route"] == "dom"


def test_an_act_on_a_shown_button_says_nothing_of_it(daemon: Daemon, tab: int) -> None:
    ref = re.search(r"\[ref=(e\d+)\]", line_of(snap(daemon, tab), "Shown buy"))
    assert ref
    result = ok(daemon, "browser_act", tab_id=tab, kind="click", ref=ref.group(1))
    assert "not_visible" not in result and "not visible" not in result["description"], result


@pytest.fixture(scope="module")
def managed_tab(managed: Daemon, pages: str) -> Iterator[int]:
    opened = ok(managed, "browser_tabs", action="new", url=f"{pages}{PATH}")
    try:
        yield opened["id"]
    finally:
        call(managed, "browser_tabs", action="close", tab_id=opened["id"])


def test_the_managed_browser_marks_hidden_text_and_says_so_on_a_trusted_act(
    managed: Daemon, managed_tab: int, pages: str
) -> None:
    open_page(managed, managed_tab, f"{pages}{PATH}")
    check_marked_snapshot(snap(managed, managed_tab))
    assert "Hidden" not in snap(managed, managed_tab, visible_only=True)
    assert ghost_click(managed, managed_tab, trusted=True)["route"] == "debugger"
