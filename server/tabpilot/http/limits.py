"""How much of a caller's input the daemon reads: request bodies, whatever their transfer encoding.

A body is read up to ``Settings.max_body_bytes`` and no further. A ``Content-Length`` past it is
refused before a byte is read; a chunked body (which announces no length) is refused as soon as
what arrived passes the limit. Either way the caller gets ``script_too_large`` (413), and the
daemon holds at most the limit in memory: uvicorn throws away the rest of a refused body as it
arrives, so the connection stays usable and a client that writes its whole body before it reads
the answer still gets it.
"""

from __future__ import annotations

from starlette.requests import ClientDisconnect, Request
from starlette.types import Message, Receive, Scope, Send

from tabpilot.config import Settings
from tabpilot.errors import ScriptTooLarge
from tabpilot.http.render import render_error
from tabpilot.ids import new_request_id


def body_too_large(settings: Settings, what: str = "request body") -> ScriptTooLarge:
    """The refusal of a body or frame past ``settings.max_body_bytes``."""
    return ScriptTooLarge(
        f"The {what} is larger than {settings.max_body_bytes:,} bytes, more than a script of at "
        f"most {settings.max_script_bytes:,} bytes needs, so the daemon stopped reading it. Send "
        "a shorter script (load big code from the page with fetch), or raise the limit with "
        "TABPILOT_MAX_SCRIPT_BYTES."
    )


async def read_body(request: Request, settings: Settings) -> bytes:
    """The whole body of ``request``; raises ScriptTooLarge past ``settings.max_body_bytes``."""
    limit = settings.max_body_bytes
    if int(request.headers.get("content-length") or 0) > limit:
        raise body_too_large(settings)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise body_too_large(settings)
        chunks.append(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def bounded_request(
    scope: Scope, receive: Receive, send: Send, settings: Settings
) -> Receive | None:
    """A ``receive`` that replays the body of an HTTP POST, read here within the limit.

    For an ASGI app of someone else's that reads its body whole (the MCP SDK's ``/mcp``). Past
    the limit this answers ``script_too_large`` itself, in the envelope, and returns None: the
    app must not run.
    """
    if scope["type"] != "http" or scope.get("method") != "POST":
        return receive
    try:
        body = await read_body(Request(scope, receive), settings)
    except ClientDisconnect:  # gone before its body came: nobody to answer
        return None
    except ScriptTooLarge as error:
        request_id = str((scope.get("state") or {}).get("request_id") or new_request_id())
        await render_error(request_id, error)(scope, receive, send)
        return None
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if replayed:
            return await receive()  # the disconnect, when the app waits for it
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
