"""The fast path beside the tabpilot of before page scripts waited for the switch, in one run.

Page scripts are registered while AI Web Pilot is on (extension/worker/tab/page-scripts.js), where
the manifest declared them before, and the page world's hooks stay quiet while it is off. Neither
may slow a call. This checks out the last commit before that change (:data:`BEFORE`) into a
temporary folder, starts its daemon and its extension beside today's, and times `1+1` over HTTP on
both, interleaved in blocks as every latency row is, so a busy machine weighs on both alike.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench import suites
from bench.rig import Rig, rig
from bench.systems import System, Unavailable, tabpilot_http

#: The last commit whose manifest declared the page scripts for every page.
BEFORE = "493154c"
_REPO = Path(__file__).resolve().parent.parent


@contextmanager
def _tree(commit: str) -> Iterator[Path]:
    """``commit``'s server and extension in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="tabpilot-before-"))
    try:
        archive = subprocess.run(
            ["git", "-C", str(_REPO), "archive", commit, "server", "extension"],
            capture_output=True,
            check=False,
        )
        if archive.returncode != 0:
            raise Unavailable(f"no commit {commit} here: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def measure(now: Rig, counts: suites.Counts) -> dict[str, Any]:
    try:
        with _tree(BEFORE) as tree:
            env = {"PYTHONPATH": str(tree / "server")}
            with rig(extension=tree / "extension", env=env) as before:
                today = tabpilot_http(now)
                old = System(f"tabpilot HTTP at {BEFORE}", tabpilot_http(before).call)
                rows = suites.latency([today, old], counts)
    except Unavailable as exc:
        return {"before": BEFORE, "missing": str(exc)}
    return {"before": BEFORE, "rows": rows}


#: Within noise: the p50 of today's `1+1` at most this much over the one before.
NOISE = 1.10


def targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """Today's p50 against the one before; not met, saying why, where that one could not run (a
    shallow clone has no such commit); none if the suite did not run."""
    suite = results.get("fast_path")
    if not suite:
        return []
    target = f"`1+1` HTTP p50 ≤ {NOISE} x the one at {suite['before']}, same run"
    rows = [r for r in suite.get("rows", []) if "p50" in r]
    if len(rows) != 2:
        why = suite.get("missing") or "; ".join(r.get("reason", "") for r in suite.get("rows", []))
        return [(target, f"not measured: {why}", False)]
    today, before = rows
    return [
        (
            target,
            f"{today['p50']:.3f} ms vs {before['p50']:.3f} ms "
            f"({today['p50'] / before['p50']:.3f}x)",
            today["p50"] <= NOISE * before["p50"],
        )
    ]


def markdown(results: dict[str, Any]) -> list[str]:
    row = results.get("fast_path")
    if not row:
        return []
    head = [
        "",
        f"**The fast path, unchanged**: `1+1` over HTTP today and at `{row['before']}` (page "
        "scripts declared in the manifest, before they waited for the switch), interleaved in "
        "one run, ms",
        "",
    ]
    if "missing" in row:
        return [*head, f"Not measured: {row['missing']}."]
    lines = [*head, "| tabpilot | p50 | p90 | p99 |", "|---|---|---|---|"]
    for system in row["rows"]:
        if not system.get("available", True):
            lines.append(f"| {system['system']} | {system['reason']} | | |")
            continue
        lines.append(
            f"| {system['system']} | {system['p50']:.3f} | {system['p90']:.3f} | "
            f"{system['p99']:.3f} |"
        )
    return lines
