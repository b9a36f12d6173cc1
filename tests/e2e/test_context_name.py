"""The popup's Context name, in a person's Chrome (the `browser` fixture): "chrome" until named, a
name the daemon would refuse is refused in the popup, and a new name says hello afresh."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.e2e.harness import POPUP_URL, Daemon, wait_for


@contextmanager
def _popup(driver: webdriver.Chrome) -> Iterator[None]:
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(POPUP_URL)
        yield
    finally:
        driver.close()
        driver.switch_to.window(previous)


def _stored_name(driver: webdriver.Chrome) -> object:
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "chrome.storage.local.get('contextName').then((s) => done(s.contextName ?? null));"
    )


def _save(driver: webdriver.Chrome, name: str) -> None:
    field = driver.find_element(By.ID, "context-name")
    field.clear()
    field.send_keys(name, Keys.ENTER)


def _reconnected(daemon: Daemon, since: str) -> bool:
    extension = daemon.status()["extension"]
    return bool(extension["connected"] and extension["connected_at"] != since)


def test_the_context_name_is_chrome_until_named_and_a_new_name_reconnects(
    browser: webdriver.Chrome, daemon: Daemon
) -> None:
    with _popup(browser):
        field = browser.find_element(By.ID, "context-name")
        wait_for(lambda: field.get_attribute("value") == "chrome", 5, "the field to show chrome")
        assert _stored_name(browser) is None

        _save(browser, "-not a name")
        assert browser.execute_script("return arguments[0].validationMessage", field)
        assert _stored_name(browser) is None

        since = daemon.status()["extension"]["connected_at"]
        _save(browser, "laptop-2")
        try:
            wait_for(lambda: _stored_name(browser) == "laptop-2", 5, "the name to be stored")
            wait_for(lambda: _reconnected(daemon, since), 10, "the extension to say hello again")
        finally:
            since = daemon.status()["extension"]["connected_at"]
            _save(browser, "")  # back to the default, for the tests after this one
            wait_for(lambda: _stored_name(browser) is None, 5, "the name to be removed")
        assert field.get_attribute("value") == "chrome"
        wait_for(lambda: _reconnected(daemon, since), 10, "the extension to say hello again")
