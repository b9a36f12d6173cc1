"""The params of the log tools, browser_console_messages and browser_network_requests: what a
tab's console printed and what it fetched, kept in the extension's worker (docs/protocol.md,
"Page tools")."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from tabpilot.tools.fields import Params
from tabpilot.tools.page import TAB_ID_DESCRIPTION

#: Entries each tab keeps per log; older ones are evicted, and answers count them.
LOG_CAPACITY = 1000


class LogParams(Params):
    """What both logs take: which tab, what is new, how many, which pages, and clearing."""

    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    since: int = Field(
        default=0,
        ge=0,
        description="After this seq: the last answer's `since`.",
    )
    limit: int = Field(
        default=50,
        ge=0,
        le=LOG_CAPACITY,
        description="The newest this many.",
    )
    all_pages: bool = Field(
        default=False,
        description="Earlier pages too.",
    )
    clear: bool = Field(default=False, description="Empty the log after.")


class ConsoleParams(LogParams):
    """The tab's console messages, uncaught errors and CSP violations, newest last."""

    example: ClassVar[str] = '{"level": "error"}'

    level: Literal["error", "warning", "info", "debug"] = Field(
        default="info",
        description="The least severe level shown.",
    )


#: webRequest's resource types as browser_network_requests names them (fetch and XHR: "xhr").
RequestType = Literal[
    "document",
    "script",
    "stylesheet",
    "image",
    "font",
    "media",
    "xhr",
    "websocket",
    "ping",
    "csp_report",
    "object",
    "other",
]


class NetworkParams(LogParams):
    """The tab's requests since its page loaded, newest last; or one request with its body."""

    example: ClassVar[str] = '{"status": "failed"}'

    url: str | None = Field(
        default=None,
        max_length=2048,
        description="Text in the url, or a `*` pattern.",
    )
    type: RequestType | None = Field(
        default=None,
        description="xhr: fetch and XHR.",
    )
    status: str | None = Field(
        default=None,
        pattern=r"^(failed|[1-5]xx|[1-5]\d\d)$",
        description='"failed" (no answer, or >= 400), "4xx" or "404".',
    )
    include_static: bool = Field(
        default=False,
        description="Also images, fonts, css, media.",
    )
    include_body: int | None = Field(
        default=None,
        ge=1,
        description="One request's #: with its body.",
    )
