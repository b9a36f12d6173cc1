"""Fixture pages for the log tools (browser_console_messages, browser_network_requests), and the
helpers their tests share. Served by the e2e page server (conftest.py) at their paths."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.e2e.harness import Daemon, wait_for

LOG_PAGES: dict[str, tuple[dict[str, str], str]] = {
    # Logs at every level as it loads, before anyone asks; then an error thrown in a timer, a
    # rejected promise, and an image its policy refuses.
    "/logs/console.html": (
        {"Content-Security-Policy": "img-src 'none'"},
        """<!doctype html><title>console page</title><script>
console.log("plain %s has %d items", "cart", 3, {b: 2});
console.info("an info");
console.warn("a warning");
console.error("an error", new Error("logged error"));
console.debug("a debug");
setTimeout(() => { throw new Error("timer boom"); }, 0);
Promise.reject(new Error("rejected boom"));
setTimeout(() => {
  const img = new Image(); img.src = "/blocked.png"; document.body.append(img);
}, 0);
setTimeout(() => console.log("loaded, all done"), 30);
</script><p>console</p>""",
    ),
    "/logs/blank.html": ({}, "<!doctype html><title>blank log page</title><p>blank</p>"),
    "/logs/second.html": (
        {},
        '<!doctype html><title>second page</title><script>console.log("second page says hi")'
        "</script><p>second</p>",
    ),
    # Replaces console with its own object that passes messages on with a prefix, tries to clear
    # and reach what tabpilot captured, and logs what it found.
    "/logs/replaced.html": (
        {},
        """<!doctype html><title>console replaced</title><script>
console.log("before replacing");
const original = console;
window.console = {
  log: (...args) => original.log("[app]", ...args),
  error: (...args) => original.error("[app]", ...args),
  clear() {}, warn() {}, info() {}, debug() {},
};
console.clear();
console.log("after replacing");
console.error("through the page's console");
original.log("reach:", typeof window.__tabpilotPageLog, typeof window.__tabpilotSerialize);
</script><p>replaced</p>""",
    ),
}


def log_daemon(request: pytest.FixtureRequest, which: str) -> Daemon:
    """The daemon of the managed browser, or of the human-like `browser` fixture."""
    if which == "managed":
        managed: Daemon = request.getfixturevalue("managed")
        return managed
    request.getfixturevalue("browser")
    daemon: Daemon = request.getfixturevalue("daemon")
    return daemon


def tool(daemon: Daemon, name: str, http_status: int = 200, **params: Any) -> dict[str, Any]:
    """POST a tool's route; the body of an answer with `http_status`."""
    response = daemon.post_json(f"/{name}", params)
    body: dict[str, Any] = response.json()
    assert response.status_code == http_status, body
    return body


def ok(daemon: Daemon, name: str, **params: Any) -> Any:
    """A successful call's result."""
    body = tool(daemon, name, **params)
    assert body["success"] is True, body
    return body["result"]


@contextmanager
def log_tab(request: pytest.FixtureRequest, which: str, url: str) -> Iterator[tuple[Daemon, int]]:
    """A new tab at `url` (loaded) in browser `which`, closed after the block: its daemon and id."""
    daemon = log_daemon(request, which)
    tab: int = ok(daemon, "browser_tabs", action="new", url=url)["id"]
    try:
        ok(daemon, "browser_navigate", url=url, tab_id=tab)
        yield daemon, tab
    finally:
        ok(daemon, "browser_tabs", action="close", tab_id=tab)


def console(daemon: Daemon, tab: int, **params: Any) -> dict[str, Any]:
    result: dict[str, Any] = ok(daemon, "browser_console_messages", tab_id=tab, **params)
    return result


def console_until(daemon: Daemon, tab: int, text: str, **params: Any) -> dict[str, Any]:
    """The console once a message holding `text` is in it (a timer of the page's logs it)."""

    def arrived() -> dict[str, Any] | None:
        result = console(daemon, tab, **params)
        return result if any(text in m["text"] for m in result["messages"]) else None

    found: dict[str, Any] = wait_for(arrived, 10, f"a console message with {text!r}")
    return found
