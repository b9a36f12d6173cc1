"""What the model reads when a member cannot do what it asked: the SDK's ToolError, worded by
tabpilot (its error code and message, which name the next step)."""

from __future__ import annotations

from typing import Any

from anthropic.tools import TabMissingError, ToolError


def refuse(message: str) -> ToolError:
    """A refusal the driver words itself."""
    return ToolError(message)


def failure(envelope: dict[str, Any]) -> ToolError:
    """A failed call's envelope as the model reads it: ``code: message``; a tab that is not open
    is the SDK's own TabMissingError."""
    error = envelope.get("error") or {}
    code = str(error.get("code") or "internal_error")
    if code == "tab_not_found":
        return TabMissingError()
    return ToolError(f"{code}: {error.get('message') or code}")
