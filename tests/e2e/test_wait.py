"""browser_wait_for in a person's Chrome (and once in the managed browser): each condition on a
fixture page whose changes the page itself makes on a timer, answered soon after they happen;
across a redirect and a navigation; the timeout's message; bad conditions; a tab closed and the
switch turned off while waiting."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException

from tests.e2e.acting import call, js, ok, open_page, ref, refused
from tests.e2e.harness import Daemon, serving, set_pilot

PAGE = """<!doctype html><title>wait</title>
<style>.hidden { display: none }</style>
<p id="status">Saving\u2026</p><p>Save draft</p><p>Welcome back</p>
<div id="toast" class="toast hidden">Saved!</div>
<div id="box"><button id="hide-me">Hide me</button></div>
<button id="go" disabled>Go</button>
<a href="/wait/redirect">Next</a>
<script>
window.later = (ms, fn) => setTimeout(() => { fn(); window.doneAt = Date.now(); }, ms);
</script>
"""
TARGET = "<!doctype html><title>target</title><p>Arrived</p>"
# Text in an open shadow root, which innerText does not read.
SHADOW = """<!doctype html><title>shadow</title><div id="host"></div>
<script>
host.attachShadow({ mode: "open" }).innerHTML = "<p>in the shadow</p>";
window.later = (ms, fn) => setTimeout(() => { fn(); window.doneAt = Date.now(); }, ms);
</script>"""


class _Site(BaseHTTPRequestHandler):
    """The wait pages; /wait/redirect answers 302 to the target, /wait/slow after `ms`."""

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/wait/redirect":
            self.send_response(302)
            self.send_header("Location", "/wait/target.html")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if url.path == "/wait/slow":
            time.sleep(int(parse_qs(url.query)["ms"][0]) / 1000)
            body = "ok"
        else:
            body = {"/wait/target.html": TARGET, "/wait/shadow.html": SHADOW}.get(url.path, PAGE)
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving(_Site) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def tab(page: dict[str, Any], daemon: Daemon, site: str) -> int:
    """The active tab, showing the wait page."""
    tab_id: int = page["id"]
    open_page(daemon, tab_id, f"{site}/wait/page.html")
    return tab_id


def wait(daemon: Daemon, tab: int, **params: Any) -> dict[str, Any]:
    return ok(daemon, "browser_wait_for", tab_id=tab, **params)


#: How long after it is asked the page makes its change: time enough for the wait to reach it,
#: on a loaded machine too.
LATER_MS = 1500


def later(daemon: Daemon, tab: int, script: str) -> None:
    """Has the page run `script` in LATER_MS, on its own timer; window.doneAt says when it did."""
    js(daemon, tab, f"later({LATER_MS}, () => {{ {script} }}); null")


def answered_after_the_change(daemon: Daemon, tab: int, answered_at: float) -> float:
    """How long after the page made its change the answer arrived, in ms."""
    done_at = js(daemon, tab, "window.doneAt")
    assert isinstance(done_at, int), done_at
    return answered_at * 1000 - done_at


def test_text_that_appears_later_is_answered_soon_after(daemon: Daemon, tab: int) -> None:
    later(daemon, tab, "document.getElementById('status').textContent = 'Order SAVED'")
    met = wait(daemon, tab, text="order saved")
    answered = time.time()
    assert met["condition"] == "text"
    assert met["description"] == 'text "order saved" appeared'
    assert met["already"] is False and met["navigated"] is False
    assert 0 < met["elapsed_ms"] < 2000, met
    # The page's own change to the answer in the test: the observer, the worker and the daemon.
    assert answered_after_the_change(daemon, tab, answered) < 250


def test_text_in_a_shadow_root(daemon: Daemon, site: str, tab: int) -> None:
    open_page(daemon, tab, f"{site}/wait/shadow.html")
    later(daemon, tab, "host.shadowRoot.querySelector('p').textContent = 'Shadow saved'")
    met = wait(daemon, tab, text="shadow SAVED")
    assert (met["description"], met["already"]) == ('text "shadow SAVED" appeared', False)


def test_text_already_there_answers_at_once(daemon: Daemon, tab: int) -> None:
    met = wait(daemon, tab, text="welcome BACK")
    assert met["already"] is True and met["elapsed_ms"] < 500, met
    assert met["description"] == 'text "welcome BACK" is on the page'


def test_text_gone_and_the_text_tool_answer(daemon: Daemon, tab: int) -> None:
    later(daemon, tab, "document.getElementById('status').remove()")
    body = call(daemon, "browser_wait_for", tab_id=tab, text_gone="Saving")
    assert body["success"], body
    assert body["result"]["description"] == 'text "Saving" disappeared'
    assert js(daemon, tab, "document.getElementById('status')") is None


def test_text_across_a_redirect_after_a_link_click(daemon: Daemon, site: str, tab: int) -> None:
    later(daemon, tab, "document.querySelector('a').click()")
    met = wait(daemon, tab, text="Arrived", timeout_ms=8000)
    assert met["navigated"] is True and met["url"] == f"{site}/wait/target.html", met
    assert met["description"] == 'text "Arrived" appeared'
    assert js(daemon, tab, "document.title") == "target"


def test_url_glob_after_a_script_navigation_and_a_history_push(
    daemon: Daemon, site: str, tab: int
) -> None:
    later(daemon, tab, "history.pushState({}, '', '/app/step/2')")
    met = wait(daemon, tab, url="**/app/*/2")
    assert met["description"] == f'url became {site}/app/step/2 (matches "**/app/*/2")'
    later(daemon, tab, "location.href = '/wait/redirect'")
    met = wait(daemon, tab, url="**/wait/{target,other}.html")
    assert met["url"] == f"{site}/wait/target.html" and met["navigated"] is True
    # By the time the url answers, the new page's DOM is there.
    assert js(daemon, tab, "document.body.textContent") == "Arrived"
    already = wait(daemon, tab, url=f"{site}/wait/target.html")
    assert already["already"] is True


def test_network_idle_waits_out_a_fetch_in_flight(daemon: Daemon, site: str, tab: int) -> None:
    # Not awaited: the script answers at once, with the fetch under way.
    js(daemon, tab, "fetch('/wait/slow?ms=800').then(() => { window.fetched = Date.now(); }); null")
    met = wait(daemon, tab, network_idle=True)
    answered = time.time() * 1000
    fetched = js(daemon, tab, "window.fetched")
    assert isinstance(fetched, int)
    # Idle means 500 ms with nothing under way after the fetch ended.
    assert 450 <= answered - fetched < 1500, (answered - fetched, met)
    assert met["description"] == "network idle (no request for 500 ms)"
    # A request still under way at the timeout is named.
    js(daemon, tab, "fetch('/wait/slow?ms=3000'); null")
    error = refused(
        daemon,
        "browser_wait_for",
        504,
        "wait_timeout",
        tab_id=tab,
        network_idle=True,
        timeout_ms=800,
    )
    assert error["message"].startswith("network not idle after ")
    assert f"1 request under way: GET {site}/wait/slow?ms=3000 (" in error["message"]


def test_dom_stable_waits_for_the_changes_to_stop(daemon: Daemon, tab: int) -> None:
    js(
        daemon,
        tab,
        "let n = 0; const t = setInterval(() => { box.dataset.n = ++n; if (n === 8) "
        "{ clearInterval(t); window.doneAt = Date.now(); } }, 50)",
    )
    met = wait(daemon, tab, dom_stable=300)
    answered = time.time()
    assert met["description"] == "DOM stable (no change for 300 ms)"
    assert 250 <= answered_after_the_change(daemon, tab, answered) < 1000
    assert js(daemon, tab, "box.dataset.n") == "8"


def test_visible_hidden_and_enabled_follow_class_and_attribute_toggles(
    daemon: Daemon, tab: int
) -> None:
    later(daemon, tab, "toast.classList.remove('hidden')")
    shown = wait(daemon, tab, selector=".toast")
    assert shown["description"] == 'selector ".toast" (div "Saved!") became visible'
    hide_me = ref(daemon, tab, 'button "Hide me"')
    later(daemon, tab, "box.classList.add('hidden')")
    hidden = wait(daemon, tab, ref=hide_me, state="hidden")
    assert hidden["description"] == f'button "Hide me" ({hide_me}) became hidden'
    go = ref(daemon, tab, 'button "Go"')
    later(daemon, tab, "document.getElementById('go').disabled = false")
    assert wait(daemon, tab, ref=go, state="enabled")["description"] == (
        f'button "Go" ({go}) became enabled'
    )
    later(daemon, tab, "document.getElementById('go').remove()")
    assert wait(daemon, tab, ref=go, state="detached")["description"] == (
        f'button "Go" ({go}) was removed from the page'
    )


def test_a_ref_across_a_navigation_is_detached_or_stale(
    daemon: Daemon, site: str, tab: int
) -> None:
    hide_me = ref(daemon, tab, 'button "Hide me"')
    later(daemon, tab, "document.querySelector('a').click()")
    gone = wait(daemon, tab, ref=hide_me, state="detached")
    assert gone["description"] == f"ref {hide_me} is detached: the page navigated"
    assert gone["navigated"] is True and gone["url"] == f"{site}/wait/target.html"
    open_page(daemon, tab, f"{site}/wait/page.html")
    go = ref(daemon, tab, 'button "Go"')
    later(daemon, tab, "document.querySelector('a').click()")
    stale = refused(
        daemon, "browser_wait_for", 410, "stale_ref", tab_id=tab, ref=go, state="enabled"
    )
    assert "the page navigated while waiting for it to be enabled" in stale["message"]


def test_a_plain_time(daemon: Daemon, tab: int) -> None:
    started = time.monotonic()
    met = wait(daemon, tab, time=300)
    assert time.monotonic() - started >= 0.3
    assert met["condition"] == "time" and 300 <= met["elapsed_ms"] < 1000, met
    body = call(daemon, "browser_wait_for", time=250)
    assert body["success"] and body["result"]["description"] == "waited 250 ms"


def test_a_timeout_says_what_was_still_false(daemon: Daemon, tab: int) -> None:
    error = refused(
        daemon, "browser_wait_for", 504, "wait_timeout", tab_id=tab, text="Saved", timeout_ms=600
    )
    assert error["message"].startswith('text "Saved" not found after ')
    # The toast's "Saved!" is in the DOM, hidden; the visible texts like it are named.
    assert error["message"].endswith(
        '; 2 similar: "Save draft", "Saving\u2026"; it is in the page\'s DOM but not visible'
    ), error
    assert error["data"]["similar"] == ["Save draft", "Saving\u2026"]
    hide_me = ref(daemon, tab, 'button "Hide me"')
    js(daemon, tab, "box.classList.add('hidden')")
    still = refused(
        daemon, "browser_wait_for", 504, "wait_timeout", tab_id=tab, ref=hide_me, timeout_ms=300
    )
    assert still["message"].startswith(f'button "Hide me" ({hide_me}) is still hidden after ')
    assert still["message"].endswith("; display: none on div#box.hidden")


def test_bad_conditions_are_refused_before_the_browser(daemon: Daemon, tab: int) -> None:
    none = refused(daemon, "browser_wait_for", 400, "invalid_request", tab_id=tab)
    assert "give one condition: text, text_gone, ref, selector, url" in none["message"]
    two = refused(daemon, "browser_wait_for", 400, "invalid_request", text="a", url="**/b")
    assert "one condition per call, not text and url" in two["message"]
    state = refused(daemon, "browser_wait_for", 400, "invalid_request", ref="e1", state="shown")
    assert "'visible', 'hidden', 'enabled', 'attached' or 'detached'" in state["message"]
    # Only the page can tell a bad selector.
    css = refused(daemon, "browser_wait_for", 400, "invalid_request", tab_id=tab, selector="a[")
    assert css["message"].startswith('selector "a[" is not valid CSS')
    ref(daemon, tab, 'button "Go"')  # a snapshot of this page: its refs are known
    never = refused(daemon, "browser_wait_for", 404, "ref_not_found", tab_id=tab, ref="e9999")
    assert "e9999" in never["message"]


def _in_background(daemon: Daemon, **params: Any) -> tuple[threading.Thread, dict[str, Any]]:
    answer: dict[str, Any] = {}

    def run() -> None:
        answer.update(call(daemon, "browser_wait_for", **params))

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.5)
    return thread, answer


def test_a_tab_closed_while_waiting_ends_the_wait(
    page: dict[str, Any], daemon: Daemon, site: str
) -> None:
    opened = ok(daemon, "browser_tabs", action="new", url=f"{site}/wait/page.html")["id"]
    thread, answer = _in_background(daemon, tab_id=opened, text="never", timeout_ms=20_000)
    started = time.monotonic()
    ok(daemon, "browser_tabs", action="close", tab_id=opened)
    thread.join(10)
    assert (answer["status"], answer["error"]["code"]) == (410, "tab_closed"), answer
    assert answer["error"]["message"] == f'Tab {opened} was closed while waiting for text "never".'
    assert time.monotonic() - started < 3


def test_a_page_that_crashes_while_waiting_ends_the_wait(
    browser: webdriver.Chrome, daemon: Daemon, site: str
) -> None:
    # Another site (localhost, not 127.0.0.1) gets a renderer of its own, which crashes alone.
    url = site.replace("127.0.0.1", "localhost") + "/wait/page.html"
    main = browser.current_window_handle
    browser.switch_to.new_window("tab")
    handle = browser.current_window_handle
    browser.get(url)
    browser.switch_to.window(main)
    tabs = daemon.get("/tabs").json()["result"]
    crashing = next(t["id"] for t in tabs if t["url"] == url)
    thread, answer = _in_background(daemon, tab_id=crashing, text="never", timeout_ms=20_000)
    started = time.monotonic()
    try:
        browser.switch_to.window(handle)
        with contextlib.suppress(WebDriverException):  # ChromeDriver loses the tab it was on
            browser.execute_cdp_cmd("Page.crash", {})
        browser.switch_to.window(main)
        thread.join(10)
    finally:
        with contextlib.suppress(WebDriverException):
            browser.execute_cdp_cmd("Target.closeTarget", {"targetId": handle})
    assert (answer["status"], answer["error"]["code"]) == (502, "tab_crashed"), answer
    assert answer["error"]["message"].startswith(f"The page in tab {crashing} crashed")
    assert time.monotonic() - started < 5


def test_the_switch_turned_off_ends_a_wait(
    browser: webdriver.Chrome, daemon: Daemon, tab: int
) -> None:
    thread, answer = _in_background(daemon, tab_id=tab, url="**/never", timeout_ms=30_000)
    try:
        set_pilot(browser, daemon, False)
        thread.join(10)
    finally:
        set_pilot(browser, daemon, True)
    assert (answer["status"], answer["error"]["code"]) == (403, "pilot_disabled"), answer


def test_the_managed_browser_waits_for_text(managed: Daemon, site: str) -> None:
    tab = ok(managed, "browser_tabs", action="new", url=f"{site}/wait/page.html")["id"]
    later(managed, tab, "document.getElementById('status').textContent = 'Done'")
    met = ok(managed, "browser_wait_for", tab_id=tab, text="Done")
    answered = time.time()
    assert met["description"] == 'text "Done" appeared'
    assert answered_after_the_change(managed, tab, answered) < 250
