"""tabpilot: run JavaScript in a real Chrome tab, gated by a human-held switch.

``tabpilot.Client`` and ``tabpilot.AsyncClient`` call the running daemon from Python; any failure
raises ``tabpilot.ClientError`` (a ``tabpilot.TabpilotError``) with its ``code`` and ``message``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["AsyncClient", "Client", "ClientError", "Preview", "TabpilotError", "__version__"]

if TYPE_CHECKING:
    from tabpilot.client import AsyncClient, Client, ClientError, Preview
    from tabpilot.errors import TabpilotError


def __getattr__(name: str) -> Any:
    # Imported on first use: the daemon, the CLI and `tabpilot mcp` import this package for
    # __version__ alone, and need not load the client's WebSocket library for it.
    if name in ("AsyncClient", "Client", "ClientError", "Preview"):
        from tabpilot import client

        return getattr(client, name)
    if name == "TabpilotError":
        from tabpilot.errors import TabpilotError

        return TabpilotError
    raise AttributeError(f"module 'tabpilot' has no attribute {name!r}")
