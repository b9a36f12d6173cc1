"""Screenshots of the popup in each of its states, for the README and for review (make popup-shots).

A real daemon and Debian's Chromium with the unpacked extension, set up as a new user does it (the
port typed in the popup, the switch turned on in it), as the end-to-end tests do
(tests/e2e/harness.py). The popup page is opened in a tab at a popup's width and shot whole, from
its first line to its last, through the DevTools protocol; Pillow then cuts its palette down so
that the PNGs stay small. The states: the pilot off; on and connected, after some commands; a
request for the person's help open (browser_ask_human, over HTTP, in a background thread); sites
ruled out; and the same in dark mode (prefers-color-scheme emulated).
"""

from __future__ import annotations

import argparse
import base64
import io
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from tests.e2e.harness import (  # noqa: E402
    POPUP_URL,
    Daemon,
    launch_chromium,
    serving_pages,
    set_pilot,
    spawn_daemon,
    use_popup,
    wait_for,
)

#: Chrome's popups are at most 800 x 600; the popup sets its own width (popup.css).
WIDTH = 380
OUT = REPO / "docs" / "popup"

PAGES = {
    "/shop.html": "<!doctype html><title>Example shop</title><h1>Shop</h1><button>Add</button>",
    "/news.html": "<!doctype html><title>Example news</title><h1>News</h1><p>Today</p>",
    "/login.html": (
        "<!doctype html><title>Sign in</title><h1>Sign in</h1>"
        "<label>Email <input id=email></label><button id=signin>Sign in</button>"
    ),
}


def post(daemon: Daemon, tool: str, timeout: float = 60, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = daemon.post_json(f"/{tool}", params, timeout).json()
    return body


@contextmanager
def popup_tab(driver: webdriver.Chrome, *, dark: bool = False) -> Iterator[None]:
    """The popup page in a new tab of the popup's size; closed after."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": 600, "deviceScaleFactor": 1, "mobile": False},
        )
        scheme = "dark" if dark else "light"
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
        )
        driver.get(POPUP_URL)
        yield
    finally:
        driver.close()
        driver.switch_to.window(previous)


def settled(driver: webdriver.Chrome, words: str) -> None:
    """Until the status line or its notes say `words` (a part of them) and a refresh or two has
    passed, so that the lists are filled and the page holds still."""
    wait_for(
        lambda: words in driver.find_element(By.ID, "status").text,
        15,
        f"the status line to say {words!r}",
    )
    time.sleep(1.5)


def shoot(driver: webdriver.Chrome, name: str) -> Path:
    """The whole page, from its first line to its last, as docs/popup/<name>.png."""
    # A viewport as tall as the page, so that no scroll bar takes room from the popup's width.
    height = driver.execute_script("return Math.ceil(document.documentElement.scrollHeight)")
    metrics = {"width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    time.sleep(0.3)
    height = driver.execute_script("return Math.ceil(document.documentElement.scrollHeight)")
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1},
        },
    )
    path = OUT / f"{name}.png"
    path.write_bytes(small_png(base64.b64decode(shot["data"])))
    print(f"{path.relative_to(REPO)}: {path.stat().st_size // 1024} KiB, {WIDTH} x {height}")
    return path


def small_png(data: bytes) -> bytes:
    """The screenshot with a palette of its own (a popup has few colours), if Pillow is there."""
    try:
        from PIL import Image
    except ImportError:
        return data
    image = Image.open(io.BytesIO(data)).convert("RGB")
    # No dithering: flat colours and crisp text.
    small = image.quantize(colors=96, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=True)
    return out.getvalue() if out.tell() < len(data) else data


def some_activity(daemon: Daemon, base: str) -> None:
    """What an agent does: open two tabs (they land in the tabpilot group), read, act, fail once."""
    shop = post(daemon, "browser_tabs", action="new", url=f"{base}/shop.html")["result"]["id"]
    post(daemon, "browser_tabs", action="new", url=f"{base}/news.html")
    post(daemon, "browser_snapshot", tab_id=shop)
    post(daemon, "browser_read", tab_id=shop)
    daemon.execute("document.querySelectorAll('a').length", tab_id=shop)
    daemon.execute("document.querySelector('#missing').click()", tab_id=shop)
    daemon.execute("document.title", tab_id=shop)


def set_sites(driver: webdriver.Chrome, sites: list[str]) -> None:
    """Rule sites out in the popup, as a person types them."""
    with popup_tab(driver):
        field = driver.find_element(By.ID, "site-input")
        for site in sites:
            field.send_keys(site, Keys.ENTER)
        wait_for(
            lambda: len(driver.find_elements(By.CSS_SELECTOR, "#site-list li")) == len(sites),
            5,
            "the sites listed",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    profile = Path(tempfile.mkdtemp(prefix="tabpilot-shots-"))
    with spawn_daemon() as daemon, serving_pages(PAGES) as base:
        driver = launch_chromium(profile, f"{base}/news.html")
        try:
            use_popup(driver, port=daemon.port)
            wait_for(lambda: daemon.status()["extension"]["connected"], 15, "the connection")
            with popup_tab(driver):
                settled(driver, "AI Web Pilot is off")
                shoot(driver, "pilot-off")

            set_pilot(driver, daemon, True)
            some_activity(daemon, base)
            with popup_tab(driver):
                settled(driver, "AI may act in your tabs")
                shoot(driver, "pilot-on")

            login = post(daemon, "browser_tabs", action="new", url=f"{base}/login.html")
            tab = login["result"]["id"]
            with ThreadPoolExecutor(max_workers=1) as pool:
                asked = pool.submit(
                    post,
                    daemon,
                    "browser_ask_human",
                    330,
                    message="Please sign in with your account, then press Done.",
                    tab_id=tab,
                    timeout_ms=300_000,
                )
                with popup_tab(driver):
                    settled(driver, "The AI asks for your help")
                    shoot(driver, "handoff")
                    driver.find_element(By.CSS_SELECTOR, ".handoff-reply").send_keys("signed in")
                    driver.find_element(By.CSS_SELECTOR, ".handoff-done").click()
                    answer = asked.result(timeout=30)
                    assert answer.get("success"), answer

            set_sites(driver, ["bank.example", "mail.example.com"])
            with popup_tab(driver):
                settled(driver, "Never on the 2 sites you listed")
                shoot(driver, "sites")
            with popup_tab(driver, dark=True):
                settled(driver, "AI may act in your tabs")
                shoot(driver, "dark")
        finally:
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
