"""Constants the daemon and the extension both hold must agree.

The extension is plain JavaScript with no build step, so it cannot import the daemon's values: each
pair is checked here instead, the JavaScript side read from its source with a regex. A constant
missing from its file fails too, so that a rename on the extension's side cannot pass unseen.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

import pytest

from tabpilot.config import DEFAULT_PORT
from tabpilot.protocol import MAX_RESULT_CHARS, PROTOCOL_VERSION
from tabpilot.tools.fields import MAX_TIMEOUT_MS
from tabpilot.tools.find import DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERY_CHARS
from tabpilot.tools.logs import RequestType
from tabpilot.tools.screenshot import MAX_SIZE, MAX_ZOOM
from tabpilot.tools.wait import MAX_TIME_MS, NETWORK_IDLE_MS

EXTENSION = Path(__file__).resolve().parents[1] / "extension"

#: (extension file, constant, the daemon's value)
PAIRS = [
    ("worker/main.js", "PROTOCOL_VERSION", PROTOCOL_VERSION),
    ("worker/main.js", "DEFAULT_PORT", DEFAULT_PORT),
    ("page/inject.js", "MAX_RESULT_CHARS", MAX_RESULT_CHARS),
    ("worker/tab/script-routes.js", "MAX_RESULT_CHARS", MAX_RESULT_CHARS),
    ("worker/tools/capture-params.js", "MAX_SIZE", MAX_SIZE),
    ("worker/tools/capture-params.js", "MAX_ZOOM", MAX_ZOOM),
    ("worker/tools/wait.js", "MAX_TIME_MS", MAX_TIME_MS),
    ("worker/tools/wait.js", "MAX_WAIT_MS", MAX_TIMEOUT_MS),
    ("worker/tools/wait-network.js", "IDLE_MS", NETWORK_IDLE_MS),
    ("worker/tools/find.js", "MAX_QUERY_CHARS", MAX_QUERY_CHARS),
    ("worker/tools/find.js", "MAX_LIMIT", MAX_LIMIT),
    ("worker/tools/find.js", "DEFAULT_LIMIT", DEFAULT_LIMIT),
]


def js_constant(path: Path, name: str) -> int:
    """The value of `const NAME = EXPRESSION;` in the file: an integer, or a product or sum of
    integers such as `16 * 1024 * 1024`. Fails unless the file defines NAME exactly once."""
    found = re.findall(rf"\bconst {name} = ([^;\n]+);", path.read_text())
    assert len(found) == 1, f"{path.name} defines `const {name} = …;` {len(found)} times, not once"
    return _integer(ast.parse(found[0].strip(), mode="eval").body, found[0])


def _integer(node: ast.expr, source: str) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Add | ast.Sub):
        left, right = _integer(node.left, source), _integer(node.right, source)
        if isinstance(node.op, ast.Mult):
            return left * right
        return left + right if isinstance(node.op, ast.Add) else left - right
    raise AssertionError(f"`{source}` is not an integer expression this test reads")


@pytest.mark.parametrize(("path", "name", "expected"), PAIRS, ids=[f"{p}:{n}" for p, n, _ in PAIRS])
def test_the_extension_holds_the_daemons_value(path: str, name: str, expected: int) -> None:
    assert js_constant(EXTENSION / path, name) == expected


def test_a_constant_missing_from_its_file_fails(tmp_path: Path) -> None:
    source = tmp_path / "renamed.js"
    source.write_text("export const PROTOCOL = 1;\n// PROTOCOL_VERSION = 1\n")
    with pytest.raises(AssertionError, match="0 times"):
        js_constant(source, "PROTOCOL_VERSION")


def test_the_reader_takes_the_arithmetic_the_extension_writes(tmp_path: Path) -> None:
    source = tmp_path / "sizes.js"
    source.write_text("  const MAX_RESULT_CHARS = 16 * 1024 * 1024;\nexport const PORT = 7_878;\n")
    assert js_constant(source, "MAX_RESULT_CHARS") == 16 * 1024 * 1024
    assert js_constant(source, "PORT") == 7878


def test_the_request_types_are_the_daemons() -> None:
    # browser_network_requests' `type`: the extension refuses what the daemon's model does not.
    source = (EXTENSION / "worker/tools/logs-network.js").read_text()
    found = re.search(r"\bconst REQUEST_TYPES = \[([^\]]*)\]", source)
    assert found is not None, "logs-network.js defines no `const REQUEST_TYPES = [...]`"
    assert re.findall(r'"([a-z_]+)"', found[1]) == list(get_args(RequestType))
