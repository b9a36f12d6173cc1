"""browser_ask_human in a person's Chrome, answered in the popup as a person does: Done with a
reply, Decline, no answer (human_timeout), the tab closed and the pilot turned off meanwhile; the
badge set and cleared, the outline drawn on the ref and removed, the tab refused to other commands
while the request is open, the request kept across the popup closing; a stale ref refused before
anything is shown. And in the managed browser, no_human at once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.e2e.acting import call, js, ok, ref, refused
from tests.e2e.harness import Daemon, popup_tab, serving_pages, set_pilot, wait_for

# The button is below the fold: the outline scrolls it into view.
PAGE = """<!doctype html><title>handoff</title>
<h1>Account</h1><div style="height: 1600px"></div>
<button id="signin" style="margin: 20px; width: 120px; height: 40px">Sign in</button>
<button id="going">Going soon</button><div style="height: 800px"></div>"""

#: How long a test waits for the person's side of the chain to show something.
SHOWN_S = 15


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving_pages({"/handoff.html": PAGE}) as base:
        yield base


@pytest.fixture
def tab(daemon: Daemon, browser: webdriver.Chrome, site: str) -> Iterator[int]:
    """A fresh tab the AI opened on the handoff page; closed afterwards."""
    opened: int = ok(daemon, "browser_tabs", action="new", url=f"{site}/handoff.html")["id"]
    yield opened
    call(daemon, "browser_tabs", action="close", tab_id=opened)


@pytest.fixture(scope="module")
def asking() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield pool


def ask(pool: ThreadPoolExecutor, daemon: Daemon, **params: Any) -> Future[dict[str, Any]]:
    """browser_ask_human over HTTP in the background: the person answers meanwhile."""
    wait_s = params.get("timeout_ms", 300_000) / 1000 + 30
    return pool.submit(call, daemon, "browser_ask_human", wait_s, **params)


def cards(driver: webdriver.Chrome) -> list[WebElement]:
    return [c for c in driver.find_elements(By.CSS_SELECTOR, ".handoff-card") if c.is_displayed()]


def the_card(driver: webdriver.Chrome) -> WebElement:
    found: list[WebElement] = wait_for(lambda: cards(driver), SHOWN_S, "the request in the popup")
    assert len(found) == 1, [c.text for c in found]
    return found[0]


def badge(driver: webdriver.Chrome) -> str:
    """The extension icon's badge text, read in the popup page (an extension page)."""
    text: str = driver.execute_async_script(
        "chrome.action.getBadgeText({}).then(arguments[arguments.length - 1]);"
    )
    return text


@contextmanager
def in_tab(driver: webdriver.Chrome, url: str) -> Iterator[None]:
    """Selenium in the tab showing `url`, then back."""
    previous = driver.current_window_handle
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        if driver.current_url == url:
            break
    else:
        driver.switch_to.window(previous)
        raise AssertionError(f"no tab shows {url}")
    try:
        yield
    finally:
        driver.switch_to.window(previous)


def outline_and_element(driver: webdriver.Chrome) -> Any:
    """The outline's box and the button's, in CSS pixels, or None while there is no outline."""
    return driver.execute_script(
        "const box = document.querySelector('[data-tabpilot-handoff]');"
        "if (!box) return null;"
        "const r = (e) => { const b = e.getBoundingClientRect();"
        "  return [b.left, b.top, b.width, b.height].map(Math.round); };"
        "const style = getComputedStyle(box);"
        "return {box: r(box), element: r(document.getElementById('signin')),"
        "  style: style.outlineStyle, pointer: style.pointerEvents};"
    )


def another_in_front(driver: webdriver.Chrome, daemon: Daemon, tab: int, url: str) -> None:
    """A tab other than `tab` (which shows `url`) in front, as the person left it."""
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        if driver.current_url != url:
            break
    driver.execute_cdp_cmd("Page.bringToFront", {})
    wait_for(lambda: active_tab(daemon) != tab, 5, "another tab in front")


def active_tab(daemon: Daemon) -> int:
    tabs: list[dict[str, Any]] = daemon.get("/tabs").json()["result"]
    return int(next(t["id"] for t in tabs if t["active"]))


def test_done_with_a_reply_shows_the_request_and_holds_the_tab(
    daemon: Daemon, browser: webdriver.Chrome, site: str, tab: int, asking: ThreadPoolExecutor
) -> None:
    url = f"{site}/handoff.html"
    button = ref(daemon, tab, 'button "Sign in"')
    # Another tab in front first: the request brings its own to the front.
    another_in_front(browser, daemon, tab, url)
    started = time.monotonic()
    answer = ask(asking, daemon, message="Please sign in, then press Done", ref=button, tab_id=tab)

    wait_for(lambda: active_tab(daemon) == tab, SHOWN_S, "the tab brought to the front")
    # The active tab is that tab: a command that names none is refused.
    refused(daemon, "execute_javascript", 409, "human_turn", script="1")
    # The tab is the person's: every command in it is refused at once, saying why.
    for tool, params in (
        ("execute_javascript", {"script": "document.title"}),
        ("browser_snapshot", {}),
        ("browser_read", {}),
        ("browser_act", {"kind": "click", "ref": button}),
    ):
        error = refused(daemon, tool, 409, "human_turn", tab_id=tab, **params)
        assert "Please sign in, then press Done" in error["message"], error
        assert "Wait for browser_ask_human's answer" in error["message"], error
    # One request per tab.
    refused(daemon, "browser_ask_human", 409, "human_turn", message="And this?", tab_id=tab)
    # Other tabs go on.
    other = ok(daemon, "browser_tabs", action="new", url=f"{site}/other.html")["id"]
    assert js(daemon, other, "document.title") == ""
    call(daemon, "browser_tabs", action="close", tab_id=other)
    assert not answer.done()

    with in_tab(browser, url):
        drawn = wait_for(lambda: outline_and_element(browser), SHOWN_S, "the outline")
        assert drawn["box"] == drawn["element"], drawn
        assert (drawn["style"], drawn["pointer"]) == ("solid", "none")
        assert browser.execute_script("return window.scrollY") > 1000  # scrolled into view

    # The popup closes when it loses focus; the request stays for the next time it opens.
    with popup_tab(browser):
        card = the_card(browser)
        assert card.find_element(By.CSS_SELECTOR, ".handoff-message").text == (
            "Please sign in, then press Done"
        )
        assert card.find_element(By.CSS_SELECTOR, ".handoff-tab").text == "handoff"
        assert card.find_element(By.CSS_SELECTOR, ".handoff-url").text == url
        assert badge(browser) == "?"
        card.find_element(By.CSS_SELECTOR, ".handoff-reply").send_keys("half typed")
    assert not answer.done()
    with popup_tab(browser):
        card = the_card(browser)
        reply = card.find_element(By.CSS_SELECTOR, ".handoff-reply")
        reply.clear()
        reply.send_keys("signed in as a new user")
        card.find_element(By.CSS_SELECTOR, ".handoff-done").click()
        body = answer.result(timeout=SHOWN_S)
        assert body["status"] == 200 and body["success"], body
        assert body["result"]["answer"] == "done"
        assert body["result"]["reply"] == "signed in as a new user"
        assert body["result"]["url"] == url
        assert body["result"]["elapsed_ms"] <= (time.monotonic() - started) * 1000 + 1000
        wait_for(lambda: not cards(browser), SHOWN_S, "the card to go")
        wait_for(lambda: badge(browser) == "ON", SHOWN_S, "the pilot's badge back")

    with in_tab(browser, url):
        wait_for(lambda: outline_and_element(browser) is None, SHOWN_S, "the outline removed")
    assert js(daemon, tab, "document.title") == "handoff"  # the tab is the AI's again


def test_declined_without_a_reply(
    daemon: Daemon, browser: webdriver.Chrome, tab: int, asking: ThreadPoolExecutor
) -> None:
    answer = ask(asking, daemon, message="Is this the right item?", tab_id=tab)
    with popup_tab(browser):
        the_card(browser).find_element(By.CSS_SELECTOR, ".handoff-decline").click()
        body = answer.result(timeout=SHOWN_S)
    assert body["status"] == 200, body
    assert (body["result"]["answer"], body["result"]["reply"]) == ("declined", "")


def test_no_answer_is_human_timeout_and_the_request_is_withdrawn(
    daemon: Daemon, browser: webdriver.Chrome, tab: int, asking: ThreadPoolExecutor
) -> None:
    answer = ask(asking, daemon, message="Solve the CAPTCHA", tab_id=tab, timeout_ms=4000)
    with popup_tab(browser):
        the_card(browser)
        assert badge(browser) == "?"
        body = answer.result(timeout=30)
        assert (body["status"], body["error"]["code"]) == (408, "human_timeout"), body
        assert "Ask again" in body["error"]["message"]
        wait_for(lambda: not cards(browser), SHOWN_S, "the request withdrawn from the popup")
        wait_for(lambda: badge(browser) == "ON", SHOWN_S, "the pilot's badge back")
    assert js(daemon, tab, "1 + 1") == 2


def test_a_stale_ref_is_refused_before_anything_is_shown(
    daemon: Daemon, browser: webdriver.Chrome, site: str, tab: int
) -> None:
    going = ref(daemon, tab, 'button "Going soon"')
    js(daemon, tab, "document.getElementById('going').remove()")
    another_in_front(browser, daemon, tab, f"{site}/handoff.html")
    before = active_tab(daemon)
    refused(daemon, "browser_ask_human", 410, "stale_ref", message="Look", ref=going, tab_id=tab)
    assert active_tab(daemon) == before  # not brought to the front
    with popup_tab(browser):
        assert badge(browser) == "ON"
        assert not cards(browser)
    assert js(daemon, tab, "document.querySelector('[data-tabpilot-handoff]')") is None


def test_the_tab_closing_or_the_pilot_going_off_ends_the_request(
    daemon: Daemon, browser: webdriver.Chrome, site: str, asking: ThreadPoolExecutor
) -> None:
    closing = ok(daemon, "browser_tabs", action="new", url=f"{site}/handoff.html")["id"]
    answer = ask(asking, daemon, message="Enter the code", tab_id=closing)
    with popup_tab(browser):
        the_card(browser)
        ok(daemon, "browser_tabs", action="close", tab_id=closing)
        body = answer.result(timeout=SHOWN_S)
        assert (body["status"], body["error"]["code"]) == (410, "tab_closed"), body
        wait_for(lambda: not cards(browser), SHOWN_S, "the request withdrawn")

    kept = ok(daemon, "browser_tabs", action="new", url=f"{site}/handoff.html")["id"]
    answer = ask(asking, daemon, message="Enter the code", tab_id=kept)
    with popup_tab(browser):
        the_card(browser)
    set_pilot(browser, daemon, False)
    try:
        body = answer.result(timeout=SHOWN_S)
        assert (body["status"], body["error"]["code"]) == (403, "pilot_disabled"), body
    finally:
        set_pilot(browser, daemon, True)
    with popup_tab(browser):
        assert not cards(browser)
    call(daemon, "browser_tabs", action="close", tab_id=kept)


def test_the_managed_browser_has_no_human(managed: Daemon) -> None:
    started = time.monotonic()
    error = refused(managed, "browser_ask_human", 409, "no_human", message="Please log in")
    assert time.monotonic() - started < 2
    assert "tabpilot serve` without --browser" in error["message"]
