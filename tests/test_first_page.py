"""The managed browser's first page must load (tabpilot.browsers.supervisor): a Chromium whose
first page never loads is started again, and one whose page loads is left alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tabpilot.browsers import supervisor as first_page
from tabpilot.browsers.bridge import Bridge
from tabpilot.config import Settings
from tabpilot.errors import ExtensionNotConnected, PilotDisabled, TabNotScriptable
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import PingParams
from tabpilot.tools.navigate import NavigateParams


class FakeBrowser:
    landing_url = "http://127.0.0.1:7878/"

    def __init__(self) -> None:
        self.running = True
        self.starts = 0
        self.stops = 0

    async def start(self) -> None:
        self.starts += 1
        self.running = True

    async def stop(self) -> None:
        self.stops += 1
        self.running = False


class FakeBridge:
    """An extension whose tabs show `urls` (one list per answer, the last one kept). A tab's id is
    its place in the list, or given as ``"id=url"``. A url ending in ``#stuck`` is listed, but
    the tab's content script never answers: a first navigation that never committed."""

    def __init__(self, *urls: list[str], connected: bool = True) -> None:
        self.answers = list(urls)
        self.connected = connected
        self.dropped: list[str] = []
        self.navigated: list[tuple[int | None, str | None]] = []

    async def list_tabs(self, request_id: str) -> ResultFrame:
        urls = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if urls == ["refused"]:
            raise ExtensionNotConnected()
        if urls == ["pilot off"]:
            raise PilotDisabled()
        tabs: list[dict[str, Any]] = []
        for i, url in enumerate(urls):
            given, named, rest = url.partition("=")
            tabs.append({"id": int(given), "url": rest} if named else {"id": i, "url": url})
        self.listed = tabs
        return ResultFrame(id=request_id, ok=True, result=tabs, result_type="array")

    async def ping(self, params: PingParams, request_id: str) -> ResultFrame:
        url = next(tab["url"] for tab in self.listed if tab["id"] == params.tab_id)
        if url.endswith("#stuck"):
            raise TabNotScriptable(f"Cannot run scripts in tab {params.tab_id} (no url).")
        return ResultFrame(id=request_id, ok=True, result="pong", result_type="string")

    async def command(
        self, command: str, params: NavigateParams, request_id: str, timeout_s: float
    ) -> ResultFrame:
        assert command == "browser_navigate"
        self.navigated.append((params.tab_id, params.url))
        return ResultFrame(id=request_id, ok=True, result={}, result_type="object")

    def drop_link(self, why: str) -> None:
        self.dropped.append(why)


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_page, "FIRST_PAGE_WAIT_S", 0.2)
    monkeypatch.setattr(first_page, "CONNECT_WAIT_S", 0.2)
    monkeypatch.setattr(first_page, "POLL_S", 0.01)


async def test_a_first_page_that_loads_leaves_the_browser_alone() -> None:
    browser = FakeBrowser()
    # Still loading twice (no url yet; the extension busy once), then the landing page.
    bridge = FakeBridge([""], ["refused"], ["http://127.0.0.1:7878/"])
    assert await first_page.watch(bridge, browser) is True  # type: ignore[arg-type]
    assert (browser.starts, browser.stops, bridge.dropped) == (0, 0, [])


async def test_the_blank_start_tab_is_sent_to_the_landing_page() -> None:
    """Chromium starts on about:blank (a url on its command line may never load: first_page);
    the watch navigates that tab, and judges the browser by the page it loads."""
    browser = FakeBrowser()
    bridge = FakeBridge(["5=about:blank"], ["5=http://127.0.0.1:7878/"])
    assert await first_page.watch(bridge, browser) is True  # type: ignore[arg-type]
    assert bridge.navigated == [(5, "http://127.0.0.1:7878/")]
    assert (browser.starts, browser.stops) == (0, 0)


async def test_a_start_tab_showing_a_web_page_is_not_navigated() -> None:
    bridge = FakeBridge(["1=http://127.0.0.1:7878/#stuck"], ["1=http://127.0.0.1:7878/"])
    assert await first_page.watch(bridge, FakeBrowser()) is True  # type: ignore[arg-type]
    assert bridge.navigated == []


