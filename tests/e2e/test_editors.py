"""browser_act in code editors vendored from npm (editor_pages.py): CodeMirror 5, CodeMirror 6,
Monaco and a notebook of CodeMirror 6 cells. Typing, selecting all and key chords on the DOM route
of a person's Chrome (the debugger switch off), checked with each editor's own API afterwards; an
app that takes only trusted input, with the switch off (refused, naming the switch) and on (the
trusted route, said in `route`); and the managed browser's first tab, which has no system focus.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e import test_act
from tests.e2e.acting import call, js, ok, open_page, refs
from tests.e2e.harness import Daemon, wait_for

#: browser_act's fixtures (the active tab on the test page; the debugger switch on) and helper.
tab, debugger_on, act = test_act.tab, test_act.debugger_on, test_act.act

#: How each editor page gives its editor's whole text, through the editor's own API.
VALUE = {
    "cm5": "cm.getValue()",
    "cm6": "view.state.doc.toString()",
    "monaco": "monaco.editor.getModels()[0].getValue()",
}
#: What each page calls its editor's textbox in a snapshot.
TEXTBOX = {
    "cm5": 'textbox "Code editor"',
    "cm6": 'textbox "Code editor"',
    "monaco": 'textbox "Editor content"',
}
EDITORS = pytest.mark.parametrize("name", ["cm5", "cm6", "monaco"])
#: Monaco takes typing through a 1 px textarea with transparent text that the person never sees
#: (they see the lines Monaco draws), and an act says so, as of any element the person cannot see.
UNSEEN = {"cm5": "", "cm6": "", "monaco": "; the element is not visible to the person (clipped)"}
#: Indentation-sensitive, with brackets and quotes that the editors close by themselves when typed
#: one at a time.
CODE = "SELECT name,\n  count(*)\nFROM t\nWHERE (a = 'x')\n  AND b IN (1, 2);"


def editor(daemon: Daemon, pages: str, tab: int, name: str) -> str:
    """Opens the editor's page once it is ready; the ref of its textbox."""
    open_page(daemon, tab, f"{pages}/editors/{name}.html")
    wait_for(
        lambda: js(daemon, tab, f"typeof {VALUE[name]} === 'string'"), 20, f"the {name} editor"
    )
    found = refs(daemon, tab)
    assert TEXTBOX[name] in found, found
    return found[TEXTBOX[name]]


def value(daemon: Daemon, tab: int, name: str) -> str:
    text: str = js(daemon, tab, VALUE[name])
    return text


@EDITORS
def test_typing_into_a_code_editor_replaces_its_text_exactly(
    daemon: Daemon, pages: str, tab: int, name: str
) -> None:
    box = editor(daemon, pages, tab, name)
    typed = act(daemon, tab, kind="type", ref=box, text=CODE)
    assert typed["route"] == "dom"
    said = f"Typed {len(CODE)} characters into {TEXTBOX[name]} ({box})"
    assert typed["description"] == said + UNSEEN[name]
    assert value(daemon, tab, name) == CODE


@EDITORS
def test_select_all_takes_the_editors_text_not_the_pages(
    daemon: Daemon, pages: str, tab: int, name: str
) -> None:
    box = editor(daemon, pages, tab, name)
    act(daemon, tab, kind="type", ref=box, text="one\ntwo")
    for key in ("Control+a", "Meta+a"):
        selected = act(daemon, tab, kind="press", key=key, ref=box)
        assert selected["route"] == "dom"
        # Not the page's text: its heading is not selected.
        assert (
            js(daemon, tab, "getSelection().containsNode(document.querySelector('h1'), true)")
            is False
        )
        act(daemon, tab, kind="press", key="x")
        assert value(daemon, tab, name) == "x"
        act(daemon, tab, kind="type", ref=box, text="one\ntwo")


@EDITORS
def test_key_chords_reach_the_editors_keymap(
    daemon: Daemon, pages: str, tab: int, name: str
) -> None:
    box = editor(daemon, pages, tab, name)
    act(daemon, tab, kind="type", ref=box, text="SELECT 2;")
    ran = act(daemon, tab, kind="press", key="Control+Enter", ref=box)
    assert ran["route"] == "dom"
    assert js(daemon, tab, "runs") == ["SELECT 2;"]
    # Enter is the editor's: a new line, not a form's submission.
    act(daemon, tab, kind="press", key="Enter")
    act(daemon, tab, kind="press", key="Tab")
    after_tab = value(daemon, tab, name)
    assert after_tab.startswith("SELECT 2;\n") and after_tab != "SELECT 2;\n", after_tab
    # Tab indented in the editor instead of moving the focus out of it.
    assert js(daemon, tab, "!!document.activeElement.closest('#host')")
    act(daemon, tab, kind="press", key="Control+z")
    assert value(daemon, tab, name) != after_tab


