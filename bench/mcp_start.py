"""The start-up of `tabpilot mcp`, and how much of the package it and `tabpilot.Client` load.

An MCP client spawns `python -m tabpilot mcp --port P` for each session, so its start-up is a wait
before every session's first call; `import tabpilot; tabpilot.Client` is a script's first line.
Each is measured in a fresh interpreter, through public entry points alone (`python -m tabpilot
mcp`, `tabpilot.Client`, names in `sys.modules`), so the figures keep their meaning as the
package's modules move between files.
"""

from __future__ import annotations

import json
import os
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.harness import spawn_daemon

from bench import suites
from bench.start_report import BARE, CLIENT, MCP, WEB_STACK

#: The handshake-era revision: its client sends initialize first and waits for the answer.
PROTOCOL = "2025-06-18"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "tabpilot-bench", "version": "1"},
    },
}
#: The figures of each row's spawns (bench/suites.py's summary), in ms.
SUMMARY = ("p50", "p90", "min", "max")
#: Longest wait for any answer; a start-up past it is a failure, not a figure.
TIMEOUT_S = 30.0

#: `python -m tabpilot ...` with the names in sys.modules written to the file named by the
#: environment at exit. runpy runs the package's __main__ as `-m` does; the process then serves
#: exactly as `python -m tabpilot mcp` would, and is stopped by closing its stdin once
#: initialize is answered, so the names are what it loaded to serve initialize (and to shut
#: down). Not `-X importtime`: it also lists imports that failed (an optional uvloop, say); and
#: not `tabpilot mcp --help`: argparse exits before the command's own imports.
_RUN_MODULE = (
    "import atexit, json, os, runpy, sys\n"
    "out = os.environ['TABPILOT_BENCH_MODULES']\n"
    "atexit.register(lambda: open(out, 'w').write(json.dumps(sorted(sys.modules))))\n"
    "runpy.run_module('tabpilot', run_name='__main__', alter_sys=True)\n"
)
#: The client's first line, then the names in sys.modules, read before json adds its own.
_CLIENT_LINE = "import tabpilot; tabpilot.Client"
_CLIENT_MODULES = f"{_CLIENT_LINE}; import sys; names = sorted(sys.modules)\n" + (
    "import json; print(json.dumps(names))"
)


def _environ(state_dir: Path) -> dict[str, str]:
    """The bench's environment without the user's TABPILOT_ settings, and the daemon's state
    folder, where `tabpilot mcp` finds its token as an agent's would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABPILOT_")}
    return {**env, "TABPILOT_STATE_DIR": str(state_dir)}


def _line(process: subprocess.Popen[bytes], deadline: float) -> bytes:
    """The next line on the process's stdout, or an error once `deadline` passes."""
    assert process.stdout is not None
    remaining = deadline - time.perf_counter()
    ready, _, _ = select.select([process.stdout], [], [], max(0.0, remaining))
    if not ready:
        raise RuntimeError(f"no answer in {TIMEOUT_S:g} s")
    line = process.stdout.readline()
    if not line:
        raise RuntimeError(f"exited with {process.wait(5)} before answering")
    return line


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Close its stdin, as an MCP client ends a session, and wait for it to exit."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    process.stdout.close()


