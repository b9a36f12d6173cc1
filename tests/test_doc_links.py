"""Every relative link of README.md and docs/*.md leads somewhere: the file it names exists, and its
`#anchor`, where it has one, is a heading of that page, by GitHub's rules (scripts/readme_block.py).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from readme_block import anchor  # noqa: E402

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: Pages the docs link to before they are written; their anchors are checked once they are there.
NOT_YET = {REPO / "docs" / "architecture.md"}

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6}) +(.+?)(?: +#+)?$")
CODE_SPAN = re.compile(r"`+[^`]*`+")
LINK = re.compile(r"\]\(<?([^)\s>]+)>?(?: \"[^\"]*\")?\)")


def _prose(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced code blocks, each with its number."""
    lines, fenced = [], False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def anchors(page: Path) -> set[str]:
    """The anchors of the page's headings; a repeated one takes `-1`, `-2`… as on GitHub."""
    found: set[str] = set()
    for _, line in _prose(page):
        heading = HEADING.match(line)
        if heading is None:
            continue
        base = slug = anchor(heading.group(2))
        count = 0
        while slug in found:
            count += 1
            slug = f"{base}-{count}"
        found.add(slug)
    return found


def broken_links(page: Path) -> list[str]:
    """The relative links of `page` that lead nowhere, each as `page:line: target`."""
    broken = []
    for number, line in _prose(page):
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                ok = linked in NOT_YET
            else:
                ok = not fragment or linked.suffix != ".md" or fragment in anchors(linked)
            if not ok:
                broken.append(f"{page.name}:{number}: {target}")
    return broken


def test_every_relative_link_and_anchor_of_the_docs_resolves() -> None:
    assert [link for page in PAGES for link in broken_links(page)] == []


def test_a_link_to_a_missing_page_or_heading_is_caught(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## Its `part` (two)\n\n## Its part\n")
    page.write_text(
        "# Page\n\n"
        "[fine](other.md#its-part-two) [fine](other.md#its-part) [fine](#page)\n"
        "[missing page](gone.md) [missing heading](other.md#its-part-1) [here](#nowhere)\n"
        "`[in code](gone.md)`\n\n```\n[in a block](gone.md)\n```\n"
    )
    assert broken_links(page) == [
        "page.md:4: gone.md",
        "page.md:4: other.md#its-part-1",
        "page.md:4: #nowhere",
    ]


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        # Headings of docs/protocol.md, of docs/tools.md and of the README.
        (
            "6. Program ⇄ daemon: the callers' socket, WebSocket `ws://127.0.0.1:<port>/ws/calls`",
            "6-program--daemon-the-callers-socket-websocket-ws127001portwscalls",
        ),
        (
            "3. Content script ⇄ page world: DOM events named with a secret",
            "3-content-script--page-world-dom-events-named-with-a-secret",
        ),
        (
            "5. Safe serialization (`extension/lib/serialize.js`)",
            "5-safe-serialization-extensionlibserializejs",
        ),
        ("`browser_snapshot` (reads only)", "browser_snapshot-reads-only"),
        ("Use it from an AI agent (MCP)", "use-it-from-an-ai-agent-mcp"),
    ],
)
def test_anchors_follow_github(heading: str, expected: str) -> None:
    assert anchor(heading) == expected
