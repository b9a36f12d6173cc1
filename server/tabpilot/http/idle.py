"""The idle stop of a daemon that `tabpilot mcp --browser` started (`tabpilot serve --idle-stop`).

Idle means no caller at all: no HTTP request or ``/mcp`` request in progress, no callers' socket
(``/ws/calls``, which every `tabpilot mcp` forwarder holds open for its whole life) connected, for
the whole idle time. The extension's own socket (``/ws``) never counts: the managed browser holds
it for as long as the daemon runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

#: The extension's socket (tabpilot.http.routes), which never counts as a caller.
EXTENSION_PATH = "/ws"


class IdleWatch:
    """Counts the callers in progress, and when the last one left."""

    def __init__(self, idle_s: float) -> None:
        self.idle_s = idle_s
        self.active = 0
        #: The loop's time the last caller left (or the watch started).
        self._since = 0.0

    def middleware(self, app: ASGIApp) -> ASGIApp:
        """``app``, with every caller's request or socket counted while it lasts."""

        async def counted(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] not in ("http", "websocket") or scope.get("path") == EXTENSION_PATH:
                await app(scope, receive, send)
                return
            self.active += 1
            try:
                await app(scope, receive, send)
            finally:
                self.active -= 1
                self._since = asyncio.get_running_loop().time()

        return counted

    async def run(self, stop: Callable[[], None]) -> None:
        """Call ``stop`` once no caller has come for ``idle_s`` seconds in a row."""
        loop = asyncio.get_running_loop()
        self._since = loop.time()
        # A few checks per idle time: the stop comes at most a quarter late (a second at most).
        step = min(max(self.idle_s / 4, 0.05), 1.0)
        while True:
            await asyncio.sleep(step)
            if self.active == 0 and loop.time() - self._since >= self.idle_s:
                log.info("no caller for %g s: stopping (started with --idle-stop)", self.idle_s)
                stop()
                return
