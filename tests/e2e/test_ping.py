"""POST /ping in the real browser: each hop answers pong, and nothing runs in the page."""

from __future__ import annotations

from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.harness import Daemon, set_pilot


@pytest.mark.parametrize("to", ["worker", "content", "page"])
def test_each_hop_answers_pong(daemon: Daemon, page: dict[str, Any], to: str) -> None:
    response = daemon.post_json("/ping", {"to": to, "tab_id": page["id"]})
    body = response.json()
    assert response.status_code == 200, body
    assert (body["result"], body["result_type"]) == ("pong", "string")
    expected_tab = None if to == "worker" else page["id"]
    assert (body["tab"] or {}).get("id") == expected_tab
    assert 0 <= body["duration_ms"] < 10_000


def test_ping_takes_no_script(
    daemon: Daemon, page: dict[str, Any], browser: webdriver.Chrome
) -> None:
    response = daemon.post_json("/ping", {"to": "page", "script": "window.pinged = true"})
    assert response.json()["error"]["code"] == "invalid_request"
    assert daemon.post_json("/ping", {"to": "page"}).json()["result"] == "pong"
    assert browser.execute_script("return window.pinged === undefined") is True


def test_ping_waits_for_the_pilot(
    daemon: Daemon, page: dict[str, Any], browser: webdriver.Chrome
) -> None:
    set_pilot(browser, daemon, False)
    try:
        for to in ("worker", "page"):
            response = daemon.post_json("/ping", {"to": to})
            assert (response.status_code, response.json()["error"]["code"]) == (
                403,
                "pilot_disabled",
            )
    finally:
        set_pilot(browser, daemon, True)
