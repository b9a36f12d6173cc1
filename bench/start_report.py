"""The start-up rows' targets and tables (bench/suites.py's startup, bench/mcp_start.py), from
results.json alone."""

from __future__ import annotations

from typing import Any

Target = tuple[str, str, bool]
MB = 1024 * 1024

#: The rows of bench/mcp_start.py, in the report's order; each is one kind of fresh interpreter.
MCP = "mcp"
CLIENT = "client"
BARE = "bare"
#: The daemon's web stack: a client or forwarder that loads it pays its start-up for nothing.
WEB_STACK = ("starlette", "fastapi", "uvicorn")
#: An MCP client's wait, from spawning `tabpilot mcp` to its answer to initialize (median).
MCP_START_LIMIT_MS = 600.0
#: Each row of the table: its process, as it is run.
ROWS = {
    MCP: "`python -m tabpilot mcp`: spawn → `initialize` answered",
    CLIENT: '`python -c "import tabpilot; tabpilot.Client"`',
    BARE: "`python -c pass`: the interpreter alone",
}
_STACK = ", ".join(WEB_STACK[:-1]) + f" or {WEB_STACK[-1]}"


def _loads(row: dict[str, Any]) -> str:
    """Which of the web stack a row's process loaded, and how many of tabpilot's modules."""
    loaded = [name for name, present in row["web_stack"].items() if present]
    return (
        f"loads {', '.join(loaded) if loaded else 'none of them'}; "
        f"{row['tabpilot_modules']} tabpilot modules"
    )


def targets(results: dict[str, Any]) -> list[Target]:
    """(target, measured, met) of `tabpilot mcp`'s start-up and of what it and the client load;
    none if the suite did not run."""
    suite = results.get("mcp_start")
    if not suite:
        return []
    mcp, client = suite[MCP], suite[CLIENT]
    return [
        (
            f"`tabpilot mcp` spawn → initialize answered ≤ {MCP_START_LIMIT_MS:.0f} ms (median)",
            f"median {mcp['p50_ms']:,.0f} ms, p90 {mcp['p90_ms']:,.0f} ms of {mcp['runs']}",
            mcp["p50_ms"] <= MCP_START_LIMIT_MS,
        ),
        (
            f"`import tabpilot; tabpilot.Client` loads no {_STACK}",
            _loads(client),
            not any(client["web_stack"].values()),
        ),
        (
            f"`tabpilot mcp` loads no {_STACK}",
            _loads(mcp),
            not any(mcp["web_stack"].values()),
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
    for kind, name in ROWS.items():
        row = suite[kind]
        cells = [f"{row[k]:,.0f}" for k in ("p50_ms", "p90_ms", "max_ms")]
        if "web_stack" in row:
            cells += [str(row["tabpilot_modules"]), str(row["modules"])]
            cells += ["yes" if row["web_stack"][n] else "no" for n in WEB_STACK]
        else:
            cells += ["-"] * (2 + len(WEB_STACK))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines
