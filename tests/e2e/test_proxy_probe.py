"""What Debian's Chromium does with a proxy: the ground a per-context proxy is built on.

This probe launches its own headless Chromium with a throwaway MV3 extension, written here, that
answers proxy authentication with fixed credentials; nothing of tabpilot's own browser or
extension is used. It checks, through the test proxy (tests/proxy_server.py), that:

- `--proxy-server` plus `--proxy-bypass-list=<-loopback>` sends a 127.0.0.1 page through the
  proxy (without `<-loopback>`, Chromium always goes direct to loopback addresses);
- `chrome.webRequest.onAuthRequired` with `asyncBlocking` and a callback answers the proxy's 407
  (`details.isProxy`, the challenger and the realm tell a proxy challenge from a site's);
- a proxy that refuses connections fails navigation with net::ERR_PROXY_CONNECTION_FAILED and the
  page is never loaded direct;
- `chrome.proxy.settings.set` from the extension works in headless Chromium too, with the same
  implicit loopback bypass (an extension's setting ranks above the launch flag: under
  `--proxy-server`, `levelOfControl` reads "controllable_by_this_extension").
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service

from tests.e2e.harness import CHROMIUM_ARGS
from tests.proxy_server import ProxyServer

pytestmark = pytest.mark.e2e

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
USER, PASSWORD, REALM = "probe-user", "probe-pass", "probe-realm"
#: A name no resolver knows: only the proxy (its `hosts` map) can reach it.
PROXY_ONLY_HOST = "site.test"

if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    pytest.skip("Chromium or chromedriver is not installed", allow_module_level=True)

# MV3 on Chromium 156: `asyncBlocking` needs the answer through the callback (a returned Promise
# is ignored and the request stalls for good); `blocking` needs `webRequestBlocking` as well.
# Either way `webRequestAuthProvider` is required.
_SERVICE_WORKER = """
chrome.webRequest.onAuthRequired.addListener(
  (details, answer) => {
    const seen = {isProxy: details.isProxy, challenger: details.challenger, realm: details.realm,
                  scheme: details.scheme, url: details.url};
    chrome.storage.session.get({asked: []}).then(({asked}) =>
      chrome.storage.session.set({asked: [...asked, seen]}));
    answer({authCredentials: CREDENTIALS});
  },
  {urls: ['<all_urls>']},
  ['asyncBlocking'],
);
chrome.storage.session.set({ready: true});
""".replace("CREDENTIALS", json.dumps({"username": USER, "password": PASSWORD}))


def _write_extension(folder: Path) -> Path:
    folder.mkdir()
    manifest = {
        "manifest_version": 3,
        "name": "proxy probe",
        "version": "1",
        "permissions": ["webRequest", "webRequestAuthProvider", "proxy", "storage"],
        "host_permissions": ["<all_urls>"],
        "background": {"service_worker": "worker.js"},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "worker.js").write_text(_SERVICE_WORKER)
    (folder / "page.html").write_text("<!doctype html><title>probe extension page</title>")
    return folder


class _Origin(BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = f"<!doctype html><title>origin</title><p id=where>{self.path}</p>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def origin() -> Iterator[tuple[int, list[str]]]:
    """A local site, and the paths it served (a direct load shows up here and not in the proxy)."""
    hits: list[str] = []
    handler = type("Origin", (_Origin,), {"hits": hits})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server.server_address[1], hits
    server.shutdown()
    server.server_close()


@contextmanager
def _chromium(*flags: str) -> Iterator[tuple[webdriver.Chrome, str]]:
    """A headless Chromium with the probe extension, and the extension's id."""
    root = Path(tempfile.mkdtemp(prefix="tabpilot-proxy-probe-"))
    extension = _write_extension(root / "extension")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (*CHROMIUM_ARGS, f"--user-data-dir={root / 'profile'}", *flags):
        options.add_argument(arg)
    options.add_argument(f"--load-extension={extension}")
    options.add_experimental_option("excludeSwitches", ["disable-extensions"])
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(15)
    try:
        extension_id = _extension_id(driver)
        # Requests challenged before the listener is in place are not the extension's to answer.
        ready = "chrome.storage.session.get('ready').then(s => done(s.ready === true))"
        assert _in_extension(driver, extension_id, ready), "the probe extension is not ready"
        yield driver, extension_id
    finally:
        driver.quit()
        shutil.rmtree(root, ignore_errors=True)


def _extension_id(driver: webdriver.Chrome) -> str:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for target in driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]:
            if target["type"] == "service_worker" and target["url"].endswith("/worker.js"):
                return str(target["url"].split("/")[2])
        time.sleep(0.05)
    raise AssertionError("the probe extension's service worker never started")


def _in_extension(driver: webdriver.Chrome, extension_id: str, script: str) -> Any:
    """Run `script` (async; `done` answers) on the extension's page; come back to a blank tab."""
    driver.get(f"chrome-extension://{extension_id}/page.html")
    value = driver.execute_async_script(f"const done = arguments[0]; {script}")
    driver.get("about:blank")
    return value


