"""The daemon's own backend for ``/mcp``: the tools run in its contexts, with no HTTP hop."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tabpilot import guard
from tabpilot.browsers.contexts import Contexts, Scope
from tabpilot.browsers.run import run
from tabpilot.envelope import envelope_of, success_body
from tabpilot.ids import new_request_id
from tabpilot.tools.fields import Params
from tabpilot.tools.tool import Tool

#: MCP sessions whose active context the daemon keeps; the least recently used goes first.
MAX_SCOPES = 256


class LocalBackend:
    """The daemon's own contexts, for ``/mcp``: no HTTP hop in between. Each MCP session has its
    own active context (browser_context_switch moves that session only); requests without a
    session (the 2026-07-28 revision) share one per client program, as the hints do."""

    def __init__(self, contexts: Contexts, status: Callable[[Scope], dict[str, Any]]) -> None:
        self._contexts = contexts
        self._status = status
        # By session key (tabpilot.mcp.hints.session_key), the most recently used last.
        self._scopes: OrderedDict[object, Scope] = OrderedDict()

    def _scope(self, session: object | None) -> Scope:
        # The session is the caller: a confirm_token it got answers it alone, even after its
        # scope was forgotten here and made again.
        scope = self._scopes.pop(session, None) or Scope(self._contexts, caller=("mcp", session))
        self._scopes[session] = scope
        while len(self._scopes) > MAX_SCOPES:
            self._scopes.popitem(last=False)
        return scope

    async def run_tool(
        self,
        tool: Tool,
        params: Params | None,
        ask: guard.Ask = guard.WHOLE,
        session: object | None = None,
    ) -> dict[str, Any]:
        scope = self._scope(session)
        return await envelope_of(
            new_request_id(),
            lambda request_id: run(tool, scope, params, ask, request_id),
            "an MCP tool call",
        )

    async def status(self, session: object | None = None) -> dict[str, Any]:
        return success_body(new_request_id(), self._status(self._scope(session)))
