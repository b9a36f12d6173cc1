"""The managed browser's first page must load: a Chromium whose first page never does is replaced.

A fresh Chromium profile whose extension observes requests (``chrome.webRequest``, for
browser_network_requests) has been seen, on a loaded 2-core machine, never to load its first
page: the request never leaves the browser, and a new tab stalls the same way. It happened in
about 1 start in 20 under heavy load, and never without the extension's request listeners. So
after each start of the managed browser (the daemon's, and one a call makes after a crash or
browser_close, which then waits for it), the daemon looks for a start tab whose web page
answers; if none does in time, it starts Chromium again with a fresh profile (at most
:data:`RESTARTS` times).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from tabpilot.errors import PilotDisabled, TabpilotError
from tabpilot.params import PingParams
from tabpilot.security import new_request_id

if TYPE_CHECKING:
    from tabpilot.bridge import Bridge
    from tabpilot.browser import ManagedBrowser

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
                    if await _shows_a_page(bridge, start):
                        return True
            except PilotDisabled:
                return True  # the tabs cannot be looked at: nothing to judge the browser by
            except (TabpilotError, TimeoutError):
                pass
        await asyncio.sleep(POLL_S)
    return False


async def _shows_a_page(bridge: Bridge, start: set[object]) -> bool:
    """Whether a start tab has a web page whose content script answers.

    The tabs of the first list are the start tabs, and they are the ones judged: a tab a caller
    opened may load while the start tab stays stuck, and such a browser must still be replaced.
    Only once every start tab is gone are the others judged. A listed url is not enough: a tab
    still on its way to its first page lists the url it is going to, and a stuck one may drop it.
    """
    answer = await bridge.list_tabs(new_request_id())
    listed = answer.result if isinstance(answer.result, list) else []
    tabs = [tab for tab in listed if isinstance(tab, dict)]
    if not start:
        start.update(tab.get("id") for tab in tabs)
    judged = [tab for tab in tabs if tab.get("id") in start] or tabs
    for tab in judged:
        tab_id = tab.get("id")
        if not isinstance(tab_id, int) or not str(tab.get("url") or "").startswith(WEB):
            continue
        try:
            await bridge.ping(PingParams(to="content", tab_id=tab_id), new_request_id())
        except PilotDisabled:
            raise
        except TabpilotError:
            continue  # not there yet
        return True
    return False
