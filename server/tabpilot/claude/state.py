"""The driver's session: which tab is active, what changed since the last report, and the steps
that talk to the daemon, written once for both drivers.

A member is a generator of :class:`Call` (a tool call to make) and :class:`PolicyCheck` (a url to
put to the app's url_policy) requests; the blocking driver answers them with ``Client``, the
async one with ``AsyncClient`` (tabpilot.claude.drivers). So every member and the browser state
are the same code in both.

What the report holds (the SDK's ``BetaBrowserState``):

- ``tabs``: every open tab of the browser (browser_tabs), with exactly one ``active``: the tab
  the driver acts in when a call names none. It starts as the tab tabpilot acts in by default
  (the active tab of the last focused window), and moves only by ``new_tab``, ``switch_tab``, or
  when that tab closes; a tab a page opens is reported, not followed.
- ``state_changes``: the tabs the driver's calls opened (``opened`` in browser_act's,
  browser_mouse's, browser_fill_form's and execute_javascript's answers), the downloads they
  started and how each ended (browser_downloads while one is under way; ``url`` is the
  download's origin, since tabpilot never hands out a download's full url), the dialogs tabpilot
  dismissed, and the navigations refused by the url policy.
- The url policy on navigations a page starts: after each call, every tab the driver acts in or
  opened whose url changed is put to the app's url_policy. A refused one goes back to the url it
  had (a tab the page opened is closed instead), and the report says ``A navigation was refused.``
  The page did load meanwhile: this keeps the agent off the page, it does not stop the request.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from anthropic.tools import (
    BetaBrowserState,
    BetaDialogDismissed,
    BetaNavigationRefused,
    TabMissingError,
)
from anthropic.types.beta import BetaBrowserStateTabEntryParam

from tabpilot.claude.errors import failure

T = TypeVar("T")

#: The API's bound on a report's tabs.
MAX_TABS = 100
#: Urls that are no address a page went to: a tab's first, empty page.
BLANK_URLS = frozenset(("", "about:blank"))


@dataclass(frozen=True)
class Call:
    """One tool call for the daemon: its method (a tool's name) and params."""

    method: str
    params: dict[str, Any]


@dataclass(frozen=True)
class PolicyCheck:
    """A url a page reached in a tab, for the app's url_policy; answered True (allowed) or
    False."""

    url: str
    tab_id: int


Steps = Generator[Call | PolicyCheck, Any, T]


def params(**given: Any) -> dict[str, Any]:
    """The given params, without the ones left out (None)."""
    return {key: value for key, value in given.items() if value is not None}


def tab_entry(tab: dict[str, Any], active: bool) -> BetaBrowserStateTabEntryParam:
    """A tab of browser_tabs as the toolset reports it."""
    return {
        "tab_id": str(tab.get("id")),
        "title": str(tab.get("title") or ""),
        "url": str(tab.get("url") or ""),
        "active": active,
    }


def tab_number(tab_id: str) -> int:
    """The toolset's tab id (a string) as tabpilot's; a tab that cannot exist is missing."""
    try:
        return int(tab_id)
    except ValueError:
        raise TabMissingError() from None


@dataclass
class Session:
    """What the driver keeps between calls."""

    #: browser_act's and browser_mouse's `trusted`: None lets tabpilot choose the route.
    trusted: bool | None = None
    #: Whether the app gave a url_policy: without one, no url is put to it.
    policed: bool = False
    #: The tab calls without a tab_id act in; None until the first call learns it.
    active: int | None = None
    #: The tabs the driver acted in or opened, with the url last allowed there (None: not yet).
    watched: dict[int, str | None] = field(default_factory=dict)
    #: The tabs the driver's calls opened: closed, not sent back, when their page is refused.
    opened: set[int] = field(default_factory=set)
    #: What changed since the last report.
    changes: list[Any] = field(default_factory=list)
    #: Each download's state as last reported, by its id.
    downloads: dict[int, str] = field(default_factory=dict)
    #: The console's and the network log's `since`, per tab: read_console and read_network
    #: answer what came after the last read.
    console_since: dict[int, int] = field(default_factory=dict)
    network_since: dict[int, int] = field(default_factory=dict)
    #: Each tab's url in the last report: where a tab the driver starts to act in was.
    seen: dict[int, str] = field(default_factory=dict)
    #: The tab of the last answer: `{id, url, title}`.
    last_tab: dict[str, Any] = field(default_factory=dict)

    def call(self, method: str, given: dict[str, Any]) -> Steps[Any]:
        """One tool call: its result, after noting what it set going; a failure raises the
        ToolError the model reads."""
        envelope: dict[str, Any] = yield Call(method, given)
        self.observe(envelope)
        if not envelope.get("success"):
            raise failure(envelope)
        return envelope.get("result")

    def tab(self, tab_id: str | None) -> Steps[int]:
        """The tab a call acts in: the one it names, else the active one, learnt from tabpilot's
        default (the active tab of the last focused window) on the first call."""
        if tab_id:
            number = tab_number(tab_id)
        elif self.active is not None:
            number = self.active
        else:
            yield from self.call("browser_wait_for", {"time": 0})
            number = int(self.last_tab["id"])
            self.active = number
            self.seen.setdefault(number, str(self.last_tab.get("url") or ""))
        self.watched.setdefault(number, self.seen.get(number))
        return number

    def observe(self, envelope: dict[str, Any]) -> None:
        """The tabs, downloads and dialogs an answer reports, as state changes."""
        tab = envelope.get("tab")
        if isinstance(tab, dict) and isinstance(tab.get("id"), int):
            self.last_tab = tab
        result = envelope.get("result")
        found = result if isinstance(result, dict) else {}
        for opened in [*(found.get("opened") or []), *(envelope.get("opened") or [])]:
            # A tab that closed itself again is gone from the inventory: nothing to report.
            if (
                isinstance(opened, dict)
                and isinstance(opened.get("id"), int)
                and not opened.get("closed")
            ):
                self.opened.add(opened["id"])
                self.watched.setdefault(opened["id"], None)
                self.changes.append({"type": "tab_opened", "tab_id": str(opened["id"])})
        for dialog in envelope.get("dialogs") or found.get("dialogs") or []:
            if isinstance(dialog, dict) and dialog.get("action", "dismissed") == "dismissed":
                self.changes.append(
                    BetaDialogDismissed(
                        kind=str(dialog.get("type") or "dialog"),
                        message=str(dialog.get("message") or ""),
                    )
                )
        for download in [*(found.get("downloads") or []), *(envelope.get("downloads") or [])]:
            if isinstance(download, dict):
                self.note_download(download)

    def note_download(self, item: dict[str, Any]) -> None:
        """A download's change of state, once each: started, completed or failed."""
        ident = item.get("id")
        if not isinstance(ident, int):
            return
        state = str(item.get("state") or "in_progress")
        if self.downloads.get(ident) == state:
            return
        self.downloads[ident] = state
        base = {"download_id": str(ident), "url": str(item.get("origin") or "")}
        if state == "complete":
            self.changes.append(
                {
                    **base,
                    "type": "download_completed",
                    "path": item.get("path"),
                    "size_bytes": item.get("size"),
                }
            )
        elif state == "interrupted":
            self.changes.append({**base, "type": "download_failed", "error": item.get("error")})
        else:
            self.changes.append({**base, "type": "download_started"})

    def report(self) -> Steps[BetaBrowserState]:
        """The browser after a call: the tabs, one active, and what changed since the last."""
        if any(state == "in_progress" for state in self.downloads.values()):
            listed = yield from self.call("browser_downloads", {"limit": 100})
            for item in listed.get("downloads") or []:
                if item.get("id") in self.downloads:
                    self.note_download(item)
        tabs = yield from self.open_tabs()
        if self.policed and (yield from self.police(tabs)):
            tabs = yield from self.open_tabs()
        self.seen = {tab["id"]: str(tab.get("url") or "") for tab in tabs}
        for ident, url in self.seen.items():
            if ident in self.watched and self.watched[ident] is None:
                self.watched[ident] = url
        changes, self.changes = self.changes, []
        return BetaBrowserState(tabs=self.entries(tabs), state_changes=changes)

    def entries(self, tabs: list[dict[str, Any]]) -> list[BetaBrowserStateTabEntryParam]:
        """The tabs as the toolset reports them, in the browser's order, the active one marked
        (kept among the first 100); when it closed, the tab the browser shows in its place."""
        ids = [tab["id"] for tab in tabs]
        if self.active not in ids:
            self.active = next((tab["id"] for tab in tabs if tab.get("active")), None)
            if self.active is None and ids:
                self.active = ids[0]
        others = [tab["id"] for tab in tabs if tab["id"] != self.active][: MAX_TABS - 1]
        shown = {self.active, *others}
        return [tab_entry(tab, tab["id"] == self.active) for tab in tabs if tab["id"] in shown]

    def open_tabs(self) -> Steps[list[dict[str, Any]]]:
        """browser_tabs' list, without the closed tabs it recalls."""
        listed = yield from self.call("browser_tabs", {"action": "list"})
        return [
            tab
            for tab in listed or []
            if isinstance(tab, dict) and isinstance(tab.get("id"), int) and not tab.get("closed")
        ]

    def police(self, tabs: list[dict[str, Any]]) -> Steps[bool]:
        """Put each watched tab's new url to the url policy; send a refused one back (or close
        it, if a page of the driver's calls opened it). True when a tab was sent back or closed."""
        acted = False
        for tab in tabs:
            ident, url = tab["id"], str(tab.get("url") or "")
            if ident not in self.watched or url in BLANK_URLS:
                continue
            before = self.watched[ident]
            if url == before:
                continue
            if (yield PolicyCheck(url, ident)):
                self.watched[ident] = url
                continue
            self.changes.append(BetaNavigationRefused())
            acted = True
            if ident in self.opened and (before is None or before in BLANK_URLS):
                self.watched.pop(ident, None)
                yield from self.attempt("browser_tabs", {"action": "close", "tab_id": ident})
            elif before is not None and before.startswith(("http://", "https://")):
                yield from self.attempt("browser_navigate", {"url": before, "tab_id": ident})
            else:
                yield from self.attempt("browser_navigate", {"action": "back", "tab_id": ident})
        return acted

    def attempt(self, method: str, given: dict[str, Any]) -> Steps[dict[str, Any]]:
        """A call whose failure is no refusal for the model: its whole envelope."""
        envelope: dict[str, Any] = yield Call(method, given)
        self.observe(envelope)
        return envelope
