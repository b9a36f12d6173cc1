"""The contexts suite's targets and table (bench/contexts.py), from results.json alone."""

from __future__ import annotations

import statistics
from typing import Any

Target = tuple[str, str, bool]
MB = 1024 * 1024

#: A new context answers its first command within this long of browser_context_create.
STARTUP_LIMIT_MS = 5000.0
#: Each context's Chromium, idle after its start, in PSS summed over its processes.
MEMORY_LIMIT_BYTES = 300 * MB
#: `1+1` in every context at once: its p50 at most this many times the default context's alone.
AT_ONCE_LIMIT = 2.0
#: The rows of bench/contexts.py the targets read.
DEFAULT_ALONE = "default context alone"
AT_ONCE = "all at once"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def targets(results: dict[str, Any]) -> list[Target]:
    """(target, measured, met) of the contexts suite; none if it did not run."""
    suite = results.get("contexts")
    if not suite:
        return []
    out: list[Target] = []
    startup = suite["startup"]
    answered = [r["to_first_answer_ms"] for r in startup if "to_first_answer_ms" in r]
    failed = [r for r in startup if "error" in r]
    refused = sum(r.get("refused_first_calls", 0) for r in startup)
    what = f"a new context's first `1+1` < {STARTUP_LIMIT_MS / 1000:g} s after create"
    measured = (
        f"slowest {max(answered):,.0f} ms, median {statistics.median(answered):,.0f} ms "
        f"of {len(answered)}"
        if answered
        else "no context answered"
    )
    if refused:
        measured += f"; {refused} first `1+1` refused"
    if failed:
        measured += f"; {len(failed)} never answered ({failed[0]['context']}: " + (
            f"{failed[0]['error'][:160]})"
        )
    met = bool(answered) and not failed and not refused and max(answered) < STARTUP_LIMIT_MS
    out.append((what, measured, met))
    memory = [r for r in suite["memory"] if "pss_bytes" in r]
    what = f"each context's Chromium < {MEMORY_LIMIT_BYTES / MB:.0f} MB PSS, idle"
    if memory:
        biggest = max(r["pss_bytes"] for r in memory)
        out.append(
            (
                what,
                f"largest {biggest / MB:.0f} MB PSS "
                f"({max(r['rss_bytes'] for r in memory) / MB:.0f} MB RSS summed)",
                biggest < MEMORY_LIMIT_BYTES,
            )
        )
    rows = {r["system"]: r for r in suite["latency"]}
    alone, together = rows.get(DEFAULT_ALONE), rows.get(AT_ONCE)
    callers = together["callers"] if together else suite["contexts"]
    what = (
        f"`1+1` in {callers} contexts at once: p50 ≤ {AT_ONCE_LIMIT:g}x the default context's alone"
    )
    if alone and together:
        ratio = together["p50"] / alone["p50"]
        out.append(
            (
                what,
                f"{together['p50']:.2f} ms vs {alone['p50']:.2f} ms ({ratio:.2f}x)",
                ratio <= AT_ONCE_LIMIT,
            )
        )
    else:
        out.append((what, "not measured", False))
    return out


def markdown(results: dict[str, Any]) -> list[str]:
    """The contexts suite's tables, or nothing if it did not run."""
    suite = results.get("contexts")
    if not suite:
        return []
    memory = {r["context"]: r for r in suite["memory"] if "pss_bytes" in r}
    lines = [
        "",
        f"**Contexts**: {len(suite['startup'])} managed contexts created one after another on "
        "the daemon (`browser_context_create`), each a headless Chromium of its own; start-up "
        "from sending the create to the answer of the first `1+1` in it (`?context=`; a refused "
        "one is made again, and counted), the `startup_ms` the daemon reports, how often the "
        "daemon started a Chromium again because its first page stalled, and the memory of each "
        "Chromium's process group once idle (RSS summed over its processes counts shared pages "
        "once per process; PSS shares them out)",
        "",
        "| context | create → first `1+1` ms | create ms | first `1+1` ms | refused `1+1` "
        "| daemon's startup_ms | restarts | processes | RSS summed | PSS |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for r in suite["startup"]:
        m = memory.get(r["context"])
        cells = [
            _num(r.get("to_first_answer_ms"), ",.0f"),
            _num(r.get("create_ms"), ",.0f"),
            _num(r.get("first_call_ms"), ".1f"),
            _num(r.get("refused_first_calls"), "d"),
            _num(r.get("daemon_startup_ms"), ",.0f"),
            _num(r.get("restarts"), "d"),
        ]
        cells += (
            [str(m["processes"]), f"{m['rss_bytes'] / MB:.0f} MB", f"{m['pss_bytes'] / MB:.0f} MB"]
            if m
            else ["-"] * 3
        )
        lines.append(f"| {r['context']} | " + " | ".join(cells) + " |")
        if "error" in r:
            notes.append(f"{r['context']}: {r['error']}")
        elif "first_refusal" in r:
            notes.append(f"{r['context']}, its first `1+1` refused: {r['first_refusal']}")
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    before, after = suite["daemon_rss_before_bytes"], suite["daemon_rss_after_bytes"]
    total = after + sum(m["pss_bytes"] for m in memory.values())
    lines += [
        "",
        f"The daemon's RSS: {before / MB:.0f} MB before the contexts, {after / MB:.0f} MB with "
        f"them; the daemon and the contexts' Chromiums together {total / MB:.0f} MB (PSS).",
        "",
        "**`1+1` in several contexts at once**, ms, one caller per context on its own keep-alive "
        "connection: each context alone, the default context (the browser the other suites use) "
        "alone, and every context at the same time, interleaved in blocks",
        "",
        "| caller | n | p50 | p90 | p99 | p50 / default alone |",
        "|---|---|---|---|---|---|",
    ]
    base = next((r for r in suite["latency"] if r["system"] == DEFAULT_ALONE), None)
    for r in suite["latency"]:
        ratio = f"{r['p50'] / base['p50']:.2f}x" if base else "-"
        lines.append(
            f"| {r['system']} | {r['n']:,} | {_ms(r['p50'])} | {_ms(r['p90'])} | "
            f"{_ms(r['p99'])} | {ratio} |"
        )
    return lines
