"""Figures that the reliability and security tests record, and the document made of them.

How a test records a figure: at its end, once its own assertions have passed,

    from tests import figures

    figures.record(
        "Load",                        # a section of SECTIONS (add one there if none fits)
        "commands answered",           # the row's name: stable, no numbers that change per run
        f"{answered:,} of {sent:,}",   # the figure, as measured by this test
        figures.REAL_BROWSER,          # or figures.SCRIPTED: where it was measured
    )

- REAL_BROWSER: Debian's Chromium with the real extension; the test must carry the ``e2e`` marker.
  SCRIPTED: a real daemon with the scripted fake extension of tests/support.py (or no extension);
  the test must not be an e2e test. A mismatch is refused, so no row says more than its test saw.
- A figure belongs to the test that recorded it, and only counts if that test passed (setup, call
  and teardown). A test never adds to what another test left behind: each row is made whole by one
  test, so no row depends on which tests ran before it.
- Record outside a running test and it is refused.

Where the document goes. At the end of a pytest session the figures are written only if the session
passed, every section has a figure, and every row of the committed docs/reliability.md was recorded
again (a partial run, `-k` or one file, writes nothing). By default they go to
``build/reliability.md``, which git ignores, so `make test` leaves the working tree clean.
``RELIABILITY_DOC=docs/reliability.md`` (what `make reliability-doc` sets) writes the committed
document instead. A row that no test records any more is taken out of docs/reliability.md by hand,
in the commit that stops recording it; otherwise no run is complete.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The committed document: what a complete run must record again, and what `make reliability-doc`
#: refreshes.
DOC = REPO / "docs" / "reliability.md"
#: Where a run writes by default: ignored by git.
DEFAULT_TARGET = REPO / "build" / "reliability.md"
#: The environment variable naming another target (relative to the repository, or absolute).
TARGET_ENV = "RELIABILITY_DOC"

REAL_BROWSER = "real browser"
SCRIPTED = "scripted extension"
WHERE = (REAL_BROWSER, SCRIPTED)

#: Section name -> one line saying what it proves. Order is the document's order.
SECTIONS: dict[str, str] = {
    "Faults": "The browser, the worker, the tab or the daemon fails mid-command.",
    "Load": "Many callers at once, a full queue, large results and scripts.",
    "Hostile input": "Fuzzed requests and frames, web pages and other clients trying to get in.",
    "Strict pages and dialogs": "Pages whose Content-Security-Policy or dialogs stand in a "
    "script's way.",
}


@dataclass(frozen=True)
class Figure:
    section: str
    name: str
    value: str
    where: str
    test: str


@dataclass
class _Running:
    """The test running now: its id, whether it drives the real browser, and what it recorded."""

    test: str
    e2e: bool
    figures: list[Figure]
    failed: bool = False


_running: _Running | None = None
#: Figures of the tests that passed in this session, in the order they ran.
_figures: list[Figure] = []


def record(section: str, name: str, value: object, where: str) -> None:
    """Record one figure (`name`: `value`) under `section`, measured `where` (see the docstring)."""
    if section not in SECTIONS:
        raise ValueError(f"unknown section {section!r}; add it to SECTIONS")
    if where not in WHERE:
        raise ValueError(f"where must be figures.REAL_BROWSER or figures.SCRIPTED, not {where!r}")
    if _running is None:
        raise RuntimeError("figures.record() is called from a running test only")
    if (where == REAL_BROWSER) != _running.e2e:
        kind = "an e2e" if _running.e2e else "a non-e2e"
        raise ValueError(f"{_running.test} is {kind} test: it cannot record a {where!r} figure")
    if "|" in name:
        raise ValueError("a figure's name may not contain '|'")
    _running.figures.append(Figure(section, name, str(value), where, _running.test))


# -- the test's life, driven by the hooks in tests/conftest.py ----------------------------------


def begin(test: str, *, e2e: bool) -> None:
    global _running
    _running = _Running(test, e2e, [])


def failed() -> None:
    """The running test failed in one of its phases: what it recorded does not count."""
    if _running is not None:
        _running.failed = True


def end() -> None:
    """The running test is over: keep its figures if it passed."""
    global _running
    if _running is not None and not _running.failed:
        _figures.extend(_running.figures)
    _running = None


# -- the document --------------------------------------------------------------------------------


def target() -> Path:
    given = os.environ.get(TARGET_ENV)
    if not given:
        return DEFAULT_TARGET
    path = Path(given)
    return path if path.is_absolute() else REPO / path


def complete() -> bool:
    if not all(any(f.section == section for f in _figures) for section in SECTIONS):
        return False
    return _documented() <= {f.name for f in _figures}


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
        "<!-- Written by `make reliability-doc` (tests/figures.py) at the end of a complete, "
        "passing run. Do not edit by hand. -->",
        "",
        f"Run on {today}: {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, {_chromium_version()}.",
        "Every figure below was recorded in that run by the test named on its line, after the "
        "test's own assertions passed. *Seen in* says where: **real browser** is Debian's Chromium "
        "with the real extension; **scripted extension** is a real daemon with the scripted fake "
        "extension of tests/support.py.",
        "",
    ]
    for section, purpose in SECTIONS.items():
        lines += [
            f"## {section}",
            "",
            purpose,
            "",
            "| What | Figure | Seen in | Test |",
            "|---|---|---|---|",
        ]
        for figure in (f for f in _figures if f.section == section):
            cell = figure.value.replace("|", "\\|")
            test = figure.test.split("[")[0]
            lines.append(f"| {figure.name} | {cell} | {figure.where} | `{test}` |")
        lines.append("")
    return "\n".join(lines)


def write_if_complete(passed: bool) -> Path | None:
    """Write the document to target() when the run passed and is complete; where, or None."""
    if not (passed and complete()):
        return None
    path = target()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(), encoding="utf-8")
    return path
