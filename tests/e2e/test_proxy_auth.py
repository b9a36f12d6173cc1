"""Proxy authentication by the extension, in a real Chromium: a browser the daemon would start for a
context behind a proxy answers the proxy's challenge with managed.json's credentials, a site's own
challenge is left alone, wrong credentials fail the navigation (no endless retry, no hang), and the
credentials reach no page. Its hello names the context with its key, and a close code 4006 reaches
its status.

One headless Chromium for the module, with the real extension copied beside a managed.json that
carries `proxy_auth`, behind tests/proxy_server.py's recording proxy. `site.test` resolves only in
the proxy, so a page of it loads through the proxy or not at all. The managed.json's daemon port is
a WebSocket server that only records hellos: the proxy authentication needs no daemon.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from websockets.exceptions import ConnectionClosed
from websockets.sync.server import ServerConnection, serve

from tests.e2e.harness import (
    EXTENSION_DIR,
    EXTENSION_ID,
    POPUP_URL,
    launch_chromium,
    serving,
    wait_for,
)
from tests.proxy_server import ProxyServer

USER, PASSWORD = "context-proxy-user", "s3cret-proxy-pass"
SITE = "site.test"
#: How many times the extension answers one request's proxy challenge.
MAX_ANSWERS_PER_REQUEST = int(
    re.search(
        r"MAX_ANSWERS_PER_REQUEST = (\d+);",
        (EXTENSION_DIR / "worker" / "link" / "proxy-auth.js").read_text(),
    )[1]  # type: ignore[index]
)


class _Site(BaseHTTPRequestHandler):
    """A page, and one that asks for the site's own Basic authentication; records what came."""

    seen: list[tuple[str, str | None]]

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization")))
        if self.path.startswith("/members"):
            status, extra = 401, {"WWW-Authenticate": 'Basic realm="site members"'}
            body = "<!doctype html><title>members</title><p id=where>members only</p>"
        else:
            status, extra = 200, {}
            body = f"<!doctype html><title>site</title><p id=where>{self.path}</p>"
        data = body.encode()
        self.send_response(status)
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[int, list[tuple[str, str | None]]]]:
    """The site's port, and each request it served: (path, its Authorization header)."""
    seen: list[tuple[str, str | None]] = []
    with serving(type("Site", (_Site,), {"seen": seen})) as port:
        yield port, seen


class _HelloRecorder:
    """Stands where the daemon would: records each hello, and closes with `close_code` when set."""

    def __init__(self) -> None:
        self.hellos: list[str] = []
        self.close_code: int | None = None
        self.port = 0

    def handle(self, ws: ServerConnection) -> None:
        try:
            self.hellos.append(str(ws.recv(timeout=10)))
            while self.close_code is None:
                with contextlib.suppress(TimeoutError):
                    ws.recv(timeout=0.05)
            ws.close(self.close_code, "closed by the test")
            self.close_code = None
        except ConnectionClosed:
            pass


@pytest.fixture(scope="module")
def hellos() -> Iterator[_HelloRecorder]:
    recorder = _HelloRecorder()
    with serve(recorder.handle, "127.0.0.1", 0) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        recorder.port = server.socket.getsockname()[1]
        yield recorder
        server.shutdown()


@pytest.fixture(scope="module")
def proxy() -> Iterator[ProxyServer]:
    with ProxyServer(username=USER, password=PASSWORD, hosts={SITE: "127.0.0.1"}) as running:
        yield running


@pytest.fixture(scope="module")
def context_browser(proxy: ProxyServer, hellos: _HelloRecorder) -> Iterator[webdriver.Chrome]:
    """Chromium as the daemon would start it for a context behind `proxy`, once its extension's
    worker runs (a challenge met before its listener is in place waits on a prompt for good)."""
    root = Path(tempfile.mkdtemp(prefix="tabpilot-proxy-auth-"))
    extension = root / "extension"
    shutil.copytree(EXTENSION_DIR, extension)
    managed = {
        "managed": True,
        "pilot_default": True,
        "daemon_port": hellos.port,
        "context": "behind-proxy",
        "context_key": "a-context-key",
        "proxy_auth": {"username": USER, "password": PASSWORD},
    }
    (extension / "managed.json").write_text(json.dumps(managed))
    flags = (f"--proxy-server=http://127.0.0.1:{proxy.port}",)
    driver = launch_chromium(root / "profile", POPUP_URL, extension=extension, flags=flags)
    driver.set_page_load_timeout(15)
    try:
        # The switch is on: the worker runs (its listeners are in place) and has read managed.json.
        # A worker that is still being installed does not answer yet.
        wait_for(
            lambda: _worker_status(driver).get("pilot_enabled") is True, 15, "the worker to answer"
        )
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(root, ignore_errors=True)


