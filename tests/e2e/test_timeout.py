"""A page stuck in `while (true) {}` costs its caller a timeout, and nobody else anything."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from selenium import webdriver

from tests.e2e.harness import Daemon, wait_for

LOOP_TIMEOUT_MS = 2000


def test_infinite_loop_times_out_while_the_daemon_and_other_tabs_answer(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any], pages: str
) -> None:
    # Another site (localhost, not 127.0.0.1) gets its own renderer process, as a person's other
    # tabs do, so the loop blocks that tab alone.
    loop_url = pages.replace("127.0.0.1", "localhost") + "/other.html"
    main_handle = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(loop_url)
    loop_handle = browser.current_window_handle
    try:
        tabs = lambda: daemon.get("/tabs").json()["result"]  # noqa: E731
        loop_tab = wait_for(
            lambda: next((t for t in tabs() if t["url"] == loop_url), None), 10, "the loop tab"
        )
        with ThreadPoolExecutor(1) as pool:
            started = time.monotonic()
            stuck = pool.submit(
                daemon.execute, "while (true) {}", timeout_ms=LOOP_TIMEOUT_MS, tab_id=loop_tab["id"]
            )
            wait_for(lambda: daemon.status()["in_flight"] == 1, 5, "the loop to be in flight")

            assert daemon.get("/health").status_code == 200
            other = daemon.execute("1 + 1", tab_id=page["id"])
            assert other.json()["result"] == 2
            assert not stuck.done()

            response = stuck.result(timeout=30)
            elapsed = time.monotonic() - started
        body = response.json()
        assert response.status_code == 504, body
        assert body["error"]["code"] == "execution_timeout"
        assert LOOP_TIMEOUT_MS / 1000 <= elapsed < LOOP_TIMEOUT_MS / 1000 + 3
        assert daemon.execute("2 + 2", tab_id=page["id"]).json()["result"] == 4
        assert daemon.status()["in_flight"] == 0
    finally:
        # The renderer is still spinning; closing the tab is how it is recovered. ChromeDriver
        # sends CDP through the current tab, so leave the stuck one first.
        browser.switch_to.window(main_handle)
        browser.execute_cdp_cmd("Target.closeTarget", {"targetId": loop_handle})
