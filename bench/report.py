"""results.json -> results.md, results.png, and the benchmark section of docs/benchmark.md.

Everything here reads the JSON only, so `python -m bench.report DIR` redraws a run's table and
plot without measuring again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench import (
    cold_start,
    context_report,
    fast_path,
    hands_report,
    peer_report,
    start_report,
    switch_on,
)

REPO = Path(__file__).resolve().parents[1]
#: The page whose marked benchmark section `python -m bench --readme` rewrites.
README = REPO / "docs" / "benchmark.md"
START = "<!-- bench:start -->"
END = "<!-- bench:end -->"
BASELINE = "Selenium execute_script"
MB = 1024 * 1024


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(target, measured, met) for the targets the benchmark is held to, of the suites that ran
    (`--only` runs some)."""
    own = _suites_targets(results) if "latency" in results else []
    return (
        own
        + hands_report.targets(results)
        + start_report.targets(results)
        + cold_start.targets(results)
        + context_report.targets(results)
        + peer_report.targets(results)
        + fast_path.targets(results)
    )


def _suites_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """The targets of the suites on the rig's browser: latency, throughput, large results."""
    rows = {r["system"]: r for r in results["latency"]}
    ours, theirs = rows["tabpilot HTTP"], rows[BASELINE]
    out = [
        (
            f"tabpilot p50 ≤ 0.75 x {BASELINE} p50",
            f"{ours['p50']:.2f} ms vs {0.75 * theirs['p50']:.2f} ms "
            f"({ours['p50'] / theirs['p50']:.3f}x)",
            ours["p50"] <= 0.75 * theirs["p50"],
        ),
        (
            f"tabpilot p99 ≤ {BASELINE} p99",
            f"{ours['p99']:.2f} ms vs {theirs['p99']:.2f} ms ({ours['p99'] / theirs['p99']:.3f}x)",
            ours["p99"] <= theirs["p99"],
        ),
    ]
    for name, row in rows.items():
        if name.startswith("tabpilot MCP"):
            over = row["p50"] - ours["p50"]
            out.append(
                (
                    f"{name.removeprefix('tabpilot ')} p50 within 1 ms of HTTP",
                    f"{row['p50']:.2f} ms, {over:+.2f} ms over HTTP",
                    over <= 1.0,
                )
            )
    sixteen = next(
        (r for r in results["throughput"] if r["callers"] == 16 and r["tabs"] == 1), None
    )
    if sixteen is not None:
        rate = sixteen["calls_per_s"]
        out.append(("≥ 1,000 calls/s with 16 callers", f"{rate:,.0f} calls/s", rate >= 1000))
    big = next((r for r in results["payload"] if r["size"] == "10 MB"), None)
    if big is not None:
        out.append(
            ("10 MB result in < 1 s end to end", f"{big['p50_ms']:.0f} ms", big["p50_ms"] < 1000)
        )
    return out


def markdown(results: dict[str, Any]) -> str:
    m = results["machine"]
    lines = [
        f"Measured {m['date']} on {m['cores']} cores ({m['cpu']}), {m['os']}, Python "
        f"{m['python']}, Chromium {m.get('chromium')}; load average "
        f"{' / '.join(map(str, m['load_average_at_start']))} at the start and "
        f"{' / '.join(map(str, m.get('load_average_at_end', [])))} at the end (1/5/15 min). "
        f"Run: `{results['command']}`.",
        "",
        "**Targets**",
        "",
        "| target | measured | met |",
        "|---|---|---|",
    ]
    lines += [f"| {t} | {v} | {'yes' if ok else '**no**'} |" for t, v, ok in targets(results)]
    if "latency" in results:
        lines += _suites_markdown(results)
    lines += switch_on.markdown(results)
    lines += fast_path.markdown(results)
    lines += hands_report.markdown(results)
    lines += start_report.markdown(results)
    lines += cold_start.markdown(results)
    lines += context_report.markdown(results)
    lines += peer_report.markdown(results)
    return "\n".join(lines) + "\n"


