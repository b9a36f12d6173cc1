"""An HTTP client of the daemon, for `tabpilot mcp`: every call answers one envelope.

The daemon's own answers pass through as they are. When the daemon cannot answer (not running,
stopped mid-call, something else on its port) the client builds the failure envelope itself with
``daemon_unreachable``, so a caller always gets one envelope in bounded time and never an
exception or a hang.
"""

from __future__ import annotations

import json
import socket
from types import TracebackType
from typing import Any

import httpx

from tabpilot.config import Settings, client_headers
from tabpilot.envelope import failure_body
from tabpilot.errors import START_DAEMON, DaemonUnreachable
from tabpilot.protocol import ExecuteParams
from tabpilot.security import new_request_id

#: Seconds a call waits beyond the script's own timeout: the daemon answers at timeout_ms plus
#: its timeout grace, after at most its connect grace, so its own answer always comes first.
CLIENT_SLACK_S = 10.0
#: For calls that run no script (/status, /tabs).
SHORT_TIMEOUT_S = 15.0


class DaemonClient:
    """One keep-alive HTTP connection pool to the daemon on 127.0.0.1, shared by every call."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # TCP_NODELAY: httpx sends a request's headers and body in two writes, and without it
        # Nagle holds the body until the daemon's delayed ACK, about 40 ms a call.
        transport = httpx.AsyncHTTPTransport(
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        )
        # trust_env=False: an HTTP(S)_PROXY of the user's shell must not route loopback calls.
        self._http = httpx.AsyncClient(
            base_url=settings.base_url,
            transport=transport,
            trust_env=False,
            # The token (serve --token, TABPILOT_TOKEN or the token file), read by itself.
            headers=client_headers(settings),
            timeout=SHORT_TIMEOUT_S,
        )

    async def __aenter__(self) -> DaemonClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def execute(self, params: ExecuteParams) -> dict[str, Any]:
        """POST /execute_javascript; the envelope."""
        return await self.request(
            "POST",
            "/execute_javascript",
            content=params.model_dump_json(),
            timeout=params.timeout_ms / 1000 + CLIENT_SLACK_S,
        )

    async def list_tabs(self) -> dict[str, Any]:
        """GET /tabs; the envelope."""
        return await self.request("GET", "/tabs")

    async def status(self) -> dict[str, Any]:
        """GET /status; the envelope."""
        return await self.request("GET", "/status")

    async def request(
        self,
        method: str,
        path: str,
        *,
        content: str | None = None,
        timeout: float = SHORT_TIMEOUT_S,
    ) -> dict[str, Any]:
        """One call to the daemon: its envelope, or a ``daemon_unreachable`` failure envelope."""
        where = f"{self.settings.host}:{self.settings.port}"
        try:
            response = await self._http.request(
                method,
                path,
                content=content,
                headers={"content-type": "application/json"} if content is not None else None,
                timeout=timeout,
            )
        except httpx.ConnectError:
            return _unreachable(f"The tabpilot daemon is not running on {where}. {START_DAEMON}")
        except httpx.TimeoutException:
            return _unreachable(
                f"The tabpilot daemon on {where} did not answer {path} within {timeout:g} s. "
                "Check that it is still running (`tabpilot status`), then retry."
            )
        except httpx.HTTPError as exc:
            # The daemon went away with the call in flight: a script may have run, so say so.
            return _unreachable(
                f"The connection to the tabpilot daemon on {where} broke during {path} "
                f"({type(exc).__name__}); it was probably stopped. A script sent may have run: "
                "check the page before retrying, once the daemon is back."
            )
        try:
            body = json.loads(response.content)
        except ValueError:
            body = None
        if not isinstance(body, dict) or "success" not in body or "request_id" not in body:
            return _unreachable(
                f"Something answered on {where} (HTTP {response.status_code}), but it is not a "
                "tabpilot daemon. Start tabpilot on another port with `tabpilot serve --port N` "
                "and point this client at it (--port or TABPILOT_PORT)."
            )
        return body


def _unreachable(message: str) -> dict[str, Any]:
    return failure_body(new_request_id(), DaemonUnreachable(message))