async def test_a_first_page_that_never_loads_gets_a_fresh_browser_at_most_twice() -> None:
    browser = FakeBrowser()
    bridge = FakeBridge(["", "about:blank"])
    # Its verdict: a new context's create fails on it (browser_unavailable).
    assert await first_page.watch(bridge, browser) is False  # type: ignore[arg-type]
    assert (browser.starts, browser.stops) == (first_page.RESTARTS, first_page.RESTARTS)
    assert len(bridge.dropped) == first_page.RESTARTS


async def test_a_stuck_start_tab_is_not_excused_by_a_tab_a_caller_opened_that_loads() -> None:
    browser = FakeBrowser()
    bridge = FakeBridge(["1="], ["1=", "2=http://127.0.0.1:9000/"])
    await first_page.watch(bridge, browser)  # type: ignore[arg-type]
    # Replaced once: tab 2 loading never excused tab 1. (The fake's restarted browser lists
    # both tabs first, so both are its start tabs, and tab 2 shows a page.)
    assert (browser.starts, browser.stops) == (1, 1)


async def test_a_start_tab_listing_the_url_it_never_reached_is_stuck() -> None:
    browser = FakeBrowser()
    await first_page.watch(FakeBridge(["http://127.0.0.1:7878/#stuck"]), browser)  # type: ignore[arg-type]
    assert (browser.starts, browser.stops) == (first_page.RESTARTS, first_page.RESTARTS)


async def test_once_the_start_tab_is_closed_the_other_tabs_are_judged() -> None:
    browser = FakeBrowser()
    bridge = FakeBridge(["1="], ["2=http://127.0.0.1:9000/"])
    await first_page.watch(bridge, browser)  # type: ignore[arg-type]
    assert (browser.starts, browser.stops) == (0, 0)


async def test_a_browser_stopped_meanwhile_is_not_started_by_the_watch() -> None:
    browser = FakeBrowser()
    browser.running = False  # browser_close, or a crash: the next call starts it
    await first_page.watch(FakeBridge([""], connected=False), browser)  # type: ignore[arg-type]
    assert (browser.starts, browser.stops) == (0, 0)


async def test_with_the_pilot_off_the_tabs_cannot_be_seen_and_the_browser_is_kept() -> None:
    browser = FakeBrowser()
    await first_page.watch(FakeBridge(["pilot off"]), browser)  # type: ignore[arg-type]
    assert (browser.starts, browser.stops) == (0, 0)


async def test_the_bridge_says_a_start_is_pending_until_the_watch_ends(tmp_path: Path) -> None:
    bridge = Bridge(Settings(state_dir=tmp_path))
    assert not bridge.first_page_pending
    browser = FakeBrowser()
    watching = bridge.watch_first_page(browser)  # type: ignore[arg-type]
    # However many callers ask, one watch runs; /status says `ready: false` meanwhile.
    assert bridge.watch_first_page(browser) is watching  # type: ignore[arg-type]
    assert bridge.first_page_pending
    await watching  # no extension ever connects: the browser is started again, twice
    assert not bridge.first_page_pending
    assert (browser.starts, browser.stops) == (first_page.RESTARTS, first_page.RESTARTS)


async def test_the_last_browser_started_gets_its_wait_too() -> None:
    """Callers wait for the watch: it returns only after the last start's first page had its
    chance, never straight after starting a browser whose page cannot have loaded yet."""
    browser = FakeBrowser()
    looked_at: set[int] = set()  # which start each list of tabs was asked of

    class Counting(FakeBridge):
        async def list_tabs(self, request_id: str) -> ResultFrame:
            looked_at.add(browser.starts)
            return await super().list_tabs(request_id)

    await first_page.watch(Counting([""]), browser)  # type: ignore[arg-type]
    assert (browser.starts, browser.stops) == (first_page.RESTARTS, first_page.RESTARTS)
    assert looked_at == set(range(first_page.RESTARTS + 1))
