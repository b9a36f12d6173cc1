"""A generated block of README.md, between its two markers: printed, or written with `--write`."""

from __future__ import annotations

import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def current(name: str) -> str:
    """What README.md holds between the markers of block `name`."""
    start, end = markers(name)
    return README.read_text().split(f"{start}\n", 1)[1].split(end, 1)[0]


def main(name: str, text: str) -> int:
    """Print `text`, or with `--write` put it between the markers of block `name`."""
    if "--write" not in sys.argv:
        sys.stdout.write(text)
        return 0
    start, end = markers(name)
    readme = README.read_text()
    before, rest = readme.split(start, 1)
    _, after = rest.split(end, 1)
    README.write_text(f"{before}{start}\n{text}{end}{after}")
    return 0
