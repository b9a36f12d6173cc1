"""Sites the person rules out, in a person's Chrome: set in the popup as a new user sets them, and
refused with site_blocked by every tool, naming the rule; a page that goes to such a site by
itself stops answering; "only these sites"; the AI cannot change the list. And the same rules
given to the managed browser by the daemon (`tabpilot serve --block-site`).

The test pages are served from 127.0.0.1 (`pages`), and the same pages from `localhost`
(`second_origin`): "localhost" is the site ruled out."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.e2e.acting import call, js, ok, ref, refused
from tests.e2e.harness import Daemon, popup_tab, spawn_daemon, wait_for


@contextmanager
def in_popup(driver: webdriver.Chrome) -> Iterator[None]:
    """The extension popup, open in a tab as a person opens it, for the length of the block."""
    with popup_tab(driver):
        # The list is drawn once the popup has read it from storage.
        wait_for(
            lambda: driver.execute_script(
                "return !document.getElementById('site-empty').hidden"
                " || document.querySelectorAll('#site-list li').length > 0"
            ),
            5,
            "the popup's site list",
        )
        yield


def listed(driver: webdriver.Chrome) -> list[str]:
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#site-list li code")]


def set_sites(driver: webdriver.Chrome, mode: str, sites: list[str]) -> None:
    """Set the popup's Sites section as a person does: remove what is listed, pick the mode, type
    each site and press Enter."""
    with in_popup(driver):
        while listed(driver):
            count = len(listed(driver))
            driver.find_element(By.CSS_SELECTOR, "#site-list li button").click()
            wait_for(lambda count=count: len(listed(driver)) < count, 5, "a site to go")
        driver.find_element(By.ID, f"site-mode-{mode}").click()
        field = driver.find_element(By.ID, "site-input")
        for site in sites:
            field.send_keys(site, Keys.ENTER)
            wait_for(lambda site=site: site in listed(driver), 5, f"{site} to be listed")
        assert listed(driver) == sites
        assert driver.find_element(By.ID, f"site-mode-{mode}").is_selected()


@pytest.fixture(scope="module", autouse=True)
def no_rules_after(browser: webdriver.Chrome) -> Iterator[None]:
    """The person's rules are cleared when the module ends: other modules share the browser."""
    yield
    set_sites(browser, "never", [])


@pytest.fixture
def tab(page: dict[str, Any]) -> int:
    """The active tab, showing the test page on 127.0.0.1."""
    tab_id: int = page["id"]
    return tab_id


@pytest.fixture
def blocked_tab(browser: webdriver.Chrome, daemon: Daemon, second_origin: str) -> Iterator[int]:
    """A tab the person opened on localhost, in the background; closed after."""
    url = f"{second_origin}/other.html"
    previous = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(url)
    mine = browser.current_window_handle
    browser.switch_to.window(previous)
    browser.execute_cdp_cmd("Page.bringToFront", {})

    def find() -> int | None:
        tabs = daemon.get("/tabs").json()["result"]
        # Listed by its origin alone when the rules of a test before rule it out already.
        return next((t["id"] for t in tabs if t["url"] in (url, origin(url))), None)

    tab_id: int = wait_for(find, 10, "the localhost tab in /tabs")
    yield tab_id
    browser.switch_to.window(mine)
    browser.close()
    browser.switch_to.window(previous)


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def applied(daemon: Daemon, tab_id: int) -> None:
    """Wait until the worker has the rules that refuse `tab_id` (storage tells it soon after)."""
    wait_for(
        lambda: call(daemon, "execute_javascript", script="1", tab_id=tab_id)["status"] == 403,
        5,
        "the rules to apply",
    )


