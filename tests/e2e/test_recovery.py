"""No script, page or dialog leaves a tab unusable, in a real Chromium with the real extension:
commands that time out never start later, document.write keeps the answer, and a tab no script
can free is replaced with browser_tabs, in the managed browser too."""

from __future__ import annotations

import concurrent.futures
import json
from typing import Any

import httpx
from selenium import webdriver

from tests import figures
from tests.e2e.harness import POPUP_URL, Daemon, open_url, wait_for


def run(daemon: Daemon, script: str, **params: Any) -> tuple[int, dict[str, Any]]:
    response = daemon.execute(script, **params)
    return response.status_code, response.json()


def tabs(daemon: Daemon, **body: Any) -> tuple[int, dict[str, Any]]:
    response = httpx.post(f"{daemon.url}/browser_tabs", json=body, timeout=30)
    return response.status_code, response.json()


def open_tabs(daemon: Daemon) -> list[dict[str, Any]]:
    """browser_tabs list without the tabs a page opened that closed themselves (listed `closed`)."""
    return [t for t in tabs(daemon)[1]["result"] if not t.get("closed")]


def test_commands_that_timed_out_behind_a_busy_page_never_start_later(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    assert run(daemon, "window.ran = 0; 1")[0] == 200
    with concurrent.futures.ThreadPoolExecutor(11) as pool:
        busy = pool.submit(
            run,
            daemon,
            "const end = Date.now() + 2500; while (Date.now() < end) {}",
            timeout_ms=1200,
        )
        # Once the busy script is on its way to the page, ten more queue up behind it there.
        wait_for(lambda: daemon.status()["in_flight"] >= 1, 5, "the busy script to be sent")
        queued = list(pool.map(lambda _: run(daemon, "window.ran += 1", timeout_ms=500), range(10)))
    assert busy.result()[1]["error"]["code"] == "execution_timeout", busy.result()
    # Each timed out behind it; on a loaded machine one may only arrive once the busy script has
    # timed out, and is then refused at once as the tab is still busy. Either way it never ran.
    refused = {(504, "execution_timeout"), (503, "tab_unresponsive")}
    assert {(s, b["error"]["code"]) for s, b in queued} <= refused, queued
    # Once the page is free, none of the ten has run, nor runs: a retry cannot double them.
    wait_for(lambda: run(daemon, "window.ran")[0] == 200, 10, "the page to be free")
    assert run(daemon, "window.ran")[1]["result"] == 0, queued
    assert run(daemon, "return ++window.ran")[1]["result"] == 1
    timed_out = sum(b["error"]["code"] == "execution_timeout" for _, b in queued)
    figures.record(
        "Faults",
        "10 commands queued behind a busy page past their deadline",
        f"{timed_out} of {len(queued)} answered 504 execution_timeout and "
        f"{len(queued) - timed_out} 503 tab_unresponsive; 0 ran once the page was free",
        figures.REAL_BROWSER,
    )


def test_document_write_in_a_script_answers_and_the_tab_keeps_working(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    status, body = run(
        daemon,
        "document.open(); document.write('<title>rewritten</title><p id=w>new</p>'); "
        "document.close(); return document.getElementById('w').textContent",
        timeout_ms=3000,
    )
    assert (status, body.get("result")) == (200, "new"), body
    for _ in range(3):
        status, body = run(daemon, "document.title")
        assert (status, body["result"], body["route"]) == (200, "rewritten", "page"), body
    figures.record(
        "Faults",
        "a script that calls document.open() and document.write()",
        "answered with its result; the next 3 commands ran in the page",
        figures.REAL_BROWSER,
    )


def test_a_discarded_tab_says_what_happened_and_how_to_get_it_back(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any], pages: str
) -> None:
    status, body = tabs(daemon, action="new", url=f"{pages}/other.html")
    assert status == 200, body
    other = body["result"]["id"]
    wait_for(lambda: run(daemon, "document.title")[1].get("result") == "other tab", 10, "other")
    assert tabs(daemon, action="select", tab_id=page["id"])[0] == 200
    # Chrome discards background tabs to save memory; the extension's own page may ask it to, as
    # Chrome's memory saver does.
    previous = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        browser.get(POPUP_URL)
        # Chrome may give a discarded tab a new id; the answer says which.
        discarded = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"chrome.tabs.discard({other}).then((t) => done(t.id), (e) => done(e.message));"
        )
        assert isinstance(discarded, int), discarded
        other = discarded
        # Asked before the test driver touches the tabs again: it would load the page anew.
        status, body = run(daemon, "1", tab_id=other)
    finally:
        browser.close()
        browser.switch_to.window(previous)
    assert (status, body["error"]["code"]) == (409, "tab_discarded"), body
    assert "discarded by Chrome to save memory" in body["error"]["message"]
    assert tabs(daemon, action="select", tab_id=other)[0] == 200
    wait_for(lambda: run(daemon, "document.title", tab_id=other)[0] == 200, 10, "it to load")
    assert tabs(daemon, action="close", tab_id=other)[0] == 200
    figures.record(
        "Faults",
        "a tab Chrome discarded to save memory",
        "409 tab_discarded, nothing sent; scripts run again once it is selected",
        figures.REAL_BROWSER,
    )


