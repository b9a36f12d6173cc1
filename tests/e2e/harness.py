"""Helpers for the end-to-end tests: spawn a real daemon, drive Chromium and the popup."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

REPO = Path(__file__).resolve().parents[2]
EXTENSION_DIR = REPO / "extension"
#: Fixed by the manifest's "key".
EXTENSION_ID = "mmgjobhjaeaocmcbdnjglfiobpnpkdpf"
POPUP_URL = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"

CHROMIUM_ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def managed_daemons(port: int) -> list[int]:
    """The pids of the `tabpilot serve --browser` processes on ``port`` (as `tabpilot mcp
    --browser` starts them)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in args and b"--browser" in args and str(port).encode() in args:
            found.append(int(entry.name))
    return found


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """A test web server on a free port of 127.0.0.1, answering with ``handler``, for the length
    of the block; yields its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def wait_for(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll `predicate` until it returns something truthy; fail with `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except (httpx.HTTPError, OSError):
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


@dataclass
class Daemon:
    port: int
    process: subprocess.Popen[bytes]
    state_dir: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=10)

    def execute(self, script: str, timeout: float = 30, **params: Any) -> httpx.Response:
        return httpx.post(
            self.url + "/execute_javascript", json={"script": script, **params}, timeout=timeout
        )

    def post_json(self, path: str, body: dict[str, Any], timeout: float = 30) -> httpx.Response:
        return httpx.post(self.url + path, json=body, timeout=timeout)

    def status(self) -> dict[str, Any]:
        result: dict[str, Any] = self.get("/status").json()["result"]
        return result


@contextmanager
def spawn_daemon(
    *args: str,
    env: dict[str, str] | None = None,
    port: int | None = None,
    tabpilot: tuple[str, ...] = (sys.executable, "-m", "tabpilot"),
    cwd: Path | None = None,
) -> Iterator[Daemon]:
    """Run `tabpilot serve` as a real process on `port` (a free one by default) until the block
    ends; ``tabpilot`` is the command that runs tabpilot (this checkout's, by default)."""
    port = port or free_port()
    state_dir = Path(tempfile.mkdtemp(prefix="tabpilot-e2e-"))
    full_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TABPILOT_")},
        "TABPILOT_STATE_DIR": str(state_dir),
        **(env or {}),
    }
    # Everything the daemon writes, in one file: its log on stderr, uvicorn's access log on stdout.
    log = (state_dir / "daemon.log").open("wb")
    process = subprocess.Popen(
        [*tabpilot, "serve", "--port", str(port), *args],
        env=full_env,
        cwd=cwd,
        stdout=log,
        stderr=log,
    )
    daemon = Daemon(port, process, state_dir)
    try:
        wait_for(lambda: daemon.get("/health").status_code == 200, 20, "the daemon to serve")
        yield daemon
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        shutil.rmtree(state_dir, ignore_errors=True)


def launch_chromium(
    profile: Path,
    first_url: str | None = None,
    *,
    extension: Path = EXTENSION_DIR,
    flags: tuple[str, ...] = (),
) -> webdriver.Chrome:
    """Chromium with the unpacked `extension` (the repo's by default), on `profile`, with extra
    command-line `flags`, showing `first_url` if given.

    A navigation that starts while Chromium is still installing an extension with the webRequest
    permission can stall for good ("Timed out receiving message from renderer"; the managed
    browser starts on about:blank for the same reason, tabpilot.browsers.supervisor): the first
    url is opened once the extension's service worker runs. A browser whose first load stalls all
    the same is given up and a fresh one started in a fresh profile, once.
    """
    driver = _chromium(profile, extension, flags)
    if first_url is None:
        return driver
    try:
        _wait_for_worker(driver)
        driver.get(first_url)
        return driver
    except TimeoutException:
        driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
    profile.mkdir(parents=True, exist_ok=True)
    driver = _chromium(profile, extension, flags)
    try:
        _wait_for_worker(driver)
        driver.get(first_url)
    except BaseException:
        driver.quit()
        raise
    return driver


def _wait_for_worker(driver: webdriver.Chrome, timeout_s: float = 15.0) -> None:
    """Until the service worker of an extension runs in ``driver``'s Chromium (an extension
    installs before its worker starts); past ``timeout_s``, go on: the load then says the rest."""

    # Asked of the DevTools HTTP endpoint, not through ChromeDriver, whose commands wait on the
    # first tab's load: a load that stalls while the extension installs (above) stalled them too.
    address = driver.capabilities.get("goog:chromeOptions", {}).get("debuggerAddress")

    def targets() -> list[dict[str, Any]]:
        if address:
            url = f"http://{address}/json/list"
            with (
                contextlib.suppress(OSError, ValueError),
                urllib.request.urlopen(url, timeout=5) as answer,
            ):
                listed: list[dict[str, Any]] = json.load(answer)
                return listed
        infos: list[dict[str, Any]] = driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
        return infos

    def worker() -> bool:
        return any(
            t["type"] == "service_worker" and t["url"].startswith("chrome-extension://")
            for t in targets()
        )

    deadline = time.monotonic() + timeout_s
    while not worker() and time.monotonic() < deadline:
        time.sleep(0.05)