def test_the_popup_says_what_to_write_for_a_site_that_is_not_one(browser: webdriver.Chrome) -> None:
    with in_popup(browser):
        field = browser.find_element(By.ID, "site-input")
        error = browser.find_element(By.ID, "site-error")
        field.send_keys("localhost:8080/login", Keys.ENTER)
        assert error.is_displayed()
        assert "no path, no port" in error.text
        assert field.get_attribute("aria-invalid") == "true"
        field.clear()
        field.send_keys("*.127.0.0.1", Keys.ENTER)
        assert "An IP address has no subdomains" in error.text
        assert listed(browser) == []
        # A pasted url counts for its host.
        field.clear()
        field.send_keys("https://WWW.Example.com/path?q=1", Keys.ENTER)
        wait_for(lambda: listed(browser) == ["www.example.com"], 5, "the host to be listed")
        assert not error.is_displayed()
        # The pages Chrome keeps every extension out of are listed, with the reason.
        browser.find_element(By.CSS_SELECTOR, ".never-scriptable summary").click()
        never = browser.find_element(By.ID, "never-scriptable").text
        assert "chromewebstore.google.com the Chrome Web Store" in never
        assert "chrome:// Chrome's own pages" in never
    set_sites(browser, "never", [])


def test_every_tool_refuses_a_ruled_out_site_naming_the_rule(
    browser: webdriver.Chrome,
    daemon: Daemon,
    pages: str,
    second_origin: str,
    tab: int,
    blocked_tab: int,
) -> None:
    set_sites(browser, "never", ["localhost"])
    applied(daemon, blocked_tab)
    for tool, params in [
        ("execute_javascript", {"script": "document.title"}),
        ("browser_read", {}),
        ("browser_snapshot", {}),
        ("browser_act", {"kind": "click", "ref": "e1"}),
        ("browser_take_screenshot", {}),
        ("browser_console_messages", {}),
        ("browser_network_requests", {}),
        ("browser_wait_for", {"text": "other", "timeout_ms": 500}),
        ("browser_find", {"text": "other"}),
    ]:
        error = refused(daemon, tool, 403, "site_blocked", tab_id=blocked_tab, **params)
        assert error["message"].startswith(f"Tab {blocked_tab} shows localhost: "), tool
        assert 'rule "localhost" in the Sites list of the tabpilot popup' in error["message"]
        assert "only they can change the list" in error["message"]
    # The list names the tab, without its path or its title.
    listed_tabs = ok(daemon, "browser_tabs", action="list")
    entry = next(t for t in listed_tabs if t["id"] == blocked_tab)
    assert (entry["url"], entry["title"], entry["blocked"]) == (origin(second_origin), "", True)
    refused(daemon, "browser_tabs", 403, "site_blocked", action="select", tab_id=blocked_tab)
    # Navigation to it is refused before it starts, in a tab or a new one.
    before = len(ok(daemon, "browser_tabs", action="list"))
    target = f"{second_origin}/index.html"
    error = refused(daemon, "browser_navigate", 403, "site_blocked", url=target, tab_id=tab)
    assert error["message"].startswith(f"Cannot open {target}: ")
    assert 'rule "localhost"' in error["message"]
    refused(daemon, "browser_tabs", 403, "site_blocked", action="new", url=target)
    assert js(daemon, tab, "location.href") == f"{pages}/index.html"
    assert len(ok(daemon, "browser_tabs", action="list")) == before


def test_a_page_that_goes_to_a_ruled_out_site_stops_answering(
    browser: webdriver.Chrome, daemon: Daemon, pages: str, second_origin: str, tab: int
) -> None:
    set_sites(browser, "never", ["localhost"])
    target = f"{second_origin}/other.html"
    # A script in flight when its page goes there ends with site_blocked, not with what it read.
    script = (
        f"setTimeout(() => {{ location.href = {target!r}; }}, 200);"
        "await new Promise((resolve) => setTimeout(resolve, 5000)); return 'late';"
    )
    error = refused(daemon, "execute_javascript", 403, "site_blocked", script=script, tab_id=tab)
    assert 'rule "localhost"' in error["message"]
    wait_for(lambda: browser.current_url == target, 10, "the page to have gone to localhost")
    # From then on the tab answers nothing.
    refused(daemon, "execute_javascript", 403, "site_blocked", script="1", tab_id=tab)
    refused(daemon, "browser_snapshot", 403, "site_blocked", tab_id=tab)
    # A link the AI clicks that leads there: the click's answer is site_blocked.
    browser.get(f"{pages}/index.html")
    js(daemon, tab, f"document.body.innerHTML = '<a href=\"{target}\">Go to the other site</a>'; 1")
    link = ref(daemon, tab, 'link "Go to the other site"')
    refused(daemon, "browser_act", 403, "site_blocked", kind="click", ref=link, tab_id=tab)
    wait_for(lambda: browser.current_url == target, 10, "the click to have led to localhost")
    browser.get(f"{pages}/index.html")


