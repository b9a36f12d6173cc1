"""What a hostile page can and cannot see of tabpilot, in the real Chromium with the extension.

The page's first script (pages/spy.js) hooks everything a page can hook: every event name on
window and document, postMessage, a MutationObserver, dispatchEvent, CustomEvent and its detail,
JSON, Function, eval and Error.prepareStackTrace. It also floods forged results and pilot flips.

The boundary these tests hold (README, "Security model"; docs/protocol.md §3):
- the page sees nothing of scripts sent to other tabs, and nothing of the channel (no event, no
  message, no mutation, no nonce);
- the page does not see the text or result of a script run in it that touches nothing of it;
- a script that calls into the page's own code shows itself: that code can read its source
  (Function.prototype.caller) - the script runs in the page's world on purpose;
- forged results and pilot flips change nothing;
- an awaited result passes no page getter (`then` on Object/Array.prototype, a promise's
  `constructor`), so the page neither sees nor replaces it.
"""

from __future__ import annotations

import concurrent.futures
import uuid
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver

from tests import figures
from tests.e2e.harness import Daemon, set_pilot, wait_for
from tests.security.conftest import Server

pytestmark = pytest.mark.e2e

SPY_JS = (Path(__file__).parent / "pages" / "spy.js").read_text()
SPY_PAGE = "<!doctype html><head><script src='/spy.js'></script><title>spy</title></head><p>hi</p>"


def _open_tab(browser: webdriver.Chrome, daemon: Daemon, url: str) -> tuple[str, int]:
    """Open `url` in a new tab; its selenium handle and its tabpilot tab id."""
    previous = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(url)
    handle = browser.current_window_handle
    browser.switch_to.window(previous)

    def find() -> int | None:
        tabs = daemon.get("/tabs").json()["result"]
        return next((tab["id"] for tab in tabs if tab["url"] == url), None)

    return handle, wait_for(find, 15, f"{url} in /tabs")


def _spy_log(browser: webdriver.Chrome, handle: str) -> str:
    previous = browser.current_window_handle
    browser.switch_to.window(handle)
    try:
        entries: list[str] = browser.execute_script("return window.__spy.slice()")
        return "\n".join(entries)
    finally:
        browser.switch_to.window(previous)


def _forgeries(browser: webdriver.Chrome, handle: str) -> int:
    previous = browser.current_window_handle
    browser.switch_to.window(handle)
    try:
        count: int = browser.execute_script("return window.__spyForgeries")
        return count
    finally:
        browser.switch_to.window(previous)


def _close(browser: webdriver.Chrome, handle: str) -> None:
    previous = browser.current_window_handle
    browser.switch_to.window(handle)
    browser.close()
    browser.switch_to.window(previous)


def _run(daemon: Daemon, tab_id: int, script: str) -> dict[str, Any]:
    response = daemon.execute(script, tab_id=tab_id)
    body: dict[str, Any] = response.json()
    assert response.status_code == 200, body
    return body


@pytest.fixture
def spy(browser: webdriver.Chrome, daemon: Daemon, page: dict[str, Any], attacker: Server) -> Any:
    attacker.site["/spy.html"] = lambda: SPY_PAGE
    attacker.site["/spy.js"] = lambda: SPY_JS
    handle, tab_id = _open_tab(browser, daemon, f"{attacker.origin('localhost')}/spy.html")
    try:
        yield handle, tab_id
    finally:
        _close(browser, handle)


