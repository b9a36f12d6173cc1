"""The measurements. Each returns plain data that goes into results.json as is."""

from __future__ import annotations

import asyncio
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from tests.e2e.harness import free_port

from bench.clients import AsyncKeepAlive, LeanClient, raw_post
from bench.rig import Rig, proc_status, reset_peak
from bench.systems import System, Unavailable


@dataclass
class Counts:
    """How much to measure; `smoke()` is the few-calls run that `make test` makes."""

    warmup: int = 200
    calls: int = 2000
    blocks: int = 20
    callers: tuple[int, ...] = (1, 4, 16, 64)
    seconds: float = 3.0
    payload_reps: tuple[int, ...] = (30, 20, 8, 4)
    startups: int = 5
    #: Spawns of `tabpilot mcp` to its answer to initialize, and of the client's import
    #: (bench/mcp_start.py).
    mcp_starts: int = 10
    #: Cold starts of the one-line MCP configuration and of Playwright MCP, to the first call's
    #: answer (bench/cold_start.py).
    cold_starts: int = 5
    #: The MCP servers' rows (bench/peer_suite.py): calls of a fast tool (tabpilot's), of a
    #: tool that takes tenths of a second (the peers'), of tabpilot's 10,000-element snapshot
    #: (the peers' make a sixth as many), interleaved in this many blocks.
    peer_fast: int = 200
    peer_slow: int = 30
    peer_10k: int = 30
    peer_blocks: int = 10
    #: The task suite (bench/tasks.py): runs of each task by each server after a warm-up run,
    #: and which tasks (None: every one).
    task_runs: int = 5
    task_warmup: int = 1
    task_keys: tuple[str, ...] | None = None
    #: The rows of a page's hands over HTTP (bench/hands.py): fills of the ten-field form and
    #: drags; waits for a text to appear; uploads of a 5 MB file.
    hands_calls: int = 100
    hands_waits: int = 40
    hands_uploads: int = 20
    #: The contexts suite (bench/contexts.py): managed contexts created, and `1+1` calls in each,
    #: alone and all at once.
    contexts: int = 3
    context_calls: int = 1000

    @classmethod
    def smoke(cls) -> Counts:
        return cls(
            warmup=3,
            calls=12,
            blocks=2,
            seconds=0.3,
            payload_reps=(1, 1, 1, 1),
            startups=1,
            mcp_starts=2,
            cold_starts=1,
            peer_fast=4,
            peer_slow=2,
            peer_10k=6,
            peer_blocks=2,
            task_runs=1,
            task_warmup=0,
            task_keys=("error", "upload", "wait", "drag", "frame_form", "new_tab"),
            hands_calls=6,
            hands_waits=4,
            hands_uploads=3,
            contexts=2,
            context_calls=12,
        )


def summary(samples: list[float]) -> dict[str, Any]:
    """p50/p90/p99 and friends of samples in ms, plus every percentile for the plot."""
    ordered = sorted(samples)

    def pct(p: float) -> float:
        index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
        return round(ordered[index], 4)

    return {
        "n": len(ordered),
        "p50": pct(50),
        "p90": pct(90),
        "p99": pct(99),
        "mean": round(statistics.fmean(ordered), 4),
        "min": round(ordered[0], 4),
        "max": round(ordered[-1], 4),
        "percentiles": [pct(p) for p in range(101)],
    }