def test_shift_enter_runs_a_notebook_cell(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/editors/notebook.html")
    cell = refs(daemon, tab)['textbox "Code editor"']
    act(daemon, tab, kind="type", ref=cell, text="1 + 2")
    ran = act(daemon, tab, kind="press", key="Shift+Enter", ref=cell)
    assert ran == {
        **ran,
        "route": "dom",
        "description": f'Pressed Shift+Enter in textbox "Code editor" ({cell})',
    }
    assert js(daemon, tab, "runs") == ["1 + 2"]
    assert js(daemon, tab, "document.querySelector('.output').textContent") == "[1] 2 + 1"
    # The notebook moved the focus to a new cell, which takes what is typed next.
    act(daemon, tab, kind="press", key="7")
    assert js(daemon, tab, "cells.map((c) => c.state.doc.toString())") == ["1 + 2", "7"]


def test_an_app_that_takes_only_trusted_input_is_said_to_need_it(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/editors/trusted-only.html")
    found = refs(daemon, tab)
    cell, notes = found['textbox "Cell"'], found['textbox "Notes"']
    pressed = call(daemon, "browser_act", tab_id=tab, kind="press", key="Shift+Enter", ref=cell)
    assert pressed["error"]["code"] == "debugger_disabled", pressed
    assert "Strict pages: allow the debugger" in pressed["error"]["message"]
    assert js(daemon, tab, "runs") == []
    typed = call(daemon, "browser_act", tab_id=tab, kind="type", ref=notes, text="hello")
    assert typed["error"]["code"] == "debugger_disabled", typed
    assert js(daemon, tab, "document.getElementById('notes').value") == ""


def test_with_the_debugger_switch_on_such_an_app_gets_trusted_input(
    daemon: Daemon, pages: str, tab: int, debugger_on: None
) -> None:
    open_page(daemon, tab, f"{pages}/editors/trusted-only.html")
    found = refs(daemon, tab)
    cell, notes = found['textbox "Cell"'], found['textbox "Notes"']
    ran = act(daemon, tab, kind="press", key="Shift+Enter", ref=cell)
    assert ran["route"] == "debugger"
    assert js(daemon, tab, "runs") == ["print(1)"]
    typed = act(daemon, tab, kind="type", ref=notes, text="hello")
    assert typed == {
        **typed,
        "route": "debugger",
        "description": f'Typed 5 characters into textbox "Notes" ({notes})',
    }
    assert js(daemon, tab, "document.getElementById('notes').value") == "hello"


def test_the_managed_browsers_first_tab_types_into_an_editor(managed: Daemon, pages: str) -> None:
    tabs: Any = ok(managed, "browser_tabs", action="list")
    tab = tabs[0]["id"]
    box = editor(managed, pages, tab, "cm6")
    # The managed browser emulates the focus in every tab it holds (worker/tab/debugger.js), so
    # the first tab, which has no system focus, hears the keys as a focused page would.
    assert js(managed, tab, "document.hasFocus()") is True
    typed = act(managed, tab, kind="type", ref=box, text=CODE)
    assert typed["route"] == "dom"
    assert value(managed, tab, "cm6") == CODE
    act(managed, tab, kind="press", key="Control+a", ref=box)
    ran = act(managed, tab, kind="press", key="Control+Enter")
    assert ran["route"] == "dom"
    assert js(managed, tab, "runs") == [CODE]
    open_page(managed, tab, f"{pages}/editors/notebook.html")
    cell = refs(managed, tab)['textbox "Code editor"']
    act(managed, tab, kind="type", ref=cell, text="x = 1\ny = 2")
    ran = act(managed, tab, kind="press", key="Shift+Enter", ref=cell)
    assert ran["route"] == "dom"
    assert js(managed, tab, "document.querySelector('.output').textContent") == "[1] 2 = y\n1 = x"


@EDITORS
def test_trusted_typing_reaches_the_editor_and_says_what_it_holds(
    daemon: Daemon, pages: str, tab: int, name: str, debugger_on: None
) -> None:
    box = editor(daemon, pages, tab, name)
    typed = act(daemon, tab, kind="type", ref=box, text=CODE, trusted=True)
    assert typed["route"] == "debugger"
    held = value(daemon, tab, name)
    # Monaco indents typed lines again (pasted ones it keeps as they are, as on the DOM route).
    assert (held == CODE) is (name != "monaco"), held
    said = f"Typed {len(CODE)} characters into {TEXTBOX[name]} ({box})"
    holds = "" if held == CODE else f"; the editor holds {json.dumps(held)}"
    assert typed["description"] == said + holds + UNSEEN[name]
