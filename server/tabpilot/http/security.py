"""Refuse what a web page could send us, and give every request an id.

A pure ASGI middleware, because ``@app.middleware("http")`` never sees WebSocket handshakes and the
WebSocket is exactly what a hostile page would like to reach.

- Host must be 127.0.0.1, localhost or [::1], with or without a port: a DNS-rebinding page reaches
  127.0.0.1 under its own name, so its Host header gives it away.
- No web page may call the daemon. Browsers send ``Origin`` on every cross-origin request and on
  every POST, including the "simple" text/plain and form posts that skip CORS preflight, so an
  http(s) Origin (or the opaque ``null`` of a sandboxed frame or a data: page) is refused.
- Browsers also mark each request with Fetch Metadata. A no-cors GET (an ``<img>`` or
  ``<script src>`` pointed at /tabs) carries no ``Origin``, but its ``Sec-Fetch-Site`` says
  ``cross-site`` or ``same-site``: refused too, so a page cannot even make the daemon act unseen.
- Of extensions, only tabpilot's own (its id is fixed by the manifest key) may call or hold the
  WebSocket: another installed extension must not receive the scripts meant for the page, nor
  answer them.
- The callers' socket (``/ws/calls``) is for programs, never for a browser: a handshake with any
  Origin at all is refused there, since browsers send one on every WebSocket handshake.
- With a token set (``Settings.token``), every route that reads or drives the browser needs
  ``Authorization: Bearer <token>``, the callers' socket's handshake included; the extension
  carries it in its ``hello`` frame, which the bridge checks, since a browser cannot put headers
  on a WebSocket. Tokens are compared with
  :func:`hmac.compare_digest`, whose time does not depend on where the strings differ.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tabpilot.envelope import REQUEST_ID_HEADER, dumps, failure_body
from tabpilot.errors import ForbiddenHost, ForbiddenOrigin, TabpilotError, Unauthorized
from tabpilot.ids import EXTENSION_ORIGIN_PREFIX, new_request_id, token_matches
from tabpilot.protocol import CALLS_PATH

log = logging.getLogger(__name__)

ALLOWED_HOSTNAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
#: tabpilot's extension id, fixed by the "key" in extension/manifest.json.
EXTENSION_ID = "mmgjobhjaeaocmcbdnjglfiobpnpkdpf"
EXTENSION_ORIGIN = EXTENSION_ORIGIN_PREFIX + EXTENSION_ID
#: Routes that tell nothing about the browser stay open without the token: liveness, the
#: landing page (the managed browser's first tab) and the API's own description.
OPEN_PATHS = frozenset({"/health", "/", "/docs", "/docs/oauth2-redirect", "/openapi.json"})
_HOST_RE = re.compile(r"^(?P<name>\[[^\]]*\]|[^:\[\]]*)(?::(?P<port>\d{1,5}))?$")
_HEADER_NAME = REQUEST_ID_HEADER.lower().encode()


def host_allowed(host: str | None) -> bool:
    """Whether a Host header names the loopback interface (any port, or none)."""
    if not host:
        return False
    match = _HOST_RE.match(host.strip().lower())
    return match is not None and match["name"] in ALLOWED_HOSTNAMES


def origin_refused(origin: str | None, *, websocket: bool, caller_socket: bool = False) -> bool:
    """Whether a request with this Origin comes from somewhere the daemon must not serve."""
    if caller_socket:
        # The callers' socket is for programs; any Origin, the extension's too, is a browser's.
        return origin is not None
    if origin is None:
        # curl, scripts, the CLI: no browser, no Origin. Chrome always sends its Origin on a
        # WebSocket handshake, so a socket without one is some other client.
        return websocket
    return origin.lower().rstrip("/") != EXTENSION_ORIGIN


def fetch_site_refused(sec_fetch_site: str | None, origin: str | None) -> bool:
    """Whether Fetch Metadata says a web page on another origin made the request.

    ``none`` (typed in the address bar) and ``same-origin`` (the /docs page) are the daemon's
    own; tabpilot's extension is let through whatever its requests are marked.
    """
    if (origin or "").lower().rstrip("/") == EXTENSION_ORIGIN:
        return False
    return (sec_fetch_site or "").strip().lower() in ("cross-site", "same-site")


def landing_navigation(scope: Scope) -> bool:
    """Whether the request is a tab navigating, top level, to the landing page ``/``.

    Chrome marks a navigation an extension starts (``chrome.tabs.update``: the managed browser's
    first page, browser_navigate) ``Sec-Fetch-Site: cross-site``, as it does a link on another
    site. The landing page is static and changes nothing, and a page that sends a tab there
    cannot read it; so such a navigation is served, while every other request of a page, to
    ``/`` as well, is refused.
    """
    return (
        scope["type"] == "http"
        and scope.get("method") in ("GET", "HEAD")
        and scope.get("path") == "/"
        and (_header(scope, b"sec-fetch-mode") or "").lower() == "navigate"
        and (_header(scope, b"sec-fetch-dest") or "").lower() == "document"
    )


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    scheme, _, value = (authorization or "").strip().partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


class SecurityMiddleware:
    """Host and Origin checks for HTTP and WebSocket, and an X-Request-ID on every response."""

    def __init__(self, app: ASGIApp, token: str | None = None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path.endswith("/") and path != "/":
            # /execute_javascript/ is /execute_javascript, for the checks below as for the router
            # (rather than Starlette's empty 307 to the slashless path, which most clients do not
            # follow with the body of a POST).
            scope = _without_trailing_slash(scope)
        request_id = new_request_id()
        # Starlette's request.state reads scope["state"]; uvicorn puts the lifespan state there.
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id
        is_ws = scope["type"] == "websocket"
        caller_socket = is_ws and scope.get("path") == CALLS_PATH
        origin = _header(scope, b"origin")

        error: TabpilotError | None = None
        if not host_allowed(_header(scope, b"host")):
            error = ForbiddenHost()
        elif origin_refused(origin, websocket=is_ws, caller_socket=caller_socket) or (
            fetch_site_refused(_header(scope, b"sec-fetch-site"), origin)
            and not landing_navigation(scope)
        ):
            error = ForbiddenOrigin(_socket_refusal(caller_socket) if is_ws else None)
        elif (
            (not is_ws or caller_socket)
            and scope.get("path") not in OPEN_PATHS
            and not token_matches(bearer_token(_header(scope, b"authorization")), self.token)
        ):
            error = Unauthorized()
        if error is not None:
            log.warning(
                "refused %s %s: %s (host=%r origin=%r sec-fetch-site=%r)",
                scope["type"],
                scope.get("path"),
                error.code,
                _header(scope, b"host"),
                origin,
                _header(scope, b"sec-fetch-site"),
            )
            await _refuse(scope, receive, send, request_id, error)
            return

        if is_ws:
            await self.app(scope, receive, send)
            return

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k != _HEADER_NAME]
                headers.append((_HEADER_NAME, request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_id)


def _without_trailing_slash(scope: Scope) -> Scope:
    path = scope["path"].rstrip("/") or "/"
    raw_path = bytes(scope.get("raw_path") or b"").rstrip(b"/") or b"/"
    return {**scope, "path": path, "raw_path": raw_path}


def _socket_refusal(caller_socket: bool) -> str:
    if caller_socket:
        return (
            f"{CALLS_PATH} is for programs on this machine, not for web pages or extensions. "
            "Call the daemon from curl, a script, the tabpilot CLI or MCP."
        )
    return f"Only the tabpilot extension ({EXTENSION_ORIGIN}) may open the WebSocket."


async def _refuse(
    scope: Scope, receive: Receive, send: Send, request_id: str, error: TabpilotError
) -> None:
    body = dumps(failure_body(request_id, error))
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (_HEADER_NAME, request_id.encode()),
    ]
    if error.status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": error.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    # A WebSocket handshake: answer it with a plain HTTP response where the server supports the
    # ASGI denial-response extension (uvicorn does), else a close before accept, which servers
    # turn into HTTP 403.
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if "websocket.http.response" in scope.get("extensions", {}):
        await send(
            {"type": "websocket.http.response.start", "status": error.status, "headers": headers}
        )
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})
