"""`make bench` in miniature: a few calls of each suite against a real Chromium, into a temporary
directory, never over the committed results."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from bench.pages import NODE_COUNT, PRODUCT_COUNT, nodes_html, products_html
from bench.peers import button_refs
from bench.suites import Counts, latency
from bench.systems import System, Unavailable

from tests.e2e.harness import REPO

COMMITTED = REPO / "bench" / "results"


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _pages() -> tuple[str, str]:
    """The benchmark's report and the README's headline of it, which only `--readme` rewrites."""
    return (REPO / "docs" / "benchmark.md").read_text(), (REPO / "README.md").read_text()


def test_smoke_run_writes_json_markdown_and_plot(tmp_path: Path) -> None:
    committed = _digest(COMMITTED) if COMMITTED.is_dir() else {}
    pages = _pages()
    run = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--out", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]

    results = json.loads((tmp_path / "results.json").read_text())
    assert results["machine"]["cores"] >= 1
    assert len(results["machine"]["load_average_at_start"]) == 3
    systems = [row["system"] for row in results["latency"]]
    assert systems == [
        "tabpilot HTTP",
        "tabpilot WebSocket /ws/calls",
        "tabpilot MCP tools/call (HTTP /mcp)",
        "tabpilot MCP tools/call (HTTP /mcp, 2025-06-18 session)",
        "tabpilot MCP tools/call (stdio)",
        "Selenium execute_script",
        "Selenium CDP Runtime.evaluate",
    ]
    for row in results["latency"] + results["hops"]:
        assert row["n"] >= 10
        assert 0 < row["min"] <= row["p50"] <= row["p90"] <= row["p99"] <= row["max"]
        assert len(row["percentiles"]) == 101
    assert [row["system"].split(" (")[-1] for row in results["hops"]][1:4] == [
        "ping worker)",
        "ping content)",
        "ping page)",
    ]
    assert {(row["callers"], row["tabs"]) for row in results["throughput"]} == {
        (c, t) for c in (1, 4, 16, 64) for t in (1, 4)
    }
    assert all(row["calls"] > 0 for row in results["throughput"])
    assert [row["bytes"] for row in results["payload"]] == [1024, 102400, 1048576, 10485760]
    assert [row["system"].split(" ")[0] for row in results["routes"]] == [
        "page",
        "trusted_types",
        "debugger",
        "user_scripts",
    ]
    assert all(row["n"] >= 10 and row["p50"] > 0 for row in results["routes"])
    switch = results["switch_on"]
    assert switch["tabs"] == 2
    for kind in ("opened_before", "opened_after"):
        assert switch[kind]["n"] == 2 and switch[kind]["p50"] > 0
    assert switch["second"]["n"] == 4
    assert results["startup"]["startup_p50_ms"] > 0 and results["startup"]["idle_rss_bytes"] > 0
    # Two managed contexts: each started and answered (or its row says why not: a Chromium
    # whose first page stalls on a loaded machine), its Chromium's process group found and
    # measured, 1+1 in each alone and in all of them at once; closed at the end.
    contexts = results["contexts"]
    assert [r["context"] for r in contexts["startup"]] == ["bench-1", "bench-2"]
    answering = [r["context"] for r in contexts["startup"] if "error" not in r]
    assert answering and contexts["contexts"] == len(answering), contexts["startup"]
    for r in contexts["startup"]:
        if "error" not in r:
            assert r["to_first_answer_ms"] > r["create_ms"] >= r["daemon_startup_ms"] > 0
    assert [r["context"] for r in contexts["memory"]] == ["bench-1", "bench-2"]
    for r in contexts["memory"]:
        assert r["processes"] >= 3 and r["rss_bytes"] > r["pss_bytes"] > 10 * 1024 * 1024, r
    assert [r["system"] for r in contexts["latency"]] == [
        "default context alone",
        *(f"{name} alone" for name in answering),
        *(f"{name}, all at once" for name in answering),
        "all at once",
    ]
    assert all(r["n"] >= 10 and r["p50"] > 0 for r in contexts["latency"])
    assert contexts["latency"][-1]["n"] == len(answering) * contexts["latency"][-2]["n"]
    # 2 latency, 3 MCP, throughput, 10 MB; 1+1, 3 of the product snapshot, the click and the
    # 10,000-element snapshot against the peers; 2 of the viewport screenshot and the full-page
    # one; the console and network queries and answers; the Python client's; the tools/list
    # and the tasks; the contexts' start-up, memory and 1+1 at once; tabpilot mcp's start-up
    # against the run before the package's reshape, and what it and the client load; the form,
    # the wait, the upload and the drag over HTTP; the form and the wait against the peers; 3 of
    # the snapshot of a page with cross-origin frames, 2 of find, and the tasks across frames
    # and tabs; the fast path beside the tabpilot of before the switch gated page scripts; the
    # cold start of `tabpilot mcp --browser` beside Playwright MCP's.
    assert len(results["targets"]) == 43
    # The tabpilot of before is a commit of this repository's history, which a shallow clone
    # lacks: then its row says so.
    fast = results["fast_path"]
    assert "missing" in fast or fast["rows"][1]["system"].startswith("tabpilot HTTP at "), fast
    assert all(isinstance(t["met"], bool) and t["measured"] for t in results["targets"])

    # The Python client beside Selenium's CDP, and the rows against the other MCP servers: each
    # system has figures, or says why it could not be measured (a peer not installed by npm).
    assert [row["system"] for row in results["client"]] == [
        "tabpilot.Client().execute",
        "Selenium CDP Runtime.evaluate",
    ]
    assert results["client"][1]["n"] >= 4
    assert list(results["peers"]) == [
        "evaluate",
        "snapshot_products",
        "click",
        "snapshot_nodes",
        "screenshot",
        "screenshot_full",
        "console",
        "network",
        "fill_form",
        "wait_for",
        "snapshot_frames",
        "find",
    ]
    assert list(results["peer_targets"]) == [
        *results["peers"],
        "frame_tasks",
        "tools_list",
        "tasks",
        "client",
    ]
    for rows in [results["client"], *results["peers"].values()]:
        for row in rows:
            assert row["p50"] > 0 if row.get("available", True) else row["reason"]
    for rows in results["peers"].values():
        assert [r["system"] for r in rows] == ["tabpilot", "Playwright MCP", "chrome-devtools-mcp"]
    evaluate = results["peers"]["evaluate"][0]
    assert evaluate["n"] >= 4 and evaluate["version"]  # tabpilot's execute_javascript over stdio
    for row in results["peers"]["snapshot_products"]:
        if row.get("available", True):
            assert row["chars"] > 1000 and row["add_to_cart_refs"] == PRODUCT_COUNT
    for row in results["peers"]["click"]:
        if row.get("available", True):
            assert row["cart_counted"] == row["clicks"] > 0
    for key in ("screenshot", "screenshot_full"):
        for row in results["peers"][key]:
            if row.get("available", True):
                assert row["image_bytes"] > 1000 and row["image"], row
    for kind in ("console", "network"):
        ours = results["peers"][kind][0]
        assert 0 < ours["chars"] < 4000 and ours["n"] >= 1, ours
    # The form and the wait beside the peers: every server that has the tool filled the ten
    # fields the page then held, and each wait's answer came after its text appeared.
    for row in results["peers"]["fill_form"]:
        if row.get("available", True):
            assert row["values_ok"] and row["fills"] > row["n"] and row["calls"] == 2, row
    assert results["peers"]["fill_form"][0].get("available", True)
    for row in results["peers"]["wait_for"]:
        if row.get("available", True):
            assert 0 <= row["p50"] <= row["p99"] and row["round_trip_p50"] > 0, row
    assert results["peers"]["wait_for"][0].get("available", True)
    # Frames and find beside the peers: every control inside the two cross-origin frames has a
    # ref in each server's snapshot; a find shows the product with a ref, in tabpilot's case in
    # under 300 characters; chrome-devtools-mcp has no find tool, and its row says so.
    for row in results["peers"]["snapshot_frames"]:
        if row.get("available", True):
            assert row["frame_refs"] == row["frame_controls"] == 14, row
    assert results["peers"]["snapshot_frames"][0].get("available", True)
    ours, playwright, devtools = results["peers"]["find"]
    assert ours["found"] and 0 < ours["chars"] < 300, ours
    assert playwright["found"] if playwright.get("available", True) else playwright["reason"]
    # Without bench/node_modules (a fresh clone's `make test`) no peer runs at all.
    assert devtools["available"] is False
    assert any(why in devtools["reason"] for why in ("no tool that finds", "is not installed"))

    # A page's hands over HTTP, each checked in its page afterwards.
    hands = {key: rows[0] for key, rows in results["hands"].items()}
    assert list(hands) == ["fill_form", "wait_for", "upload", "drag"]
    for key, row in hands.items():
        assert row.get("available", True) and row["n"] >= 2 and row["p50"] >= 0, (key, row)
    assert hands["fill_form"]["values_ok"], hands["fill_form"]
    assert hands["upload"]["confirmed"] == hands["upload"]["sent"] > hands["upload"]["n"]
    assert hands["drag"]["order_ok"] and hands["drag"]["drops_counted"] == hands["drag"]["drags"]

    # Each server's tools/list, and one task (the smoke run's) done by each server's script.
    servers = ["tabpilot", "Playwright MCP", "chrome-devtools-mcp"]
    assert [row["system"] for row in results["tools_list"]] == servers
    ours = results["tools_list"][0]
    assert ours["tools"] >= 10 and ours["chars"] > 1000 and ours["instructions_chars"] > 100
    for row in results["tools_list"][1:]:
        assert row["chars"] > 1000 if row.get("available", True) else row["reason"]
    assert list(results["tasks"]) == ["error", "upload", "wait", "drag", "frame_form", "new_tab"]
    for rows in results["tasks"].values():
        assert [row["system"] for row in rows] == servers
        assert rows[0]["ok"] and rows[0]["calls"] >= 3 and rows[0]["ms"] > 0, rows[0]
        assert rows[0]["text_and_structured_chars"] >= rows[0]["chars"] > 0
        for row in rows[1:]:
            assert row["ok"] and row["calls"] >= 3 if row.get("available", True) else row["reason"]

    table = (tmp_path / "results.md").read_text()
    headings = (
        "**Targets**",
        "round trip",
        "hop by hop",
        "**Throughput**",
        "by route",
        "**Start-up**",
        "**Contexts**",
        "in several contexts at once",
        "**Against other MCP browser servers**",
        "whole `tools/list`",
        "**Whole tasks**",
        "**A page's hands over HTTP**",
        "*A form of 10 fields filled in one call*",
        "*A snapshot of a page with two cross-origin iframes",
        "*A search for one product on the 300-product page*",
        "*Tasks across frames and tabs*",
        "**tabpilot's Python client**",
    )
    for heading in headings:
        assert heading in table
    assert "| tabpilot HTTP |" in table
    png = (tmp_path / "results.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000

    # docs/benchmark.md: `python -m bench.report DIR` redraws the table and plot from a results.json
    # alone.
    (tmp_path / "results.md").unlink()
    (tmp_path / "results.png").unlink()
    redraw = subprocess.run(
        [sys.executable, "-m", "bench.report", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert redraw.returncode == 0, redraw.stderr[-3000:]
    assert (tmp_path / "results.md").read_text() == table
    assert redraw.stdout == table + "\n"
    redrawn = (tmp_path / "results.png").read_bytes()
    assert redrawn.startswith(b"\x89PNG\r\n\x1a\n") and len(redrawn) > 10_000
    assert json.loads((tmp_path / "results.json").read_text()) == results

    # A smoke run leaves the published figures alone.
    assert (_digest(COMMITTED) if COMMITTED.is_dir() else {}) == committed
    assert _pages() == pages


class _Elements(HTMLParser):
    """Counts the start tags inside <body>, and the "Add to cart" buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.inside, self.count, self.buttons, self.tag = False, 0, 0, ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.inside:
            self.count += 1
        self.inside = self.inside or tag == "body"
        self.tag = tag

    def handle_endtag(self, tag: str) -> None:
        self.inside = self.inside and tag != "body"

    def handle_data(self, data: str) -> None:
        self.buttons += self.tag == "button" and data == "Add to cart"


