"""What a client answers when no daemon does: a ``daemon_unreachable`` failure envelope, in the
same words from every client (the CLI, ``tabpilot mcp``, ``tabpilot.Client``)."""

from __future__ import annotations

from typing import Any

from tabpilot.envelope import failure_body
from tabpilot.errors import START_DAEMON, DaemonUnreachable
from tabpilot.ids import new_request_id


def is_envelope(body: Any) -> bool:
    return isinstance(body, dict) and "success" in body and "request_id" in body


def not_running(where: str) -> dict[str, Any]:
    return unreachable(f"The tabpilot daemon is not running on {where}. {START_DAEMON}")


def no_answer(where: str, path: str, timeout: float) -> dict[str, Any]:
    return unreachable(
        f"The tabpilot daemon on {where} did not answer {path} within {timeout:g} s. "
        "Check that it is still running (`tabpilot status`), then retry."
    )


def broke(where: str, during: str) -> dict[str, Any]:
    # The daemon went away with the call in flight: a script may have run, so say so.
    return unreachable(
        f"The connection to the tabpilot daemon on {where} broke during {during}; it was "
        "probably stopped. A script sent may have run: check the page before retrying, once the "
        "daemon is back."
    )


def not_tabpilot(where: str, status: str) -> dict[str, Any]:
    return unreachable(
        f"Something answered on {where} ({status}), but it is not a tabpilot daemon. Start "
        "tabpilot on another port with `tabpilot serve --port N` and point this client at it "
        "(--port or TABPILOT_PORT)."
    )


def unreachable(message: str) -> dict[str, Any]:
    return failure_body(new_request_id(), DaemonUnreachable(message))
