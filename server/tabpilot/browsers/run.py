"""The one way a tool call runs in the daemon, whatever face it came by: the tool's handler (or its
extension command as is) in the caller's context, and the large-output guard as the call asked."""

from __future__ import annotations

from tabpilot.browsers.contexts import Scope
from tabpilot.guard import Ask
from tabpilot.guard.preview import preview
from tabpilot.guard.store import STORE
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import Params
from tabpilot.tools.tool import Tool


async def call(tool: Tool, scope: Scope, params: Params, request_id: str) -> ResultFrame:
    """Run ``tool`` for ``params`` in the caller's context (``scope``): the extension's ok answer,
    or the daemon's own; or raises."""
    if tool.handle is not None:
        return await tool.handle(scope, params, request_id)
    assert tool.command is not None, f"{tool.name} has neither a handler nor a command"
    bridge = scope.bridge(params)
    return await bridge.command(tool.command, params, request_id, tool.timeout(params))


async def run(
    tool: Tool, scope: Scope, params: Params | None, ask: Ask, request_id: str
) -> ResultFrame:
    """The tool's answer, in the caller's context (``scope``), as ``ask`` wants it: whole,
    previewed, or taken from the store. A kept answer is the caller's own (``scope.caller``)."""
    if ask.token is not None:
        return STORE.take(scope.caller, tool.name, ask.token, request_id)
    assert params is not None
    answer = await call(tool, scope, params, request_id)
    if ask.limit is None or not answer.ok:
        return answer
    return preview(tool, answer, ask.limit, scope.caller)
