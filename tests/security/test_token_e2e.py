"""The token in the real Chromium with the real extension: the managed browser gets it from the
daemon, and a person's Chrome takes it in the popup, where a wrong one is refused."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests import figures
from tests.e2e.harness import (
    POPUP_URL,
    Daemon,
    launch_chromium,
    spawn_daemon,
    use_popup,
    wait_for,
)

pytestmark = pytest.mark.e2e

TOKEN = "e2e-token-0f3c9a7d5b1e4c2a"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


def _status(daemon: Daemon) -> dict[str, Any]:
    result: dict[str, Any] = httpx.get(f"{daemon.url}/status", headers=BEARER, timeout=10).json()[
        "result"
    ]
    return result


def _execute(daemon: Daemon, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(
        f"{daemon.url}/execute_javascript",
        json={"script": "6 * 7"},
        headers=headers,
        timeout=30,
    )


def test_managed_browser_with_a_token(tmp_path: Path) -> None:
    with spawn_daemon("--browser", "--token", TOKEN, "--connect-grace", "20") as managed:
        response = _execute(managed, BEARER)
        assert response.status_code == 200, response.text
        assert response.json()["result"] == 42
        assert _status(managed)["extension"]["connected"] is True
        for headers in ({}, {"Authorization": "Bearer not-it"}):
            refused = _execute(managed, headers)
            assert refused.status_code == 401
            assert refused.json()["error"]["code"] == "unauthorized"
        # The CLI sends the token from TABPILOT_TOKEN by itself.
        env = {**os.environ, "TABPILOT_TOKEN": TOKEN, "TABPILOT_STATE_DIR": str(tmp_path)}
        run = subprocess.run(
            [sys.executable, "-m", "tabpilot", "exec", "--port", str(managed.port), "6 * 7"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (run.returncode, run.stdout.strip()) == (0, "42"), run.stderr
    figures.record(
        "Hostile input",
        "token, managed browser: HTTP without it or with a wrong one / with it",
        "401 unauthorized / 200, the extension given the token by the daemon and connected, the "
        "CLI sending TABPILOT_TOKEN",
        figures.REAL_BROWSER,
    )


def _set_token(driver: webdriver.Chrome, token: str | None) -> str:
    """Type a token in the popup's Token field and save it (None: leave the field as it is); the
    connection line the popup shows then."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(POPUP_URL)
        field = driver.find_element(By.ID, "daemon-token")
        if token is not None:
            field.clear()
            field.send_keys(token, Keys.ENTER)
        else:
            assert field.get_attribute("value") == ""
        status = driver.find_element(By.ID, "connection-status")
        expected = "Connected" if token == TOKEN else "unauthorized"
        text: str = wait_for(
            lambda: status.text if expected in status.text else None, 20, f"the popup: {expected}"
        )
        return text
    finally:
        driver.close()
        driver.switch_to.window(previous)


def test_own_chrome_needs_the_token_in_the_popup(pages: str) -> None:
    profile = Path(tempfile.mkdtemp(prefix="tabpilot-chromium-"))
    with spawn_daemon("--token", TOKEN) as daemon:
        driver = launch_chromium(profile, f"{pages}/index.html")
        try:
            use_popup(driver, port=daemon.port, pilot=True)
            # No token, then a wrong one: the daemon closes the socket at the hello with 4004
            # (the popup shows that close code's reason), so nothing runs.
            for token in (None, "not-the-token"):
                refused_before = _refusals(daemon)
                shown = _set_token(driver, token)
                assert "needs a token" in shown, (token, shown)
                wait_for(lambda: _refusals(daemon) > refused_before, 20, "the daemon's refusal")  # noqa: B023
                assert _status(daemon)["extension"]["connected"] is False
                answer = _execute(daemon, BEARER).json()
                assert answer["error"]["code"] == "extension_not_connected", answer
            # The right token: it connects and runs.
            _set_token(driver, TOKEN)
            wait_for(lambda: _status(daemon)["extension"]["connected"], 20, "the extension")
            assert _execute(daemon, BEARER).json()["result"] == 42
        finally:
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)
    figures.record(
        "Hostile input",
        "token, own Chrome: the popup with no token / a wrong one / the right one",
        "refused at the hello, the popup showing the 4004 close's reason (needs a token), "
        "commands extension_not_connected / the same / connected, the command runs",
        figures.REAL_BROWSER,
    )


def _refusals(daemon: Daemon) -> int:
    """How many extensions the daemon has refused for their token, from its log."""
    log = (daemon.state_dir / "daemon.log").read_text(errors="replace")
    return log.count("refused an extension: its hello has a wrong or no token")