def _suites_markdown(results: dict[str, Any]) -> list[str]:
    """The tables of every suite but the peers'."""
    base = next(r for r in results["latency"] if r["system"] == BASELINE)
    lines = [
        "",
        f"**`1+1` round trip**, ms, {results['latency'][0]['n']:,} calls each after warm-up",
        "",
        "| system | p50 | p90 | p99 | p50 / Selenium's | p99 / Selenium's |",
        "|---|---|---|---|---|---|",
    ]
    for r in results["latency"]:
        lines.append(
            f"| {r['system']} | {_ms(r['p50'])} | {_ms(r['p90'])} | {_ms(r['p99'])} | "
            f"{r['p50'] / base['p50']:.2f}x | {r['p99'] / base['p99']:.2f}x |"
        )

    lines += [
        "",
        "**The chain, hop by hop**: each row adds one hop to the row before; pings run nothing",
        "",
        "| level | p50 | p99 | p50 inside the daemon | this hop's p50 |",
        "|---|---|---|---|---|",
    ]
    previous = 0.0
    for r in results["hops"]:
        inside = r.get("daemon", {}).get("p50")
        lines.append(
            f"| {r['system']} | {_ms(r['p50'])} | {_ms(r['p99'])} | {_ms(inside)} | "
            f"{_ms(r['p50'] - previous)} |"
        )
        previous = r["p50"]

    lines += [
        "",
        "**Throughput** of `1+1`, each caller on its own keep-alive connection",
        "",
        "| callers | 1 tab: calls/s | p50 ms | p99 ms | 4 tabs: calls/s | p50 ms | p99 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    by = {(r["callers"], r["tabs"]): r for r in results["throughput"]}
    for callers in sorted({r["callers"] for r in results["throughput"]}):
        cells = []
        for tabs in (1, 4):
            r = by.get((callers, tabs))
            cells += [f"{r['calls_per_s']:,.0f}", _ms(r["p50"]), _ms(r["p99"])] if r else ["-"] * 3
        lines.append(f"| {callers} | " + " | ".join(cells) + " |")

    lines += [
        "",
        "**Large results**: a string of each size, end to end, and the daemon's peak memory",
        "",
        "| result | p50 ms | max ms | p50 inside the daemon | daemon RSS before | peak RSS |",
        "|---|---|---|---|---|---|",
    ]
    for r in results["payload"]:
        peak = r["peak_rss_bytes"]
        lines.append(
            f"| {r['size']} | {r['p50_ms']:.1f} | {r['max_ms']:.1f} | {r['daemon_p50_ms']:.1f} | "
            f"{r['rss_before_bytes'] / MB:.0f} MB | "
            f"{'-' if peak is None else f'{peak / MB:.0f} MB'} |"
        )

    if results.get("routes"):
        page = results["routes"][0]
        lines += [
            "",
            '**`1+1` by route** (README, "Strict pages"): the page world, then the routes taken '
            "when a page's CSP refuses it; each in its own tab, by HTTP with `tab_id`",
            "",
            "| route | p50 | p90 | p99 | p50 / the page world's |",
            "|---|---|---|---|---|",
        ]
        for r in results["routes"]:
            lines.append(
                f"| {r['system']} | {_ms(r['p50'])} | {_ms(r['p90'])} | {_ms(r['p99'])} | "
                f"{r['p50'] / page['p50']:.2f}x |"
            )

    return lines


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(16, 4.8))
    fractions = [p / 100 for p in range(101)]
    for r in results["latency"]:
        left.plot(r["percentiles"], fractions, label=r["system"], linewidth=1.6)
    left.set_xscale("log")
    left.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    left.xaxis.set_minor_formatter(
        ticker.FuncFormatter(lambda x, _: f"{x:g}" if round(x, 6) in (2, 3, 5, 20, 30, 50) else "")
    )
    left.set_xlabel("round trip of 1+1, ms (log)")
    left.set_ylabel("fraction of calls at most this fast")
    left.set_title("Latency distribution")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8, loc="lower right")

    for tabs, style in ((1, "o-"), (4, "s--")):
        rows = sorted(
            (r for r in results["throughput"] if r["tabs"] == tabs), key=lambda r: r["callers"]
        )
        if rows:
            middle.plot(
                [r["callers"] for r in rows],
                [r["calls_per_s"] for r in rows],
                style,
                label=f"{tabs} tab{'s' if tabs > 1 else ''}",
            )
    middle.axhline(1000, color="grey", linestyle=":", linewidth=1, label="1,000 calls/s")
    middle.set_xscale("log", base=2)
    middle.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    middle.set_xlabel("concurrent callers")
    middle.set_ylabel("calls/s")
    middle.set_title("Throughput of 1+1")
    middle.grid(True, alpha=0.3)
    middle.legend(fontsize=8)

    names = [r["system"].replace(" (", "\n(") for r in results["hops"]]
    y = range(len(names))
    right.barh(y, [r["p99"] for r in results["hops"]], color="#f4b183", label="p99")
    right.barh(y, [r["p50"] for r in results["hops"]], color="#4472c4", label="p50")
    right.set_yticks(list(y), names, fontsize=7)
    right.invert_yaxis()
    right.set_xlabel("round trip, ms")
    right.set_title("The chain, one more hop per row")
    right.legend(fontsize=8)
    right.grid(True, axis="x", alpha=0.3)

    fig.suptitle(
        f"tabpilot benchmark, {results['machine']['cores']} cores, load "
        f"{results['machine']['load_average_at_start'][0]} at start",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(results: dict[str, Any], out: Path) -> str:
    """Write results.json, results.md and results.png into ``out``; returns the markdown."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    text = markdown(results)
    (out / "results.md").write_text(text)
    if "latency" in results:
        plot(results, out / "results.png")
    return text


def update_readme(text: str, image: str) -> None:
    """Rewrite docs/benchmark.md's marked benchmark section with a run's table and plot."""
    readme = README.read_text()
    before, rest = readme.split(START, 1)
    _, after = rest.split(END, 1)
    README.write_text(f"{before}{START}\n![benchmark plot]({image})\n\n{text}{END}{after}")


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else REPO / "bench" / "results")
    print(write(json.loads((folder / "results.json").read_text()), folder))