#: How long one page load may take in the test Chromiums before ChromeDriver gives up: far below
#: the client's 120 s read timeout, so that a stalled load fails fast.
PAGE_LOAD_TIMEOUT_S = 30


def _chromium(
    profile: Path, extension: Path = EXTENSION_DIR, flags: tuple[str, ...] = ()
) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    profile_args = (f"--user-data-dir={profile}", f"--load-extension={extension}")
    for arg in (*CHROMIUM_ARGS, *profile_args, *flags):
        options.add_argument(arg)
    # ChromeDriver otherwise passes --disable-extensions.
    options.add_experimental_option("excludeSwitches", ["disable-extensions"])
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT_S)
    return driver


@contextmanager
def connected_browser(daemon: Daemon, start_url: str) -> Iterator[webdriver.Chrome]:
    """Chromium with the unpacked extension, set up as a new user does: open a page, point the
    popup at the daemon, turn AI Web Pilot on."""
    profile = Path(tempfile.mkdtemp(prefix="tabpilot-chromium-"))
    driver = launch_chromium(profile, start_url)
    try:
        use_popup(driver, port=daemon.port)
        wait_for(lambda: daemon.status()["extension"]["connected"], 15, "the extension to connect")
        set_pilot(driver, daemon, True)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@contextmanager
def popup_tab(driver: webdriver.Chrome) -> Iterator[None]:
    """The extension popup in a new tab for the length of the block; closed afterwards, as a popup
    closes when the person clicks elsewhere, and back to the tab before."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(POPUP_URL)
        yield
    finally:
        driver.close()
        driver.switch_to.window(previous)


def use_popup(
    driver: webdriver.Chrome, *, port: int | None = None, pilot: bool | None = None
) -> None:
    """Open the extension popup in a tab, act as a person would, then go back to the tab before."""
    with popup_tab(driver):
        if port is not None:
            field = driver.find_element(By.ID, "daemon-port")
            field.clear()
            field.send_keys(str(port), Keys.ENTER)
            field.send_keys(Keys.TAB)
        if pilot is not None:
            toggle = driver.find_element(By.ID, "pilot-toggle")
            if toggle.is_selected() != pilot:
                toggle.click()
            wait_for(lambda: toggle.is_selected() == pilot, 5, "the switch to move")


def set_pilot(driver: webdriver.Chrome, daemon: Daemon, enabled: bool) -> None:
    use_popup(driver, pilot=enabled)
    wait_for(
        lambda: daemon.status()["extension"]["pilot_enabled"] is enabled,
        10,
        f"the daemon to see the pilot {'on' if enabled else 'off'}",
    )


def open_url(daemon: Daemon, url: str) -> None:
    """Load `url` in the active tab with browser_navigate (which, unlike a script, also takes a tab
    whose own page never loaded), and wait until a script can read the new page."""
    response = daemon.post_json("/browser_navigate", {"url": url}, timeout=60)
    assert response.status_code == 200, (response.text, daemon.get("/tabs").text)

    def loaded() -> bool:
        body = daemon.execute("document.readyState").json()
        return bool(body["success"]) and body["tab"]["url"] == url and body["result"] == "complete"

    wait_for(loaded, 15, f"{url} to load")


def set_popup_switch(driver: webdriver.Chrome, element_id: str, on: bool) -> None:
    """Flip a popup switch as a person does, then go back to the tab before."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(POPUP_URL)
        toggle = driver.find_element(By.ID, element_id)
        if toggle.is_selected() != on:
            toggle.click()
        wait_for(lambda: toggle.is_selected() == on, 5, f"{element_id} to move")
    finally:
        driver.close()
        driver.switch_to.window(previous)


def allow_user_scripts(driver: webdriver.Chrome, allowed: bool) -> None:
    """Turn "Allow User Scripts" on or off for tabpilot, as on its chrome://extensions page."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get("chrome://extensions")
        error = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "chrome.developerPrivate.updateExtensionConfiguration("
            f"{{extensionId: '{EXTENSION_ID}', userScriptsAccess: {json.dumps(allowed)}}},"
            "() => done(chrome.runtime.lastError ? chrome.runtime.lastError.message : null));"
        )
        assert error is None, error
    finally:
        driver.close()
        driver.switch_to.window(previous)


@contextmanager
def serving_pages(pages: dict[str, str]) -> Iterator[str]:
    """Serve `pages` (path -> HTML; any other path is a plain page) on a free port of 127.0.0.1
    until the block ends; yields the base url."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = pages.get(self.path.split("?")[0], "<!doctype html><p>page</p>").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serving(Handler) as port:
        yield f"http://127.0.0.1:{port}"
