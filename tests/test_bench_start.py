"""The start-up rows of `make bench` (bench/mcp_start.py, bench/start_report.py): targets and
tables read from results.json alone; spawn to the answer to initialize timed and checked on
stand-ins for `tabpilot mcp`, connections to the daemon's port counted; and the modules of the
real `tabpilot mcp` read through its public entry point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bench import mcp_start as ms
from bench import start_report as sr

MB = 1024 * 1024
MCP_TARGET = (
    "`tabpilot mcp` spawn → initialize answered no slower than before the package's reshape "
    "(1,630 ms median)"
)
CLIENT_TARGET = (
    "`import tabpilot; tabpilot.Client` loads none of the daemon and no starlette, fastapi or "
    "uvicorn"
)
MCP_STACK_TARGET = "`tabpilot mcp` loads none of the daemon and no fastapi"
#: Modules of the daemon as each layout named them: the flat one's bridge, the folders' http/.
DAEMON = ("tabpilot.bridge", "tabpilot.http.app")


def _row(p50: float, tabpilot: int | None = None, *stack: str) -> dict[str, Any]:
    row: dict[str, Any] = {"runs": 10, "p50_ms": p50, "p90_ms": p50 * 1.2, "max_ms": p50 * 1.5}
    if tabpilot is not None:
        daemon = [name for name in stack if name.startswith("tabpilot.")]
        others = [name for name in stack if not name.startswith("tabpilot.")]
        count = tabpilot - 1 - len(daemon)
        names = ["tabpilot", *daemon, *(f"tabpilot.m{i}" for i in range(count)), *others, "json"]
        row |= ms.closure(names)
    return row


def _suite(mcp: dict[str, Any], client: dict[str, Any]) -> dict[str, Any]:
    return {
        "protocol": ms.PROTOCOL,
        "daemon_connections": 0,
        sr.MCP: {**mcp, "answered_protocol": ms.PROTOCOL},
        sr.CLIENT: client,
        sr.BARE: _row(18.0),
    }


BEFORE = _suite(
    _row(1630.0, 37, *DAEMON, "starlette", "uvicorn"), _row(571.0, 36, *DAEMON, "starlette")
)
AFTER = _suite(_row(1600.0, 48, "starlette", "uvicorn"), _row(150.0, 4))
SLOWER = _suite(_row(1800.0, 48, "starlette", "uvicorn", "fastapi"), _row(150.0, 4, "starlette"))


@pytest.mark.parametrize(
    ("suite", "expected"),
    [
        (
            BEFORE,
            [
                (MCP_TARGET, "median 1,630 ms, p90 1,956 ms of 10", True),
                (
                    CLIENT_TARGET,
                    "2 of the daemon's modules (36 of tabpilot's); starlette",
                    False,
                ),
                (
                    MCP_STACK_TARGET,
                    "2 of the daemon's modules (37 of tabpilot's); starlette, uvicorn",
                    False,
                ),
            ],
        ),
        (
            AFTER,
            [
                (MCP_TARGET, "median 1,600 ms, p90 1,920 ms of 10", True),
                (CLIENT_TARGET, "0 of the daemon's modules (4 of tabpilot's); no web stack", True),
                (
                    MCP_STACK_TARGET,
                    "0 of the daemon's modules (48 of tabpilot's); starlette, uvicorn",
                    True,
                ),
            ],
        ),
        (
            # Slower past the noise, and a web stack pulled in: each target says so.
            SLOWER,
            [
                (MCP_TARGET, "median 1,800 ms, p90 2,160 ms of 10", False),
                (CLIENT_TARGET, "0 of the daemon's modules (4 of tabpilot's); starlette", False),
                (
                    MCP_STACK_TARGET,
                    "0 of the daemon's modules (48 of tabpilot's); starlette, fastapi, uvicorn",
                    False,
                ),
            ],
        ),
    ],
)
def test_each_target_reads_its_row_and_says_whether_it_was_met(
    suite: dict[str, Any], expected: list[sr.Target]
) -> None:
    assert sr.targets({"mcp_start": suite}, earlier=BEFORE) == expected


def test_the_committed_run_before_the_reshape_is_read_for_the_start_up_target() -> None:
    earlier = sr.before()
    assert earlier is not None and earlier[sr.MCP]["p50_ms"] > 0
    assert sr.daemon_modules(earlier[sr.MCP])  # the flat layout's bridge, contexts, app, …


def test_a_run_without_the_suites_has_no_start_up_targets_or_tables() -> None:
    assert sr.targets({}) == [] and sr.markdown({}) == []


def test_the_table_has_a_row_per_process_and_the_daemons_start_up_its_line() -> None:
    startup = {"runs": 5, "startup_p50_ms": 997.2, "startup_max_ms": 1200.0}
    results = {"startup": {**startup, "idle_rss_bytes": 58 * MB}, "mcp_start": BEFORE}
    lines = sr.markdown(results)
    text = "\n".join(lines)
    # `--only startup`: no rig, so no RSS with the extension connected.
    assert "first `/health` answer 997 ms (median of 5, slowest 1200 ms); " in text
    assert "idle RSS 58 MB without a browser." in text
    assert "opened 0 connections to the daemon's port" in text
    assert (
        "| process | median ms | p90 ms | slowest ms | tabpilot modules | modules in all | "
        "starlette | fastapi | uvicorn |"
    ) in lines
    assert f"| {sr.ROWS[sr.MCP]} | 1,630 | 1,956 | 2,445 | 37 | 40 | yes | no | yes |" in lines
    assert f"| {sr.ROWS[sr.CLIENT]} | 571 | 685 | 856 | 36 | 38 | yes | no | no |" in lines
    assert f"| {sr.ROWS[sr.BARE]} | 18 | 22 | 27 | - | - | - | - | - |" in lines
    # The whole run: the RSS with the extension connected as well.
    lines = sr.markdown({**results, "idle_rss_connected_bytes": 70 * MB})
    assert "without a browser, 70 MB with the extension connected." in "\n".join(lines)


def test_a_closure_counts_tabpilots_modules_and_names_the_web_stack() -> None:
    names = ["tabpilot", "tabpilot.sdk", "tabpilotx", "starlette.routing", "fastapi", "json"]
    assert ms.closure(names) == {
        "modules": 6,
        "tabpilot_modules": 2,
        "tabpilot_names": ["tabpilot", "tabpilot.sdk"],
        # A package's submodule is loaded with the package itself, which is what is looked for.
        "web_stack": {"starlette": False, "fastapi": True, "uvicorn": False},
    }


def test_the_median_of_an_even_count_is_between_its_middle_two() -> None:
    assert ms.summary([30.0, 10.0, 20.0, 40.0]) == {
        "runs": 4,
        "p50_ms": 25.0,
        "p90_ms": 40.0,
        "min_ms": 10.0,
        "max_ms": 40.0,
    }


#: A stand-in for `tabpilot mcp --port P`: connects to P first if told to, then answers the
#: first line on stdin as an initialize, and waits for stdin to close.
STAND_IN = """
import json, socket, sys
if CONNECT:
    socket.create_connection(("127.0.0.1", int(sys.argv[3])))