def _parse(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    return parser


def test_fixture_pages_have_the_sizes_the_rows_name() -> None:
    assert _parse(nodes_html()).count == NODE_COUNT == 10_000
    assert _parse(products_html()).buttons == PRODUCT_COUNT == 300


def test_button_refs_are_read_from_each_servers_snapshot_format() -> None:
    playwright = '- button "Add to cart" [ref=e12]\n- button "Add to cart" [ref=e7]'
    devtools = 'uid=1_31 button "Add to cart"\nuid=1_36 button "Add to cart"\nuid=1_6 button "Go"'
    collapsed = (
        "- list [ref=e9]:\n"
        '  - 2 \u00d7 listitem: (heading "{1}", button "Add to cart" [ref={2}], link "Details" '
        "[ref={3}]); one per line: {1}|{2}|{3}\n"
        "    Oak lamp|e15|e16\n"
        "    Wool rug|e17|e18\n"
        '- button "Checkout" [ref=e20]'
    )
    bare = '- button "Add to cart"\n- link "Details" [ref=e4]'
    assert button_refs(playwright, "Add to cart") == ["e12", "e7"]
    assert button_refs(devtools, "Add to cart") == ["1_31", "1_36"]
    assert button_refs(collapsed, "Add to cart") == ["e15", "e17"]
    assert button_refs(bare, "Add to cart") == []


def test_a_system_that_stops_answering_gets_a_row_saying_why_and_the_others_go_on() -> None:
    made = {"calls": 0}

    def flaky() -> None:
        made["calls"] += 1
        if made["calls"] > 3:
            raise Unavailable("the server went away")

    def missing() -> None:
        raise Unavailable("no such tool")

    systems = [
        System("steady", lambda: None),
        System("flaky", flaky),
        System("missing", lambda: None, missing),
    ]
    rows = latency(systems, Counts(warmup=1, calls=8, blocks=4))
    assert rows[0]["system"] == "steady" and rows[0]["n"] == 8
    assert rows[1] == {
        "system": "flaky",
        "available": False,
        "reason": "stopped after 2 calls: the server went away",
    }
    assert rows[2] == {"system": "missing", "available": False, "reason": "no such tool"}