def test_page_spies_see_only_what_the_boundary_allows(
    browser: webdriver.Chrome, daemon: Daemon, page: dict[str, Any], spy: Any
) -> None:
    handle, spy_tab = spy
    secret = lambda name: f"{name}-{uuid.uuid4().hex}"  # noqa: E731
    other_script, other_result = secret("OTHER-SCRIPT"), secret("OTHER-RESULT")
    pure_script, pure_result = secret("PURE-SCRIPT"), secret("PURE-RESULT")
    touching, throwing = secret("TOUCHING"), secret("THROWING")
    throwing_plain = secret("THROWING-PLAIN")

    # A script for another tab (another origin), touching that tab's DOM.
    body = _run(
        daemon,
        page["id"],
        f"const s = '{other_script}'; document.title; return '{other_result}' + s.length",
    )
    assert body["result"].startswith(other_result)
    # A script for the spy's tab that touches nothing of the page.
    body = _run(daemon, spy_tab, f"const s = '{pure_script}'; return ['{pure_result}', s.length]")
    assert body["result"][0] == pure_result
    # A script for the spy's tab that calls the page's own function.
    body = _run(daemon, spy_tab, f"/* {touching} */ return pageHelper()")
    assert body["result"] == "helper"

    # A script compiled as a function body (it has `return`) that throws: its stack is read, and V8
    # formats it with the page's Error.prepareStackTrace, which is handed the script's function.
    body = _run(daemon, spy_tab, f"/* {throwing} */ if (true) throw new Error('boom'); return 1")
    assert body["error"]["code"] == "execution_error"
    # A plain script (run by direct eval for its completion value) has no function of its own to
    # hand.
    body = _run(daemon, spy_tab, f"/* {throwing_plain} */ throw new Error('boom')")
    assert body["error"]["code"] == "execution_error"

    log = _spy_log(browser, handle)
    # Nothing of other tabs, nothing of a script that keeps to itself.
    hidden = (other_script, other_result, pure_script, pure_result, throwing_plain)
    for secret_text in hidden:
        assert secret_text not in log
    # Nothing of the channel: no tabpilot event, message or nonce reached a page listener.
    assert "heard tabpilot" not in log
    assert "heard message" not in log
    assert "chrome.runtime" not in log
    # What the page does see: a script that calls its code, or throws through its stack hook.
    assert f"caller function (\n) {{\n/* {touching} */" in log
    assert "window.event none" in log  # the event that names the secret is over by then
    assert throwing in log
    figures.record(
        "Hostile input",
        "page-world spy: secrets seen of a script in another tab and of a self-contained one",
        f"0 of {len(hidden)}; it does see scripts that call its code or throw (documented)",
        figures.REAL_BROWSER,
    )


def test_awaited_results_are_neither_seen_nor_forged_by_page_getters(
    browser: webdriver.Chrome, daemon: Daemon, spy: Any
) -> None:
    handle, spy_tab = spy
    secret = f"RESULT-{uuid.uuid4().hex}"
    scripts = {
        f"const t = await Promise.resolve('{secret}'); return {{token: t}}": {"token": secret},
        f"await 0; return ['{secret}']": [secret],
        f"await null\nif (true) {{\n  return {{token: '{secret}'}}\n}}": {"token": secret},
        f"(await Promise.resolve({{v: 1}})).v && ({{token: '{secret}'}})": {"token": secret},
        f"Promise.resolve(1).then(() => '{secret}')": secret,
    }
    for script, expected in scripts.items():
        body = _run(daemon, spy_tab, script)
        assert body["success"] is True and body["result"] == expected, body
    log = _spy_log(browser, handle)
    assert "then " in log  # the getters are live: the page's own promises pass through them
    assert secret not in log
    figures.record(
        "Hostile input",
        "page-world getters on then and constructor while scripts await",
        f"{len(scripts)} awaited results: none seen by the page, none forged",
        figures.REAL_BROWSER,
    )


def test_forged_results_never_reach_a_caller(
    daemon: Daemon, browser: webdriver.Chrome, spy: Any
) -> None:
    handle, spy_tab = spy
    scripts = {
        i: f"await new Promise((r) => setTimeout(r, {i * 10})); return {i} * 3" for i in range(24)
    }
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = pool.map(lambda s: _run(daemon, spy_tab, s), scripts.values())
        bodies = dict(zip(scripts, answers, strict=True))
    for i, body in bodies.items():
        assert body["success"] is True and body["result"] == i * 3, body
    forged = _forgeries(browser, handle)
    assert forged > 100  # a background tab's timers may be throttled; some floods are enough
    figures.record(
        "Hostile input",
        "forged results, channels and pilot flips from a page while commands run in it",
        f"{forged:,} forged events during {len(scripts)} commands: every caller got its own "
        "answer, none forged",
        figures.REAL_BROWSER,
    )


def test_a_page_cannot_turn_the_pilot_on(
    daemon: Daemon, browser: webdriver.Chrome, spy: Any
) -> None:
    handle, spy_tab = spy
    set_pilot(browser, daemon, False)
    try:
        before = _forgeries(browser, handle)
        wait_for(lambda: _forgeries(browser, handle) > before + 200, 60, "the spy's pilot flips")
        flooded = _forgeries(browser, handle) - before
        assert daemon.status()["extension"]["pilot_enabled"] is False
        response = daemon.execute("1 + 1", tab_id=spy_tab)
        assert (response.status_code, response.json()["error"]["code"]) == (403, "pilot_disabled")
    finally:
        set_pilot(browser, daemon, True)
    figures.record(
        "Hostile input",
        "a page flooding forged events, pilot flips among them, with the pilot OFF",
        f"{flooded:,} forged events: the pilot stayed off, the next command 403 pilot_disabled",
        figures.REAL_BROWSER,
    )
