"""End-to-end fixtures: a real daemon, Debian's Chromium and the real extension, driven by selenium.

The browser is configured the way a new user does it: open the extension's popup, set the daemon's
port, turn on AI Web Pilot.
"""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.act_pages import ACT_PAGES
from tests.e2e.drag_pages import DRAG_PAGES
from tests.e2e.editor_pages import EDITOR_PAGES, vendor_file
from tests.e2e.form_pages import FORM_PAGES
from tests.e2e.frame_pages import FRAME_PAGES
from tests.e2e.harness import Daemon, connected_browser, serving, spawn_daemon, wait_for
from tests.e2e.hidden_pages import HIDDEN_PAGES
from tests.e2e.hostile_pages import HOSTILE_PAGES
from tests.e2e.log_pages import LOG_PAGES
from tests.e2e.shot_pages import SHOT_PAGES
from tests.e2e.tabs_pages import TABS_PAGES
from tests.e2e.tool_pages import TOOL_PAGES

PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/index.html": (
        {},
        '<!doctype html><title>tabpilot test page</title><div id="test">Content</div>',
    ),
    # A strict policy: no inline scripts and no eval, so the Function constructor is refused.
    "/csp.html": (
        {"Content-Security-Policy": "script-src 'self'"},
        "<!doctype html><title>strict csp</title><p>strict</p>",
    ),
    "/other.html": ({}, "<!doctype html><title>other tab</title><p>other</p>"),
    # A page made for phones as well (test_emulate.py): its layout viewport is the device's width.
    "/mobile.html": (
        {},
        '<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>mobile page</title><p>mobile</p>",
    ),
    # Strict pages of the kinds real sites send (tests/e2e/test_strict_pages.py).
    "/nonce.html": (
        {
            "Content-Security-Policy": "script-src 'nonce-r4nd0m' 'strict-dynamic'; "
            "object-src 'none'; base-uri 'none'"
        },
        "<!doctype html><title>nonce csp</title>"
        '<script nonce="r4nd0m">window.appVersion = "1.2.3";</script>',
    ),
    "/sandbox.html": (
        {"Content-Security-Policy": "sandbox"},
        "<!doctype html><title>sandboxed</title><p>sandboxed</p>",
    ),
    # Asks before the person leaves (a form with unsaved changes, say); strict, so that scripts
    # take the debugger's route, which runs them with a user gesture, as Chrome wants for asking.
    "/leave.html": (
        {"Content-Security-Policy": "script-src 'nonce-l34v3'"},
        '<!doctype html><title>unsaved changes</title><script nonce="l34v3">'
        "addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });"
        "</script><p>unsaved</p>",
    ),
    # Says whether it was shown from the back/forward cache (pageshow's `persisted`).
    "/bfcache.html": (
        {},
        "<!doctype html><title>bfcache page</title><script>"
        "addEventListener('pageshow', (e) => { window.shownFromCache = e.persisted; });"
        "</script><p>bfcache</p>",
    ),
    # Trusted Types: required, with eval allowed (no script-src), with 'unsafe-eval', without it,
    # and with an allowlist that has no policy named tabpilot.
    "/tt.html": (
        {"Content-Security-Policy": "require-trusted-types-for 'script'"},
        "<!doctype html><title>trusted types</title><p>tt</p>",
    ),
    "/tt-unsafe-eval.html": (
        {
            "Content-Security-Policy": "require-trusted-types-for 'script'; "
            "script-src 'self' 'unsafe-eval'"
        },
        "<!doctype html><title>trusted types, unsafe-eval</title><p>tt</p>",
    ),
    "/tt-no-eval.html": (
        {"Content-Security-Policy": "require-trusted-types-for 'script'; script-src 'self'"},
        "<!doctype html><title>trusted types, no eval</title><p>tt</p>",
    ),
    "/tt-allowlist.html": (
        {"Content-Security-Policy": "require-trusted-types-for 'script'; trusted-types other"},
        "<!doctype html><title>trusted types allowlist</title><p>tt</p>",
    ),
    # Trusted Types with a default policy, which would be handed every string the page evals.
    "/tt-default.html": (
        {"Content-Security-Policy": "require-trusted-types-for 'script'"},
        """<!doctype html><title>trusted types, default policy</title><script>
        window.__defaultSaw = [];
        trustedTypes.createPolicy("default", { createScript: (s) => (__defaultSaw.push(s), s) });
        </script><p>tt</p>""",
    ),
    # A page that tampers with prototypes and brand checks before any script of tabpilot runs a
    # command: `then` getters that record what they see and forge a result, a constructor getter on
    # Promise.prototype, and Symbol.hasInstance answering true on Window, Node, Error and Promise.
    "/tampered.html": (
        {},
        """<!doctype html><title>tampered</title><script>
        window.__seen = [];
        const note = (self) => {
          try { __seen.push(JSON.stringify(self)); } catch { __seen.push(String(self)); }
        };
        const forge = function () {
          note(this);
          let text = "";
          try { text = JSON.stringify(this) ?? ""; } catch {}
          if (text.includes("s3cr3t")) return (resolve) => resolve({ token: "FORGED" });
        };
        for (const proto of [Object.prototype, Array.prototype]) {
          Object.defineProperty(proto, "then", { configurable: true, get: forge });
        }
        const ctor = Object.getOwnPropertyDescriptor(Promise.prototype, "constructor");
        Object.defineProperty(Promise.prototype, "constructor", { configurable: true,
          get() { note(this); return ctor.value; } });
        for (const C of [Window, Node, Error, Promise]) {
          Object.defineProperty(C, Symbol.hasInstance, { configurable: true, value: () => true });
        }
        Element.prototype.getBoundingClientRect = () => ({ x: "FORGED", y: 0 });
        Object.defineProperty(DOMRectReadOnly.prototype, "x", { get: () => "FORGED" });
        Math.round = () => "FORGED";
        </script><p id="x">tampered</p>""",
    ),
}


