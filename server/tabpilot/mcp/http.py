"""The daemon's ``/mcp`` route: the MCP tools over streamable HTTP, built on its first request.

The MCP SDK takes about 0.6 s and 28 MB to import (make bench: start-up and idle memory), which a
daemon that no MCP client calls over HTTP should not pay; `tabpilot mcp` over stdio and plain HTTP
callers never need it. So the route is an ASGI app that imports the SDK, builds the tools
(:func:`tabpilot.mcp.server.build_server`) and starts their session manager when the first request
comes, and stops it when the daemon shuts down.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from starlette.datastructures import QueryParams
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from tabpilot.browsers.contexts import Contexts
from tabpilot.browsers.contexts import Scope as ContextScope
from tabpilot.config import Settings
from tabpilot.errors import TabpilotError
from tabpilot.http.limits import bounded_request
from tabpilot.http.render import render_error
from tabpilot.tools import parse_caps

MCP_PATH = "/mcp"
#: MCP clients connected over HTTP at once, and how long an idle one's session is kept.
MCP_MAX_SESSIONS = 64
MCP_SESSION_IDLE_S = 30 * 60


class LazyMCPApp:
    """The ``/mcp`` ASGI app; :meth:`aclose` stops its sessions (safe to call twice)."""

    def __init__(
        self,
        contexts: Contexts,
        status: Callable[[ContextScope], dict[str, Any]],
        settings: Settings,
    ) -> None:
        self._contexts = contexts
        self._settings = settings
        self._status = status
        # One server per set of capabilities asked for (`/mcp?caps=contexts`), each built on
        # its first request.
        self._apps: dict[frozenset[str], ASGIApp] = {}
        self._starting = asyncio.Lock()
        self._stop = asyncio.Event()
        self._sessions: list[asyncio.Task[None]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            caps = parse_caps(QueryParams(scope.get("query_string", b"")).get("caps", ""))
        except TabpilotError as error:
            await render_error(str((scope.get("state") or {}).get("request_id", "")), error)(
                scope, receive, send
            )
            return
        # The SDK reads a POST's body whole: read it here, within the routes' own limit.
        bounded = await bounded_request(scope, receive, send, self._settings)
        if bounded is None:
            return
        app = self._apps.get(caps) or await self._start(caps)
        await app(scope, bounded, send)

    async def _start(self, caps: frozenset[str]) -> ASGIApp:
        async with self._starting:
            if caps in self._apps:
                return self._apps[caps]
            from tabpilot.mcp.local import LocalBackend
            from tabpilot.mcp.server import build_server

            server = build_server(LocalBackend(self._contexts, self._status), caps)
            # Plain JSON answers: each tools/call is one POST with one answer, nothing streamed.
            # Sessions (one per client, from its initialize) are kept because a stateless server
            # builds a whole server session for every request, a fifth of a millisecond more a
            # call (make bench); a few agents on one machine need few of them.
            sdk_app = server.streamable_http_app(
                streamable_http_path=MCP_PATH,
                json_response=True,
                max_sessions=MCP_MAX_SESSIONS,
                session_idle_timeout=MCP_SESSION_IDLE_S,
            )
            # Its route's own app: the daemon already routed the request and guards it, so the
            # SDK's Starlette wrapper (router, error and exception middleware) would only repeat.
            app: ASGIApp = next(
                route.app
                for route in sdk_app.routes
                if isinstance(route, Route) and route.path == MCP_PATH
            )
            started = asyncio.Event()
            # The session manager's task group must be entered and left by one task, so it lives
            # in its own, not in whichever request came first.
            sessions = asyncio.create_task(self._run_sessions(server, started))
            self._sessions.append(sessions)
            waiting = asyncio.ensure_future(started.wait())
            await asyncio.wait({waiting, sessions}, return_when=asyncio.FIRST_COMPLETED)
            if not started.is_set():  # the manager failed to start: say why, here
                waiting.cancel()
                sessions.result()
            self._apps[caps] = app
            return app

    async def _run_sessions(self, server: Any, started: asyncio.Event) -> None:
        async with server.session_manager.run():
            started.set()
            await self._stop.wait()

    async def aclose(self) -> None:
        self._stop.set()
        for sessions in self._sessions:
            with contextlib.suppress(asyncio.CancelledError):
                await sessions
