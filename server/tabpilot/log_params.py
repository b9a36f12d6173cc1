"""The params of the log tools, browser_console_messages and browser_network_requests: what a
tab's console printed and what it fetched, kept in the extension's worker (docs/protocol.md,
"Page tools")."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from tabpilot.page_params import TAB_ID_DESCRIPTION
from tabpilot.params import Params

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
        description="Only urls holding this text; with `*` a pattern the whole url must match "
        "(`*/api/*`).",
    )
    type: RequestType | None = Field(
        default=None,
        description="Only this kind: document, script, stylesheet, image, font, media, xhr "
        "(fetch and XMLHttpRequest), websocket, ping, csp_report, object, other.",
    )
    status: str | None = Field(
        default=None,
        pattern=r"^(failed|[1-5]xx|[1-5]\d\d)$",
        description='Only "failed" requests (no answer: DNS, refused...), a class such as "4xx", '
        'or one status such as "404".',
    )
    include_static: bool = Field(
        default=False,
        description="Also successful images, fonts, stylesheets and media, hidden by default "
        "(and counted).",
    )
    include_body: int | None = Field(
        default=None,
        ge=1,
        description="One request, by its # (its `seq`), with its response body: fetch and XHR "
        "only, cut at 64 KiB.",
    )
