"""What /status, ``/ws/calls``' status and MCP's pilot_status answer: the daemon, the default
context's extension and its switch, the managed browser, and the contexts."""

from __future__ import annotations

from typing import Any

from tabpilot.browsers.bridge import Bridge
from tabpilot.browsers.contexts import Contexts, Scope
from tabpilot.browsers.managed import ManagedBrowser
from tabpilot.config import Settings
from tabpilot.errors import TabpilotError
from tabpilot.protocol import PROTOCOL_VERSION


def extension_info(bridge: Bridge) -> dict[str, Any]:
    """The extension as /status shows it; the last one seen when none is connected."""
    link, connected = bridge.seen_link
    if link is None:
        return {
            "connected": False,
            "version": None,
            "id": None,
            "pilot_enabled": None,
            "connected_at": None,
        }
    return {
        "connected": connected,
        "version": link.hello.extension_version,
        "id": link.extension_id,
        "pilot_enabled": link.pilot_enabled,
        "connected_at": link.connected_at.isoformat(),
    }


class StatusReport:
    """The daemon's status, for a caller's view of the contexts (``scope``)."""

    def __init__(self, contexts: Contexts, settings: Settings) -> None:
        self._contexts = contexts
        self._settings = settings
        #: The managed browser of the default context, once the daemon started it.
        self.browser: ManagedBrowser | None = None

    def __call__(self, scope: Scope | None = None) -> dict[str, Any]:
        contexts, bridge, browser = self._contexts, self._contexts.primary, self.browser
        try:
            current = scope.current() if scope is not None else None
        except TabpilotError:  # a call that names a context there is none of: status still answers
            current = None
        return {
            "daemon_version": self._settings.version,
            "protocol_version": PROTOCOL_VERSION,
            "extension": extension_info(bridge),
            "in_flight": bridge.in_flight,
            "browser": (
                {**browser.info(), "ready": not bridge.first_page_pending}
                if browser is not None
                else None
            ),
            "default_context": contexts.default_name,
            "active_context": current.name if current is not None else contexts.default_name,
            "contexts": contexts.summaries(),
        }
