"""tabpilot's outward surface is the committed one (scripts/surface.py): the OpenAPI document, MCP's
instructions and tools/list (by default, with each capability and with all of them), every CLI
command's help, the public client's signatures and the error table. A change of the package's
inside changes none of them; a change that means to runs `python scripts/surface.py --write` and
shows the difference in its diff.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_surface_is_the_committed_one() -> None:
    # A fresh interpreter: the surface must not depend on what other tests imported first.
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "surface.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    committed = json.loads((ROOT / "tests" / "fixtures" / "surface.json").read_text())
    now = json.loads(run.stdout)
    for part in committed:
        assert now[part] == committed[part], f"the {part} surface changed: scripts/surface.py"
    assert set(now) == set(committed)
    assert run.stdout == (ROOT / "tests" / "fixtures" / "surface.json").read_text()
