"""The cold-start row of `make bench` (bench/cold_start.py): its target and table, read from
results.json alone."""

from __future__ import annotations

from typing import Any

import pytest
from bench import cold_start as cs
from bench import report

TARGET = (
    "`tabpilot mcp --browser` spawn → first `1+1` at most 2x Playwright MCP's spawn → first "
    "`browser_evaluate` (medians)"
)


def _row(p50: float) -> dict[str, Any]:
    return {"runs": 5, "p50_ms": p50, "p90_ms": p50 * 1.2, "min_ms": p50 * 0.9, "max_ms": p50 * 1.5}


def _results(ours: float, theirs: float | None) -> dict[str, Any]:
    suite: dict[str, Any] = {"versions": {}, cs.TABPILOT: _row(ours)}
    if theirs is None:
        suite["unavailable"] = {cs.PLAYWRIGHT: "@playwright/mcp is not installed"}
    else:
        suite["versions"] = {cs.PLAYWRIGHT: "0.0.83"}
        suite[cs.PLAYWRIGHT] = _row(theirs)
    return {"cold_start": suite}


@pytest.mark.parametrize(
    ("ours", "theirs", "measured", "met"),
    [
        (2000.0, 2500.0, "2,000 ms vs 2,500 ms (0.80x)", True),
        (5000.0, 2500.0, "5,000 ms vs 2,500 ms (2.00x)", True),
        (5250.0, 2500.0, "5,250 ms vs 2,500 ms (2.10x)", False),
    ],
)
def test_the_target_compares_the_medians(
    ours: float, theirs: float, measured: str, met: bool
) -> None:
    results = _results(ours, theirs)
    assert cs.targets(results) == [(TARGET, measured, met)]
    assert (TARGET, measured, met) in report.targets(results)


def test_no_target_without_the_suite_and_one_not_met_without_playwright() -> None:
    assert cs.targets({}) == []
    assert cs.markdown({}) == []
    # As every peer target: the row is there, not met, saying why (make test installs no peer).
    why = "Playwright MCP not available: @playwright/mcp is not installed"
    assert cs.targets(_results(2000.0, None)) == [(TARGET, why, False)]


def test_the_table_has_a_row_for_each_server() -> None:
    lines = cs.markdown(_results(2000.0, 2500.0))
    assert f"| {cs.ROWS[cs.TABPILOT]} | 2,000 | 2,400 | 1,800 | 3,000 |" in lines
    assert f"| {cs.ROWS[cs.PLAYWRIGHT]} | 2,500 | 3,000 | 2,250 | 3,750 |" in lines
    assert "Playwright MCP 0.0.83 runs with" in " ".join(lines)
    missing = cs.markdown(_results(2000.0, None))
    assert f"| {cs.ROWS[cs.PLAYWRIGHT]} | @playwright/mcp is not installed | | | |" in missing
