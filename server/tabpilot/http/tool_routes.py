"""The HTTP face of the tools: ``POST /<tool name>`` for every tool of :data:`tabpilot.tools.TOOLS`,
each documented in the OpenAPI with its body's schema; and the helpers every route uses to read
its body and to say which failures it can answer.
"""

from __future__ import annotations

import time
from typing import Any, TypeVar

from fastapi import FastAPI, Request, WebSocket
from pydantic import BaseModel
from starlette.responses import Response

from tabpilot import guard
from tabpilot.browsers.contexts import Contexts, Scope
from tabpilot.browsers.run import run
from tabpilot.envelope import (
    REQUEST_ID_HEADER,
    FailureEnvelope,
    SuccessEnvelope,
    answer_body,
)
from tabpilot.errors import InvalidRequest, error_classes
from tabpilot.http.limits import read_body
from tabpilot.http.render import OPENAPI_IMAGES, raw_response, render
from tabpilot.ids import new_request_id
from tabpilot.tools import TOOLS, Tool
from tabpilot.tools.fields import Params, describe_invalid

P = TypeVar("P", bound=Params)

#: The failure statuses a tool's route can answer.
TOOL_STATUSES = (400, 401, 403, 404, 409, 410, 413, 429, 502, 503, 504)


def body_schema(model: type[BaseModel], *, required: bool) -> dict[str, Any]:
    """OpenAPI ``openapi_extra=`` for a route whose body is ``model``."""
    # Bodies are read by read_params (any content type), so FastAPI is told their schema here.
    schema = {"application/json": {"schema": model.model_json_schema()}}
    return {"requestBody": {"required": required, "content": schema}}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` for the failure statuses a route can answer, with their codes."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        codes = ", ".join(f"`{c.code}`" for c in error_classes() if c.status == status)
        out[status] = {"model": FailureEnvelope, "description": codes}
    return out


def request_id_of(request: Request | WebSocket) -> str:
    """The request id the SecurityMiddleware gave this request."""
    state = request.scope.get("state") or {}
    return str(state.get("request_id") or new_request_id())


async def read_params(request: Request, model: type[P], *, empty: str | None = None) -> P:
    """The body of a POST route as ``model``; ``empty`` is what a missing body stands for.

    Parsed as JSON whatever its Content-Type, so that a bare ``curl -d '{...}'`` (sent as a form)
    works too. That is safe: browsers are kept out by the Origin check, not by the content type.
    """
    return model.parse(await read_raw(request, model, empty=empty))


async def read_raw(request: Request, model: type[Params], *, empty: str | None = None) -> bytes:
    """The body of a POST route as read_params reads it, not yet parsed."""
    body = await read_body(request, request.app.state.settings)
    if not body.strip():
        if empty is None:
            raise InvalidRequest(describe_invalid([{"type": "missing", "loc": ()}], model))
        body = empty.encode()
    return body


#: The query parameter that names a request's context (tabpilot.browsers.contexts).
CONTEXT_PARAMETER = {
    "name": "context",
    "in": "query",
    "required": False,
    "schema": {"type": "string"},
    "description": "The context to run in (browser_context_list names them); the default "
    "context without it. A `tab_id` says its own context.",
}


def scope_of(request: Request | WebSocket, contexts: Contexts) -> Scope:
    """An HTTP request's view of the contexts: the one its ``?context=`` names, if any. Its caller
    is HTTP in that context: a request carries nothing else of who sent it (Scope)."""
    named = request.query_params.get("context") or None
    return Scope(contexts, named=named, caller=("http", named))


def add_tool_routes(app: FastAPI, contexts: Contexts) -> None:
    """``POST /<name>`` for every tool."""
    for tool in TOOLS.values():
        # A tool that negotiates answers its raw image too, with Accept: image/png or image/jpeg.
        images = {"content": OPENAPI_IMAGES} if tool.http.negotiate is not None else {}
        app.post(
            f"/{tool.name}",
            name=tool.name,
            summary=tool.title,
            description=tool.description,
            response_model=SuccessEnvelope,
            openapi_extra={
                **body_schema(tool.params, required=tool.http.empty_body is None),
                "parameters": [CONTEXT_PARAMETER],
            },
            responses={
                200: {
                    "description": "The tool answered. A script that threw answers here too, "
                    "with `success` false and `execution_error`, `syntax_error` or "
                    "`promise_rejected`.",
                    **images,
                },
                **responses(*TOOL_STATUSES),
            },
        )(_endpoint(tool, contexts))


def _endpoint(tool: Tool, contexts: Contexts) -> Any:
    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        request_id = request_id_of(request)
        ask, params = guard.split(
            tool, await read_raw(request, tool.params, empty=tool.http.empty_body)
        )
        raw = None
        if tool.http.negotiate is not None and params is not None:
            params, raw = tool.http.negotiate(request.headers.get("accept", ""), params)
        answer = await run(tool, scope_of(request, contexts), params, ask, request_id)
        if raw is not None:
            return raw_response(answer, request_id, REQUEST_ID_HEADER)
        return render(answer_body(request_id, answer, started))

    return endpoint
