"""The popup read at a glance, in a person's Chrome: the status line says in words what can happen
right now (the pilot off, on and connected with the tabs of the tabpilot group counted, a request
for the person's help open, the daemon out of reach), and the three switches are real switches, as a
screen reader and a keyboard find them: role switch, named, their checked state following the
switch, flipped with Space, with a visible focus ring, in the order status, switches, sites,
activity, connection."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.e2e.acting import call, ok, tabpilot_group
from tests.e2e.harness import Daemon, free_port, popup_tab, use_popup, wait_for

ON = "AI may act in your tabs"
OFF = "AI Web Pilot is off: nothing runs and nothing is read"
DEBUGGER_NOTE = "The debugger switch is on: strict pages run through Chrome's debugger"
START_IT = "Start it with tabpilot serve, or set its port under Connection"
SWITCHES = {
    "pilot-toggle": "AI Web Pilot",
    "debugger-toggle": "Strict pages: allow the debugger",
    "export-toggle": "Let the AI save this browser's cookies",
}


@pytest.fixture(scope="module")
def asking() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield pool


def status_line(driver: webdriver.Chrome) -> str:
    text: str = driver.find_element(By.ID, "status-line").text
    return text


def notes(driver: webdriver.Chrome) -> list[str]:
    return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#status-notes li")]


def tone(driver: webdriver.Chrome) -> str | None:
    return driver.find_element(By.ID, "status").get_attribute("data-tone")


def says(driver: webdriver.Chrome, words: str) -> str:
    """Wait until the status line reads `words` (a regular expression, matched whole)."""
    shown: str = wait_for(
        lambda: (text := status_line(driver)) and re.fullmatch(words, text) and text,
        10,
        f"the status line to say {words!r} (it says {status_line(driver)!r})",
    )
    return shown


def ax(driver: webdriver.Chrome, element_id: str) -> dict[str, Any]:
    """What the accessibility tree (what a screen reader reads) holds for the element: its role,
    its name and its checked state."""
    root = driver.execute_cdp_cmd("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = driver.execute_cdp_cmd(
        "DOM.querySelector", {"nodeId": root, "selector": f"#{element_id}"}
    )
    tree = driver.execute_cdp_cmd(
        "Accessibility.getPartialAXTree", {"nodeId": node["nodeId"], "fetchRelatives": False}
    )
    [found] = [n for n in tree["nodes"] if not n.get("ignored")]
    properties = {p["name"]: p["value"].get("value") for p in found.get("properties", [])}
    return {
        "role": found["role"]["value"],
        "name": found["name"]["value"],
        "checked": properties.get("checked"),
    }


def press_space_on(driver: webdriver.Chrome, element_id: str) -> None:
    """Focus the element as the keyboard does (Tab lands on it) and press Space."""
    driver.execute_script(f"document.getElementById('{element_id}').focus()")
    ActionChains(driver).send_keys(Keys.SPACE).perform()


def test_the_status_line_says_on_with_the_group_counted_then_off(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    # Two tabs the AI opens go into the tabpilot group.
    opened = [
        ok(daemon, "browser_tabs", action="new", url=f"{pages}/other.html")["id"] for _ in "ab"
    ]
    try:

        def grouped_with_ours() -> list[int] | None:
            ids = tabpilot_group(browser)
            return ids if all(t in ids for t in opened) else None

        grouped = wait_for(grouped_with_ours, 10, "the tabs in the group")
        with popup_tab(browser):
            n = len(grouped)
            says(browser, f"{ON} · {n} tabs in the tabpilot group")
            assert tone(browser) == "on"
            assert notes(browser) == []
            call(daemon, "browser_tabs", action="close", tab_id=opened.pop())
            says(browser, f"{ON} · {n - 1} tabs? in the tabpilot group")

            # Off with the keyboard: Space on the switch, as a person tabbing to it does.
            press_space_on(browser, "pilot-toggle")
            says(browser, re.escape(OFF))
            assert tone(browser) == "off"
            assert ax(browser, "pilot-toggle")["checked"] == "false"
            wait_for(lambda: daemon.status()["extension"]["pilot_enabled"] is False, 10, "off")
            refused = call(daemon, "execute_javascript", script="1")
            assert refused["error"]["code"] == "pilot_disabled"

            press_space_on(browser, "pilot-toggle")
            says(browser, f"{ON} · {n - 1} tabs? in the tabpilot group")
            assert ax(browser, "pilot-toggle")["checked"] == "true"
            wait_for(lambda: daemon.status()["extension"]["pilot_enabled"] is True, 10, "on")
    finally:
        for tab in opened:
            call(daemon, "browser_tabs", action="close", tab_id=tab)
    assert daemon.execute("1 + 1").json()["result"] == 2


def test_the_switches_are_named_switches_that_space_flips_and_the_line_names_them(
    daemon: Daemon, browser: webdriver.Chrome
) -> None:
    with popup_tab(browser):
        says(browser, f"{re.escape(ON)}.*")
        for element_id, name in SWITCHES.items():
            toggle = browser.find_element(By.ID, element_id)
            assert (toggle.aria_role, toggle.accessible_name) == ("switch", name)
            assert ax(browser, element_id) == {
                "role": "switch",
                "name": name,
                "checked": "true" if toggle.is_selected() else "false",
            }
        assert browser.find_element(By.ID, "pilot-toggle").is_selected()

        for element_id, note in (
            (
                "debugger-toggle",
                "The debugger switch is on: strict pages run through Chrome's debugger",
            ),
            ("export-toggle", "The AI may save this browser's cookies"),
        ):
            assert note not in notes(browser)
            press_space_on(browser, element_id)
            wait_for(lambda note=note: note in notes(browser), 5, f"the note {note!r}")
            assert browser.find_element(By.ID, element_id).is_selected()
            assert ax(browser, element_id)["checked"] == "true"
            press_space_on(browser, element_id)
            wait_for(lambda note=note: note not in notes(browser), 5, f"{note!r} gone")
            assert ax(browser, element_id)["checked"] == "false"
        stored = browser.execute_async_script(
            "chrome.storage.local.get(['debuggerEnabled', 'exportEnabled'])"
            ".then(arguments[arguments.length - 1]);"
        )
        assert stored == {"debuggerEnabled": False, "exportEnabled": False}


def test_the_keyboard_goes_status_switches_sites_activity_connection_with_a_ring(
    browser: webdriver.Chrome,
) -> None:
    with popup_tab(browser):
        says(browser, ".+")
        # The status comes first in the page, before anything the keyboard stops at.
        first = browser.execute_script(
            "const all = [...document.querySelectorAll('#status-line, input, button, [tabindex]')];"
            "return all.filter((e) => e.offsetParent !== null).map((e) => e.id)[0];"
        )
        assert first == "status-line"
        browser.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
        order = []
        rings = {}
        for _ in range(30):
            ActionChains(browser).send_keys(Keys.TAB).perform()
            # A focus ring a person sees, on the control the keyboard is on.
            element_id, style, width = browser.execute_script(
                "const s = getComputedStyle(document.activeElement);"
                "return [document.activeElement.id, s.outlineStyle, s.outlineWidth];"
            )
            order.append(element_id)
            rings[element_id] = (style, width)
        wanted = [
            "pilot-toggle",
            "debugger-toggle",
            "export-toggle",
            "site-input",
            "kept-list",
            "activity-clear",
            "activity-list",
            "daemon-port",
            "daemon-token",
            "context-name",
        ]
        assert order[:3] == wanted[:3], order
        assert {rings[element_id] for element_id in wanted} == {("solid", "2px")}, rings
        at = [order.index(element_id) for element_id in wanted]
        assert at == sorted(at), order


def test_a_request_for_help_leads_the_status_line(
    daemon: Daemon, browser: webdriver.Chrome, pages: str, asking: ThreadPoolExecutor
) -> None:
    tab = ok(daemon, "browser_tabs", action="new", url=f"{pages}/other.html")["id"]
    try:
        answer = asking.submit(
            call, daemon, "browser_ask_human", 150, message="Please sign in", tab_id=tab
        )
        with popup_tab(browser):
            says(browser, "The AI asks for your help")
            assert tone(browser) == "ask"
            assert notes(browser)[0].startswith(ON)
            # The card takes the keyboard: its reply line is focused, ready to type in.
            assert browser.switch_to.active_element.get_attribute("class") == "handoff-reply"
            browser.find_element(By.CSS_SELECTOR, ".handoff-decline").click()
            body = answer.result(timeout=30)
            assert body["result"]["answer"] == "declined", body
            says(browser, f"{re.escape(ON)}.*")
            assert tone(browser) == "on"
    finally:
        call(daemon, "browser_tabs", action="close", tab_id=tab)


def test_the_status_line_says_when_the_daemon_is_out_of_reach(
    daemon: Daemon, browser: webdriver.Chrome
) -> None:
    nobody = free_port()
    try:
        use_popup(browser, port=nobody)
        with popup_tab(browser):
            says(browser, f"Not connected to the tabpilot daemon on port {nobody}")
            assert tone(browser) == "bad"
            assert notes(browser) == [
                "Start it with tabpilot serve, or set its port under Connection"
            ]
    finally:
        use_popup(browser, port=daemon.port)
        wait_for(lambda: daemon.status()["extension"]["connected"], 15, "the extension back")
    with popup_tab(browser):
        says(browser, f"{re.escape(ON)}.*")
