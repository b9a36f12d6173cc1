"""The managed browser's first page: opened once its extension is connected, and a Chromium
whose first page still never loads is replaced.

Chromium is started on ``about:blank``, not on a web page. A url on its command line is loaded
while the extension is still being installed, and with an extension that holds the
``webRequest`` permission that navigation may never leave the browser: on a loaded 2-core
machine (load 4), 7 starts in 10 stalled so, with or without the extension's service worker,
and none without the permission. A tab opened or navigated once the browser is up loads (0 in
16 under the same load), even in a browser whose start tab is stuck. So once the extension has
connected, the daemon navigates the start tab to its landing page (:func:`_open_landing`), and
judges the browser by that page. If no start tab shows a page in time, it starts Chromium again
with a fresh profile (at most :data:`RESTARTS` times). This runs after each start of the managed
browser: the daemon's, a new context's, and one a call makes after a crash or browser_close,
which then waits for it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from tabpilot.errors import PilotDisabled, TabpilotError
from tabpilot.ids import new_request_id
from tabpilot.tools.fields import PingParams
from tabpilot.tools.navigate import NavigateParams

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge
    from tabpilot.browsers.managed import ManagedBrowser

log = logging.getLogger(__name__)

#: How long the first page may take once the extension has connected; a normal start takes 1 to
#: 3 s in all, a loaded machine several times that.
FIRST_PAGE_WAIT_S = 15.0
#: How long the extension may take to connect, from Chromium's start.
CONNECT_WAIT_S = 30.0
#: How often the tabs are looked at meanwhile.
POLL_S = 0.5
#: How many times a browser whose first page never loads is started again.
RESTARTS = 2
#: The schemes of a web page, where the content script answers.
WEB = ("http:", "https:")


async def watch(bridge: Bridge, browser: ManagedBrowser) -> bool:
    """Start ``browser`` again while its first page does not load; never raises. Returns True
    once a first page loaded (or the browser was stopped meanwhile), False once the last browser
    started has had its wait too."""
    try:
        for restarts in range(RESTARTS + 1):
            if await _loaded(bridge, browser):
                return True
            if restarts == RESTARTS:
                log.warning(
                    "the managed browser's first page did not load after %d restarts", restarts
                )
                return False
            log.warning(
                "the managed browser's first page did not load in %.0f s: starting it again",
                FIRST_PAGE_WAIT_S,
            )
            await browser.stop()
            bridge.drop_link("The managed browser's first page never loaded; it is restarted.")
            await browser.start()
    except Exception:  # the watch must never take the daemon down
        log.exception("watching the managed browser's first page failed")
    return False


async def _loaded(bridge: Bridge, browser: ManagedBrowser) -> bool:
    """Whether a tab Chromium started with shows a web page within FIRST_PAGE_WAIT_S of its
    extension connecting, itself within CONNECT_WAIT_S (true too if the browser stopped
    meanwhile: browser_close, or a crash, is someone else's to handle)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONNECT_WAIT_S
    connected = False
    start: set[object] = set()
    while loop.time() < deadline:
        if not browser.running:
            return True
        if bridge.connected:
            if not connected:
                connected = True
                deadline = loop.time() + FIRST_PAGE_WAIT_S
            try:
                async with asyncio.timeout(max(POLL_S, deadline - loop.time())):
                    tabs = await _start_tabs(bridge, start)
                    if await _shows_a_page(bridge, tabs):
                        return True
                    if await _open_landing(bridge, browser, tabs):
                        continue  # loaded: judged at once
            except PilotDisabled:
                return True  # the tabs cannot be looked at: nothing to judge the browser by
            except (TabpilotError, TimeoutError):
                pass
        await asyncio.sleep(POLL_S)
    return False


async def _start_tabs(bridge: Bridge, start: set[object]) -> list[dict[str, Any]]:
    """The tabs the browser is judged by: the start tabs, those of the first list.

    A tab a caller opened may load while the start tab stays stuck, and such a browser must
    still be replaced. Only once every start tab is gone are the others judged.
    """
    answer = await bridge.list_tabs(new_request_id())
    listed = answer.result if isinstance(answer.result, list) else []
    tabs = [tab for tab in listed if isinstance(tab, dict) and isinstance(tab.get("id"), int)]
    if not start:
        start.update(tab["id"] for tab in tabs)
    return [tab for tab in tabs if tab["id"] in start] or tabs


def _shows_web(tab: dict[str, Any]) -> bool:
    return str(tab.get("url") or "").startswith(WEB)


async def _shows_a_page(bridge: Bridge, tabs: list[dict[str, Any]]) -> bool:
    """Whether one of ``tabs`` has a web page whose content script answers. A listed url is not
    enough: a tab still on its way to its first page lists the url it is going to, and a stuck
    one may drop it."""
    for tab in filter(_shows_web, tabs):
        try:
            await bridge.ping(PingParams(to="content", tab_id=tab["id"]), new_request_id())
        except PilotDisabled:
            raise
        except TabpilotError:
            continue  # not there yet
        return True
    return False


async def _open_landing(
    bridge: Bridge, browser: ManagedBrowser, tabs: list[dict[str, Any]]
) -> bool:
    """Navigate the first of ``tabs`` that shows no web page (Chromium's ``about:blank``) to the
    daemon's landing page, and wait for the load; whether one was. The content script's answer
    is the verdict."""
    blank = [tab["id"] for tab in tabs if not _shows_web(tab)]
    if not blank:
        return False
    params = NavigateParams(
        url=browser.landing_url, tab_id=blank[0], timeout_ms=int(FIRST_PAGE_WAIT_S * 1000)
    )
    await bridge.command("browser_navigate", params, new_request_id(), FIRST_PAGE_WAIT_S)
    return True
