"""Unknown MCP arguments reach tabpilot, which refuses them as HTTP does.

The SDK builds each tool's argument model from its signature and drops any argument the model
does not name, so a ``tabId`` sent for ``tab_id`` would act in the active tab without a word. A
registered tool's model is swapped for one that keeps the rest under :data:`UNKNOWN`, and the
tool hands them to the params model, which is strict (``extra="forbid"``) on every face.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver.tools import Tool as SdkTool
from pydantic import ConfigDict

from tabpilot.errors import InvalidRequest

__all__ = ["UNKNOWN", "keep_unknown", "refuse_unknown"]

#: The keyword the SDK hands a tool its unknown arguments under, all in one dict: no argument a
#: client sends can take its place (a client's own ``unknown_arguments`` lands inside it).
UNKNOWN = "unknown_arguments"


def keep_unknown(registered: SdkTool) -> None:
    """Make the SDK pass ``registered`` the arguments its signature does not name."""
    base = registered.fn_metadata.arg_model

    class Arguments(base):  # type: ignore[valid-type, misc]
        model_config = ConfigDict(arbitrary_types_allowed=True, extra="allow")

        def model_dump_one_level(self) -> dict[str, Any]:
            named = super().model_dump_one_level()
            return {**named, UNKNOWN: dict(self.model_extra or {})}

    Arguments.__name__ = base.__name__
    registered.fn_metadata.arg_model = Arguments


def refuse_unknown(tool: str, unknown: dict[str, Any]) -> None:
    """An InvalidRequest naming each argument sent to a tool that takes none."""
    if unknown:
        names = ", ".join(f"`{name}`" for name in unknown)
        raise InvalidRequest(f"Invalid arguments: {names}: {tool} takes no arguments.")