# The page tools' fixture pages: what they read (tool_pages.py) and what they act on (act_pages.py).
PAGES.update(TOOL_PAGES)
PAGES.update(ACT_PAGES)
PAGES.update(SHOT_PAGES)
PAGES.update(LOG_PAGES)
PAGES.update(HOSTILE_PAGES)
PAGES.update(EDITOR_PAGES)
PAGES.update(DRAG_PAGES)
PAGES.update(FORM_PAGES)
PAGES.update(FRAME_PAGES)
PAGES.update(TABS_PAGES)
PAGES.update(HIDDEN_PAGES)

#: A page's headers may hold this pseudo-header: the HTTP status to answer with (200 otherwise).
STATUS = ":status"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


class _PageHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        vendored = vendor_file(path) if path.startswith("/vendor/") else None
        headers, body = vendored or PAGES.get(path, ({}, "<!doctype html><p>page</p>"))
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(int(headers.get(STATUS, "200")))
        self.send_header("Content-Type", headers.get("Content-Type", "text/html; charset=utf-8"))
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            if name not in (STATUS, "Content-Type"):
                self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def pages() -> Iterator[str]:
    """Base URL of the test pages, served from 127.0.0.1 (also reachable as localhost)."""
    with serving(_PageHandler) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def other_pages() -> Iterator[int]:
    """The port of a second server of the same test pages: `http://127.0.0.1:<it>` is the same site
    as `pages` on another origin, `http://localhost:<it>` another site (as is `pages`' own port
    under the name localhost)."""
    with serving(_PageHandler) as port:
        yield port


@pytest.fixture(scope="session")
def second_origin(pages: str) -> str:
    """The test pages from another site: localhost, where `pages` is 127.0.0.1. Chromium gives
    the two sites separate processes, as a payment frame or a sign-in popup has."""
    return pages.replace("127.0.0.1", "localhost")


# The daemons and browsers are the package's: tests/reliability imports these fixtures and starts
# its own, and those of tests/e2e are gone by then, not three Chromiums at once on a small machine.
@pytest.fixture(scope="package")
def daemon() -> Iterator[Daemon]:
    with spawn_daemon() as running:
        yield running


@pytest.fixture(scope="package")
def browser(daemon: Daemon, pages: str) -> Iterator[webdriver.Chrome]:
    """Chromium with the unpacked extension, pointed at the daemon, AI Web Pilot on."""
    with connected_browser(daemon, f"{pages}/index.html") as driver:
        yield driver


@pytest.fixture(scope="package")
def managed() -> Iterator[Daemon]:
    """`tabpilot serve --browser`: a daemon with its own headless Chromium, as `make run` starts."""
    with spawn_daemon("--browser") as running:
        # Its first page may take a restart or two on a loaded machine
        # (tabpilot.browsers.supervisor).
        wait_for(lambda: _ready(running.status()), 90, "the managed browser")
        yield running


def _ready(status: dict[str, Any]) -> bool:
    return bool(status["extension"]["pilot_enabled"] and status["browser"]["ready"])


@pytest.fixture
def page(browser: webdriver.Chrome, daemon: Daemon, pages: str) -> dict[str, Any]:
    """The test page, loaded fresh in the active tab; returns its entry from GET /tabs."""
    url = f"{pages}/index.html"
    browser.get(url)
    # As a person's Chrome in use: its window in front. A headless window gets the focus some time
    # after it starts; browser_act's keys say when the page has none (test_act_truth.py).
    browser.execute_cdp_cmd("Page.bringToFront", {})
    wait_for(lambda: browser.execute_script("return document.hasFocus()"), 10, "the page's focus")

    def find() -> dict[str, Any] | None:
        tabs = daemon.get("/tabs").json()["result"]
        return next((tab for tab in tabs if tab["url"] == url and tab["active"]), None)

    tab: dict[str, Any] = wait_for(find, 10, "the test page in /tabs")
    return tab
