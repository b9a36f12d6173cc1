"""`python -m bench`: measure everything against one Chromium and write the results."""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import (
    cold_start,
    contexts,
    fast_path,
    frame_tasks,
    hands,
    mcp_start,
    peer_report,
    peer_suite,
    report,
    routes,
    suites,
    switch_on,
    tasks,
)
from bench.rig import chromium_version, machine, proc_status, rig
from bench.systems import client_systems, comparison_systems, hop_systems

DEFAULT_OUT = Path(__file__).resolve().parent / "results"


def _say(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def run(
    counts: suites.Counts, daemon_args: tuple[str, ...], command: str, only: str | None = None
) -> dict[str, Any]:
    """Every suite; with `only="peers"` the rows against other servers and the client's; with
    `only="tasks"` the task suite and the `tools/list` row alone; with `only="contexts"` the
    contexts suite alone; with `only="startup"` the start-up of a bare daemon, of `tabpilot mcp`
    and of the client's import, with no browser; with `only="hands"` the rows of a page's hands
    (a form, a wait, an upload, a drag) over HTTP and beside the peers, and the tasks; with
    `only="frames"` the rows of frames and find beside the peers and the tasks across frames and
    tabs, with no rig; with `only="switch"` the first command in tabs opened before AI Web Pilot
    went on, beside tabs opened after, and `1+1` beside the tabpilot of before the switch gated
    page scripts; with `only="coldstart"` the spawn → first `1+1` of `tabpilot mcp --browser`
    with nothing running, beside Playwright MCP's first call."""
    started = time.perf_counter()
    everything = only is None
    results: dict[str, Any] = {"command": command, "machine": machine()}
    if everything or only == "startup":
        _say("start-up of a bare daemon")
        results["startup"] = suites.startup(counts)
        _say(f"start-up of `tabpilot mcp` and of the client's import, {counts.mcp_starts} each")
        results["mcp_start"] = mcp_start.measure(counts.mcp_starts)
    if everything or only == "coldstart":
        _say(
            f"cold start of `tabpilot mcp --browser` and Playwright MCP, {counts.cold_starts} each"
        )
        results["cold_start"] = cold_start.measure(counts.cold_starts)
    if only not in ("tasks", "startup", "frames", "coldstart"):
        _say("starting the daemon and Chromium with the extension")
        with rig(daemon_args) as r:
            results["machine"]["chromium"] = r.driver.capabilities.get("browserVersion")
            if everything:
                _suites(r, counts, results)
            if everything or only == "hands":
                _say("a page's hands over HTTP: a form, a wait, an upload, a drag")
                results["hands"] = hands.measure(r, counts)
            if everything or only == "contexts":
                results["contexts"] = _contexts(r, counts)
            if everything or only == "switch":
                _say("the first command in tabs opened before the switch went on, and after")
                results["switch_on"] = switch_on.measure(r, counts)
                _say(f"1+1 over HTTP today and at {fast_path.BEFORE}, interleaved")
                results["fast_path"] = fast_path.measure(r, counts)
            if only not in ("contexts", "hands", "switch"):
                _say("1+1 by tabpilot's Python client and by Selenium's CDP")
                fewer = max(counts.calls // 4, 2 * counts.blocks)
                quarter = replace(counts, calls=fewer, warmup=counts.warmup // 4)
                results["client"] = suites.latency(client_systems(r), quarter)
    else:  # no rig: the version of the Chromium every server here starts
        results["machine"]["chromium"] = chromium_version()
    if only not in ("contexts", "startup", "switch", "coldstart"):
        _say("tabpilot, Playwright MCP and chrome-devtools-mcp side by side")
        peers = peer_suite.measure(counts, only if only in ("tasks", "hands", "frames") else None)
        results["tools_list"] = peers.pop("tools_list")
        results["tasks"] = peers.pop("tasks")
        if peers:
            results["peers"] = peers
    results["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    results["seconds"] = round(time.perf_counter() - started, 1)
    results["targets"] = [
        {"target": t, "measured": v, "met": ok} for t, v, ok in report.targets(results)
    ]
    # The same targets of the peers' and the client's tables, by table.
    results["peer_targets"] = {
        table: [{"target": t, "measured": v, "met": ok} for t, v, ok in rows]
        for table, rows in peer_report.targets_by_row(results).items()
    }
    return results


def _suites(r: Any, counts: suites.Counts, results: dict[str, Any]) -> None:
    """The suites of tabpilot alone and beside Selenium, on the rig's browser."""
    time.sleep(0.5)
    results["idle_rss_connected_bytes"] = proc_status(r.pid)["VmRSS"]
    _say(f"latency: {counts.calls} calls per system")
    results["latency"] = suites.latency(comparison_systems(r), counts)
    _say("latency of each hop")
    results["hops"] = suites.latency(hop_systems(r), counts)
    _say(f"throughput, {counts.seconds:g} s per point")
    results["throughput"] = suites.throughput(r, counts)
    _say("large results")
    results["payload"] = suites.payload(r, counts)
    _say("1+1 by each route: the page world, Trusted Types, the debugger, user scripts")
    results["routes"] = routes.measure(r, suites.latency, counts)


def _contexts(r: Any, counts: suites.Counts) -> dict[str, Any]:
    """The contexts suite on the rig's daemon: new managed Chromiums beside the rig's browser."""
    _say(f"{counts.contexts} managed contexts: start-up, memory, 1+1 alone and all at once")
    warmup = max(1, counts.warmup // 4)
    return contexts.measure(r, counts.contexts, counts.context_calls, warmup, counts.blocks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where results go")
    parser.add_argument("--smoke", action="store_true", help="a few calls of each, to test it")
    parser.add_argument("--calls", type=int, help="round trips per system (default 2000)")
    parser.add_argument(
        "--readme", action="store_true", help="also rewrite the README's benchmark section"
    )
    parser.add_argument(
        "--daemon-arg",
        action="append",
        default=[],
        help="pass an option to `tabpilot serve` (e.g. --daemon-arg=--access-log)",
    )
    parser.add_argument(
        "--only",
        choices=[
            "peers",
            "tasks",
            "contexts",
            "startup",
            "hands",
            "frames",
            "switch",
            "coldstart",
        ],
        help="peers: only the rows against other MCP servers and the Python client's (faster); "
        "tasks: only the whole tasks beside the other MCP servers and their tools/list; "
        "contexts: only the managed contexts' start-up, memory and 1+1; "
        "startup: only the start-up of a bare daemon, of `tabpilot mcp` and of the client's "
        "import, and what they load (no browser); "
        "hands: only a form, a wait, an upload and a drag, over HTTP and beside the other MCP "
        "servers, and the tasks that use them; "
        "frames: only a snapshot of a page with two cross-origin frames, a search of the product "
        "page, and the tasks in a frame and in a tab a click opens, beside the other MCP servers; "
        "switch: only the first command in tabs opened before AI Web Pilot went on, and after, "
        "and 1+1 beside the tabpilot of before page scripts waited for the switch; "
        "coldstart: only spawn → first 1+1 of `tabpilot mcp --browser` with nothing running, "
        "beside Playwright MCP's first call",
    )
    args = parser.parse_args(argv)
    if args.only and args.readme:
        parser.error("--readme rewrites the whole section: run every suite for it")
    counts = suites.Counts.smoke() if args.smoke else suites.Counts()
    if args.calls:
        counts.calls = args.calls
    if args.only == "hands":
        counts.task_keys = tuple(tasks.HAND_CHECKS)
    if args.only == "frames":
        counts.task_keys = tuple(frame_tasks.TASKS)
    command = " ".join(["python -m bench", *(argv if argv is not None else sys.argv[1:])])
    results = run(counts, tuple(args.daemon_arg), command, args.only)
    text = report.write(results, args.out)
    print(text)
    _say(f"done in {results['seconds']:.0f} s; results in {args.out}")
    if args.readme:
        image = os.path.relpath(args.out / "results.png", report.README.parent)
        report.update_readme(text, image)
        _say("README.md updated")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
