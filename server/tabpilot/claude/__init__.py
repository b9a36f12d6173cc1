"""tabpilot.claude: Claude's browser toolset (``browser_toolset_20260801``) driven by tabpilot.

:class:`Browser` (and :class:`AsyncBrowser`, for ``AsyncAnthropic``) subclass the ``anthropic``
SDK's abstract browser toolsets and serve every member on tabpilot's tools, over the Python
client: so Claude works in the browser tabpilot drives, a person's own Chrome under their AI Web
Pilot switch, or the managed Chromium of ``tabpilot serve --browser``. See docs/claude.md.

It needs the SDK: ``pip install 'tabpilot[claude]'``. The modules, one concern each: ``drivers``
(the two classes), ``members`` (each member as tool calls), ``state`` (the active tab, the
browser state and the url policy on navigations a page starts), ``find`` (the find member's
heuristic), ``keys`` (key names), ``errors`` (what the model reads when a call fails).
"""

from __future__ import annotations

try:
    from anthropic.tools import BetaAbstractBrowserToolset20260801  # noqa: F401
except ImportError as error:  # pragma: no cover - checked in a fresh interpreter by a test
    raise ImportError(
        "tabpilot.claude needs the anthropic SDK (2.14 or later): pip install 'tabpilot[claude]'"
    ) from error

from tabpilot.claude.drivers import AsyncBrowser, Browser

__all__ = ["AsyncBrowser", "Browser"]
