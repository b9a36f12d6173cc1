"""A generated block of README.md or of a page in docs/, between its two markers: printed, or
written with `--write`; and the anchor GitHub gives a heading, for links into those pages."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"


class Block(NamedTuple):
    """The text of block `name`, which stands between its markers in the file `path`."""

    path: Path
    name: str
    text: str


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def current(path: Path, name: str) -> str:
    """What the file `path` holds between the markers of block `name`."""
    start, end = markers(name)
    return path.read_text().split(f"{start}\n", 1)[1].split(end, 1)[0]


def write(block: Block) -> None:
    """Put the block's text between its markers in its file."""
    start, end = markers(block.name)
    before, rest = block.path.read_text().split(start, 1)
    _, after = rest.split(end, 1)
    block.path.write_text(f"{before}{start}\n{block.text}{end}{after}")


def main(*blocks: Block) -> int:
    """Print the blocks' texts, one after the other, or with `--write` put each in its file."""
    if "--write" not in sys.argv:
        sys.stdout.write("\n".join(block.text for block in blocks))
        return 0
    for block in blocks:
        write(block)
    return 0


def anchor(heading: str) -> str:
    """The `#anchor` GitHub gives a Markdown heading (without its `#`s): the text as it shows,
    lower-cased, without punctuation but `-` and `_`, each space a `-` (github-slugger). A heading
    whose anchor an earlier one of its page has takes `-1`, `-2`… after it: the caller counts."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())  # a link shows its text
    text = re.sub(r"[`*]", "", text)  # nor do the marks of code and emphasis
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
