"""What each tool's answer reads like, for a model or a person at the CLI: short, self-describing.

Each function takes a success envelope (a plain dict) and returns its text; a failure is written
by the caller as ``Error: <message>``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tabpilot.envelope import result_text


def _result(envelope: dict[str, Any]) -> dict[str, Any]:
    result = envelope.get("result")
    return result if isinstance(result, dict) else {}


def dialogs_note(dialogs: list[dict[str, Any]] | None) -> str:
    """One line per dialog answered, for the model: it should know a confirm was dismissed."""
    lines = [
        f'\n[{d.get("type")} "{d.get("message", "")}" {d.get("action", "dismissed")}'
        + (f' with "{d["text"]}"' if d.get("text") is not None else "")
        + ("; it was open before this script" if d.get("before") else "")
        + "]"
        for d in dialogs or []
    ]
    return "".join(lines)


def script_text(envelope: dict[str, Any]) -> str:
    """execute_javascript: the result as JSON or plain text, then the dialogs answered."""
    text = result_text(envelope.get("result"), envelope.get("result_type"))
    return text + dialogs_note(envelope.get("dialogs"))


def tabs_text(envelope: dict[str, Any]) -> str:
    """A list of tabs, one per line: `id (active): title url`."""
    tabs = envelope.get("result") or []
    if not tabs:
        return "No tabs are open."
    lines = []
    for tab in tabs:
        mark = " (active)" if tab.get("active") else ""
        lines.append(f"{tab.get('id')}{mark}: {tab.get('title') or '(untitled)'} {tab.get('url')}")
    return "\n".join(lines)


def browser_tabs_text(envelope: dict[str, Any]) -> str:
    """browser_tabs: the list, the tab opened or selected, or the tab closed."""
    result = envelope.get("result")
    if isinstance(result, list):
        return tabs_text(envelope)
    if isinstance(result, dict) and "closed" in result:
        opened = result.get("opened")
        extra = f"; opened {opened.get('id')}: {opened.get('url')}" if opened else ""
        return f"Closed tab {result['closed']}{extra}."
    tab = _result(envelope)
    return f"{tab.get('id')} (active): {tab.get('title') or '(untitled)'} {tab.get('url')}"


def navigate_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_navigate: `Navigated to <url> (HTTP 200): "<title>"`.

    Given the call's ``params`` (MCP does), a page loaded at the url it asked for is only
    `Loaded "<title>"`: the caller wrote that url a moment ago. The url follows when it changed
    (a redirect; back, forward, reload), and the status when it is not 200.
    """
    page = _result(envelope)
    status = page.get("status")
    title = page.get("title") or ""
    asked = getattr(params, "url", None)
    if isinstance(asked, str) and same_url(asked, str(page.get("url") or "")):
        return f'Loaded "{title}"' + ("" if status in (200, None) else f" (HTTP {status})")
    http = f" (HTTP {status})" if status is not None else ""
    return f'Navigated to {page.get("url")}{http}: "{title}"'


#: The port a scheme means when its url names none.
_DEFAULT_PORTS = {"http": 80, "https": 443}


def same_url(a: str, b: str) -> bool:
    """Whether two urls name the same page as a browser writes it: the scheme and host in any
    case, a default port or an empty path left out (`https://A.test` is `https://a.test/`)."""

    def key(url: str) -> tuple[Any, ...] | None:
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError:
            return None
        scheme = parts.scheme.lower()
        port = None if port == _DEFAULT_PORTS.get(scheme) else port
        host = (parts.hostname or "").lower()
        return (scheme, host, port, parts.path or "/", parts.query, parts.fragment)

    found = key(a)
    return found is not None and found == key(b)


def snapshot_text(envelope: dict[str, Any]) -> str:
    """browser_snapshot: a header line naming the page and its refs, then the snapshot."""
    snap = _result(envelope)
    tab = envelope.get("tab") or {}
    refs = snap.get("refs", 0)
    header = f'Page "{tab.get("title") or ""}" {tab.get("url") or ""}, {refs} ref'
    header += "" if refs == 1 else "s"
    return f"{header}\n{snap.get('snapshot', '')}"


def act_text(envelope: dict[str, Any]) -> str:
    """browser_act: what was done, then what followed (a navigation, new tabs, dialogs)."""
    act = _result(envelope)
    text = str(act.get("description") or "Done")
    if act.get("navigated"):
        text += f"; the page navigated to {act.get('url')}"
    for tab in act.get("new_tabs") or []:
        text += f"; opened tab {tab.get('id')}"
        if tab.get("url"):
            text += f" ({tab.get('url')})"
    dialogs = envelope.get("dialogs") or act.get("dialogs")
    return text + dialogs_note(dialogs)


def read_text(envelope: dict[str, Any]) -> str:
    """browser_read: the text, then where it sits in the whole and how to get the rest."""
    read = _result(envelope)
    text = str(read.get("text", ""))
    offset = int(read.get("offset") or 0)
    total = read.get("total")
    end = offset + len(text)
    if read.get("more"):
        return f"{text}\n[chars {offset}-{end} of {total}; more: browser_read offset={end}]"
    if offset:
        return f"{text}\n[chars {offset}-{end} of {total}]"
    return text


def close_text(envelope: dict[str, Any]) -> str:
    """browser_close: `Closed 2 tabs.`, and whether the managed browser was stopped."""
    closed = _result(envelope)
    count = len(closed.get("closed_tabs") or [])
    text = f"Closed {count} tab{'' if count == 1 else 's'}"
    if closed.get("browser") == "stopped":
        text += " and stopped the managed browser"
    return text + "."


def status_text(envelope: dict[str, Any]) -> str:
    """pilot_status: the daemon, the extension and the switch, one line each."""
    status = envelope.get("result") or {}
    extension = status.get("extension") or {}
    lines = [f"Daemon: tabpilot {status.get('daemon_version')}, running."]
    if not extension.get("connected"):
        lines.append(
            "Extension: not connected. Open Chrome with the tabpilot extension, or start the "
            "daemon with `tabpilot serve --browser`."
        )
        return "\n".join(lines)
    lines.append(f"Extension: connected (version {extension.get('version')}).")
    if extension.get("pilot_enabled"):
        lines.append("AI Web Pilot: ON. Scripts may run.")
    else:
        lines.append(
            "AI Web Pilot: OFF. Nothing can run until the user turns on AI Web Pilot in the "
            "tabpilot extension popup."
        )
    return "\n".join(lines)
