"""The README's MCP tool reference is what `tools/list` says (scripts/tool_reference.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

from readme_block import current  # noqa: E402


def test_readme_tool_reference_matches_the_tools() -> None:
    script = REPO / "scripts" / "tool_reference.py"
    run = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True)
    generated = run.stdout
    assert current("tool-reference") == generated, "README's tool reference is stale: make docs"
    # Every tool is there, with its description as a model reads it.
    assert generated.count("\n#### `") == generated.count("Structured content:")
    assert "#### `execute_javascript`" in generated
    assert "#### `pilot_status` (reads only)" in generated
