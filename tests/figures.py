"""Figures that the reliability and security tests record while they run.

`make test` writes them to docs/reliability.md at the end of a passing run, so the
document states what the last full run proved, never what someone typed in by hand.
A test records a figure only after its assertions passed:

    figures.record("Load", "commands answered", f"{answered:,} of {sent:,}")

The file is rewritten only when the run passed and recorded every figure the committed document
has (and something in every section of SECTIONS), so a partial run (`-k`, one file, an
`--ignore`) leaves it alone. A figure no test records any more is taken out of the document by
hand.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "reliability.md"

#: Section name -> one line saying what it proves. Order is the document's order.
SECTIONS: dict[str, str] = {
    "Faults": "The browser, the worker, the tab or the daemon fails mid-command.",
    "Load": "Many callers at once, a full queue, large results and scripts.",
    "Hostile input": "Fuzzed requests and frames, web pages and other clients trying to get in.",
}

_figures: dict[str, list[tuple[str, str]]] = {}


def record(section: str, name: str, value: object) -> None:
    """Record one figure (`name`: `value`) under `section`, which must be in SECTIONS."""
    if section not in SECTIONS:
        raise ValueError(f"unknown section {section!r}; add it to SECTIONS")
    _figures.setdefault(section, []).append((name, str(value)))


def complete() -> bool:
    if not all(_figures.get(section) for section in SECTIONS):
        return False
    recorded = {name for figures in _figures.values() for name, _ in figures}
    return _documented() <= recorded


def _documented() -> set[str]:
    """The names of the figures in the committed document."""
    if not DOC.exists():
        return set()
    names = set()
    for line in DOC.read_text(encoding="utf-8").splitlines():
        name = line.split(" | ")[0].removeprefix("| ")
        if line.startswith("| ") and name != "What":  # a figure's row, not the table's header
            names.add(name)
    return names


def _chromium_version() -> str:
    try:
        out = subprocess.run(
            ["chromium", "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def render() -> str:
    today = datetime.date.today().isoformat()
    lines = [
        "# Reliability and security: what the last full test run proved",
        "",
        "<!-- Written by `make test` (tests/figures.py) at the end of a passing run. "
        "Do not edit by hand. -->",
        "",
        f"Run on {today}: {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, {_chromium_version()}.",
        "Every figure below was recorded by a test after its assertions passed, in the real "
        "Chromium with the real extension unless the line says otherwise.",
        "",
    ]
    for section, purpose in SECTIONS.items():
        lines += [f"## {section}", "", purpose, "", "| What | Figure |", "|---|---|"]
        for name, value in _figures.get(section, []):
            cell = value.replace("|", "\\|")
            lines.append(f"| {name} | {cell} |")
        lines.append("")
    return "\n".join(lines)


def write_if_complete(passed: bool) -> bool:
    """Write docs/reliability.md when the run passed and every section has figures."""
    if not (passed and complete()):
        return False
    DOC.write_text(render(), encoding="utf-8")
    return True
