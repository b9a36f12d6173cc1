"""The generated parts of the docs are what their sources say: docs/tools.md's MCP tool reference
and the README's table of tools are what `tools/list` says (scripts/tool_reference.py), and
docs/benchmark.md's report and the README's headline of it are what the last run's results.json
says (scripts/benchmark_block.py). `make docs` writes them all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from readme_block import Block, current  # noqa: E402


def _printed(script: str) -> str:
    run = subprocess.run(
        [sys.executable, REPO / "scripts" / script], capture_output=True, text=True, check=True
    )
    return run.stdout


def test_the_tool_reference_and_the_readme_table_match_the_tools() -> None:
    import tool_reference

    reference, table = tool_reference.reference(), tool_reference.table()
    assert _printed("tool_reference.py") == f"{reference}\n{table}"
    stale = "stale: run `make docs`"
    assert current(REPO / "docs" / "tools.md", "tool-reference") == reference, stale
    assert current(REPO / "README.md", "tool-table") == table, stale
    # Every tool is there, with its description as a model reads it, and a row in the table.
    assert reference.count("\n### `") == reference.count("Structured content:")
    assert "### `execute_javascript`" in reference
    assert "### `pilot_status` (reads only)" in reference
    assert table.count("\n| [`") == reference.count("\n### `")
    assert "| [`pilot_status`](docs/tools.md#pilot_status-reads-only) | Is tabpilot ready:" in table


def test_the_benchmark_report_and_its_headline_match_the_last_run() -> None:
    import benchmark_block

    for block in benchmark_block.blocks():
        assert current(block.path, block.name) == block.text, f"{block.path} is stale: make docs"
    headline = benchmark_block.headline()
    assert all(f"\n| {start}" in headline for start in benchmark_block.HEADLINE)


def test_write_puts_a_block_between_its_markers_and_leaves_the_rest(tmp_path: Path) -> None:
    from readme_block import write

    page = tmp_path / "page.md"
    page.write_text("before\n<!-- x:start -->\nold\n<!-- x:end -->\nafter\n")
    write(Block(page, "x", "new\nlines\n"))
    assert page.read_text() == "before\n<!-- x:start -->\nnew\nlines\n<!-- x:end -->\nafter\n"
    assert current(page, "x") == "new\nlines\n"