request = json.loads(sys.stdin.readline())
result = {"protocolVersion": request["params"]["protocolVersion"]} if ANSWER else {}
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
sys.stdin.read()
"""


def _stand_in(connect: bool = False, answer: bool = True) -> tuple[str, ...]:
    return ("-c", f"CONNECT, ANSWER = {connect}, {answer}\n{STAND_IN}")


def test_spawn_to_initialize_times_the_answers_line_and_checks_it(tmp_path: Path) -> None:
    env = ms._environ(tmp_path)
    elapsed, result = ms.spawn_to_initialize(1, env, _stand_in())
    assert result == {"protocolVersion": ms.PROTOCOL} and 0 < elapsed < ms.TIMEOUT_S * 1000
    with pytest.raises(RuntimeError, match="initialize answered"):
        ms.spawn_to_initialize(1, env, _stand_in(answer=False))
    with pytest.raises(RuntimeError, match="exited with 3 before answering"):
        ms.spawn_to_initialize(1, env, ("-c", "raise SystemExit(3)"))


def test_connections_to_the_daemons_port_are_counted() -> None:
    assert ms.contacts_daemon(_stand_in()) == 0
    assert ms.contacts_daemon(_stand_in(connect=True)) == 1


def test_the_real_tabpilot_mcp_is_read_through_its_public_entry_point(tmp_path: Path) -> None:
    # No daemon on the port: initialize is answered without one (ms.contacts_daemon).
    closure = ms.mcp_closure(1, ms._environ(tmp_path))
    assert closure["answered_protocol"] == ms.PROTOCOL
    assert "tabpilot" in closure["tabpilot_names"] and set(closure["web_stack"]) == {
        "starlette",
        "fastapi",
        "uvicorn",
    }
    assert closure["modules"] > closure["tabpilot_modules"] > 0