def spawn_to_initialize(
    port: int, env: dict[str, str], command: tuple[str, ...] = ("-m", "tabpilot")
) -> tuple[float, dict[str, Any]]:
    """Spawn `python -m tabpilot mcp --port P`, write initialize to its stdin at once (the pipe
    holds it until the process reads), and time until its answer's line arrives; returns the ms
    and the answer's result."""
    args = [sys.executable, *command, "mcp", "--port", str(port)]
    start = time.perf_counter()
    process = subprocess.Popen(
        args, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdin is not None
        process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        process.stdin.flush()
        line = _line(process, start + TIMEOUT_S)
        elapsed = (time.perf_counter() - start) * 1000
    finally:
        _stop(process)
    answer = json.loads(line)
    if answer.get("id") != 1 or "protocolVersion" not in answer.get("result", {}):
        raise RuntimeError(f"initialize answered {line[:300]!r}")
    result: dict[str, Any] = answer["result"]
    return elapsed, result


def _run(code: str, env: dict[str, str]) -> tuple[float, str]:
    """ms from spawn to exit of `python -c code`, and what it printed."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, timeout=TIMEOUT_S, check=False
    )
    elapsed = (time.perf_counter() - start) * 1000
    if out.returncode != 0:
        raise RuntimeError(f"python -c {code!r} exited {out.returncode}: {out.stderr[-300:]!r}")
    return elapsed, out.stdout.decode()


def closure(names: list[str]) -> dict[str, Any]:
    """What a list of sys.modules names says: tabpilot's own modules, and the web stack's."""
    ours = sorted(n for n in names if n == "tabpilot" or n.startswith("tabpilot."))
    return {
        "modules": len(names),
        "tabpilot_modules": len(ours),
        "tabpilot_names": ours,
        "web_stack": {name: name in names for name in WEB_STACK},
    }


def mcp_closure(port: int, env: dict[str, str]) -> dict[str, Any]:
    """The names in sys.modules of `python -m tabpilot mcp` once it has answered initialize,
    and the protocol revision it answered with."""
    with tempfile.TemporaryDirectory(prefix="tabpilot-bench-") as folder:
        out = Path(folder) / "modules.json"
        aimed = {**env, "TABPILOT_BENCH_MODULES": str(out)}
        _, answer = spawn_to_initialize(port, aimed, ("-c", _RUN_MODULE))
        names: list[str] = json.loads(out.read_text())
    return {**closure(names), "answered_protocol": answer["protocolVersion"]}


def contacts_daemon(command: tuple[str, ...] = ("-m", "tabpilot")) -> int:
    """Connections `tabpilot mcp` opened to its port in a session of initialize alone, from
    spawn to exit: a listener there takes them and never answers (0: it answers initialize
    without the daemon)."""
    with (
        tempfile.TemporaryDirectory(prefix="tabpilot-bench-") as state,
        socket.socket() as listener,
    ):
        env = _environ(Path(state))
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        taken: list[socket.socket] = []
        stop = threading.Event()

        def take() -> None:
            while not stop.is_set():
                if select.select([listener], [], [], 0.05)[0]:
                    taken.append(listener.accept()[0])

        thread = threading.Thread(target=take, daemon=True)
        thread.start()
        try:
            spawn_to_initialize(listener.getsockname()[1], env, command)
            time.sleep(0.1)  # a connection made just before the exit is taken by now
        finally:
            stop.set()
            thread.join()
            for conn in taken:
                conn.close()
        return len(taken)


def summary(samples: list[float]) -> dict[str, Any]:
    """The median, then p90 and the extremes ranked as the other suites' are, of a few spawns,
    in ms."""
    figures = {**suites.summary(samples), "p50": statistics.median(samples)}
    return {"runs": len(samples), **{f"{k}_ms": round(figures[k], 1) for k in SUMMARY}}


def measure(spawns: int) -> dict[str, Any]:
    """`spawns` of each kind of interpreter, interleaved so that load on a shared machine falls
    on all of them alike, after one unmeasured round (which also compiles any bytecode not yet
    cached); `tabpilot mcp` is spawned with the bench's daemon up, without a browser, on its
    port."""
    with spawn_daemon() as daemon:
        env = _environ(daemon.state_dir)
        kinds: dict[str, Callable[[], float]] = {
            MCP: lambda: spawn_to_initialize(daemon.port, env)[0],
            CLIENT: lambda: _run(_CLIENT_LINE, env)[0],
            BARE: lambda: _run("pass", env)[0],
        }
        for run in kinds.values():
            run()
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        for _ in range(spawns):
            for kind, run in kinds.items():
                times[kind].append(run())
        mcp = {**summary(times[MCP]), **mcp_closure(daemon.port, env)}
        client = {**summary(times[CLIENT]), **closure(json.loads(_run(_CLIENT_MODULES, env)[1]))}
    return {
        "protocol": PROTOCOL,
        "daemon_connections": contacts_daemon(),
        MCP: mcp,
        CLIENT: client,
        BARE: summary(times[BARE]),
    }
