"""Strict pages and dialogs in a real Chromium: every route a script can take, and the switches
that allow them.

A person's Chrome (its own daemon and browser here, since the tests flip its switches): a strict
Content-Security-Policy refuses the script until the person allows user scripts or the debugger,
and the answer says how. The daemon's managed browser uses the debugger freely.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from selenium import webdriver

from tests import figures
from tests.e2e.harness import (
    Daemon,
    allow_user_scripts,
    connected_browser,
    open_url,
    set_popup_switch,
    spawn_daemon,
    wait_for,
)

#: The strict pages of tests/e2e/conftest.py, and what their refusal names.
STRICT_PAGES = {
    "/csp.html": "script-src 'self'",
    "/nonce.html": "strict-dynamic",
    "/tt-no-eval.html": "script-src 'self'",
    "/sandbox.html": "sandbox",
}


@pytest.fixture(scope="module")
def human(pages: str) -> Iterator[tuple[Daemon, webdriver.Chrome]]:
    """A daemon of its own, since these tests flip its browser's switches."""
    with spawn_daemon() as daemon, connected_browser(daemon, f"{pages}/index.html") as driver:
        yield daemon, driver


def run(daemon: Daemon, script: str, **params: Any) -> tuple[int, dict[str, Any]]:
    response = daemon.execute(script, **params)
    return response.status_code, response.json()


@pytest.mark.parametrize("path", STRICT_PAGES)
def test_a_strict_page_refuses_until_a_switch_allows_it_and_says_which(
    human: tuple[Daemon, webdriver.Chrome], pages: str, path: str
) -> None:
    daemon, driver = human
    driver.get(f"{pages}{path}")
    status, body = run(daemon, "1 + 1")
    assert status == 409, body
    error = body["error"]
    assert error["code"] == "csp_blocked"
    assert STRICT_PAGES[path] in error["message"]
    assert "Allow User Scripts" in error["message"]
    assert "Strict pages: allow the debugger" in error["message"]
    figures.record(
        "Strict pages and dialogs",
        f"person's Chrome, both switches off: {path}",
        f"409 csp_blocked naming `{STRICT_PAGES[path]}` and both switches",
        figures.REAL_BROWSER,
    )


def test_the_debugger_switch_runs_strict_pages_in_the_page_world(
    human: tuple[Daemon, webdriver.Chrome], pages: str
) -> None:
    daemon, driver = human
    set_popup_switch(driver, "debugger-toggle", True)
    try:
        for path in STRICT_PAGES:
            driver.get(f"{pages}{path}")
            status, body = run(daemon, "1 + 1")
            assert (status, body["result"], body["route"]) == (200, 2, "debugger"), (path, body)
            assert body["tab"]["url"] == f"{pages}{path}"
        # The page's own world: its globals are there, and errors read as on the fast path.
        driver.get(f"{pages}/nonce.html")
        assert run(daemon, "window.appVersion")[1]["result"] == "1.2.3"
        status, body = run(daemon, "throw new Error('strict failure')")
        assert status == 200
        assert body["error"]["code"] == "execution_error"
        assert body["error"]["message"] == "strict failure"
        assert body["error"]["route"] == "debugger"
        status, body = run(daemon, "await new Promise((r) => setTimeout(() => r('later'), 20))")
        assert (status, body["result"]) == (200, "later"), body
        # A loop the page world could never stop is stopped; the tab answers at once after.
        status, body = run(daemon, "while (true) {}", timeout_ms=1000)
        assert status == 504, body
        assert body["error"]["code"] == "execution_timeout"
        assert "the tab is free again" in body["error"]["message"]
        assert run(daemon, "document.title")[1]["result"] == "nonce csp"
    finally:
        set_popup_switch(driver, "debugger-toggle", False)
    status, body = run(daemon, "1 + 1")
    assert body["error"]["code"] == "csp_blocked", body
    figures.record(
        "Strict pages and dialogs",
        "person's Chrome, debugger switch on: the strict pages",
        f"route debugger on {len(STRICT_PAGES)} of {len(STRICT_PAGES)}, page globals seen; a loop "
        "stopped at its timeout, the tab free at once; csp_blocked again once off",
        figures.REAL_BROWSER,
    )