def _worker_status(driver: webdriver.Chrome) -> dict[str, Any]:
    """The service worker's get_status answer, asked from the popup: it has run its first turn."""
    driver.get(POPUP_URL)
    status: dict[str, Any] = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "chrome.runtime.sendMessage({type: 'get_status'})"
        "  .then(done, (e) => done({error: String(e)}));"
    )
    return status


def _navigate(driver: webdriver.Chrome, url: str) -> str | None:
    """Navigate the tab as a command does; the navigation's net error, if it failed."""
    answer = driver.execute_cdp_cmd("Page.navigate", {"url": url})
    error: str | None = answer.get("errorText")
    return error


def _traffic(proxy: ProxyServer, port: int) -> list[tuple[str, bool, int]]:
    return [(r.url or "", r.authorised, r.status) for r in proxy.records if r.port == port]


def _secrets_in_page(driver: webdriver.Chrome) -> str:
    """Everything a page can see of itself, and whether it can read the extension's managed.json."""
    dump: str = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const own = {html: document.documentElement.outerHTML, cookie: document.cookie,"
        " local: JSON.stringify({...localStorage}), session: JSON.stringify({...sessionStorage})};"
        f"fetch('chrome-extension://{EXTENSION_ID}/managed.json').then((r) => r.text())"
        "  .then((t) => ({...own, managed: t}), (e) => ({...own, managed: 'refused: ' + e}))"
        "  .then((all) => done(JSON.stringify(all)));"
    )
    return dump


def test_the_proxy_challenge_is_answered_and_the_credentials_reach_no_page(
    context_browser: webdriver.Chrome,
    proxy: ProxyServer,
    site: tuple[int, list[tuple[str, str | None]]],
) -> None:
    port, seen = site
    url = f"http://{SITE}:{port}/welcome"
    context_browser.get(url)
    assert context_browser.find_element(By.ID, "where").text == "/welcome"
    traffic = _traffic(proxy, port)
    assert traffic[0] == (url, False, 407)
    assert (url, True, 200) in traffic
    # The proxy's credentials go to the proxy only: the site never gets an Authorization header.
    assert ("/welcome", None) in seen and all(auth is None for _, auth in seen)

    dump = _secrets_in_page(context_browser)
    assert json.loads(dump)["managed"].startswith("refused: "), dump
    assert PASSWORD not in dump and USER not in dump
    popup = _worker_status(context_browser)
    text = context_browser.find_element(By.TAG_NAME, "body").text
    assert PASSWORD not in json.dumps(popup) + text and USER not in json.dumps(popup) + text


def test_a_sites_own_challenge_is_not_answered_with_the_proxys_credentials(
    context_browser: webdriver.Chrome,
    proxy: ProxyServer,
    site: tuple[int, list[tuple[str, str | None]]],
) -> None:
    port, seen = site
    url = f"http://{SITE}:{port}/members"
    # Headless Chromium has no login prompt to show: unanswered, the site's challenge fails the
    # navigation at once, as it does without tabpilot.
    assert _navigate(context_browser, url) == "net::ERR_INVALID_AUTH_CREDENTIALS"
    assert (url, True, 401) in _traffic(proxy, port)  # through the proxy, authorised there
    assert [auth for path, auth in seen if path == "/members"] == [None]


def test_wrong_credentials_fail_the_navigation_after_a_bounded_number_of_tries(
    context_browser: webdriver.Chrome,
    proxy: ProxyServer,
    site: tuple[int, list[tuple[str, str | None]]],
) -> None:
    port, seen = site
    url = f"http://{SITE}:{port}/refused"
    proxy.require(USER, "another-password")
    try:
        error = _navigate(context_browser, url)
    finally:
        proxy.require(USER, PASSWORD)
    assert error == "net::ERR_INVALID_AUTH_CREDENTIALS"
    # The first request meets the challenge, then each answer is refused; then the extension
    # cancels (Chromium alone would try 32 times and end in net::ERR_TOO_MANY_RETRIES).
    assert [t for t in _traffic(proxy, port) if t[0] == url] == [(url, False, 407)] * (
        MAX_ANSWERS_PER_REQUEST + 1
    )
    assert "/refused" not in [path for path, _ in seen]
    # The right credentials work again at once.
    context_browser.get(f"http://{SITE}:{port}/again")
    assert context_browser.find_element(By.ID, "where").text == "/again"


def test_the_hello_names_the_context_with_its_key_and_no_credentials(
    context_browser: webdriver.Chrome, hellos: _HelloRecorder
) -> None:
    wait_for(lambda: hellos.hellos, 10, "the extension's hello")
    hello = json.loads(hellos.hellos[0])
    assert hello["type"] == "hello"
    assert (hello["context"], hello["context_key"]) == ("behind-proxy", "a-context-key")
    assert PASSWORD not in hellos.hellos[0] and USER not in hellos.hellos[0]

    # The daemon refuses the name: the popup's status says so.
    hellos.close_code = 4006
    wait_for(
        lambda: str(_worker_status(context_browser).get("last_error")).startswith("name taken: "),
        5,
        "the status to say the name is taken",
    )
