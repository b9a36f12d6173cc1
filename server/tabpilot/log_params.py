"""The params of the log tools, browser_console_messages and browser_network_requests: what a
tab's console printed and what it fetched, kept in the extension's worker (docs/protocol.md,
"Page tools")."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from tabpilot.page_params import TAB_ID_DESCRIPTION
from tabpilot.protocol import Params

#: Entries each tab keeps per log; older ones are evicted, and answers count them.
LOG_CAPACITY = 1000


class LogParams(Params):
    """What both logs take: which tab, what is new, how many, which pages, and clearing."""

    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    since: int = Field(
        default=0,
        ge=0,
        description="Only entries after this sequence number: the `since` of the last answer "
        "gives what is new since then.",
    )
    limit: int = Field(
        default=50,
        ge=0,
        le=LOG_CAPACITY,
        description="The newest this many entries that match; the answer states how many matched.",
    )
    all_pages: bool = Field(
        default=False,
        description="Entries of earlier pages too (a navigation starts a new page); "
        "by default the current page only.",
    )
    clear: bool = Field(default=False, description="Answer, then empty the tab's log.")


class ConsoleParams(LogParams):
    """The tab's console messages, uncaught errors and CSP violations, newest last."""

    example: ClassVar[str] = '{"level": "error"}'

    level: Literal["error", "warning", "info", "debug"] = Field(
        default="info",
        description="The least severe level to show: error, warning, info (console.log counts "
        "as info) or debug (everything).",
    )
