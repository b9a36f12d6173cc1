"""The daemon's own routes beside the tools': /ping, /status, /tabs, /health, the landing page, the
extension's socket /ws and the callers' socket /ws/calls; in the order the OpenAPI lists them."""

from __future__ import annotations

import time

from fastapi import FastAPI, Request, WebSocket
from starlette.responses import HTMLResponse, Response

from tabpilot.browsers.contexts import Contexts
from tabpilot.browsers.status import StatusReport
from tabpilot.config import Settings
from tabpilot.envelope import SuccessEnvelope, answer_body
from tabpilot.http.calls import CallsSocket
from tabpilot.http.render import render, render_success
from tabpilot.http.tool_routes import (
    CONTEXT_PARAMETER,
    add_tool_routes,
    body_schema,
    read_params,
    request_id_of,
    responses,
    scope_of,
)
from tabpilot.protocol import CALLS_PATH
from tabpilot.tools.fields import PingParams

LANDING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tabpilot</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto">
<h1>tabpilot daemon is running</h1>
<p>Agents, scripts and curl run JavaScript in this browser through the daemon.
See the API at <a href="/docs">/docs</a>.</p>
<pre>curl -s 127.0.0.1:{port}/execute_javascript -H 'content-type: application/json' \\
  -d '{{"script": "document.title"}}'</pre>
</body></html>
"""


def add_routes(
    app: FastAPI, contexts: Contexts, status_result: StatusReport, settings: Settings
) -> None:
    """Every route of the daemon but /mcp: /ping, each tool's ``POST /<name>``, then the rest."""

    @app.post(
        "/ping",
        response_model=SuccessEnvelope,
        openapi_extra=body_schema(PingParams, required=False),
        responses=responses(400, 403, 404, 409, 502, 503, 504),
    )
    async def ping(request: Request) -> Response:
        """Time the link without running anything: `to` is `worker`, `content` or `page`.

        The result is `"pong"`; `duration_ms` is the round trip from the daemon to that hop.
        """
        started = time.perf_counter()
        request_id = request_id_of(request)
        params = await read_params(request, PingParams, empty="{}")
        target = scope_of(request, contexts).bridge(params)
        return render(answer_body(request_id, await target.ping(params, request_id), started))

    add_tool_routes(app, contexts)

    @app.get("/status", response_model=SuccessEnvelope, responses=responses(401, 403))
    async def status(request: Request) -> Response:
        """Daemon and protocol versions, the default context's extension and its pilot switch,
        commands in flight, and the contexts."""
        return render_success(request_id_of(request), status_result())

    @app.get(
        "/tabs",
        response_model=SuccessEnvelope,
        responses=responses(401, 403, 404, 429, 502, 503, 504),
        openapi_extra={"parameters": [CONTEXT_PARAMETER]},
    )
    async def tabs(request: Request) -> Response:
        """The open tabs of a context (`?context=`, else the default one): id, url, title,
        active, window_id."""
        started = time.perf_counter()
        request_id = request_id_of(request)
        target = scope_of(request, contexts).bridge(None)
        return render(answer_body(request_id, await target.list_tabs(request_id), started))

    @app.get("/health", response_model=SuccessEnvelope)
    async def health(request: Request) -> Response:
        """Liveness: answers as long as the daemon runs."""
        return render_success(request_id_of(request), {"status": "ok"})

    @app.get("/", include_in_schema=False)
    async def landing() -> HTMLResponse:
        # A normal web page: the managed browser opens it as its first tab, and scripts may run
        # in it.
        return HTMLResponse(LANDING_PAGE.format(port=settings.port))

    @app.websocket("/ws")
    async def extension_socket(websocket: WebSocket) -> None:
        # Each browser's extension, on the bridge of the context its hello names.
        await contexts.serve_connection(websocket)

    @app.websocket(CALLS_PATH)
    async def calls_socket(websocket: WebSocket) -> None:
        # Programs' calls over one socket: the routes above, without an HTTP request each.
        await CallsSocket(websocket, contexts, status_result, settings).serve()
