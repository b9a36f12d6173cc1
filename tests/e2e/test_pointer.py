"""The pointer in the real browser: browser_mouse at a point, browser_act's clicks with a button, a
count or modifiers, a held key, and drags (HTML5 drag and drop, SortableJS from npm in both its
modes), on the DOM route with the debugger switch off and on the trusted route with it on, and in
the managed browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.acting import call, js, ok, open_page, refs, refused
from tests.e2e.harness import Daemon, set_popup_switch

NOW_4TH = 'it is now 4th of 5 in list "Todo"'
ORDER = "[...document.querySelectorAll('#todo li')].map((li) => li.id.slice(1)).join('')"


@pytest.fixture
def tab(page: dict[str, Any]) -> int:
    tab_id: int = page["id"]
    return tab_id


@pytest.fixture
def debugger_on(browser: webdriver.Chrome) -> Iterator[None]:
    set_popup_switch(browser, "debugger-toggle", True)
    try:
        yield
    finally:
        set_popup_switch(browser, "debugger-toggle", False)


# An item in a run written as a template (`e2|B`), or on a line of its own.
_ITEM = re.compile(
    r"^\s+(?:(e\d+)\|Task ([A-E])|- listitem \[ref=(e\d+)\]: Task ([A-E]))$", re.MULTILINE
)


def items(daemon: Daemon, tab: int) -> dict[str, str]:
    """The refs of the list's items by letter, from the snapshot's one line per item."""
    snapshot = ok(daemon, "browser_snapshot", tab_id=tab)["snapshot"]
    return {a or b: r or q for r, a, q, b in _ITEM.findall(snapshot)}


def mouse(daemon: Daemon, tab: int, **params: Any) -> str:
    description: str = ok(daemon, "browser_mouse", tab_id=tab, **params)["description"]
    return description


def act(daemon: Daemon, tab: int, **params: Any) -> str:
    description: str = ok(daemon, "browser_act", tab_id=tab, **params)["description"]
    return description


def events(daemon: Daemon, tab: int, *types: str) -> list[list[Any]]:
    """The page's log of mouse events (type, target id, button, buttons, detail, ctrl, shift,
    alt, meta, trusted), only these types."""
    logged: list[list[Any]] = js(daemon, tab, "log")
    return [e for e in logged if not types or e[0] in types]


def test_a_click_at_a_point_names_what_was_there(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/pointer/mouse.html")
    save = refs(daemon, tab)['button "Save"']
    body = call(daemon, "browser_mouse", tab_id=tab, action="click", x=60, y=30)
    assert body["result"] == {
        "description": f'Clicked at (60, 30) on button "Save" ({save})',
        "route": "dom",
    }
    assert [e[:5] for e in events(daemon, tab)] == [
        ["pointerdown", "save", 0, 1, 0],
        ["mousedown", "save", 0, 1, 1],
        ["pointerup", "save", 0, 0, 0],
        ["mouseup", "save", 0, 0, 1],
        ["click", "save", 0, 0, 1],
    ]
    assert js(daemon, tab, "document.activeElement.id") == "save"


def test_right_middle_double_and_modified_clicks(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/pointer/mouse.html")
    said = mouse(daemon, tab, action="right_click", x=60, y=80, modifiers=["Shift"])
    assert said == 'Right-clicked at (60, 80) on button "Menu" with Shift'
    assert [e[:4] + e[6:7] for e in events(daemon, tab, "contextmenu", "auxclick", "click")] == [
        ["contextmenu", "menu", 2, 2, True],
        ["auxclick", "menu", 2, 0, True],
    ]
    js(daemon, tab, "log.length = 0")
    assert mouse(daemon, tab, action="middle_click", x=60, y=30).startswith("Middle-clicked")
    assert [e[:3] for e in events(daemon, tab, "auxclick", "click")] == [["auxclick", "save", 1]]
    js(daemon, tab, "log.length = 0")
    assert mouse(daemon, tab, action="double_click", x=60, y=30).startswith("Double-clicked")
    assert [e[:5] for e in events(daemon, tab, "click", "dblclick")] == [
        ["click", "save", 0, 0, 1],
        ["click", "save", 0, 0, 2],
        ["dblclick", "save", 0, 0, 2],
    ]
    # browser_act's click takes the same: a Control+click the page records, a double click.
    save = refs(daemon, tab)['button "Save"']
    js(daemon, tab, "log.length = 0")
    said = act(daemon, tab, kind="click", ref=save, modifiers=["Control"])
    assert said == f'Control+clicked button "Save" ({save})'
    assert [e[0:2] + e[5:9] for e in events(daemon, tab, "click")] == [
        ["click", "save", True, False, False, False]
    ]
    js(daemon, tab, "log.length = 0")
    assert (
        act(daemon, tab, kind="click", ref=save, count=2)
        == f'Double-clicked button "Save" ({save})'
    )
    assert [e[0] for e in events(daemon, tab, "click", "dblclick")] == [
        "click",
        "click",
        "dblclick",
    ]
    js(daemon, tab, "log.length = 0")
    assert act(daemon, tab, kind="click", ref=save, button="right").startswith("Right-clicked")
    assert [e[0] for e in events(daemon, tab, "contextmenu", "click")] == ["contextmenu"]


def test_the_wheel_scrolls_the_box_under_the_point(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/pointer/mouse.html")
    said = mouse(daemon, tab, action="wheel", x=300, y=60, delta_y=300)
    assert (
        said == 'Turned the wheel by (0, 300) at (300, 60) on div "long"; it scrolled (0, 300) px'
    )
    assert js(daemon, tab, "[document.getElementById('box').scrollTop, scrollY]") == [300, 0]
    assert [e[0] for e in events(daemon, tab, "wheel")] == ["wheel"]


def test_a_point_outside_the_viewport_is_refused(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/pointer/mouse.html")
    width, height = js(daemon, tab, "[document.documentElement.clientWidth, innerHeight]")
    outside = {"tab_id": tab, "action": "click"}
    error = refused(
        daemon, "browser_mouse", 422, "point_outside_viewport", x=60, y=height + 5, **outside
    )
    assert error["data"] == {"width": width, "height": height}
    assert f"{width}x{height}" in error["message"]
    refused(daemon, "browser_mouse", 422, "point_outside_viewport", x=-1, y=10, **outside)
    assert events(daemon, tab) == []


def test_a_held_key_repeats_then_comes_up(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/pointer/mouse.html")
    name = refs(daemon, tab)['textbox "Name"']
    said = act(daemon, tab, kind="press", ref=name, key="a", hold_ms=700)
    assert said == f'Held a for 700 ms (7 repeats) in textbox "Name" ({name})'
    keys = js(daemon, tab, "keys")
    assert [k[:3] for k in keys] == [["keydown", "a", False]] + [["keydown", "a", True]] * 7 + [
        ["keyup", "a", False]
    ]
    assert 650 <= keys[-1][3] - keys[0][3] <= 1500
    assert js(daemon, tab, "document.getElementById('name').value") == "a" * 8


def test_a_drag_reorders_an_html5_list_and_says_where_it_went(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/pointer/native.html")
    found = items(daemon, tab)
    b, d = found["B"], found["D"]
    said = act(daemon, tab, kind="drag", ref=b, to_ref=d)
    assert said == f'Dragged listitem "Task B" ({b}) onto listitem "Task D" ({d}); {NOW_4TH}'
    assert js(daemon, tab, ORDER) == "ACDBE"
    assert js(daemon, tab, "events") == ["dragstart", "drop:tB", "dragend"]
    # To a point: over the "Done" list.
    a, done = found["A"], refs(daemon, tab)['list "Done"']
    said = act(daemon, tab, kind="drag", ref=a, to_x=500, to_y=100)
    assert (
        said == f'Dragged listitem "Task A" ({a}) to (500, 100) over list "Done" ({done}); '
        'it is now 1st of 1 in list "Done"'
    )
    assert js(daemon, tab, "[...document.querySelectorAll('#done li')].map((li) => li.id)") == [
        "tA"
    ]


def test_an_element_marked_draggable_gets_a_ref(daemon: Daemon, pages: str, tab: int) -> None:
    """The items have no other sign of being actionable: no role, tabindex or pointer cursor."""
    open_page(daemon, tab, f"{pages}/pointer/native.html")
    assert sorted(items(daemon, tab)) == ["A", "B", "C", "D", "E"]
    js(daemon, tab, "document.getElementById('tC').removeAttribute('draggable')")
    assert sorted(items(daemon, tab)) == ["A", "B", "D", "E"]


def test_a_drag_onto_a_stale_ref_moves_nothing(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/pointer/native.html")
    found = items(daemon, tab)
    js(daemon, tab, "document.getElementById('tD').remove()")
    params = {"kind": "drag", "ref": found["B"], "to_ref": found["D"]}
    refused(daemon, "browser_act", 410, "stale_ref", tab_id=tab, **params)
    assert js(daemon, tab, ORDER) == "ABCE"
    assert js(daemon, tab, "events") == []


@pytest.mark.parametrize("mode", ["", "?fallback"])
def test_a_drag_reorders_a_sortablejs_list(daemon: Daemon, pages: str, tab: int, mode: str) -> None:
    open_page(daemon, tab, f"{pages}/pointer/sortable.html{mode}")
    found = items(daemon, tab)
    b, d = found["B"], found["D"]
    said = act(daemon, tab, kind="drag", ref=b, to_ref=d)
    assert js(daemon, tab, ORDER) == "ACDBE"
    assert said.endswith(NOW_4TH), said
    assert js(daemon, tab, "ends") == [[1, 3]]


def test_browser_mouse_drags_from_point_to_point(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/pointer/sortable.html?fallback")
    said = mouse(daemon, tab, action="drag", x=100, y=20, to_x=100, to_y=140)
    assert said.startswith(
        'Dragged from (100, 20) on listitem "Task A" to (100, 140) over listitem "Task'
    )
    assert js(daemon, tab, ORDER) == "BCDAE"


def test_the_trusted_route_needs_the_debugger_switch(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/pointer/mouse.html")
    refused(
        daemon,
        "browser_mouse",
        403,
        "debugger_disabled",
        tab_id=tab,
        action="click",
        x=60,
        y=30,
        trusted=True,
    )
    assert events(daemon, tab) == []


def test_the_trusted_route_clicks_holds_and_drags(
    daemon: Daemon, pages: str, tab: int, debugger_on: None
) -> None:
    open_page(daemon, tab, f"{pages}/pointer/mouse.html")
    body = call(
        daemon, "browser_mouse", tab_id=tab, action="double_click", x=60, y=30, trusted=True
    )
    assert body["result"] == {
        "description": 'Double-clicked at (60, 30) on button "Save"',
        "route": "debugger",
    }
    assert [e[:5] + e[9:] for e in events(daemon, tab, "click", "dblclick")] == [
        ["click", "save", 0, 0, 1, True],
        ["click", "save", 0, 0, 2, True],
        ["dblclick", "save", 0, 0, 2, True],
    ]
    js(daemon, tab, "log.length = 0")
    save = refs(daemon, tab)['button "Save"']
    act(daemon, tab, kind="click", ref=save, modifiers=["Control"], trusted=True)
    assert [e[0:2] + e[5:] for e in events(daemon, tab, "click")] == [
        ["click", "save", True, False, False, False, True]
    ]
    mouse(daemon, tab, action="right_click", x=60, y=80, trusted=True)
    assert [e[:3] for e in events(daemon, tab, "contextmenu")] == [["contextmenu", "menu", 2]]
    mouse(daemon, tab, action="wheel", x=300, y=60, delta_y=200, trusted=True)
    assert js(daemon, tab, "document.getElementById('box').scrollTop") > 0
    name = refs(daemon, tab)['textbox "Name"']
    said = act(daemon, tab, kind="press", ref=name, key="b", hold_ms=600, trusted=True)
    assert said == f'Held b for 600 ms (4 repeats) in textbox "Name" ({name})'
    assert [k[:3] for k in js(daemon, tab, "keys")][-2:] == [
        ["keydown", "b", True],
        ["keyup", "b", False],
    ]
    for page, order in (
        ("native.html", "ACDBE"),
        ("sortable.html", "ACDBE"),
        ("sortable.html?fallback", "ACDBE"),
    ):
        open_page(daemon, tab, f"{pages}/pointer/{page}")
        found = items(daemon, tab)
        b, d = found["B"], found["D"]
        said = act(daemon, tab, kind="drag", ref=b, to_ref=d, trusted=True)
        assert js(daemon, tab, ORDER) == order, page
        assert said == f'Dragged listitem "Task B" ({b}) onto listitem "Task D" ({d}); {NOW_4TH}'


def test_a_dialog_a_click_at_a_point_raises_is_dismissed_and_listed(
    daemon: Daemon, pages: str, tab: int, debugger_on: None
) -> None:
    open_page(daemon, tab, f"{pages}/pointer/mouse.html")
    body = call(daemon, "browser_mouse", tab_id=tab, action="click", x=60, y=190)
    assert body["result"]["dialogs"] == [
        {"type": "confirm", "message": "Delete everything?", "action": "dismissed"}
    ]
    assert js(daemon, tab, "answer.textContent") == "kept"


def test_the_managed_browser_clicks_at_a_point_and_drags(managed: Daemon, pages: str) -> None:
    tab = ok(managed, "browser_tabs", action="new", url=f"{pages}/pointer/mouse.html")["id"]
    body = call(managed, "browser_mouse", tab_id=tab, action="click", x=60, y=30, trusted=True)
    assert body["result"]["description"] == 'Clicked at (60, 30) on button "Save"'
    assert [e[0] for e in events(managed, tab, "click")] == ["click"]
    open_page(managed, tab, f"{pages}/pointer/sortable.html")
    found = items(managed, tab)
    b, d = found["B"], found["D"]
    act(managed, tab, kind="drag", ref=b, to_ref=d)
    assert js(managed, tab, ORDER) == "ACDBE"
    ok(managed, "browser_tabs", action="close", tab_id=tab)