def test_allowed_user_scripts_run_strict_pages_without_the_debugger(
    human: tuple[Daemon, webdriver.Chrome], pages: str
) -> None:
    daemon, driver = human
    allow_user_scripts(driver, True)
    try:
        driver.get(f"{pages}/nonce.html")
        status, body = run(daemon, "document.title + ' ' + (1 + 1)")
        assert (status, body["result"], body["route"]) == (200, "nonce csp 2", "user_scripts")
        # The user-script world shares the DOM, not the page's JavaScript globals.
        assert run(daemon, "typeof window.appVersion")[1]["result"] == "undefined"
        status, body = run(daemon, "throw new Error('in a user script')")
        assert (body["error"]["code"], body["error"]["message"]) == (
            "execution_error",
            "in a user script",
        )
        status, body = run(daemon, "confirm('Proceed?')", dialog="accept")
        assert body["result"] is True, body
        assert body["dialogs"] == [{"type": "confirm", "message": "Proceed?", "action": "accepted"}]
    finally:
        allow_user_scripts(driver, False)
    figures.record(
        "Strict pages and dialogs",
        "person's Chrome, user scripts allowed: a nonce strict-dynamic page",
        "route user_scripts: the DOM shared, the page's globals not; errors and dialogs as usual",
        figures.REAL_BROWSER,
    )


def test_a_dialog_the_page_opened_is_reported_until_the_person_answers_it(
    human: tuple[Daemon, webdriver.Chrome], pages: str
) -> None:
    daemon, driver = human
    driver.get(f"{pages}/index.html")
    run(daemon, "setTimeout(() => { document.title = 'saved: ' + confirm('Save?'); }, 10); 1")
    wait_for(lambda: run(daemon, "1")[0] == 409, 10, "the dialog to block the tab")
    status, body = run(daemon, "document.title")
    assert (status, body["error"]["code"]) == (409, "dialog_open"), body
    assert 'confirm dialog ("Save?")' in body["error"]["message"]
    driver.switch_to.alert.accept()  # the person answers it
    saved = lambda: run(daemon, "document.title")[1].get("result") == "saved: true"  # noqa: E731
    wait_for(saved, 10, "the page to go on")
    figures.record(
        "Strict pages and dialogs",
        "person's Chrome: a confirm the page opened between commands",
        "409 dialog_open naming it, until the person answered; then the page went on",
        figures.REAL_BROWSER,
    )


def test_the_managed_browser_runs_strict_pages_through_the_debugger(
    managed: Daemon, pages: str
) -> None:
    for path in STRICT_PAGES:
        open_url(managed, f"{pages}{path}")
        status, body = run(managed, "1 + 1")
        assert (status, body["result"], body["route"]) == (200, 2, "debugger"), (path, body)
    figures.record(
        "Strict pages and dialogs",
        "managed browser: the strict pages",
        f"route debugger on {len(STRICT_PAGES)} of {len(STRICT_PAGES)}, with no switch",
        figures.REAL_BROWSER,
    )


def test_the_managed_browser_answers_a_dialog_left_open_and_reports_it(
    managed: Daemon, pages: str
) -> None:
    open_url(managed, f"{pages}/index.html")
    run(managed, "setTimeout(() => { document.title = 'saved: ' + confirm('Save?'); }, 10); 1")
    answered: list[dict[str, Any]] = []

    def next_command_answers_it() -> list[dict[str, Any]]:
        status, body = run(managed, "document.title", dialog="accept", timeout_ms=3000)
        assert status == 200, body
        answered.extend(body["dialogs"])
        return answered

    wait_for(next_command_answers_it, 10, "a command to answer the dialog")
    # Left open before the command (`before`), or opened while it ran: answered once either way.
    assert [{k: v for k, v in d.items() if k != "before"} for d in answered] == [
        {"type": "confirm", "message": "Save?", "action": "accepted"}
    ]
    assert run(managed, "document.title")[1]["result"] == "saved: true"
    figures.record(
        "Strict pages and dialogs",
        "managed browser: a confirm the page opened between commands",
        "answered once, as the next command asked (accepted), and listed in its dialogs",
        figures.REAL_BROWSER,
    )


def test_the_managed_browser_answers_a_page_that_asks_before_it_is_left(
    managed: Daemon, pages: str
) -> None:
    open_url(managed, f"{pages}/leave.html")
    assert run(managed, "document.title")[1]["route"] == "debugger"
    # The page asks "Leave site?" before it goes, while the script that navigates still runs: the
    # command answers as it says. Dismissed by default: the page stays.
    leave = f"location.href = {json.dumps(pages + '/other.html')}; 1"
    status, body = run(managed, leave)
    assert status == 200, body
    assert [(d["type"], d["action"]) for d in body["dialogs"]] == [("beforeunload", "dismissed")]
    assert run(managed, "document.title")[1]["result"] == "unsaved changes"
    status, body = run(managed, leave, dialog="accept")
    assert [(d["type"], d["action"]) for d in body["dialogs"]] == [("beforeunload", "accepted")]
    wait_for(
        lambda: run(managed, "document.title")[1].get("result") == "other tab", 15, "the page left"
    )
    figures.record(
        "Strict pages and dialogs",
        "managed browser: a page that asks before it is left",
        "its beforeunload dialog answered by the navigating command: dismissed, the page stayed; "
        "accepted, it was left",
        figures.REAL_BROWSER,
    )
