"""The start-up rows' targets and tables (bench/suites.py's startup, bench/mcp_start.py), from
results.json alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Target = tuple[str, str, bool]
MB = 1024 * 1024

#: The rows of bench/mcp_start.py, in the report's order; each is one kind of fresh interpreter.
MCP = "mcp"
CLIENT = "client"
BARE = "bare"
#: The daemon's web stack: a client or forwarder that loads it pays its start-up for nothing.
WEB_STACK = ("starlette", "fastapi", "uvicorn")
#: The same rows measured on the package before its folders by role (the daemon's runtime and
#: HTTP face then loaded with every client): the start-up `tabpilot mcp` must not lose.
BEFORE = Path(__file__).resolve().parent / "results" / "mcp-start-before.json"
#: Run-to-run noise on this machine's 2 cores at a quiet load: a median within it is not slower.
NOISE = 1.05
#: tabpilot's daemon, which neither a client nor `tabpilot mcp` needs: its runtime and its HTTP
#: face (browsers/ and http/; before the reshape, the flat modules that held them).
DAEMON = (
    "tabpilot.browsers",
    "tabpilot.http",
    *(
        f"tabpilot.{name}"
        for name in [
            "bridge",
            "browser",
            "contexts",
            "first_page",
            "extension_hello",
            "function_registry",
            "tab_ids",
            "app",
            "tool_routes",
            "security",
            "limits",
            "transport",
            "frame_gate",
            "calls",
        ]
    ),
)
#: Each row of the table: its process, as it is run.
ROWS = {
    MCP: "`python -m tabpilot mcp`: spawn → `initialize` answered",
    CLIENT: '`python -c "import tabpilot; tabpilot.Client"`',
    BARE: "`python -c pass`: the interpreter alone",
}
_STACK = ", ".join(WEB_STACK[:-1]) + f" or {WEB_STACK[-1]}"


def daemon_modules(row: dict[str, Any]) -> list[str]:
    """The modules of tabpilot's daemon that a row's process loaded."""
    return [
        name
        for name in row["tabpilot_names"]
        if any(name == part or name.startswith(f"{part}.") for part in DAEMON)
    ]


def before() -> dict[str, Any] | None:
    """The committed run before the reshape, if there is one."""
    return json.loads(BEFORE.read_text()).get("mcp_start") if BEFORE.exists() else None


def _loads(row: dict[str, Any]) -> str:
    """What of the daemon and the web stack a row's process loaded."""
    daemon = len(daemon_modules(row))
    stack = [name for name, present in row["web_stack"].items() if present]
    return (
        f"{daemon} of the daemon's modules ({row['tabpilot_modules']} of tabpilot's); "
        f"{', '.join(stack) if stack else 'no web stack'}"
    )


def targets(results: dict[str, Any], earlier: dict[str, Any] | None = None) -> list[Target]:
    """(target, measured, met) of `tabpilot mcp`'s start-up against the run before the reshape
    (``earlier``, else the committed one), and of what it and the client load; none if the suite
    did not run."""
    suite = results.get("mcp_start")
    if not suite:
        return []
    earlier = earlier if earlier is not None else before()
    mcp, client = suite[MCP], suite[CLIENT]
    found = []
    if earlier is not None:
        was = earlier[MCP]["p50_ms"]
        found.append(
            (
                f"`tabpilot mcp` spawn → initialize answered no slower than before the package's "
                f"reshape ({was:,.0f} ms median)",
                f"median {mcp['p50_ms']:,.0f} ms, p90 {mcp['p90_ms']:,.0f} ms of {mcp['runs']}",
                mcp["p50_ms"] <= was * NOISE,
            )
        )
    return [
        *found,
        (
            f"`import tabpilot; tabpilot.Client` loads none of the daemon and no {_STACK}",
            _loads(client),
            not daemon_modules(client) and not any(client["web_stack"].values()),
        ),
        (
            # The MCP SDK's own server imports starlette and uvicorn: only FastAPI is tabpilot's.
            "`tabpilot mcp` loads none of the daemon and no fastapi",
            _loads(mcp),
            not daemon_modules(mcp) and not mcp["web_stack"]["fastapi"],
        ),
    ]


def markdown(results: dict[str, Any]) -> list[str]:
    """The bare daemon's start-up, then `tabpilot mcp`'s and the client's; each only if it
    ran."""
    lines: list[str] = []
    s = results.get("startup")
    if s:
        connected = results.get("idle_rss_connected_bytes")
        lines += [
            "",
            f"**Start-up**: process start to the first `/health` answer "
            f"{s['startup_p50_ms']:.0f} ms (median of {s['runs']}, slowest "
            f"{s['startup_max_ms']:.0f} ms); idle RSS {s['idle_rss_bytes'] / MB:.0f} MB without "
            "a browser"
            + (
                "."
                if connected is None
                else f", {connected / MB:.0f} MB with the extension connected."
            ),
        ]
    suite = results.get("mcp_start")
    if not suite:
        return lines
    contacted = suite["daemon_connections"]
    lines += [
        "",
        f"**`tabpilot mcp` start-up, and what it and the client load**: each process in a fresh "
        f"interpreter, {suite[MCP]['runs']} of each interleaved after one unmeasured round. "
        f"`tabpilot mcp` is spawned with the bench's daemon up (no browser) on its port and "
        f"`initialize` (protocol {suite['protocol']}) written to its stdin at once, timed to "
        "its answer's line. Modules are the names in `sys.modules`: the client's after its "
        "line, `tabpilot mcp`'s at exit, its stdin closed once it had answered. In a session of "
        f"`initialize` alone it opened {contacted} connection{'' if contacted == 1 else 's'} to "
        "the daemon's port (a listener there that never answers).",
        "",
        "| process | median ms | p90 ms | slowest ms | tabpilot modules | modules in all | "
        + " | ".join(WEB_STACK)
        + " |",
        "|---|---|---|---|---|---|" + "---|" * len(WEB_STACK),
    ]
    earlier = before()
    for kind, name in ROWS.items():
        lines.append(_table_row(name, suite[kind]))
        if earlier is not None and kind in (MCP, CLIENT):
            lines.append(_table_row(f"{name}, before the reshape", earlier[kind]))
    return lines


def _table_row(name: str, row: dict[str, Any]) -> str:
    cells = [f"{row[k]:,.0f}" for k in ("p50_ms", "p90_ms", "max_ms")]
    if "web_stack" in row:
        cells += [str(row["tabpilot_modules"]), str(row["modules"])]
        cells += ["yes" if row["web_stack"][n] else "no" for n in WEB_STACK]
    else:
        cells += ["-"] * (2 + len(WEB_STACK))
    return f"| {name} | " + " | ".join(cells) + " |"
