"""Each folder of the package imports only what its rule allows (docs/architecture.md, "Import
rules"), and the clients load none of the daemon.

The rules are read from the code's own imports with `ast`: an import under ``if TYPE_CHECKING:`` is
for the type checker only and is not counted; an import inside a function runs on first use
(``lazy``) and is allowed where a rule says so. This is the package's equivalent of Playwright's
``DEPS.list`` per folder.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "tabpilot"

#: The foundation modules: settings, the wire, the envelope, ids, text hygiene, extension files.
FOUNDATION = {"config", "protocol", "envelope", "ids", "unicode", "extension_files"}
#: Libraries of the daemon's HTTP edge and runtime that no declaration or client may load.
SERVER_LIBRARIES = {"starlette", "fastapi", "uvicorn"}


@dataclass(frozen=True)
class Rule:
    #: Parts of tabpilot (folders or foundation modules) imported at load time.
    may: frozenset[str]
    #: Parts imported only inside a function, on first use.
    lazy: frozenset[str]
    #: Third-party top-level packages it must not import at all.
    never: frozenset[str]


#: What a declaration must not load: the daemon's libraries, the MCP SDK, the clients' sockets.
DECLARATIONS_NEVER = SERVER_LIBRARIES | {"mcp", "websockets", "httpx"}


def _rule(may: set[str], lazy: set[str] | None = None, never: set[str] | None = None) -> Rule:
    return Rule(
        frozenset(may),
        frozenset(lazy or ()),
        frozenset(DECLARATIONS_NEVER if never is None else never),
    )


BELOW = FOUNDATION | {"errors"}
RULES: dict[str, Rule] = {
    "errors": _rule(set()),
    "foundation": _rule(BELOW),
    "tools": _rule(BELOW | {"tools"}),
    "guard": _rule(BELOW | {"tools", "guard"}),
    "browsers": _rule(
        BELOW | {"tools", "guard", "browsers"}, never={"fastapi", "uvicorn", "mcp", "httpx"}
    ),
    "http": _rule(BELOW | {"tools", "guard", "browsers", "http", "mcp.http"}, never={"httpx"}),
    "mcp": _rule(BELOW | {"tools", "guard", "mcp"}, never={"fastapi", "httpx"}),
    "client": _rule(BELOW | {"tools", "guard", "client"}, never=SERVER_LIBRARIES | {"mcp"}),
    # Claude's browser toolset drives the daemon through the Python client alone.
    "claude": _rule({"client", "claude"}, never=SERVER_LIBRARIES | {"mcp"}),
    "cli": _rule(
        BELOW | {"tools", "guard", "client", "cli"},
        lazy={"http", "mcp.stdio"},
        never=SERVER_LIBRARIES | {"mcp", "websockets"},
    ),
}
#: Modules with a wider rule than their folder's, and why.
EXCEPTIONS: dict[str, Rule] = {
    # The package's lazy public surface: the client and the error root, on first use.
    "__init__": _rule(set(), lazy={"client", "errors"}),
    "__main__": _rule({"cli"}, never=set()),
    # /mcp in the daemon: the tools run in the daemon's own contexts, behind the HTTP edge's limits.
    "mcp.local": _rule(BELOW | {"tools", "guard", "mcp", "browsers"}, never={"fastapi", "httpx"}),
    "mcp.http": _rule(
        BELOW | {"tools", "guard", "mcp", "browsers", "http"}, never={"fastapi", "httpx"}
    ),
    # The stdio forwarder sends each call to the daemon through the client's connection.
    "mcp.stdio": _rule(BELOW | {"tools", "guard", "mcp", "client"}, never={"fastapi"}),
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)
        found[name] = path
    return found


def _part(dotted: str) -> str:
    """The part of tabpilot that ``tabpilot.<dotted>`` belongs to: a foundation module, a folder,
    or one of the modules a rule names by itself (mcp.http)."""
    pieces = dotted.split(".")
    if pieces[0] == "mcp" and len(pieces) > 1 and pieces[1] in ("http", "stdio"):
        return f"mcp.{pieces[1]}"
    return pieces[0]


def _imports(path: Path, name: str) -> list[tuple[str, bool, int]]:
    """(imported module, inside a function, line) for each import outside TYPE_CHECKING."""
    tree = ast.parse(path.read_text())
    found: list[tuple[str, bool, int]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child, in_function)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, in_function, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # the package imports absolutely: a relative import is named as such
                base = f"tabpilot.{'.' * node.level}{base}"
            if base == "tabpilot":  # from tabpilot import x: x may be a module
                found.extend((f"tabpilot.{a.name}", in_function, node.lineno) for a in node.names)
            else:
                found.append((base, in_function, node.lineno))
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    return found


def _rule_of(name: str) -> tuple[str, Rule]:
    for key in (name, _part(name)):
        if key in EXCEPTIONS:
            return key, EXCEPTIONS[key]
    folder = "foundation" if name in FOUNDATION else name.split(".")[0]
    return folder, RULES[folder]


def violations() -> list[str]:
    """Every import that breaks its module's rule, as `module:line imports what (rule)`."""
    found = []
    for name, path in _modules().items():
        key, rule = _rule_of(name)
        for imported, lazy, line in _imports(path, name):
            top = imported.split(".")[0]
            if top == "tabpilot":
                rest = imported.removeprefix("tabpilot").lstrip(".")
                if not rest or rest == "__version__":
                    continue  # the package root: its __version__
                part = _part(rest)
                own = part == _part(name) or part == name.split(".")[0]
                allowed = rule.may | (rule.lazy if lazy else frozenset())
                if not own and part not in allowed and part.split(".")[0] not in allowed:
                    found.append(f"{name}:{line} imports tabpilot.{rest} (rule {key!r})")
            elif top in rule.never:
                found.append(f"{name}:{line} imports {imported} (rule {key!r})")
    return found


