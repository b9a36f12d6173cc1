"""The AI Web Pilot switch in the popup decides whether anything runs."""

from __future__ import annotations

from typing import Any

from selenium import webdriver

from tests.e2e.harness import Daemon, set_pilot


def test_switch_off_refuses_and_switch_on_works_again(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    set_pilot(browser, daemon, False)
    try:
        response = daemon.execute("2 + 2")
        body = response.json()
        assert response.status_code == 403, body
        assert body["error"]["code"] == "pilot_disabled"
        assert "popup" in body["error"]["message"]
        tabs = daemon.get("/tabs")
        assert tabs.status_code == 403, tabs.text
        assert tabs.json()["success"] is False
        assert tabs.json()["error"]["code"] == "pilot_disabled"
        assert "popup" in tabs.json()["error"]["message"]
    finally:
        set_pilot(browser, daemon, True)
    assert daemon.execute("2 + 2").json()["result"] == 4
    assert page["id"] in [tab["id"] for tab in daemon.get("/tabs").json()["result"]]
