"""Print the README's CLI reference from the parser's own --help (`--write` updates README.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# argparse wraps help to the terminal's width; a fixed width keeps the README stable.
os.environ["COLUMNS"] = "100"

from tabpilot.cli import build_parser

README = Path(__file__).resolve().parents[1] / "README.md"
START = "<!-- cli-reference:start -->"
END = "<!-- cli-reference:end -->"


def reference() -> str:
    parser = build_parser()
    sections = [("tabpilot --help", parser.format_help())]
    subparsers = next(a for a in parser._actions if a.dest == "command")
    for name, sub in subparsers.choices.items():  # type: ignore[attr-defined]
        sections.append((f"tabpilot {name} --help", sub.format_help()))
    parts = [f"```console\n$ {command}\n{text.rstrip()}\n```" for command, text in sections]
    return "\n\n".join(parts) + "\n"


def main() -> int:
    text = reference()
    if "--write" not in sys.argv:
        sys.stdout.write(text)
        return 0
    readme = README.read_text()
    before, rest = readme.split(START, 1)
    _, after = rest.split(END, 1)
    README.write_text(f"{before}{START}\n{text}{END}{after}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
