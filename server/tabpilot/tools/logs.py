"""The log tools, browser_console_messages and browser_network_requests: what a tab's console
printed and what it fetched, kept in the extension's worker (docs/protocol.md, "Page tools").

Their answers read, for a model, as one header line of counts, then one short line per entry,
newest last. The entries' whole fields (stacks, timings, sizes) are in the result for programs;
the text is kept under :data:`TEXT_BUDGET` characters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import Field

from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, result_of
from tabpilot.tools.tool import ClientFace, CliFace, GuardRule, Tool, describe

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


# -- the text -----------------------------------------------------------------------------------

#: Each entry's text is cut to this many characters on its line (its first line only).
LINE_CHARS = 200
#: The lines of one answer stop here; the oldest are left out first, and the header says so.
TEXT_BUDGET = 3600


def one_line(text: str, limit: int = LINE_CHARS) -> str:
    """``text``'s first line, cut to ``limit`` characters; an ellipsis says what was cut."""
    first, _, rest = text.partition("\n")
    if len(first) > limit:
        return first[: limit - 1] + "…"
    return first + (" …" if rest.strip() else "")


def where(entry: dict[str, Any]) -> str:
    """`(app.js:12)`: the file of an entry's url, and its line, where known."""
    url = entry.get("url")
    if not isinstance(url, str) or not url:
        return ""
    name = url.split("?")[0].rstrip("/").rsplit("/", 1)[-1] or url
    line = entry.get("line")
    return f" ({name}:{line})" if isinstance(line, int) else f" ({name})"


def _page(result: dict[str, Any]) -> str:
    # By its number: the model has its url from the navigation (the structured result has it too).
    return f"page {(result.get('page') or {}).get('id')}"


def entry_lines(
    result: dict[str, Any], entries: list[dict[str, Any]], line: Callable[[dict[str, Any]], str]
) -> tuple[list[str], int]:
    """The entries' lines, newest kept first within the budget; and how many were left out.
    With entries of several pages, a `-- page N (url)` line opens each page's entries."""
    urls = {p.get("id"): p.get("url") for p in result.get("pages") or []}
    several = len(urls) > 1
    lines: list[str] = []
    used = 0
    left_out = 0
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index]
        text = line(entry)
        if used + len(text) + 1 > TEXT_BUDGET:
            left_out = index + 1
            break
        lines.append(text)
        used += len(text) + 1
        before = entries[index - 1].get("page") if index > 0 else None
        if several and entry.get("page") != before:
            page = entry.get("page")
            lines.append(f"-- page {page}" + (f" ({urls[page]})" if urls.get(page) else ""))
    lines.reverse()
    return lines, left_out


def _counts(result: dict[str, Any], noun: tuple[str, str], left_out: int) -> str:
    """`1 message at error+ on page 4 (15 in all); newer: since=15`: what matched (the newest
    shown, when not all), where, how many the log holds, and the cursor for what is new."""
    shown = int(result.get("shown") or 0) - left_out
    matched = int(result.get("matched") or 0)
    scope = "every page" if result.get("all_pages") else _page(result)
    count = f"{matched}" if shown == matched else f"the newest {shown} of {matched}"
    text = f"{count} {noun[0] if matched == 1 else noun[1]} on {scope}"
    extras = [f"{result.get('total', 0)} in all"]
    if result.get("evicted"):
        extras.append(f"{result['evicted']} evicted")
    if result.get("hidden"):
        extras.append(f"{result['hidden']} static hidden: include_static=true")
    if result.get("cleared") is not None:
        extras.append(f"log cleared ({result['cleared']} entries)")
    text += f" ({'; '.join(extras)})"
    if left_out:
        text += f"; the oldest {left_out} left out for length"
    return text + f"; newer: since={result.get('last_seq', 0)}"


def console_line(entry: dict[str, Any]) -> str:
    """`#12 error: Uncaught TypeError: x is undefined (app.js:3)`."""
    return f"#{entry.get('seq')} {entry.get('level')}: {one_line(str(entry.get('text', '')))}" + (
        where(entry)
    )


