"""The members of ``browser_toolset_20260801`` that go to, read and fill a page: navigate, the
tabs, read_page, get_page_text, find, form_input, file_upload, scroll_to, wait, javascript_exec,
and the console's and network's records since the last read."""

from __future__ import annotations

import json
import re
from typing import Any

from anthropic.tools import BetaBrowserNavigateResult
from anthropic.types.beta import BetaBrowserStateTabEntryParam

from tabpilot.claude import find as finding
from tabpilot.claude.errors import refuse
from tabpilot.claude.hands import said
from tabpilot.claude.state import Session, Steps, params, tab_entry, tab_number

#: read_page's and get_page_text's bound: the toolset's 50,000 characters.
MAX_TEXT = 50_000


def navigate(s: Session, input: Any) -> Steps[BetaBrowserNavigateResult]:
    tab = yield from s.tab(input.tab_id)
    url = input.url.strip()
    if url in ("back", "forward", "reload"):
        given = {"action": url}
    else:
        # The toolset lets the model leave out the scheme, meaning https.
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url):
            url = f"https://{url}"
        given = {"url": url}
    result = yield from s.call("browser_navigate", {**given, "tab_id": tab})
    return BetaBrowserNavigateResult(
        url=str(result.get("url") or ""), status=result.get("status"), title=result.get("title")
    )


def list_tabs(s: Session, input: Any) -> Steps[list[BetaBrowserStateTabEntryParam]]:
    tabs = yield from s.open_tabs()
    return s.entries(tabs)


def new_tab(s: Session, input: Any) -> Steps[BetaBrowserStateTabEntryParam]:
    # Without a url browser_tabs opens the daemon's landing page, tabpilot's blank page.
    tab = yield from s.call("browser_tabs", {"action": "new"})
    ident = int(tab["id"])
    s.active = ident
    s.opened.add(ident)
    s.watched[ident] = str(tab.get("url") or "")
    return tab_entry(tab, True)


def switch_tab(s: Session, input: Any) -> Steps[BetaBrowserStateTabEntryParam]:
    ident = tab_number(input.tab_id)
    tab = yield from s.call("browser_tabs", {"action": "select", "tab_id": ident})
    s.active = ident
    s.watched.setdefault(ident, s.seen.get(ident))
    return tab_entry(tab, True)


def close_tab(s: Session, input: Any) -> Steps[None]:
    ident = tab_number(input.tab_id)
    yield from s.call("browser_tabs", {"action": "close", "tab_id": ident})
    s.watched.pop(ident, None)
    if s.active == ident:
        s.active = None  # the report takes the tab the browser shows in its place
    return None


def read_page(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call(
        "browser_snapshot",
        params(
            ref=input.ref,
            interactive_only=True if input.filter == "interactive" else None,
            max_chars=MAX_TEXT,
            tab_id=tab,
        ),
    )
    snapshot = str(result.get("snapshot") or "")
    if input.depth is not None:
        snapshot = within_depth(snapshot, input.depth)
    page = s.last_tab
    head = f'Page "{page.get("title") or ""}" {page.get("url") or ""}; refs such as [ref=e12]'
    return f"{head}\n{snapshot}"


def within_depth(snapshot: str, depth: int) -> str:
    """The snapshot's lines at most ``depth`` levels down (two spaces a level); the lines left
    out are counted."""
    kept, cut = [], 0
    for line in snapshot.split("\n"):
        level = (len(line) - len(line.lstrip(" "))) // 2
        if level <= depth:
            kept.append(line)
        else:
            cut += 1
    if cut:
        kept.append(f"[{cut} deeper lines left out: depth={depth}]")
    return "\n".join(kept)


def get_page_text(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call("browser_read", {"limit": MAX_TEXT, "tab_id": tab})
    text = str(result.get("text") or "")
    if result.get("more"):
        text += f"\n[the first {len(text):,} of {result.get('total'):,} characters]"
    return text


def find(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    query = finding.parse_query(input.query)
    found: list[list[dict[str, Any]]] = []
    regex = finding.words_regex((*query.words, *query.role_words))
    if regex is not None:
        result = yield from s.call(
            "browser_find", {"regex": regex, "limit": finding.FIND_LIMIT, "tab_id": tab}
        )
        found.append(result.get("matches") or [])
    for role in query.roles:
        result = yield from s.call(
            "browser_find", {"role": role, "limit": finding.FIND_LIMIT, "tab_id": tab}
        )
        found.append(result.get("matches") or [])
    return finding.answer(input.query, query, finding.rank(query, found))


def form_value(value: Any) -> str | bool:
    """The toolset's value as browser_fill_form takes it: a checkbox's boolean, else text."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def form_input(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    field = {"ref": input.target.ref, "value": form_value(input.value)}
    result = yield from s.call("browser_fill_form", {"fields": [field], "tab_id": tab})
    done = (result.get("fields") or [{}])[0]
    if not done.get("ok"):
        raise refuse(str(done.get("error") or f"{input.target.ref} was not set."))
    return f"{done.get('element') or input.target.ref} is {json.dumps(done.get('value'))}"


def file_upload(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    if input.document_ids:
        raise refuse(
            "tabpilot uploads files from its uploads folder only (TABPILOT_UPLOAD_DIR), not "
            "staged documents: give paths."
        )
    result = yield from s.call(
        "browser_upload", {"ref": input.target.ref, "paths": list(input.paths or []), "tab_id": tab}
    )
    return said(result)


#: scroll_to's script: the element to the middle of the viewport, as a person would scroll it.
SCROLL_INTO_VIEW = (
    "(el) => { el.scrollIntoView({block: 'center', inline: 'nearest'}); return true; }"
)


def scroll_to(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    yield from s.call(
        "execute_javascript", {"script": SCROLL_INTO_VIEW, "ref": input.target.ref, "tab_id": tab}
    )
    return None


def wait(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    ms = round(max(0.0, min(30.0, input.duration)) * 1000)
    yield from s.call("browser_wait_for", {"time": ms, "timeout_ms": ms + 5000, "tab_id": tab})
    return None


def javascript_exec(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call("execute_javascript", {"script": input.text, "tab_id": tab})
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def read_console(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call(
        "browser_console_messages",
        {"since": s.console_since.get(tab, 0), "level": "debug", "limit": 1000, "tab_id": tab},
    )
    s.console_since[tab] = int(result.get("last_seq") or 0)
    lines = []
    for message in result.get("messages") or []:
        where = f" ({message['url']}:{message.get('line')})" if message.get("url") else ""
        lines.append(f"[{message.get('level')}] {message.get('text')}{where}")
    return "\n".join(lines) or "No console messages since the last read."


def read_network(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call(
        "browser_network_requests",
        {
            "since": s.network_since.get(tab, 0),
            "include_static": True,
            "limit": 1000,
            "tab_id": tab,
        },
    )
    s.network_since[tab] = int(result.get("last_seq") or 0)
    lines = []
    for request in result.get("requests") or []:
        status = request.get("status") or request.get("failed") or "pending"
        timing = f" {request['duration']} ms" if request.get("duration") is not None else ""
        lines.append(
            f"{request.get('method')} {request.get('url')} {status} {request.get('type')}{timing}"
        )
    return "\n".join(lines) or "No requests since the last read."
