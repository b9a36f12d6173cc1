"""The table of a page's hands over HTTP (bench/hands.py) and the targets it is held to."""

from __future__ import annotations

from typing import Any

from bench.hand_pages import BIG_BYTES, FIELDS, WAIT_DELAY_MS
from bench.peer_report import Target, _cell, _goal_lines

MB = 1024 * 1024

#: results["hands"] key -> what the row does, and its p50 target in ms.
ROWS = {
    "fill_form": (f"`browser_fill_form`, {len(FIELDS)} fields", 30.0),
    "wait_for": ("`browser_wait_for` a text, from its appearing to the answer", 20.0),
    "upload": (
        f"`browser_upload` of a {BIG_BYTES // MB} MB file, to the page's confirmation of its "
        "size and SHA-256",
        500.0,
    ),
    "drag": ("`browser_act` drag of a card onto another (native drag and drop)", 30.0),
}


def _checked(key: str, row: dict[str, Any]) -> tuple[str, bool]:
    """What the page showed afterwards, and whether it is what the calls did."""
    if key == "fill_form":
        ok = bool(row.get("values_ok"))
        return ("the values filled last" if ok else f"other values: {row.get('wrong')}"), ok
    if key == "wait_for":
        round_trip = row.get("round_trip_p50")
        return (
            f"each text appeared {row.get('delay_ms', WAIT_DELAY_MS)} ms after the call that "
            f"armed it; round trip p50 {_cell(round_trip, '.1f')} ms",
            round_trip is not None,
        )
    if key == "upload":
        sent, confirmed = row.get("sent", 0), row.get("confirmed", 0)
        return f"{confirmed} of {sent} files confirmed", sent > 0 and confirmed == sent
    drags, drops = row.get("drags", 0), row.get("drops_counted")
    ok = bool(row.get("order_ok"))
    return f"{drops} drops of {drags}, order {'right' if ok else '**wrong**'}", ok


def targets(results: dict[str, Any]) -> list[Target]:
    """(target, measured, met) of each row: its p50 within the limit, and the page as the calls
    left it."""
    out = []
    for key, rows in (results.get("hands") or {}).items():
        what, limit = ROWS[key]
        target = f"tabpilot {what} over HTTP p50 ≤ {limit:g} ms"
        row = rows[0]
        if not row.get("available", True):
            out.append((target, f"not available: {row['reason']}", False))
            continue
        checked, ok = _checked(key, row)
        measured = f"{row['p50']:.1f} ms" + ("" if ok else f"; the page: {checked}")
        out.append((target, measured, ok and row["p50"] <= limit))
    return out


def markdown(results: dict[str, Any]) -> list[str]:
    hands = results.get("hands")
    if not hands:
        return []
    lines = [
        "",
        "**A page's hands over HTTP**: tabpilot's own routes on one keep-alive connection, on "
        "the rig's browser (a person's Chrome, the debugger switch off), each on its page in a "
        "tab brought to the front, checked in the page afterwards (bench/hands.py); ms",
        "",
        "| call | p50 | p90 | p99 | calls | p50 inside the daemon | the page afterwards |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, rows in hands.items():
        row = rows[0]
        what = ROWS[key][0]
        if not row.get("available", True):
            reason = str(row["reason"]).replace("|", "/")
            lines.append(f"| {what} | not available: {reason} | | | | | |")
            continue
        inside = row.get("daemon", {}).get("p50")
        checked, _ = _checked(key, row)
        lines.append(
            f"| {what} | {row['p50']:.2f} | {row['p90']:.2f} | {row['p99']:.2f} | {row['n']} | "
            f"{_cell(inside, '.2f')} | {checked} |"
        )
    return lines + _goal_lines(targets(results))
