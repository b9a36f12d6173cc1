"""Tabs that have no content script (open before the extension was installed) still run scripts."""

from __future__ import annotations

from typing import Any

from selenium import webdriver

from tests.e2e.harness import EXTENSION_ID, Daemon, wait_for


def test_tab_open_before_the_extension_loaded_gets_its_scripts_on_first_command(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    browser.execute_script("window.mark = 'kept'")
    connected_at = daemon.status()["extension"]["connected_at"]

    # Turning the extension off and on, as a person can on chrome://extensions, leaves open tabs
    # without a live content script, exactly like tabs that were open before it was installed;
    # its stored switch and port remain.
    main = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get("chrome://extensions")
    outcome = browser.execute_async_script(
        """const [id, done] = arguments;
        chrome.management.setEnabled(id, false)
          .then(() => chrome.management.setEnabled(id, true))
          .then(() => done("ok"), (error) => done(String(error)));""",
        EXTENSION_ID,
    )
    assert outcome == "ok"
    browser.close()
    browser.switch_to.window(main)
    wait_for(
        lambda: (
            (ext := daemon.status()["extension"])["connected"]
            and ext["connected_at"] != connected_at
        ),
        15,
        "the reloaded extension to reconnect",
    )

    response = daemon.execute("[window.mark, document.getElementById('test').textContent]")
    body = response.json()
    assert response.status_code == 200, body
    # Same page, not reloaded: the page's own state is still there.
    assert body["result"] == ["kept", "Content"]
    assert body["tab"]["id"] == page["id"]
    # And it keeps working, once per command.
    assert daemon.execute("window.count = (window.count || 0) + 1").json()["result"] == 1
    assert daemon.execute("window.count = (window.count || 0) + 1").json()["result"] == 2