def _load(driver: webdriver.Chrome, url: str) -> str:
    driver.get(url)
    found = driver.find_elements("id", "where")
    assert found, f"{url} did not load the origin's page: {driver.page_source[:500]}"
    return str(found[0].text)


def _navigation_error(driver: webdriver.Chrome, url: str) -> str:
    with pytest.raises(WebDriverException) as failure:
        driver.get(url)
    return str(failure.value.msg)


def _traffic(proxy: ProxyServer, port: int) -> list[tuple[str, bool, int]]:
    """What the proxy saw for the origin's port (Chromium's own background requests left out)."""
    return [(r.url or "", r.authorised, r.status) for r in proxy.records if r.port == port]


def test_launch_flag_proxy_with_extension_authentication_and_no_fallback(
    origin: tuple[int, list[str]],
) -> None:
    port, hits = origin
    hosts = {PROXY_ONLY_HOST: "127.0.0.1"}
    with ProxyServer(realm=REALM, hosts=hosts) as proxy:
        flags = (f"--proxy-server=http://127.0.0.1:{proxy.port}", "--proxy-bypass-list=<-loopback>")
        with _chromium(*flags) as (driver, extension_id):
            # Only now: a challenge met before the extension's listener is in place waits on a
            # login prompt headless Chromium never shows, and stalls the tab that made it.
            proxy.require(USER, PASSWORD)
            loopback = f"http://127.0.0.1:{port}/by-flag"
            named = f"http://{PROXY_ONLY_HOST}:{port}/named"
            assert _load(driver, loopback) == "/by-flag"
            assert _load(driver, named) == "/named"
            traffic = _traffic(proxy, port)
            # The first request meets the challenge; the extension's credentials then pass.
            assert traffic[0] == (loopback, False, 407)
            assert (loopback, True, 200) in traffic
            assert (named, True, 200) in traffic
            assert all(authorised for _, authorised, _ in traffic[1:])
            asked = _in_extension(
                driver, extension_id, "chrome.storage.session.get('asked').then(s => done(s.asked))"
            )
            ours = [a for a in asked if a["url"] == loopback]
            assert ours == [
                {
                    "isProxy": True,
                    "challenger": {"host": "127.0.0.1", "port": proxy.port},
                    "realm": REALM,
                    "scheme": "basic",
                    "url": loopback,
                }
            ]

            # A proxy that stops answering fails the navigation; nothing is loaded direct.
            proxy.refuse()
            served = len(hits)
            error = _navigation_error(driver, f"http://127.0.0.1:{port}/refused")
            assert "net::ERR_PROXY_CONNECTION_FAILED" in error
            assert len(hits) == served


def test_extension_proxy_settings_and_the_implicit_loopback_bypass(
    origin: tuple[int, list[str]],
) -> None:
    port, hits = origin
    hosts = {PROXY_ONLY_HOST: "127.0.0.1"}
    with (
        ProxyServer(username=USER, password=PASSWORD, realm=REALM, hosts=hosts) as proxy,
        ProxyServer(refuse=True) as dead,
        _chromium() as (driver, extension_id),
    ):

        def use(proxy_port: int, bypass: list[str]) -> dict[str, Any]:
            config = {
                "mode": "fixed_servers",
                "rules": {
                    "singleProxy": {"scheme": "http", "host": "127.0.0.1", "port": proxy_port},
                    "bypassList": bypass,
                },
            }
            script = (
                f"chrome.proxy.settings.set({{value: {json.dumps(config)}, scope: 'regular'}})"
                ".then(() => chrome.proxy.settings.get({})).then(done)"
            )
            settings: dict[str, Any] = _in_extension(driver, extension_id, script)
            return settings

        settings = use(proxy.port, [])
        assert settings["levelOfControl"] == "controlled_by_this_extension"
        # An empty bypass list still leaves loopback direct: Chromium's implicit rule.
        served = len(hits)
        assert _load(driver, f"http://127.0.0.1:{port}/implicit-bypass") == "/implicit-bypass"
        assert hits[served:] and hits[served] == "/implicit-bypass"
        assert _traffic(proxy, port) == []
        named = f"http://{PROXY_ONLY_HOST}:{port}/named"
        assert _load(driver, named) == "/named"
        assert _traffic(proxy, port)[0] == (named, False, 407)
        assert (named, True, 200) in _traffic(proxy, port)

        use(proxy.port, ["<-loopback>"])
        loopback = f"http://127.0.0.1:{port}/by-extension"
        assert _load(driver, loopback) == "/by-extension"
        assert (loopback, True, 200) in _traffic(proxy, port)

        use(dead.port, ["<-loopback>"])
        served = len(hits)
        error = _navigation_error(driver, f"http://127.0.0.1:{port}/dead")
        assert "net::ERR_PROXY_CONNECTION_FAILED" in error
        assert len(hits) == served
