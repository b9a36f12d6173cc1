"""The daemon's HTTP API and the extension's WebSocket, with one handler that turns errors into
the envelope.

``create_app(settings)`` builds the ASGI app; ``serve(settings)`` runs it with uvicorn on
127.0.0.1, and nowhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator

import uvicorn
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import Route

from tabpilot.browsers.contexts import Contexts
from tabpilot.browsers.managed import ManagedBrowser, find_chromium
from tabpilot.browsers.status import StatusReport
from tabpilot.config import LOOPBACK_HOST, Settings
from tabpilot.errors import (
    BrowserError,
    InternalError,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    TabpilotError,
    error_classes,
)
from tabpilot.http.idle import IdleWatch
from tabpilot.http.protocols import HTTP_PROTOCOL, websocket_protocol
from tabpilot.http.render import render_error
from tabpilot.http.routes import add_routes
from tabpilot.http.security import SecurityMiddleware
from tabpilot.http.tool_routes import (
    request_id_of,
)
from tabpilot.mcp.http import MCP_PATH, LazyMCPApp
from tabpilot.tools import TOOLS
from tabpilot.tools.fields import describe_invalid
from tabpilot.tools.script import ExecuteParams

log = logging.getLogger(__name__)

#: How long an idle keep-alive connection stays open.
KEEP_ALIVE_S = 120


def _error_table() -> str:
    rows = "\n".join(f"| `{c.code}` | {c.status} | {c.meaning} |" for c in error_classes())
    return (
        "Run JavaScript in a real Chrome tab through the tabpilot extension.\n\n"
        "Every answer is one JSON envelope: `{success: true, request_id, result, result_type, "
        "tab, duration_ms}` or `{success: false, request_id, error: {code, message, stack?}}`, "
        "and every response carries its request id in `X-Request-ID`. A script that ran and "
        "threw still answers HTTP 200, with `success: false`.\n\n"
        "The same tools are served to MCP clients at `/mcp` (streamable HTTP): "
        f"{', '.join(f'`{name}`' for name in TOOLS)} and `pilot_status`.\n\n"
        "| code | HTTP | meaning |\n|---|---|---|\n" + rows
    )


def to_api_error(exc: Exception) -> TabpilotError:
    """The API error that answers ``exc``: the one translation of errors at the HTTP edge."""
    if isinstance(exc, TabpilotError):
        return exc
    if isinstance(exc, RequestValidationError):
        return InvalidRequest(describe_invalid(exc.errors(), ExecuteParams))
    if isinstance(exc, StarletteHTTPException):
        if exc.status_code == 404:
            return NotFound()
        if exc.status_code == 405:
            return MethodNotAllowed()
        code = "invalid_request" if exc.status_code < 500 else "internal_error"
        return TabpilotError(code, str(exc.detail), exc.status_code)
    return InternalError()


async def handle_error(request: Request, exc: Exception) -> Response:
    """The one exception handler: every error becomes the failure envelope."""
    error = to_api_error(exc)
    if isinstance(error, InternalError) and error is not exc:
        log.error("internal error on %s", request.url.path, exc_info=exc)
    return render_error(request_id_of(request), error)


def create_app(settings: Settings) -> FastAPI:
    """The daemon's ASGI app; its contexts are ``app.state.contexts``, and the default one's
    bridge ``app.state.bridge``."""
    contexts = Contexts(settings)
    bridge = contexts.primary

    status_result = StatusReport(contexts, settings)
    mcp = LazyMCPApp(contexts, status_result, settings)
    idle = IdleWatch(settings.idle_stop_s) if settings.idle_stop_s is not None else None

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        browser: ManagedBrowser | None = None
        if settings.managed_browser:
            # serve() binds the socket before the lifespan runs, so the port already accepts
            # connections (they queue until uvicorn serves) when Chromium's extension dials in.
            try:
                browser = await contexts.start_default()
            except Exception as exc:
                log.error("tabpilot: the managed browser did not start: %s", exc)
                await contexts.aclose()
                raise
            app.state.browser = browser
            status_result.browser = browser
        watching = bridge.watch_first_page(browser) if browser else None
        idling = asyncio.create_task(idle.run(lambda: app.state.stop())) if idle else None
        try:
            yield
        finally:
            for task in (watching, idling):
                if task is not None:
                    task.cancel()
            await mcp.aclose()
            await contexts.aclose()

    app = FastAPI(
        title="tabpilot",
        version=settings.version,
        description=_error_table(),
        lifespan=lifespan,
        redoc_url=None,
        # Paths arrive without a trailing slash (SecurityMiddleware): a path that still does not
        # match is a 404 in the envelope, never a redirect.
        redirect_slashes=False,
    )
    app.state.settings = settings
    app.state.contexts = contexts
    app.state.bridge = bridge
    app.state.browser = None
    #: How the idle stop ends the daemon: serve() points it at its uvicorn server.
    app.state.stop = lambda: log.warning("idle: no server to stop")
    if idle is not None:
        app.add_middleware(idle.middleware)
    app.add_middleware(SecurityMiddleware, token=settings.token)
    for exc_class in (TabpilotError, RequestValidationError, StarletteHTTPException, Exception):
        app.add_exception_handler(exc_class, handle_error)

    add_routes(app, contexts, status_result, settings)
    # The MCP tools, an ASGI app of the SDK's behind the SecurityMiddleware like every route.
    app.router.routes.append(Route(MCP_PATH, endpoint=mcp))

    return app


def bind_socket(settings: Settings) -> socket.socket:
    """A listening socket on settings.host:port (port 0 picks a free one).

    Refuses any host but 127.0.0.1: the daemon runs scripts in the user's browser, so it must
    never be reachable from the network.
    """
    if settings.host != LOOPBACK_HOST:
        raise SystemExit(
            f"tabpilot: refusing to listen on {settings.host!r}. The daemon drives your browser, "
            f"so it binds {LOOPBACK_HOST} only."
        )
    # IPPROTO_TCP, not the default 0: asyncio sets TCP_NODELAY only on accepted sockets whose
    # proto says TCP. Without it, Nagle holds each response's body and each WebSocket frame until
    # the peer's delayed ACK, about 40 ms a round trip.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        sock.close()
        raise SystemExit(
            f"tabpilot: cannot listen on {settings.host}:{settings.port} ({exc.strerror}). Is "
            "another daemon running? Choose another port with --port or TABPILOT_PORT."
        ) from exc
    sock.listen(2048)
    return sock


def make_server(
    settings: Settings, app: FastAPI | None = None, *, log_level: str = "info"
) -> uvicorn.Server:
    """A uvicorn server for the daemon, configured the one way tabpilot runs it."""
    config = uvicorn.Config(
        app or create_app(settings),
        # httptools (uvicorn's "auto" choice), answering unparsable requests in the envelope.
        http=HTTP_PROTOCOL,
        ws_max_size=settings.ws_max_size,
        # uvicorn's WebSocket protocol, with frames on /ws/calls held to the routes' body limit
        # and a broken handshake answered in the envelope.
        ws=websocket_protocol(settings.max_body_bytes),
        # Chrome offers permessage-deflate and uvicorn accepts it by default: on loopback that is
        # pure cost, a compress in the extension and a decompress here for every frame, 10 MB
        # results included.
        ws_per_message_deflate=False,
        lifespan="on",
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=5,
        # Callers on loopback (`tabpilot mcp`, scripts) keep one connection and call every few
        # seconds; uvicorn's 5 s default would make most of those calls connect anew.
        timeout_keep_alive=KEEP_ALIVE_S,
        log_level=log_level,
        access_log=settings.access_log,
    )
    return uvicorn.Server(config)


def serve(settings: Settings) -> None:
    """Run the daemon until interrupted. Binds 127.0.0.1 only (SystemExit otherwise)."""
    if settings.managed_browser:
        # Say it in one line before anything starts, not as a traceback from the lifespan.
        try:
            find_chromium(settings.chromium_path)
        except BrowserError as exc:
            raise SystemExit(f"tabpilot: {exc.message}") from None
    # tabpilot's own lines (an extension connects or leaves) at INFO, beside uvicorn's; the MCP
    # SDK's per-request lines only when something is wrong.
    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(name)s: %(message)s")
    logging.getLogger("mcp").setLevel(logging.WARNING)
    sock = bind_socket(settings)
    # Listening before the lifespan runs, so a managed browser started from it finds the port.
    app = create_app(settings)
    server = make_server(settings, app)
    app.state.stop = lambda: setattr(server, "should_exit", True)
    server.run(sockets=[sock])
    if not server.started:
        # The lifespan failed (the managed Chromium would not start, say) and uvicorn logged why.
        raise SystemExit(1)
