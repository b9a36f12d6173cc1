"""browser_emulate in the real browser: each setting as the page sees it, composed call by call and
undone by reset, in the managed browser (the debugger) and in a person's Chrome (the window's size
without the debugger; the rest only with the debugger switch on)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.acting import call, js, ok, refused
from tests.e2e.harness import Daemon, set_popup_switch, wait_for

#: What the page sees of every setting browser_emulate makes.
SEES = """
const media = (q) => matchMedia(q).matches;
return {
  width: innerWidth, height: innerHeight, dpr: devicePixelRatio, ua: navigator.userAgent,
  touch: navigator.maxTouchPoints, touch_events: 'ontouchstart' in window,
  mobile_ua: navigator.userAgentData?.mobile ?? null,
  language: navigator.language, zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  dark: media('(prefers-color-scheme: dark)'), reduce: media('(prefers-reduced-motion: reduce)'),
  online: navigator.onLine,
};
"""

WHERE = """
return await new Promise((resolve) => navigator.geolocation.getCurrentPosition(
  (p) => resolve([p.coords.latitude, p.coords.longitude]),
  (e) => resolve('error ' + e.code), {timeout: 3000}));
"""


def sees(daemon: Daemon, tab: int) -> dict[str, Any]:
    seen: dict[str, Any] = js(daemon, tab, SEES)
    return seen


# Known fault: now and then, after a reset, the page is 56 px taller than before: as tall as a page
# in one of headless Chromium's popup windows (87 px of window for its toolbar, not 143); why, is
# not known yet. All else is back. Only a reset after a phone allows it.
TALLER_BY = 56


def settles(daemon: Daemon, tab: int, want: dict[str, Any], after_phone: bool = False) -> None:
    """The page comes to see `want`. An override cleared gives the viewport back with the next
    resize of the page, a frame or two later, so what the page sees is polled for a moment."""
    heights = {want["height"], want["height"] + TALLER_BY} if after_phone else {want["height"]}

    def back() -> bool:
        seen = sees(daemon, tab)
        return seen["height"] in heights and {**seen, "height": want["height"]} == want

    try:
        wait_for(lambda: back() or None, 5, "the page to see the settings")
    except AssertionError:
        assert sees(daemon, tab) == want


def emulate(daemon: Daemon, tab: int, **params: Any) -> dict[str, Any]:
    return ok(daemon, "browser_emulate", tab_id=tab, **params)


@pytest.fixture(scope="module")
def managed_tab(managed: Daemon, pages: str) -> Iterator[int]:
    tab: int = ok(managed, "browser_tabs", action="new", url=f"{pages}/mobile.html")["id"]
    yield tab
    call(managed, "browser_tabs", action="close", tab_id=tab)


def test_the_managed_browser_emulates_each_setting_and_reset_undoes_them(
    managed: Daemon, managed_tab: int
) -> None:
    tab = managed_tab
    before = sees(managed, tab)
    phone = emulate(managed, tab, device="pixel 7")
    assert phone["route"] == "debugger"
    assert phone["in_force"]["device"] == "Pixel 7"
    seen = sees(managed, tab)
    assert (seen["width"], seen["height"], seen["dpr"]) == (412, 839, 2.625)
    assert "Pixel 7" in seen["ua"] and seen["touch"] == 5
    # A page's touch events are there from its next load, which the answer says.
    assert any("next load" in note for note in phone["notes"])

    # A second call changes only what it names: the phone stays.
    placed = emulate(managed, tab, locale="de-DE", timezone="Asia/Tokyo")
    assert placed["in_force"]["device"] == "Pixel 7"
    seen = sees(managed, tab)
    assert (seen["language"], seen["zone"], seen["width"]) == ("de-DE", "Asia/Tokyo", 412)

    emulate(managed, tab, color_scheme="dark", reduced_motion=True)
    seen = sees(managed, tab)
    assert (seen["dark"], seen["reduce"]) == (True, True)

    emulate(managed, tab, latitude=48.8584, longitude=2.2945)
    assert js(managed, tab, WHERE) == [48.8584, 2.2945]

    emulate(managed, tab, network="offline")
    assert sees(managed, tab)["online"] is False
    slow = emulate(managed, tab, latency_ms=400)
    assert slow["in_force"]["network"] == "custom"
    took = js(
        managed, tab,
        "const t = performance.now(); await fetch('/other.html', {cache: 'no-store'});"
        "return performance.now() - t;",
    )  # fmt: skip
    assert took >= 400
    cpu = emulate(managed, tab, cpu_rate=4)
    assert cpu["in_force"]["cpu_rate"] == 4

    # Emulation belongs to the tab: it holds across a navigation.
    ok(managed, "browser_navigate", tab_id=tab, url=js(managed, tab, "location.href"))
    seen = sees(managed, tab)
    assert (seen["zone"], seen["width"], seen["touch_events"]) == ("Asia/Tokyo", 412, True)

    cleared = emulate(managed, tab, reset=True)
    assert cleared["in_force"] == {}
    # At once, but for touch events, which go with the next load.
    settles(managed, tab, {**before, "touch_events": True}, after_phone=True)
    ok(managed, "browser_navigate", tab_id=tab, url=js(managed, tab, "location.href"))
    settles(managed, tab, before, after_phone=True)
    assert js(managed, tab, WHERE) != [48.8584, 2.2945]


def test_bad_settings_get_a_clear_code_and_change_nothing(
    managed: Daemon, managed_tab: int
) -> None:
    tab = managed_tab
    before = sees(managed, tab)
    error = refused(managed, "browser_emulate", 400, "unknown_device", tab_id=tab, device="Nokia")
    assert "iPhone 15, Pixel 7, Galaxy S9+, iPad Pro 11, Galaxy Tab S4" in error["message"]
    error = refused(
        managed, "browser_emulate", 400, "invalid_request", tab_id=tab, width=5, height=5
    )
    assert "200" in error["message"]
    error = refused(
        managed, "browser_emulate", 400, "invalid_request", tab_id=tab, network="offline",
        latency_ms=100,
    )  # fmt: skip
    assert "contradicts" in error["message"]
    refused(managed, "browser_emulate", 400, "invalid_request", tab_id=tab, latitude=10)
    # Chrome's own refusal puts back what the call set before it: the viewport.
    refused(
        managed, "browser_emulate", 400, "invalid_request", tab_id=tab, width=300, height=300,
        timezone="Mars/Base",
    )  # fmt: skip
    settles(managed, tab, before)


@pytest.fixture(scope="module")
def person_tab(daemon: Daemon, browser: webdriver.Chrome, pages: str) -> Iterator[int]:
    tab: int = ok(daemon, "browser_tabs", action="new", url=f"{pages}/mobile.html")["id"]
    yield tab
    call(daemon, "browser_tabs", action="close", tab_id=tab)


def test_a_persons_chrome_resizes_the_window_without_the_debugger(
    daemon: Daemon, person_tab: int
) -> None:
    tab = person_tab
    before = sees(daemon, tab)
    want = (before["width"] - 100, before["height"] - 80)
    resized = emulate(daemon, tab, width=want[0], height=want[1])
    assert resized["route"] == "window"
    assert "Resized the window" in resized["notes"][0]
    seen = sees(daemon, tab)
    assert (seen["width"], seen["height"]) == want
    assert resized["in_force"] == {"width": want[0], "height": want[1]}

    # The rest needs the debugger: refused, naming what needed it, and nothing changes.
    error = refused(
        daemon, "browser_emulate", 403, "debugger_disabled", tab_id=tab, timezone="Asia/Tokyo",
        width=before["width"], height=before["height"],
    )  # fmt: skip
    assert error["data"]["needs"] == ["timezone"]
    assert "timezone" in error["message"] and "Nothing was changed" in error["message"]
    seen = sees(daemon, tab)
    assert (seen["zone"], seen["width"]) == (before["zone"], want[0])

    cleared = emulate(daemon, tab, reset=True)
    assert cleared["in_force"] == {}
    settles(daemon, tab, before)


def test_closing_the_tab_gives_its_window_the_size_back(
    daemon: Daemon, pages: str, person_tab: int
) -> None:
    before = sees(daemon, person_tab)
    tab = ok(daemon, "browser_tabs", action="new", url=f"{pages}/mobile.html")["id"]
    want = (before["width"] - 120, before["height"] - 60)
    emulate(daemon, tab, width=want[0], height=want[1])
    seen = sees(daemon, tab)
    assert (seen["width"], seen["height"]) == want
    ok(daemon, "browser_tabs", action="close", tab_id=tab)
    ok(daemon, "browser_tabs", action="select", tab_id=person_tab)

    def restored() -> bool:
        seen = sees(daemon, person_tab)
        return (seen["width"], seen["height"]) == (before["width"], before["height"])

    wait_for(restored, 5, "the window's size from before")


def test_a_persons_chrome_emulates_the_rest_with_the_debugger_switch_on(
    daemon: Daemon, browser: webdriver.Chrome, person_tab: int
) -> None:
    tab = person_tab
    before = sees(daemon, tab)
    set_popup_switch(browser, "debugger-toggle", True)
    try:
        dark = emulate(daemon, tab, color_scheme="dark")
        assert dark["route"] == "debugger"
        assert sees(daemon, tab)["dark"] is True
        emulate(daemon, tab, reset=True)
        settles(daemon, tab, before)
        emulate(daemon, tab, color_scheme="dark")
    finally:
        set_popup_switch(browser, "debugger-toggle", False)
    # The switch off detaches the debugger, which ends its overrides: the answer knows.
    now = emulate(daemon, tab)
    assert (now["route"], now["in_force"]) == ("none", {})
    settles(daemon, tab, before)