def test_the_managed_browser_replaces_a_stuck_tab_and_never_closes_its_last(
    managed: Daemon, pages: str
) -> None:
    # The session's managed browser may hold tabs other tests opened: this starts from one, new.
    status, body = tabs(managed, action="new", url=f"{pages}/index.html")
    assert status == 200, body
    for extra in open_tabs(managed):
        if extra["id"] != body["result"]["id"]:
            assert tabs(managed, action="close", tab_id=extra["id"])[0] == 200
    open_url(managed, f"{pages}/index.html")
    status, body = run(managed, "while (true) {}", timeout_ms=500)
    assert (status, body["error"]["code"]) == (504, "execution_timeout"), body
    stuck = body["error"].get("tab") or {}
    status, body = run(managed, "1")
    assert (status, body["error"]["code"]) == (503, "tab_unresponsive"), body
    assert "browser_tabs" in body["error"]["message"]
    stuck_id = body.get("tab", {}).get("id") or stuck.get("id")
    listed = open_tabs(managed)
    stuck_id = stuck_id or next(t["id"] for t in listed if t["active"])
    assert len(listed) == 1
    # Its only tab: the landing page opens before it closes, and scripts run there at once.
    status, body = tabs(managed, action="close", tab_id=stuck_id)
    assert status == 200, body
    assert body["result"]["closed"] == stuck_id
    landing = body["result"]["opened"]
    assert landing["url"] == f"{managed.url}/"
    wait_for(lambda: run(managed, "document.title")[1].get("result") == "tabpilot", 15, "landing")
    assert [t["id"] for t in open_tabs(managed)] == [landing["id"]]
    # A new tab becomes the active one, where scripts run by default.
    status, body = tabs(managed, action="new", url=f"{pages}/other.html")
    assert status == 200, body
    wait_for(lambda: run(managed, "document.title")[1].get("result") == "other tab", 15, "new tab")
    assert tabs(managed, action="close", tab_id=body["result"]["id"])[0] == 200
    status, body = tabs(managed, action="new", url="chrome://settings")
    assert (status, body["error"]["code"]) == (400, "invalid_request"), json.dumps(body)
    figures.record(
        "Faults",
        "managed browser: its only tab stuck in a loop",
        "503 tab_unresponsive; browser_tabs closed it, opening the landing page first, where "
        "scripts ran at once",
        figures.REAL_BROWSER,
    )


def test_a_huge_title_cannot_push_an_answer_past_its_limits(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    status, body = run(
        daemon, "document.title = 'T'.repeat(20_000_000); return 'set'", timeout_ms=20000
    )
    assert (status, body["result"]) == (200, "set"), body.get("error", "")
    title = body["tab"]["title"]
    assert len(title) == 1024 and title.endswith("\u2026")
    assert run(daemon, "document.title.length")[1]["result"] == 20_000_000
    figures.record(
        "Load",
        "a 20,000,000-character document.title beside a result",
        "200 with the result; the title cut to 1,024 characters",
        figures.REAL_BROWSER,
    )
