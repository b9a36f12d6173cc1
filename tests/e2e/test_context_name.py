"""The popup's Context name, in a person's Chrome (the `browser` fixture): "chrome" until named, a
name the daemon would refuse is refused in the popup, and a new name says hello afresh, as that
context."""

from __future__ import annotations

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.e2e.harness import Daemon, popup_tab, wait_for


def _stored_name(driver: webdriver.Chrome) -> object:
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "chrome.storage.local.get('contextName').then((s) => done(s.contextName ?? null));"
    )


def _save(driver: webdriver.Chrome, name: str) -> None:
    field = driver.find_element(By.ID, "context-name")
    field.clear()
    field.send_keys(name, Keys.ENTER)


def _joined(daemon: Daemon, name: str) -> bool:
    """Whether the browser's extension said hello as the context ``name``."""
    return any(c["name"] == name and c["connected"] for c in daemon.status()["contexts"])


def test_the_context_name_is_chrome_until_named_and_a_new_name_reconnects(
    browser: webdriver.Chrome, daemon: Daemon
) -> None:
    with popup_tab(browser):
        field = browser.find_element(By.ID, "context-name")
        wait_for(lambda: field.get_attribute("value") == "chrome", 5, "the field to show chrome")
        assert _stored_name(browser) is None

        _save(browser, "-not a name")
        assert browser.execute_script("return arguments[0].validationMessage", field)
        assert _stored_name(browser) is None

        _save(browser, "laptop-2")
        try:
            wait_for(lambda: _stored_name(browser) == "laptop-2", 5, "the name to be stored")
            wait_for(lambda: _joined(daemon, "laptop-2"), 10, "a hello as laptop-2")
        finally:
            _save(browser, "")  # back to the default, for the tests after this one
            wait_for(lambda: _stored_name(browser) is None, 5, "the name to be removed")
        assert field.get_attribute("value") == "chrome"
        wait_for(lambda: _joined(daemon, "chrome"), 10, "a hello as chrome again")
    # The name it left stays listed, not connected, until dropped.
    dropped = daemon.post_json("/browser_context_close", {"name": "laptop-2"}).json()
    assert dropped["success"], dropped
