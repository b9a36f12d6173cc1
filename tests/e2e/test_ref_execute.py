"""execute_javascript with a ref: the function is called with the element the ref names."""

from __future__ import annotations

from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.harness import Daemon, allow_user_scripts, set_popup_switch
from tests.e2e.tool_pages import (
    frames_snapshot,
    open_tool_page,
    ref_of,
    snapshot,
    submit_button_ref,
)

ON_ELEMENT = [
    ("(el) => el.textContent", "Create account", "string"),
    ("(el) => ({ tag: el.tagName, type: el.type })", {"tag": "BUTTON", "type": "submit"}, "object"),
    ("(el) => el.getAttribute('nonexistent')", None, "null"),
    (
        "async (el) => { await new Promise((r) => setTimeout(r, 5)); return el.form.id }",
        "",
        "string",
    ),
    ("function (el) { return el.isConnected }", True, "boolean"),
]


def execute(daemon: Daemon, script: str, ref: str) -> tuple[int, dict[str, Any]]:
    response = daemon.execute(script, ref=ref)
    body: dict[str, Any] = response.json()
    return response.status_code, body


@pytest.mark.parametrize(("script", "expected", "result_type"), ON_ELEMENT)
def test_the_function_gets_the_element(
    daemon: Daemon,
    browser: webdriver.Chrome,
    pages: str,
    script: str,
    expected: Any,
    result_type: str,
) -> None:
    ref = submit_button_ref(daemon, pages)
    status, body = execute(daemon, script, ref)
    assert status == 200 and body["success"] is True, body
    assert body["result"] == expected and body["result_type"] == result_type


def test_errors_of_the_function_read_as_usual(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    ref = submit_button_ref(daemon, pages)
    _status, thrown = execute(daemon, "(el) => { throw new Error('no ' + el.tagName) }", ref)
    assert thrown["success"] is False and thrown["error"]["code"] == "execution_error"
    assert thrown["error"]["message"] == "no BUTTON"
    _status, not_a_function = execute(daemon, "42", ref)
    assert not_a_function["error"]["code"] == "syntax_error"
    assert "(el) => el.textContent" in not_a_function["error"]["message"]


def test_elements_in_shadow_roots_and_frames(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/shadow.html")
    text = snapshot(daemon)["snapshot"]
    status, body = execute(daemon, "(el) => el.id", ref_of(text, '- button "Open shadow button"'))
    assert body["result"] == "in-open", body
    # A closed shadow root is closed to the page's own scripts too: said plainly.
    status, body = execute(daemon, "(el) => el.id", ref_of(text, '- button "Closed shadow button"'))
    assert status == 400 and body["error"]["code"] == "invalid_request"
    assert "closed shadow root" in body["error"]["message"]

    open_tool_page(daemon, pages, "/tools/frames.html")
    text = frames_snapshot(daemon)
    status, body = execute(
        daemon,
        "(el) => el.ownerDocument.title + ' ' + el.id",
        ref_of(text, '- button "Inner button"'),
    )
    assert body["result"] == "inner inner-button", body


def test_stale_and_unknown_refs(daemon: Daemon, browser: webdriver.Chrome, pages: str) -> None:
    ref = submit_button_ref(daemon, pages)
    status, body = execute(daemon, "(el) => el.id", "e9999")
    assert status == 404 and body["error"]["code"] == "ref_not_found"
    daemon.execute("document.querySelector('button[type=submit]').remove()")
    status, body = execute(daemon, "(el) => el.id", ref)
    assert status == 410 and body["error"]["code"] == "stale_ref"


def test_a_strict_page_takes_another_route_when_a_switch_allows(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    # No script runs there to tell that it loaded: selenium waits for the load.
    browser.get(f"{pages}/tools/strict.html")
    text = frames_snapshot(daemon)
    refs = {
        "b": ref_of(text, '- button "Strict button"'),
        "deep": ref_of(text, '- button "Shadow strict button"'),
        "inner-button": ref_of(text, '- button "Inner button"'),
    }
    status, body = execute(daemon, "(el) => el.id", refs["b"])
    assert status == 409 and body["error"]["code"] == "csp_blocked"
    assert "Allow User Scripts" in body["error"]["message"]
    set_popup_switch(browser, "debugger-toggle", True)
    try:
        for element_id, ref in refs.items():
            status, body = execute(daemon, "(el) => el.id", ref)
            assert (status, body["result"], body["route"]) == (200, element_id, "debugger"), body
    finally:
        set_popup_switch(browser, "debugger-toggle", False)
    allow_user_scripts(browser, True)
    try:
        status, body = execute(daemon, "(el) => el.id", refs["deep"])
        assert (status, body["result"], body["route"]) == (200, "deep", "user_scripts"), body
    finally:
        allow_user_scripts(browser, False)
