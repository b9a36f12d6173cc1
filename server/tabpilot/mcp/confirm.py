"""How an MCP call asks the large-output guard (:mod:`tabpilot.guard`): always guarded, at the
tool's limit, unless it sends a cut answer's ``confirm_token`` alone."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from pydantic import WithJsonSchema

from tabpilot.errors import InvalidRequest
from tabpilot.guard import ALONE, DEFAULT_LIMIT, LIMITS, Ask, ask_of
from tabpilot.mcp.schema import TOKEN_SCHEMA
from tabpilot.tools.fields import Params
from tabpilot.tools.tool import Tool


def mcp_ask(tool: Tool, arguments: dict[str, Any]) -> Ask:
    """An MCP call's Ask: always guarded; pops ``confirm_token``, which must come alone."""
    token = arguments.pop("confirm_token", None)
    if token is None:
        return Ask(limit=LIMITS.get(tool.name, DEFAULT_LIMIT))
    if given(arguments, tool.params):
        raise InvalidRequest(ALONE)
    return ask_of(token=token)


#: The MCP tools' own parameter: the token of a cut answer (its schema kept to a few words).
MCP_PARAMETER = inspect.Parameter(
    "confirm_token",
    inspect.Parameter.KEYWORD_ONLY,
    annotation=Annotated[str | None, WithJsonSchema(TOKEN_SCHEMA)],
    default=None,
)


def given(arguments: dict[str, Any], model: type[Params]) -> dict[str, Any]:
    """The arguments an MCP client sent: the SDK hands the defaults of the others too."""
    fields = model.model_fields

    def default(name: str) -> Any:
        return None if fields[name].is_required() else fields[name].default

    return {
        name: value
        for name, value in arguments.items()
        if name not in fields or value != default(name)
    }
