"""While AI Web Pilot is off, a page the person loads has nothing of tabpilot in it: no property
on ``window``, no wrapped built-in, no extension frame in a stack, no console entry; nothing it
logs is kept. Once the switch is on, that same page works on its first command, frames and page
world included, and a newly loaded page has tabpilot's scripts from ``document_start``. In a
person's Chrome (the ``browser`` fixture); the switch is on again after each test."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from selenium import webdriver
from websockets.sync.client import connect

from tests.e2e.acting import call, in_extension, ok
from tests.e2e.frame_pages import FRAME_PAGES
from tests.e2e.harness import EXTENSION_ID, Daemon, serving_pages, set_pilot
from tests.e2e.test_frames import _stop_worker, frame_text, under

EARLY = "the page's first script ran"

# Logs as its first script, before anything else of the page runs, and keeps a global of its own
# (seen by the page world only, not by an isolated world).
QUIET = f"""<!doctype html><title>quiet page</title>
<script>console.log({json.dumps(EARLY)}); window.pageMark = "the page's own";</script>
<h1>Quiet</h1><p id="text">nothing to see</p>"""

# What tabpilot wraps in the page world while it is there (page/page-log.js, inject.js, files.js).
BUILT_INS = [
    "fetch",
    "console.log",
    "console.info",
    "console.warn",
    "console.error",
    "console.debug",
    "XMLHttpRequest.prototype.open",
    "XMLHttpRequest.prototype.send",
    "alert",
    "confirm",
    "prompt",
    "HTMLInputElement.prototype.click",
    "HTMLInputElement.prototype.showPicker",
    "Function.prototype.toString",
]

# What a page can look at: its window's names, the source of the built-ins it calls, the stack of
# its own callbacks called by those built-ins, and who answers the events tabpilot's page-world
# scripts answer while they are there (test_page_hooks.py, ASK).
LOOK = """
const symbols = Object.getOwnPropertySymbols(window).map(String);
const names = [...Object.getOwnPropertyNames(window), ...symbols];
const sources = {};
for (const path of arguments[0]) {
  const fn = path.split(".").reduce((at, key) => at[key], window);
  sources[path] = Function.prototype.toString.call(fn);
}
const stacks = [];
const spy = (value) => ({ toString() { stacks.push(new Error("spy").stack); return value; } });
fetch(spy("/nothing")).catch(() => {});
const xhr = new XMLHttpRequest();
xhr.open("POST", spy("/nothing"));
xhr.send(spy("body"));
xhr.abort();
console.log(spy("logged"));
document.addEventListener("look", () => stacks.push(new Error("listener").stack));
document.dispatchEvent(new Event("look"));
const answered = [];
for (const name of ["tabpilot:page-log", "tabpilot:inject", "tabpilot:files"]) {
  const box = {};
  document.dispatchEvent(new CustomEvent(name, { detail: box }));
  answered.push(...Object.keys(box));
}
return { names: names.filter((n) => /tabpilot/i.test(n)), sources, stacks, answered };
"""


@pytest.fixture(scope="module")
def quiet() -> Iterator[str]:
    with serving_pages({"/quiet.html": QUIET}) as base:
        yield f"{base}/quiet.html"


@pytest.fixture
def off(browser: webdriver.Chrome, daemon: Daemon) -> Iterator[None]:
    """The switch off for the test, on again after it (other tests share the browser)."""
    set_pilot(browser, daemon, False)
    try:
        yield
    finally:
        set_pilot(browser, daemon, True)


def open_as_a_person(browser: webdriver.Chrome, url: str) -> str:
    """Loads `url` in a new tab, as a person does (no tabpilot command); its window handle."""
    browser.switch_to.new_window("tab")
    browser.get(url)
    return browser.current_window_handle


def tab_id(daemon: Daemon, url: str) -> int:
    tabs = daemon.get("/tabs").json()["result"]
    found: int = next(tab["id"] for tab in tabs if tab["url"] == url)
    return found


def console_entries(browser: webdriver.Chrome, url: str) -> list[dict[str, Any]]:
    """Every console entry of the page at `url` as DevTools shows it: Chromium replays those kept so
    far to a DevTools client that enables Runtime and Log, from every world of the page."""
    address = browser.capabilities["goog:chromeOptions"]["debuggerAddress"]
    targets = browser.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
    target = next(t for t in targets if t["type"] == "page" and t["url"] == url)
    wanted = {"Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded"}
    entries: list[dict[str, Any]] = []
    with connect(f"ws://{address}/devtools/page/{target['targetId']}", max_size=None) as ws:
        ws.send(json.dumps({"id": 1, "method": "Runtime.enable"}))
        ws.send(json.dumps({"id": 2, "method": "Log.enable"}))
        deadline = time.monotonic() + 1.0
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = json.loads(ws.recv(timeout=left))
            except TimeoutError:
                break
            if message.get("method") in wanted:
                entries.append(message["params"])
    return entries


def registration(browser: webdriver.Chrome) -> dict[str, Any]:
    """Chrome's registered content scripts, asked from an extension page: their ids, and whether
    they are the ones a restarted worker leaves in place (page-scripts.js, isCurrent)."""
    answer: dict[str, Any] = in_extension(
        browser,
        "const { isCurrent } = await import('/worker/tab/page-scripts.js');"
        "const have = await chrome.scripting.getRegisteredContentScripts();"
        "return { ids: have.map((s) => s.id), current: isCurrent(have) };",
    )
    return answer


def console_messages(daemon: Daemon, tab: int) -> list[str]:
    result = ok(daemon, "browser_console_messages", tab_id=tab, level="debug")
    return [m["text"] for m in result["messages"]]


def test_with_the_switch_off_a_page_has_nothing_of_tabpilot_and_works_once_it_is_on(
    browser: webdriver.Chrome, daemon: Daemon, quiet: str, off: None
) -> None:
    assert registration(browser) == {"ids": [], "current": False}
    main = browser.current_window_handle
    handle = open_as_a_person(browser, quiet)
    try:
        seen = browser.execute_script(LOOK, BUILT_INS)
        assert seen["names"] == [] and seen["answered"] == []
        for path, source in seen["sources"].items():
            name = path.split(".")[-1]
            assert source == f"function {name}() {{ [native code] }}", (path, source)
        assert len(seen["stacks"]) == 4, seen["stacks"]  # fetch, open, send, the listener
        assert not [s for s in seen["stacks"] if "chrome-extension://" in s], seen["stacks"]

        # What a site can still learn (docs/security.md): the web-accessible files answer.
        library = f"chrome-extension://{EXTENSION_ID}/vendor/dom-accessibility-api/index.mjs"
        fetched = browser.execute_async_script(
            "const done = arguments[1];"
            "fetch(arguments[0]).then((r) => done(r.ok), () => done(false));",
            library,
        )
        assert fetched is True

        entries = console_entries(browser, quiet)
        texts = json.dumps(entries)
        assert EARLY in texts  # the page's own entry: the console was read
        assert "chrome-extension://" not in texts and "tabpilot" not in texts.lower(), entries

        browser.switch_to.window(main)
        set_pilot(browser, daemon, True)
        assert registration(browser) == {
            "ids": ["tabpilot-content", "tabpilot-page"],
            "current": True,
        }
        tab = tab_id(daemon, quiet)
        # Its first command injects both worlds: the page world sees the page's own global.
        body = daemon.execute("[1 + 1, window.pageMark]", tab_id=tab).json()
        assert body["success"], body
        assert body["result"] == [2, "the page's own"]
        assert body["tab"]["id"] == tab
        # What the page logged while the switch was off was not kept.
        assert EARLY not in console_messages(daemon, tab)

        # A page loaded now has the scripts from its start: its first script's log is kept.
        ok(daemon, "browser_navigate", url=f"{quiet}?again", tab_id=tab)
        assert EARLY in console_messages(daemon, tab)
    finally:
        browser.switch_to.window(handle)
        browser.close()
        browser.switch_to.window(main)


def test_a_page_with_frames_loaded_while_off_is_reached_in_every_frame_on_its_first_command(
    browser: webdriver.Chrome, daemon: Daemon, pages: str, second_origin: str, off: None
) -> None:
    assert "/frames/two.html" in FRAME_PAGES
    url = f"{pages}/frames/two.html?o={second_origin}"
    main = browser.current_window_handle
    handle = open_as_a_person(browser, url)
    try:
        browser.switch_to.window(main)
        set_pilot(browser, daemon, True)
        tab = tab_id(daemon, url)
        text = ok(daemon, "browser_snapshot", tab_id=tab)["snapshot"]
        assert "unreachable" not in text, text
        assert f"[origin={second_origin}]:" in text
        b = under(text, "Frame b")
        ok(daemon, "browser_act", tab_id=tab, kind="click", ref=b['button "Hit"'])
        browser.switch_to.window(handle)
        assert frame_text(browser, [1], "out") == "hit untrusted"
        assert frame_text(browser, [0], "out") == "idle"
    finally:
        browser.switch_to.window(handle)
        browser.close()
        browser.switch_to.window(main)


def test_after_a_worker_restart_new_pages_still_get_the_scripts_at_document_start(
    browser: webdriver.Chrome, daemon: Daemon, quiet: str
) -> None:
    tab: int = ok(daemon, "browser_tabs", action="new", url=quiet)["id"]
    try:
        _stop_worker(browser, daemon)
        assert registration(browser) == {
            "ids": ["tabpilot-content", "tabpilot-page"],
            "current": True,
        }
        ok(daemon, "browser_navigate", url=f"{quiet}?restarted", tab_id=tab)
        assert EARLY in console_messages(daemon, tab)
    finally:
        assert call(daemon, "browser_tabs", action="close", tab_id=tab)["success"]
