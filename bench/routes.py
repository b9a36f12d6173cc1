"""`1+1` by each route a script can take (README, "Strict pages"): the page world's fast path, a
Trusted Types page, and a strict page through chrome.debugger and through chrome.userScripts.

The pages come from a small local server with the policies real sites send. The debugger switch
and "Allow User Scripts" are set as a person sets them; user scripts come before the debugger, so
the two are measured in two passes.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.harness import allow_user_scripts, set_popup_switch, wait_for

from bench.pages import Page, serve
from bench.rig import Rig
from bench.systems import System

_HTML = "<!doctype html><title>bench</title><p>bench</p>"
#: The same page with the policies real sites send.
PAGES = {
    "/plain.html": Page(_HTML),
    "/trusted-types.html": Page(
        _HTML, {"Content-Security-Policy": "require-trusted-types-for 'script'"}
    ),
    "/strict.html": Page(_HTML, {"Content-Security-Policy": "script-src 'self'"}),
}


def _open(rig: Rig, url: str) -> int:
    """A new tab at `url` (Selenium stays on the first tab); its id."""
    first = rig.driver.current_window_handle
    rig.driver.switch_to.new_window("tab")
    rig.driver.get(url)
    rig.driver.switch_to.window(first)
    tabs = rig.daemon.get("/tabs").json()["result"]
    return int(next(t["id"] for t in tabs if t["url"] == url))


def _route_system(rig: Rig, name: str, tab_id: int, route: str) -> System:
    payload = {"script": "1+1", "tab_id": tab_id}

    def call() -> float:
        body = rig.client.post("/execute_javascript", payload)
        if body.get("result") != 2 or body.get("route") != route:
            raise RuntimeError(f"{name}: expected 2 by {route}, got {body}")
        return float(body["duration_ms"])

    return System(name, call)


def measure(rig: Rig, latency: Any, counts: Any) -> list[dict[str, Any]]:
    """Rows of `latency` (suites.latency) for each route, the fast path first."""
    with serve(PAGES) as base:
        plain = _open(rig, f"{base}/plain.html")
        trusted = _open(rig, f"{base}/trusted-types.html")
        strict = _open(rig, f"{base}/strict.html")
        page = _route_system(rig, "page (the page's Function)", plain, "page")
        set_popup_switch(rig.driver, "debugger-toggle", True)
        try:
            rows: list[dict[str, Any]] = latency(
                [
                    page,
                    _route_system(
                        rig, "trusted_types (a Trusted Types page)", trusted, "trusted_types"
                    ),
                    _route_system(rig, "debugger (a strict page)", strict, "debugger"),
                ],
                counts,
            )
        finally:
            set_popup_switch(rig.driver, "debugger-toggle", False)
        allow_user_scripts(rig.driver, True)
        try:
            user = _route_system(rig, "user_scripts (a strict page)", strict, "user_scripts")
            wait_for(lambda: _answers(user), 10, "user scripts to be allowed")
            rows += latency([user], counts)
        finally:
            allow_user_scripts(rig.driver, False)
            rig.driver.execute_cdp_cmd("Page.bringToFront", {})
    return rows


def _answers(system: System) -> bool:
    try:
        system.call()
    except RuntimeError:
        return False
    return True