def test_every_module_has_a_rule() -> None:
    for name in _modules():
        _rule_of(name)  # a KeyError names a folder without a rule


def test_every_import_follows_its_folders_rule() -> None:
    assert violations() == []


def test_a_broken_rule_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The walk itself: a declaration that imports the runtime is named, with its line.
    fake = tmp_path / "tabpilot"
    (fake / "tools").mkdir(parents=True)
    (fake / "tools" / "bad.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tabpilot.browsers import x\n"
        "from tabpilot.browsers.bridge import Bridge\nimport starlette\n"
        "def f():\n    from tabpilot.http import app\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert violations() == [
        "tools.bad:4 imports tabpilot.browsers.bridge (rule 'tools')",
        "tools.bad:5 imports starlette (rule 'tools')",
        "tools.bad:7 imports tabpilot.http (rule 'tools')",
    ]


def _closure(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    script = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    return set(json.loads(run.stdout.splitlines()[-1]))


def _runtime(modules: set[str]) -> set[str]:
    return {
        m
        for m in modules
        if m.split(".")[0] in SERVER_LIBRARIES
        or m.startswith(("tabpilot.browsers", "tabpilot.http", "tabpilot.mcp"))
    }


def test_the_public_client_loads_none_of_the_daemon() -> None:
    loaded = _closure("import tabpilot\ntabpilot.Client\ntabpilot.AsyncClient")
    assert "tabpilot.client" in loaded
    assert _runtime(loaded) == set()


def test_the_cli_loads_none_of_the_daemon_until_it_serves() -> None:
    loaded = _closure("from tabpilot.cli import build_parser\nbuild_parser()")
    assert _runtime(loaded) == set()


def test_tabpilot_mcp_loads_neither_the_runtime_nor_the_http_edge() -> None:
    # What `tabpilot mcp` imports before it serves stdio. The MCP SDK's own server brings in
    # Starlette and uvicorn; tabpilot's daemon (its runtime, its HTTP face, FastAPI) stays out.
    loaded = _closure("import tabpilot.cli\nfrom tabpilot.mcp.stdio import run_stdio")
    assert "tabpilot.mcp.stdio" in loaded
    ours = {m for m in loaded if m.startswith(("tabpilot.browsers", "tabpilot.http"))}
    assert ours == set()
    assert "fastapi" not in loaded
    assert "tabpilot.mcp.local" not in loaded