def latency(systems: list[System], counts: Counts) -> list[dict[str, Any]]:
    """Round trips of each system, interleaved in blocks so that load on a shared machine falls
    on all of them alike. Times are taken by the caller, in ms. A system whose set-up or call
    raises `Unavailable` gets a row that says why instead of figures; the others go on."""
    started: list[System] = []
    missing: dict[str, str] = {}
    times: dict[str, list[float]] = {s.name: [] for s in systems}
    inside: dict[str, list[float]] = {s.name: [] for s in systems}
    clock = time.perf_counter_ns

    def measure(system: System, calls: int, record: bool) -> None:
        call, out, daemon = system.call, times[system.name], inside[system.name]
        try:
            for _ in range(calls):
                start = clock()
                reported = call()
                if record and system.timed_by_call:
                    out.append(float(reported or 0.0))
                elif record:
                    out.append((clock() - start) / 1e6)
                    if reported is not None:
                        daemon.append(reported)
        except Unavailable as exc:
            missing[system.name] = f"stopped after {len(out)} calls: {exc}"

    try:
        for system in systems:
            try:
                system.setup()
            except Unavailable as exc:
                missing[system.name] = str(exc)
                continue
            started.append(system)
        for system in started:
            measure(system, counts.warmup if system.warmup is None else system.warmup, False)
        for _ in range(counts.blocks):
            for system in started:
                if system.name not in missing:
                    calls = counts.calls if system.calls is None else system.calls
                    measure(system, max(1, calls // counts.blocks), True)
    finally:
        for system in started:
            system.teardown()
    rows = []
    for system in systems:
        if system.name in missing:
            rows.append({"system": system.name, "available": False, "reason": missing[system.name]})
            continue
        row = {"system": system.name, **summary(times[system.name])}
        if inside[system.name]:
            row["daemon"] = {
                k: v for k, v in summary(inside[system.name]).items() if k != "percentiles"
            }
        rows.append(row)
    return rows


async def _throughput_once(
    rig: Rig, callers: int, tabs: list[int], seconds: float
) -> dict[str, Any]:
    requests = [
        raw_post(rig.port, "/execute_javascript", {"script": "1+1", "tab_id": t}) for t in tabs
    ]
    conns = [await AsyncKeepAlive.open(rig.port) for _ in range(callers)]
    done = [0]
    times: list[float] = []
    measuring = [False]
    stop = [False]

    async def caller(index: int, conn: AsyncKeepAlive) -> None:
        k = index
        while not stop[0]:
            start = time.perf_counter()
            await conn.call(requests[k % len(requests)])
            k += 1
            if measuring[0]:
                done[0] += 1
                times.append((time.perf_counter() - start) * 1000)

    tasks = [asyncio.create_task(caller(i, c)) for i, c in enumerate(conns)]
    try:
        await asyncio.sleep(min(0.5, seconds / 3))  # warm-up: every caller has a call in flight
        measuring[0] = True
        started = time.perf_counter()
        await asyncio.sleep(seconds)
        measuring[0] = False
        elapsed = time.perf_counter() - started
        stop[0] = True
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        for conn in conns:
            await conn.close()
    lat = summary(times) if times else {"p50": None, "p99": None}
    return {
        "callers": callers,
        "tabs": len(tabs),
        "calls": done[0],
        "seconds": round(elapsed, 3),
        "calls_per_s": round(done[0] / elapsed, 1),
        "p50": lat["p50"],
        "p99": lat["p99"],
    }


def throughput(rig: Rig, counts: Counts) -> list[dict[str, Any]]:
    """1+1 calls per second with N concurrent callers, each on its own keep-alive connection, on
    one tab and spread over four (tab_id)."""
    rows = []
    for tabs in (rig.tab_ids[:1], rig.tab_ids):
        for callers in counts.callers:
            rows.append(asyncio.run(_throughput_once(rig, callers, tabs, counts.seconds)))
    return rows


PAYLOADS = {"1 KB": 1024, "100 KB": 100 * 1024, "1 MB": 1024 * 1024, "10 MB": 10 * 1024 * 1024}


def payload(rig: Rig, counts: Counts) -> list[dict[str, Any]]:
    """A string result of each size, end to end, and the daemon's peak RSS while answering it."""
    client = LeanClient(rig.port)
    rows = []
    try:
        for (label, size), reps in zip(PAYLOADS.items(), counts.payload_reps, strict=True):
            script = {"script": f"'x'.repeat({size})", "timeout_ms": 60000}
            client.post("/execute_javascript", script)  # warm-up
            before = proc_status(rig.pid)["VmRSS"]
            peak_known = reset_peak(rig.pid)
            times, inside = [], []
            for _ in range(reps):
                start = time.perf_counter()
                body = client.post("/execute_javascript", script)
                times.append((time.perf_counter() - start) * 1000)
                inside.append(body["duration_ms"])
                if len(body["result"]) != size:
                    raise RuntimeError(f"{label}: got {len(body['result'])} characters")
            after = proc_status(rig.pid)
            rows.append(
                {
                    "size": label,
                    "bytes": size,
                    "reps": reps,
                    "p50_ms": round(statistics.median(times), 2),
                    "max_ms": round(max(times), 2),
                    "daemon_p50_ms": round(statistics.median(inside), 2),
                    "rss_before_bytes": before,
                    "peak_rss_bytes": after["VmHWM"] if peak_known else None,
                }
            )
    finally:
        client.close()
    return rows


def startup(counts: Counts) -> dict[str, Any]:
    """Process start to the first /health answer, and the resident memory right after, of a
    daemon with no browser."""
    times, rss = [], []
    with tempfile.TemporaryDirectory(prefix="tabpilot-bench-") as state:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABPILOT_")}
        env["TABPILOT_STATE_DIR"] = state
        for _ in range(counts.startups):
            port = free_port()
            start = time.perf_counter()
            process = subprocess.Popen(
                [sys.executable, "-m", "tabpilot", "serve", "--port", str(port)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                _wait_health(port, process)
                times.append((time.perf_counter() - start) * 1000)
                rss.append(proc_status(process.pid)["VmRSS"])
            finally:
                process.terminate()
                process.wait(15)
    return {
        "runs": len(times),
        "startup_p50_ms": round(statistics.median(times), 1),
        "startup_max_ms": round(max(times), 1),
        "idle_rss_bytes": int(statistics.median(rss)),
    }


def _wait_health(port: int, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the daemon exited with {process.returncode}")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.002)
        finally:
            conn.close()
    raise RuntimeError("the daemon did not answer /health in time")
