"""`make bench` in miniature: a few calls of each suite against a real Chromium, into a temporary
directory, never over the committed results."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from tests.e2e.harness import REPO

COMMITTED = REPO / "bench" / "results"


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*"))}


def test_smoke_run_writes_json_markdown_and_plot(tmp_path: Path) -> None:
    committed = _digest(COMMITTED) if COMMITTED.is_dir() else {}
    readme = (REPO / "README.md").read_text()
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
    assert results["startup"]["startup_p50_ms"] > 0 and results["startup"]["idle_rss_bytes"] > 0
    assert len(results["targets"]) == 7  # 2 latency, 3 MCP, throughput, 10 MB

    table = (tmp_path / "results.md").read_text()
    headings = (
        "**Targets**",
        "round trip",
        "hop by hop",
        "**Throughput**",
        "by route",
        "**Start-up**",
    )
    for heading in headings:
        assert heading in table
    assert "| tabpilot HTTP |" in table
    png = (tmp_path / "results.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000

    # README: `python -m bench.report DIR` redraws the table and plot from a results.json alone.
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
    assert (REPO / "README.md").read_text() == readme