def console_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_console_messages: the counts, then one line per message."""
    result = result_of(envelope)
    messages = result.get("messages") or []
    lines, left_out = entry_lines(result, messages, console_line)
    level = result.get("level", "info")
    header = _counts(result, (f"message at {level}+", f"messages at {level}+"), left_out)
    return "\n".join([header, *lines])


#: A request's url is cut to this many characters on its line.
URL_CHARS = 150


def _size(size: Any) -> str:
    if not isinstance(size, int):
        return ""
    return f"{size} B" if size < 1000 else f"{size / 1000:.1f} kB"


def request_line(entry: dict[str, Any]) -> str:
    """`#12 GET 404 xhr http://host/api/cart (35 ms, 1.2 kB)`, and what became of it (and which
    network rule touched it)."""
    if entry.get("failed"):
        outcome = "failed"
    elif entry.get("status") is None:
        outcome = "pending"
    else:
        outcome = str(entry["status"])
    url = one_line(str(entry.get("url", "")), URL_CHARS)
    line = f"#{entry.get('seq')} {entry.get('method')} {outcome} {entry.get('type')} {url}"
    notes = [f"{entry['duration']} ms"] if isinstance(entry.get("duration"), int) else []
    if _size(entry.get("size")):
        notes.append(_size(entry.get("size")))
    if entry.get("from_cache"):
        notes.append("from cache")
    if entry.get("redirect_to"):
        notes.append("to " + one_line(str(entry["redirect_to"]), URL_CHARS))
    if entry.get("failed"):
        notes.append(str(entry["failed"]))
    # What browser_network_rules did to it: `rule 2 blocked`.
    notes.extend(f"rule {r.get('id')} {r.get('did')}" for r in entry.get("rules") or [])
    return line + (f" ({', '.join(notes)})" if notes else "")


def network_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_network_requests: the counts, then one line per request; or one request and its
    body."""
    result = result_of(envelope)
    if "request" in result:
        body = result.get("body") or {}
        head = request_line(result["request"])
        if body.get("text") is None:
            return f"{head}\nNo body: {body.get('note', 'none was kept')}"
        size = body.get("size")
        cut = f"; cut at {body.get('cap')} characters" if body.get("truncated") else ""
        return f"{head}\nBody ({body.get('source')}, {size} characters{cut}):\n{body['text']}"
    requests = result.get("requests") or []
    lines, left_out = entry_lines(result, requests, request_line)
    header = _counts(result, ("request", "requests"), left_out)
    if requests:
        header += "; a body: include_body=<#>"
    return "\n".join([header, *lines])


#: A log query reads the worker's ring, after asking the tab for what it logged just now (at most
#: a second: a busy tab is not waited for).
LOG_TIMEOUT_S = 10.0


CONSOLE = Tool(
    name="browser_console_messages",
    params=ConsoleParams,
    title="Read the page's console",
    description=describe(
        """
        The page's console since it loaded: logs, uncaught errors, CSP violations; the newest
        50 at info and above by default. E.g. {"level": "error"} → 1 message at error+ on page
        4 (15 in all); newer: since=15⏎#15 error: x is undefined (app.js:3)
        """
    ),
    timeout_s=LOG_TIMEOUT_S,
    text=console_text,
    read_only=True,
    client=ClientFace(
        "console_messages",
        doc=(
            "The tab's console messages: ``{messages, matched, total, shown, evicted, last_seq, "
            "page, pages, level, all_pages, cleared?}``; each message ``{seq, page, level, type, "
            "text, time, url?, line?, column?, stack?}``."
        ),
    ),
    cli=CliFace("console"),
    guard=GuardRule(
        limit=8_000,
        advice='Narrow it: `level` "error", a smaller `limit`, or `since`.',
        cut_first=("messages",),
    ),
)


NETWORK = Tool(
    name="browser_network_requests",
    params=NetworkParams,
    title="List the page's network requests",
    description=describe(
        """
        The page's requests since it loaded: method, url, type, status, time, size, why it
        failed; static files hidden unless `include_static`. E.g. {"status": "failed"} → 1
        request on page 4 (28 in all); newer: since=33; …⏎#33 GET 503 xhr https://a.test/api
        (81 ms, 40 B)
        """
    ),
    timeout_s=LOG_TIMEOUT_S,
    text=network_text,
    read_only=True,
    client=ClientFace(
        "network_requests",
        doc=(
            "The tab's network requests: ``{requests, matched, total, shown, hidden, evicted, "
            "last_seq, page, pages, all_pages, cleared?}``, each request ``{seq, page, "
            "request_id, method, url, type, status, start, duration, size, from_cache, failed, "
            "redirect_to?, rules?}`` (``rules``: ``[{id, did}]``, what browser_network_rules "
            "did); with ``include_body``, ``{request, body: {text, size, truncated, cap, source, "
            "note?}}``."
        ),
    ),
    cli=CliFace("network"),
    guard=GuardRule(
        limit=8_000,
        advice="Narrow it: `url`, `type` or `status`, or a smaller `limit`.",
        cut_first=("requests", "body"),
    ),
)

TOOLS = (
    CONSOLE,
    NETWORK,
)
