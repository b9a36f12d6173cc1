"""The targets bench/peer_report.py holds tabpilot to beside one other system: met or not from both
rows, and a row that is missing or not available named instead of a figure."""

from __future__ import annotations

from typing import Any

import pytest
from bench import peer_report as pr

CLIENT_TARGET = f"{pr.CLIENT} p50 ≤ {pr.SELENIUM_CDP} p50"
TOOLS_TARGET = f"tabpilot's tools/list ≤ 1/2 of {pr.PLAYWRIGHT}'s characters"


def _client(p50: float) -> dict[str, Any]:
    return {"system": pr.CLIENT, "p50": p50}


def _cdp(p50: float) -> dict[str, Any]:
    return {"system": pr.SELENIUM_CDP, "p50": p50}


def _tools(system: str, chars: int) -> dict[str, Any]:
    return {"system": system, "chars": chars, "instructions_chars": 1200, "tools": 20}


GONE = {"system": pr.SELENIUM_CDP, "available": False, "reason": "no chromedriver"}


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        (
            {"client": [_client(0.5), _cdp(1.0)]},
            (CLIENT_TARGET, "0.50 ms vs 1.00 ms (0.50x)", True),
        ),
        (
            {"client": [_client(2.0), _cdp(1.0)]},
            (CLIENT_TARGET, "2.00 ms vs 1.00 ms (2.00x)", False),
        ),
        (
            {"client": [_cdp(1.0)]},
            (CLIENT_TARGET, f"{pr.CLIENT} not available: not measured", False),
        ),
        (
            {"client": [_client(0.5), GONE]},
            (CLIENT_TARGET, f"{pr.SELENIUM_CDP} not available: no chromedriver", False),
        ),
        (
            # Both missing: the first one is named.
            {"client": [GONE]},
            (CLIENT_TARGET, f"{pr.CLIENT} not available: not measured", False),
        ),
        (
            {"tools_list": [_tools(pr.TABPILOT, 9954), _tools(pr.PLAYWRIGHT, 20286)]},
            (
                TOOLS_TARGET,
                "9,954 vs 20,286 characters (0.49x); tabpilot's instructions 1,200 more",
                True,
            ),
        ),
        (
            {"tools_list": [_tools(pr.TABPILOT, 12000), _tools(pr.PLAYWRIGHT, 20000)]},
            (
                TOOLS_TARGET,
                "12,000 vs 20,000 characters (0.60x); tabpilot's instructions 1,200 more",
                False,
            ),
        ),
        (
            {"tools_list": [_tools(pr.TABPILOT, 9954)]},
            (TOOLS_TARGET, f"{pr.PLAYWRIGHT} not available: not measured", False),
        ),
    ],
)
def test_a_target_beside_another_system_reads_both_rows_or_names_the_missing_one(
    results: dict[str, Any], expected: pr.Target
) -> None:
    assert pr.targets(results) == [expected]
