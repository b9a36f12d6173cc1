"""The managed browser's first page must load: a Chromium whose first page never does is replaced.

A fresh Chromium profile whose extension observes requests (``chrome.webRequest``, for
browser_network_requests) has been seen, on a loaded 2-core machine, never to load its first
page: the request never leaves the browser, and a new tab stalls the same way. It happened in
about 1 start in 20 under heavy load, and never without the extension's request listeners. So
after each start of the managed browser (the daemon's, and one a call makes after a crash or
browser_close, which then waits for it), the daemon looks for a tab showing a web page; if none
does in time, it starts Chromium again with a fresh profile (at most :data:`RESTARTS` times).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from tabpilot.errors import PilotDisabled, TabpilotError
from tabpilot.security import new_request_id

if TYPE_CHECKING:
    from tabpilot.bridge import Bridge
    from tabpilot.browser import ManagedBrowser

log = logging.getLogger(__name__)

#: How long the first page may take, from Chromium's start; a normal start takes 1 to 3 s.
FIRST_PAGE_WAIT_S = 15.0
#: How often the tabs are looked at meanwhile.
POLL_S = 0.5
#: How many times a browser whose first page never loads is started again.
RESTARTS = 2


async def watch(bridge: Bridge, browser: ManagedBrowser) -> None:
    """Start ``browser`` again while its first page does not load; never raises."""
    try:
        for _ in range(RESTARTS):
            if await _loaded(bridge, browser):
                return
            log.warning(
                "the managed browser's first page did not load in %.0f s: starting it again",
                FIRST_PAGE_WAIT_S,
            )
            await browser.stop()
            bridge.drop_link("The managed browser's first page never loaded; it is restarted.")
            await browser.start()
    except Exception:  # the watch must never take the daemon down
        log.exception("watching the managed browser's first page failed")


async def _loaded(bridge: Bridge, browser: ManagedBrowser) -> bool:
    """Whether the tab Chromium started with shows a web page within FIRST_PAGE_WAIT_S (true too
    if the browser stopped meanwhile: browser_close, or a crash, is someone else's to handle).

    The tabs of the first list are the start tabs, and they are the ones judged: a tab a caller
    opened later may load while the start tab stays stuck with no url, and a browser in that
    state must still be replaced. Only when every start tab is gone are the others judged.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + FIRST_PAGE_WAIT_S
    start_ids: set[object] | None = None
    while loop.time() < deadline:
        if not browser.running:
            return True
        if bridge.connected:
            try:
                answer = await bridge.list_tabs(new_request_id())
            except PilotDisabled:
                return True  # the tabs cannot be looked at: nothing to judge the browser by
            except TabpilotError:
                pass
            else:
                listed = answer.result if isinstance(answer.result, list) else []
                tabs = [tab for tab in listed if isinstance(tab, dict)]
                if start_ids is None and tabs:
                    start_ids = {tab.get("id") for tab in tabs}
                judged = [tab for tab in tabs if tab.get("id") in (start_ids or ())] or tabs
                urls = (str(tab.get("url") or "") for tab in judged)
                if any(url.startswith(("http:", "https:")) for url in urls):
                    return True
        await asyncio.sleep(POLL_S)
    return False