def test_a_frame_of_a_ruled_out_site_is_not_reached(
    browser: webdriver.Chrome, daemon: Daemon, pages: str, second_origin: str, tab: int
) -> None:
    set_sites(browser, "never", ["localhost"])
    url = f"{pages}/frames/two.html?o={second_origin}"
    ok(daemon, "browser_navigate", url=url, tab_id=tab)
    snapshot = ok(daemon, "browser_snapshot", tab_id=tab)["snapshot"]
    # The host page is read; each frame from localhost is named with the rule, and not read.
    assert "Host page" in snapshot
    assert 'button "Send"' not in snapshot
    assert snapshot.count('rule "localhost"') == 2, snapshot
    browser.get(f"{pages}/index.html")


def test_only_the_sites_listed(
    browser: webdriver.Chrome, daemon: Daemon, second_origin: str, tab: int, blocked_tab: int
) -> None:
    set_sites(browser, "only", ["127.0.0.1"])
    applied(daemon, blocked_tab)
    assert js(daemon, tab, "1 + 1") == 2
    error = refused(
        daemon, "execute_javascript", 403, "site_blocked", script="1", tab_id=blocked_tab
    )
    assert (
        "lets the AI act only on the sites in the tabpilot popup's list (127.0.0.1), "
        "and localhost is not one of them" in error["message"]
    )
    assert error["message"].endswith("only they can change the list, in the extension popup.")
    refused(daemon, "browser_navigate", 403, "site_blocked", url=f"{second_origin}/x", tab_id=tab)
    set_sites(browser, "never", [])


def test_the_ai_cannot_change_the_rules(
    browser: webdriver.Chrome, daemon: Daemon, tab: int, blocked_tab: int
) -> None:
    set_sites(browser, "never", ["localhost"])
    applied(daemon, blocked_tab)
    # Neither the page's world nor a script there reaches the extension's storage.
    assert js(daemon, tab, "typeof chrome === 'undefined' || chrome.storage === undefined") is True
    # Nothing the AI can send names the rules; every tool with a try at it leaves them as they are.
    for tool, params in [
        ("browser_context_save_storage", {}),
        ("browser_network_rules", {"action": "clear"}),
        ("browser_emulate", {"reset": True, "tab_id": tab}),
        ("browser_tabs", {"action": "list"}),
    ]:
        call(daemon, tool, **params)
    refused(daemon, "execute_javascript", 403, "site_blocked", script="1", tab_id=blocked_tab)
    with in_popup(browser):
        assert listed(browser) == ["localhost"]
    set_sites(browser, "never", [])
    wait_for(
        lambda: call(daemon, "execute_javascript", script="1", tab_id=blocked_tab)["status"] == 200,
        5,
        "the cleared rules to apply",
    )


@pytest.fixture(scope="module")
def blocking_daemon() -> Iterator[Daemon]:
    """`tabpilot serve --browser --block-site localhost`: a managed browser with a daemon rule."""
    with spawn_daemon("--browser", "--block-site", "localhost") as running:
        wait_for(
            lambda: (
                running.status()["extension"]["pilot_enabled"]
                and running.status()["browser"]["ready"]
            ),
            90,
            "the managed browser",
        )
        yield running


def test_the_managed_browser_applies_the_daemons_rules(
    blocking_daemon: Daemon, pages: str, second_origin: str
) -> None:
    opened = ok(blocking_daemon, "browser_navigate", url=f"{pages}/index.html")
    assert opened["url"] == f"{pages}/index.html"
    assert blocking_daemon.execute("1 + 1").json()["result"] == 2
    error = refused(
        blocking_daemon, "browser_navigate", 403, "site_blocked", url=f"{second_origin}/index.html"
    )
    assert (
        'this tabpilot daemon rules out localhost (its --block-site rule "localhost")'
        in (error["message"])
    )
    assert error["message"].endswith("only whoever runs the daemon can change its rules.")
