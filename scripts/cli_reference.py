"""Print the CLI reference of docs/cli.md from the parser's own --help (`--write` updates it)."""

from __future__ import annotations

import os

# argparse wraps help to the terminal's width; a fixed width keeps the page stable.
os.environ["COLUMNS"] = "100"

from readme_block import DOCS, Block, main

from tabpilot.cli import build_parser


def reference() -> str:
    parser = build_parser()
    sections = [("tabpilot --help", parser.format_help())]
    subparsers = next(a for a in parser._actions if a.dest == "command")
    for name, sub in subparsers.choices.items():  # type: ignore[attr-defined]
        sections.append((f"tabpilot {name} --help", sub.format_help()))
        # A group's own subcommands (`tabpilot context create`), each with its help.
        group = next((a for a in sub._actions if a.dest == f"{name}_command"), None)
        for inner, parser in (group.choices if group is not None else {}).items():  # type: ignore[attr-defined]
            sections.append((f"tabpilot {name} {inner} --help", parser.format_help()))
    parts = [f"```console\n$ {command}\n{text.rstrip()}\n```" for command, text in sections]
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    raise SystemExit(main(Block(DOCS / "cli.md", "cli-reference", reference())))
