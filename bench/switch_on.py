"""What turning AI Web Pilot on costs the first command in a page that was already open
(docs/security.md, "What turning the switch on costs").

While the switch is off no page gets tabpilot's scripts (extension/worker/tab/page-scripts.js); a
page already open when it goes on gets them on its first command, which injects both worlds into
every frame first. This times `1+1` by HTTP with `tab_id`, end to end, as the first command in
each of several tabs a person opened while the switch was off, beside the first command in as
many tabs opened once it was on (whose scripts loaded with the page), the two kinds taken in
turn; then a second command in every tab. Every tab shows the same small page.
"""

from __future__ import annotations

import time
from typing import Any

from tests.e2e.harness import set_pilot, wait_for

from bench.pages import Page, serve
from bench.rig import Rig
from bench.suites import Counts, summary

#: Tabs of each kind (a smoke run opens 2).
TABS = 8
_PAGE = {"/page.html": Page("<!doctype html><title>bench</title><p>bench</p>")}


def measure(rig: Rig, counts: Counts) -> dict[str, Any]:
    tabs = 2 if counts.calls < 100 else TABS
    first = rig.driver.current_window_handle
    handles: list[str] = []
    with serve(_PAGE) as base:
        before = [f"{base}/page.html?before={i}" for i in range(tabs)]
        after = [f"{base}/page.html?after={i}" for i in range(tabs)]
        try:
            set_pilot(rig.driver, rig.daemon, False)
            try:
                handles += [_open(rig, url) for url in before]
            finally:
                set_pilot(rig.driver, rig.daemon, True)
            handles += [_open(rig, url) for url in after]
            rig.driver.switch_to.window(first)
            ids = _tab_ids(rig, before + after)
            firsts: dict[str, list[float]] = {"before": [], "after": []}
            for old, new in zip(before, after, strict=True):
                firsts["before"].append(_one(rig, ids[old]))
                firsts["after"].append(_one(rig, ids[new]))
            seconds = [_one(rig, ids[url]) for url in before + after]
        finally:
            for handle in handles:
                rig.driver.switch_to.window(handle)
                rig.driver.close()
            rig.driver.switch_to.window(first)
    return {
        "tabs": tabs,
        "opened_before": summary(firsts["before"]),
        "opened_after": summary(firsts["after"]),
        "second": summary(seconds),
    }


def _open(rig: Rig, url: str) -> str:
    """A new tab at `url`, opened as a person opens one; its window handle."""
    rig.driver.switch_to.new_window("tab")
    rig.driver.get(url)
    return str(rig.driver.current_window_handle)


def _tab_ids(rig: Rig, urls: list[str]) -> dict[str, int]:
    def listed() -> dict[str, int] | None:
        tabs = {t["url"]: t["id"] for t in rig.daemon.get("/tabs").json()["result"]}
        return tabs if all(url in tabs for url in urls) else None

    found: dict[str, int] = wait_for(listed, 20, f"{len(urls)} tabs in /tabs")
    return found


def _one(rig: Rig, tab_id: int) -> float:
    """One `1+1` in the tab, end to end, in ms."""
    start = time.perf_counter()
    body = rig.client.post("/execute_javascript", {"script": "1+1", "tab_id": tab_id})
    took = (time.perf_counter() - start) * 1000
    if body.get("result") != 2:
        raise RuntimeError(f"1+1 in tab {tab_id} answered {body}")
    return took


def markdown(results: dict[str, Any]) -> list[str]:
    row = results.get("switch_on")
    if not row:
        return []
    before, after, second = row["opened_before"], row["opened_after"], row["second"]
    return [
        "",
        f"**Turning AI Web Pilot on** (docs/security.md): `1+1` by HTTP with `tab_id`, the first "
        f"command in each of {row['tabs']} tabs of each kind, ms",
        "",
        "| the tab | p50 | max | p50 over the other kind's |",
        "|---|---|---|---|",
        f"| opened before the switch went on (both worlds injected first) | {before['p50']:.2f} | "
        f"{before['max']:.2f} | {before['p50'] - after['p50']:+.2f} |",
        f"| opened after it went on | {after['p50']:.2f} | {after['max']:.2f} | |",
        f"| either, its second command | {second['p50']:.2f} | {second['max']:.2f} | |",
    ]
