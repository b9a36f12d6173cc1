"""One daemon, two browsers with the extension: the first keeps it, the second waits its turn."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

from selenium.webdriver.common.by import By

from tests.e2e.harness import (
    POPUP_URL,
    launch_chromium,
    set_pilot,
    spawn_daemon,
    use_popup,
    wait_for,
)


def test_second_browser_waits_and_takes_over_when_the_first_leaves(pages: str) -> None:
    profiles = [Path(tempfile.mkdtemp(prefix="tabpilot-chromium-")) for _ in range(2)]
    with spawn_daemon() as daemon:
        first = launch_chromium(profiles[0])
        second = launch_chromium(profiles[1])
        try:
            first.get(f"{pages}/index.html")
            use_popup(first, port=daemon.port)
            wait_for(lambda: daemon.status()["extension"]["connected"], 15, "the first browser")
            set_pilot(first, daemon, True)
            first_at = daemon.status()["extension"]["connected_at"]

            second.get(f"{pages}/other.html")
            use_popup(second, port=daemon.port, pilot=True)
            # The second browser's popup tells its person why it is not connected.
            second.switch_to.new_window("tab")
            second.get(POPUP_URL)
            status = second.find_element(By.ID, "connection-status")
            wait_for(lambda: "busy" in status.text, 10, "the second popup to say busy")
            second.close()
            second.switch_to.window(second.window_handles[0])

            # The first browser keeps the daemon: scripts still run there.
            assert daemon.execute("document.title").json()["result"] == "tabpilot test page"
            assert daemon.status()["extension"]["connected_at"] == first_at

            first.quit()
            wait_for(
                lambda: (
                    daemon.status()["extension"]["connected_at"] != first_at
                    and daemon.status()["extension"]["connected"]
                ),
                10,
                "the second browser to take over",
            )
            assert daemon.execute("document.title").json()["result"] == "other tab"
        finally:
            for driver in (first, second):
                # The first may have quit above already.
                with contextlib.suppress(Exception):
                    driver.quit()
            for profile in profiles:
                shutil.rmtree(profile, ignore_errors=True)
