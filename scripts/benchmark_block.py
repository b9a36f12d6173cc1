"""Print the benchmark's report, docs/benchmark.md's generated block, and the README's headline of
it, from the last run's bench/results/results.json (`--write` updates both files).

`make bench` measures and writes the report itself (bench/report.py); this draws both again from
the figures alone, so that `make docs` keeps them equal to the report's code and to each other.
``tests/test_tool_reference.py`` holds them to it.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from readme_block import README, REPO, Block, main

sys.path.insert(0, str(REPO))

from bench import report

RESULTS = REPO / "bench" / "results"
#: The targets the README names, by the start of their wording (bench/report.py's targets()).
HEADLINE = (
    "tabpilot p50 ≤",
    "MCP tools/call (stdio)",
    "tabpilot `1+1` p50 ≥ 10x",
    "tabpilot's 300-product snapshot",
)


def _results() -> dict[str, Any]:
    results: dict[str, Any] = json.loads((RESULTS / "results.json").read_text())
    return results


def page() -> str:
    """The report, as `python -m bench --readme` writes it into docs/benchmark.md."""
    image = os.path.relpath(RESULTS / "results.png", report.README.parent)
    return f"![benchmark plot]({image})\n\n{report.markdown(_results())}"


def headline() -> str:
    """How many targets the run met, and the few the README names."""
    results = _results()
    targets = report.targets(results)
    met = sum(ok for _, _, ok in targets)
    lines = [
        f"Measured {results['machine']['date']} on {results['machine']['cores']} cores: "
        f"{met} of {len(targets)} targets met, among them:",
        "",
        "| target | measured | met |",
        "|---|---|---|",
    ]
    for start in HEADLINE:
        target, measured, ok = next(t for t in targets if t[0].startswith(start))
        lines.append(f"| {target} | {measured} | {'yes' if ok else '**no**'} |")
    return "\n".join(lines) + "\n"


def blocks() -> list[Block]:
    return [Block(report.README, "bench", page()), Block(README, "bench-headline", headline())]


if __name__ == "__main__":
    raise SystemExit(main(*blocks()))
