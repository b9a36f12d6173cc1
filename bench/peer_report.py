"""The peers' rows of results.md and the targets they are held to (bench/peer_suite.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.frame_tasks import TASKS as FRAME_TASKS
from bench.hand_pages import FIELDS, WAIT_DELAY_MS
from bench.pages import LOG_COUNT, NODE_COUNT, PRODUCT_COUNT, TALL_VIEWPORTS
from bench.tasks import TASKS

TABPILOT = "tabpilot"
PLAYWRIGHT = "Playwright MCP"
DEVTOOLS = "chrome-devtools-mcp"
CLIENT = "tabpilot.Client().execute"
SELENIUM_CDP = "Selenium CDP Runtime.evaluate"

#: results["peers"] key -> the row's heading and what each server's tool was called with.
ROWS = {
    "evaluate": (
        "`1+1` through each server's evaluation tool, with its defaults",
        'tabpilot `execute_javascript` {script: "1+1"}; Playwright MCP `browser_evaluate` '
        '{function: "() => 1+1"}; chrome-devtools-mcp `evaluate_script` {pageId, function: '
        '"() => 1+1"}',
    ),
    "snapshot_products": (
        f"A snapshot of the {PRODUCT_COUNT}-product page",
        "tabpilot `browser_snapshot`, Playwright MCP `browser_snapshot`, chrome-devtools-mcp "
        "`take_snapshot`, each with its defaults; characters of the text it returns (and of the "
        "structured content beside it, as JSON, which some clients also hand the model); button "
        f'refs: how many of the {PRODUCT_COUNT} "Add to cart" buttons carry a ref (uid)',
    ),
    "click": (
        'A click by ref on an "Add to cart" button, round trip',
        "tabpilot `browser_act` {kind: click, ref}; Playwright MCP `browser_click` {element, "
        "target}; chrome-devtools-mcp `click` {pageId, uid}; refs from a snapshot; clicks counted: "
        "what the page's cart counted afterwards",
    ),
    "snapshot_nodes": (
        f"A snapshot of the {NODE_COUNT:,}-element page",
        "the same snapshot tools; the peers, whose snapshots take seconds, are measured a sixth as "
        "many times, for reference",
    ),
    "console": (
        f"The console of a page that logged {LOG_COUNT:,} messages (tabpilot's ring of 1,000 full)",
        "tabpilot `browser_console_messages` (the newest 50), Playwright MCP "
        "`browser_console_messages`, chrome-devtools-mcp `list_console_messages` {pageId}, each "
        "with its defaults; characters of the text it returns",
    ),
    "network": (
        f"The network log of a page that made {LOG_COUNT:,} requests (tabpilot's ring full)",
        "tabpilot `browser_network_requests` (the newest 50), Playwright MCP "
        "`browser_network_requests`, chrome-devtools-mcp `list_network_requests` {pageId}, each "
        "with its defaults; characters of the text it returns",
    ),
}

#: The longest default answer of a log tool on a full ring, in characters.
LOG_TEXT_CHARS = 4000


#: The screenshot rows: results["peers"] key -> heading and how each tool was called.
SHOT_ROWS = {
    "screenshot": (
        f"A screenshot of the {PRODUCT_COUNT}-product page's viewport, round trip",
        "tabpilot `browser_take_screenshot` {} (JPEG, quality 50, at most 1568 px); Playwright "
        'MCP `browser_take_screenshot` {scale: "css"} (its required field, at its default); '
        "chrome-devtools-mcp `take_screenshot` {pageId}; image: what the model is handed, in "
        "bytes, and the characters of the text beside it",
    ),
    "screenshot_full": (
        f"A full-page screenshot of a page {TALL_VIEWPORTS} viewports tall",
        "tabpilot {full_page: true}, Playwright MCP and chrome-devtools-mcp {fullPage: true}",
    ),
}


#: The rows of a page's hands beside the peers (bench/peer_hands.py): results["peers"] key ->
#: heading and how each tool was called.
HAND_ROWS = {
    "fill_form": (
        f"A form of {len(FIELDS)} fields filled in one call",
        "tabpilot `browser_fill_form` {fields: [{ref, value}]}; Playwright MCP `browser_fill_form` "
        "{fields: [{name, type, target, value}]}; chrome-devtools-mcp `fill_form` {pageId, "
        "elements: [{uid, value}]}; text, email, password, number, date, time, text area, select, "
        "checkbox and radio, two sets of values in turn; the refs from a snapshot each server "
        "takes first, as an agent does (its characters and time beside the fill's); values: "
        "whether the page holds the values filled last",
    ),
    "wait_for": (
        "A wait for a text to appear, from the text appearing to the answer",
        "tabpilot `browser_wait_for` {text}; Playwright MCP `browser_wait_for` {text}; "
        "chrome-devtools-mcp `wait_for` {pageId, text: [text]}; the page shows a new text when a "
        f"timer armed just before the call fires, {WAIT_DELAY_MS} ms later, more for a server "
        "whose call that arms it returns only after that (text shown after); each figure is the "
        "client's clock when the answer arrived minus the page's when the text appeared (one "
        "machine, one clock); round trip: the wait call's own",
    ),
}


def _row(rows: list[dict[str, Any]], system: str) -> dict[str, Any] | None:
    row = next((r for r in rows if r["system"] == system), None)
    return row if row is not None and row.get("available", True) else None


def _why(rows: list[dict[str, Any]], system: str) -> str:
    row = next((r for r in rows if r["system"] == system), None)
    return f"{system} not available: {row['reason'] if row else 'not measured'}"


def _pair(
    rows: list[dict[str, Any]], ours: str, theirs: str
) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """The rows of `ours` and `theirs`, or why the first of them that is missing is."""
    mine, other = _row(rows, ours), _row(rows, theirs)
    if mine is None or other is None:
        return _why(rows, ours if mine is None else theirs)
    return mine, other


Target = tuple[str, str, bool]


def targets_by_row(results: dict[str, Any]) -> dict[str, list[Target]]:
    """(target, measured, met) of each table; a target whose figures are missing is not met, and
    says why."""
    peers, out = results.get("peers") or {}, {}
    if "evaluate" in peers:
        out["evaluate"] = _evaluate_target(peers["evaluate"])
        out["snapshot_products"] = _snapshot_targets(peers["snapshot_products"])
        out["click"] = [_p50_target(peers["click"], "click by ref", 10.0, "≤")]
        out["snapshot_nodes"] = [
            _p50_target(peers["snapshot_nodes"], f"snapshot of {NODE_COUNT:,} elements", 500, "<")
        ]
    if "screenshot" in peers:
        out["screenshot"] = _screenshot_targets(peers["screenshot"])
        out["screenshot_full"] = [
            _p50_target(peers["screenshot_full"], "full-page screenshot", 3000, "<")
        ]
    for kind, tool in (("console", "console"), ("network", "network requests")):
        if kind in peers:
            rows = peers[kind]
            out[kind] = [
                _p50_target(rows, f"{tool} query on a full ring", 20.0, "≤"),
                _chars_target(rows, f"tabpilot's default {tool} answer"),
            ]
    if "fill_form" in peers:
        out["fill_form"] = [_fill_form_target(peers["fill_form"])]
    if "wait_for" in peers:
        out["wait_for"] = [_wait_target(peers["wait_for"])]
    out.update(_frames_report().targets_by_row(results))
    if results.get("tools_list"):
        out["tools_list"] = [_tools_list_target(results["tools_list"])]
    if any(key in TASKS for key in results.get("tasks") or {}):
        out["tasks"] = [_tasks_target(results["tasks"])]
    if results.get("client"):
        out["client"] = [_client_target(results["client"])]
    return out


def targets(results: dict[str, Any]) -> list[Target]:
    return [t for row in targets_by_row(results).values() for t in row]


def _frames_report() -> Any:
    # Imported when used: bench/frames_report.py builds its rows with this module's helpers.
    from bench import frames_report

    return frames_report


def _evaluate_target(rows: list[dict[str, Any]]) -> list[Target]:
    target = f"tabpilot `1+1` p50 ≥ 10x faster than {PLAYWRIGHT} and {DEVTOOLS}"
    ours = _row(rows, TABPILOT)
    missing = [name for name in (TABPILOT, PLAYWRIGHT, DEVTOOLS) if _row(rows, name) is None]
    if ours is None or missing:
        return [(target, "; ".join(_why(rows, name) for name in missing), False)]
    parts, met = [f"tabpilot {ours['p50']:.2f} ms"], True
    for name in (PLAYWRIGHT, DEVTOOLS):
        theirs = _row(rows, name)
        assert theirs is not None
        ratio = theirs["p50"] / ours["p50"]
        parts.append(f"{name} {theirs['p50']:.0f} ms ({ratio:.0f}x)")
        met = met and ratio >= 10
    return [(target, "; ".join(parts), met)]


def _snapshot_targets(rows: list[dict[str, Any]]) -> list[Target]:
    ours, theirs = _row(rows, TABPILOT), _row(rows, PLAYWRIGHT)
    size = f"tabpilot's {PRODUCT_COUNT}-product snapshot ≤ 1/3 of {PLAYWRIGHT}'s characters"
    refs = f'every "Add to cart" button has a ref in tabpilot\'s snapshot ({PRODUCT_COUNT})'
    speed = "tabpilot snapshot of 300 products p50 ≤ 50 ms"
    if ours is None:
        why = _why(rows, TABPILOT)
        return [(size, why, False), (refs, why, False), (speed, why, False)]
    if theirs is None:
        out = [(size, _why(rows, PLAYWRIGHT), False)]
    else:
        ratio = ours["chars"] / theirs["chars"]
        measured = f"{ours['chars']:,} vs {theirs['chars']:,} characters ({ratio:.2f}x)"
        out = [(size, measured, ratio <= 1 / 3)]
    got = ours["add_to_cart_refs"]
    out.append((refs, f"{got} of {PRODUCT_COUNT}", got >= PRODUCT_COUNT))
    out.append((speed, f"{ours['p50']:.1f} ms", ours["p50"] <= 50))
    return out


def _screenshot_targets(rows: list[dict[str, Any]]) -> list[Target]:
    speed = "tabpilot viewport screenshot p50 ≤ 150 ms and ≤ the faster peer's p50"
    size = "tabpilot's image bytes ≤ the smaller peer's"
    ours = _row(rows, TABPILOT)
    theirs = [r for r in (_row(rows, PLAYWRIGHT), _row(rows, DEVTOOLS)) if r is not None]
    if ours is None or not theirs:
        why = _why(rows, TABPILOT if ours is None else PLAYWRIGHT)
        return [(speed, why, False), (size, why, False)]
    fast = min(theirs, key=lambda r: r["p50"])
    small = min(theirs, key=lambda r: r["image_bytes"])
    return [
        (
            speed,
            f"{ours['p50']:.1f} ms vs {fast['system']} {fast['p50']:.1f} ms",
            ours["p50"] <= 150 and ours["p50"] <= fast["p50"],
        ),
        (
            size,
            f"{ours['image_bytes']:,} vs {small['system']} {small['image_bytes']:,} bytes",
            ours["image_bytes"] <= small["image_bytes"],
        ),
    ]


def _beside_peers(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    """tabpilot's row and the peers' that were measured, or why there is nothing to compare."""
    ours = _row(rows, TABPILOT)
    theirs = [r for r in (_row(rows, PLAYWRIGHT), _row(rows, DEVTOOLS)) if r is not None]
    if ours is None or not theirs:
        return _why(rows, TABPILOT if ours is None else PLAYWRIGHT)
    return ours, theirs


def _fill_form_target(rows: list[dict[str, Any]]) -> Target:
    """tabpilot's fill at most a third of the faster peer's, with the values in the page."""
    target = f"tabpilot `browser_fill_form` of {len(FIELDS)} fields p50 ≤ 1/3 of the faster peer's"
    found = _beside_peers(rows)
    if isinstance(found, str):
        return (target, found, False)
    ours, theirs = found
    fast = min(theirs, key=lambda r: r["p50"])
    ratio = ours["p50"] / fast["p50"]
    measured = f"{ours['p50']:.1f} ms vs {fast['system']} {fast['p50']:.1f} ms ({ratio:.2f}x)"
    if not ours.get("values_ok"):
        measured += f"; the page holds other values: {ours.get('wrong')}"
    return (target, measured, ratio <= 1 / 3 and bool(ours.get("values_ok")))


def _wait_target(rows: list[dict[str, Any]]) -> Target:
    target = "tabpilot `browser_wait_for` text, appearing to answer, p50 < the faster peer's"
    found = _beside_peers(rows)
    if isinstance(found, str):
        return (target, found, False)
    ours, theirs = found
    fast = min(theirs, key=lambda r: r["p50"])
    return (
        target,
        f"{ours['p50']:.1f} ms vs {fast['system']} {fast['p50']:.1f} ms",
        ours["p50"] < fast["p50"],
    )


def _p50_target(rows: list[dict[str, Any]], what: str, limit: float, sign: str) -> Target:
    target = f"tabpilot {what} p50 {sign} {limit:g} ms"
    ours = _row(rows, TABPILOT)
    if ours is None:
        return (target, _why(rows, TABPILOT), False)
    met = ours["p50"] <= limit if sign == "≤" else ours["p50"] < limit
    return (target, f"{ours['p50']:.1f} ms", met)


def _chars_target(rows: list[dict[str, Any]], what: str) -> Target:
    target = f"{what} < {LOG_TEXT_CHARS:,} characters"
    ours = _row(rows, TABPILOT)
    if ours is None:
        return (target, _why(rows, TABPILOT), False)
    return (target, f"{ours['chars']:,} characters", ours["chars"] < LOG_TEXT_CHARS)


def _tools_list_target(rows: list[dict[str, Any]]) -> Target:
    target = f"tabpilot's tools/list ≤ 1/2 of {PLAYWRIGHT}'s characters"
    found = _pair(rows, TABPILOT, PLAYWRIGHT)
    if isinstance(found, str):
        return (target, found, False)
    ours, theirs = found
    ratio = ours["chars"] / theirs["chars"]
    return (
        target,
        f"{ours['chars']:,} vs {theirs['chars']:,} characters ({ratio:.2f}x); tabpilot's "
        f"instructions {ours['instructions_chars']:,} more",
        ratio <= 1 / 2,
    )


#: The characters the task target counts: a tool answer's text and its structured content, the
#: most that a client may hand the model.
TASK_CHARS = "text_and_structured_chars"


def _tasks_target(tasks: dict[str, list[dict[str, Any]]]) -> Target:
    """Every task done by tabpilot, with at most a third of the characters of the peer that did
    it with the fewest, and in no more time than the fastest peer that did it."""
    target = (
        "tabpilot does every task, each in ≤ 1/3 of the best peer's characters (text + "
        "structured content) and ≤ the fastest peer's time"
    )
    # The tasks across frames and tabs have a target of their own: bench/frames_report.py.
    return (target, *tasks_measured(tasks, set(TASKS), 1 / 3))


def tasks_measured(
    tasks: dict[str, list[dict[str, Any]]], keys: set[str], share: float
) -> tuple[str, bool]:
    """What tabpilot did in each task of `keys`, beside the peer with the fewest characters and
    the fastest, and whether it did every one with at most `share` of the first's characters in
    no more time than the second's."""
    parts, met = [], True
    for key, rows in tasks.items():
        if key not in keys:
            continue
        ours = _row(rows, TABPILOT)
        peers = [r for r in (_row(rows, PLAYWRIGHT), _row(rows, DEVTOOLS)) if r and r["ok"]]
        if ours is None or not ours["ok"]:
            why = _why(rows, TABPILOT) if ours is None else f"failed: {ours['why']}"
            parts.append(f"{key}: tabpilot {why}"[:300])
            met = False
            continue
        if not peers:
            parts.append(f"{key}: no peer did it")
            met = False
            continue
        fewest = min(peers, key=lambda r: r[TASK_CHARS])
        fastest = min(peers, key=lambda r: r["ms"])
        chars = ours[TASK_CHARS] / fewest[TASK_CHARS]
        speed = ours["ms"] / fastest["ms"]
        ok = chars <= share and speed <= 1
        parts.append(
            f"{key}: {ours[TASK_CHARS]:,} vs {fewest[TASK_CHARS]:,} characters ({chars:.2f}x), "
            f"{ours['ms']:.0f} vs {fastest['ms']:.0f} ms ({speed:.2f}x){'' if ok else ' ✗'}"
        )
        met = met and ok
    return "; ".join(parts), met


def _client_target(rows: list[dict[str, Any]]) -> Target:
    target = f"{CLIENT} p50 ≤ {SELENIUM_CDP} p50"
    found = _pair(rows, CLIENT, SELENIUM_CDP)
    if isinstance(found, str):
        return (target, found, False)
    ours, theirs = found
    ratio = ours["p50"] / theirs["p50"]
    return (
        target,
        f"{ours['p50']:.2f} ms vs {theirs['p50']:.2f} ms ({ratio:.2f}x)",
        ours["p50"] <= theirs["p50"],
    )


def _cell(value: Any, spec: str = "") -> str:
    return "-" if value is None else format(value, spec)


def markdown(results: dict[str, Any]) -> list[str]:
    """The peers' tables and the client's, with the target each is held to."""
    peers, lines = results.get("peers"), []
    goals = targets_by_row(results)
    if peers:
        lines += [
            "",
            "**Against other MCP browser servers**, each over stdio through the MCP SDK's own "
            "client, each driving a headless Chromium it started (tabpilot: `tabpilot serve "
            "--browser`), on the same local pages, interleaved in blocks; ms",
        ]
        for key, (heading, how) in ROWS.items():
            if key not in peers:
                continue
            rows = peers[key]
            lines += [
                "",
                f"*{heading}*: {how}",
                "",
                "| server | version | p50 | p99 | calls | characters | structured content "
                "| button refs | clicks counted |",
                "|---|---|---|---|---|---|---|---|---|",
            ]
            for r in rows:
                if not r.get("available", True):
                    lines.append(
                        f"| {r['system']} | {r.get('version') or '-'} | not available: "
                        f"{r['reason']} | | | | | | |"
                    )
                    continue
                counted = f"{r['cart_counted']} of {r['clicks']}" if "clicks" in r else "-"
                lines.append(
                    f"| {r['system']} | {r.get('version') or '-'} | {r['p50']:.2f} | "
                    f"{r['p99']:.2f} | {r['n']} | {_cell(r.get('chars'), ',')} | "
                    f"{_cell(r.get('structured_chars'), ',')} | "
                    f"{_cell(r.get('add_to_cart_refs'))} | {counted} |"
                )
            lines += _goal_lines(goals.get(key, []))
    if peers:
        lines += _shot_lines(peers, goals)
        lines += _hand_lines(peers, goals)
    lines += _frames_report().markdown(results)
    lines += _tools_list_lines(results, goals)
    lines += _task_lines(results, goals)
    if results.get("client"):
        lines += [
            "",
            "**tabpilot's Python client** beside Selenium's CDP `Runtime.evaluate`, `1+1` in the "
            "same tab of the same Chromium, interleaved; ms",
            "",
            "| system | p50 | p90 | p99 | calls |",
            "|---|---|---|---|---|",
        ]
        for r in results["client"]:
            if not r.get("available", True):
                lines.append(f"| {r['system']} | not available: {r['reason']} | | | |")
            else:
                lines.append(
                    f"| {r['system']} | {r['p50']:.2f} | {r['p90']:.2f} | {r['p99']:.2f} | "
                    f"{r['n']} |"
                )
        lines += _goal_lines(goals.get("client", []))
    return lines


def _shot_lines(peers: dict[str, Any], goals: dict[str, list[Target]]) -> list[str]:
    lines: list[str] = []
    for key, (heading, how) in SHOT_ROWS.items():
        if key not in peers:
            continue
        lines += [
            "",
            f"*{heading}*: {how}",
            "",
            "| server | version | p50 | p99 | calls | image | image bytes | text characters |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in peers[key]:
            if not r.get("available", True):
                lines.append(
                    f"| {r['system']} | {r.get('version') or '-'} | not available: "
                    f"{r['reason']} | | | | | |"
                )
                continue
            lines.append(
                f"| {r['system']} | {r.get('version') or '-'} | {r['p50']:.2f} | "
                f"{r['p99']:.2f} | {r['n']} | {r.get('image') or '-'} | "
                f"{_cell(r.get('image_bytes'), ',')} | {_cell(r.get('chars'), ',')} |"
            )
        lines += _goal_lines(goals.get(key, []))
    return lines


def _not_available(r: dict[str, Any], columns: int) -> str:
    return (
        f"| {r['system']} | {r.get('version') or '-'} | not available: "
        f"{str(r['reason']).replace('|', '/')} |" + " |" * (columns - 3)
    )


def _fill_cells(r: dict[str, Any]) -> list[str]:
    values = "yes" if r.get("values_ok") else f"**no**: {r.get('wrong')}"
    return [
        f"{r['p50']:.2f}",
        f"{r['p99']:.2f}",
        str(r["n"]),
        str(r.get("calls", "-")),
        _cell(r.get("snapshot_chars"), ","),
        _cell(r.get("snapshot_ms"), ".0f"),
        _cell(r.get("answer_chars"), ","),
        values,
    ]


def _wait_cells(r: dict[str, Any]) -> list[str]:
    return [
        f"{r['p50']:.2f}",
        f"{r['p90']:.2f}",
        f"{r['p99']:.2f}",
        str(r["n"]),
        _cell(r.get("round_trip_p50"), ".1f"),
        _cell(r.get("delay_ms")),
        _cell(r.get("answer_chars"), ","),
    ]


#: Each hand table's columns after the server and its version, and its cells of a row.
HAND_COLUMNS = {
    "fill_form": (
        ("fill p50", "p99", "fills", "calls", "snapshot characters", "snapshot ms",
         "fill answer characters", "values in the page"),
        _fill_cells,
    ),
    "wait_for": (
        ("appearing to answer p50", "p90", "p99", "waits", "round trip p50",
         "text shown after (ms)", "answer characters"),
        _wait_cells,
    ),
}  # fmt: skip


def _hand_lines(peers: dict[str, Any], goals: dict[str, list[Target]]) -> list[str]:
    """The form's and the wait's tables."""
    return tables(peers, goals, HAND_ROWS, HAND_COLUMNS)


Cells = Callable[[dict[str, Any]], list[str]]


def tables(
    peers: dict[str, Any],
    goals: dict[str, list[Target]],
    rows: dict[str, tuple[str, str]],
    columns_of: dict[str, tuple[tuple[str, ...], Cells]],
) -> list[str]:
    """A table per key of `columns_of` that ran: its heading and how each tool was called
    (`rows`), a row per server (its columns after the server and its version, and its cells),
    and the targets the table is held to."""
    lines: list[str] = []
    for key, (columns, cells) in columns_of.items():
        if key not in peers:
            continue
        heading, how = rows[key]
        lines += [
            "",
            f"*{heading}*: {how}",
            "",
            "| server | version | " + " | ".join(columns) + " |",
            "|---" * (len(columns) + 2) + "|",
        ]
        for r in peers[key]:
            if not r.get("available", True):
                lines.append(_not_available(r, len(columns) + 2))
                continue
            row = [r["system"], r.get("version") or "-", *cells(r)]
            lines.append("| " + " | ".join(row) + " |")
        lines += _goal_lines(goals.get(key, []))
    return lines


def _goal_lines(goals: list[Target]) -> list[str]:
    out = [""]
    for target, measured, met in goals:
        out.append(f"Target: {target}: {measured}; met: {'yes' if met else '**no**'}.  ")
    return out


def _tools_list_lines(results: dict[str, Any], goals: dict[str, list[Target]]) -> list[str]:
    rows = results.get("tools_list")
    if not rows:
        return []
    lines = [
        "",
        "*Each server's whole `tools/list`*: the tools array as the client received it, as "
        "compact JSON, in characters (what a client hands the model before the first call), and "
        "the server's `instructions` beside it",
        "",
        "| server | version | tools | tools/list characters | instructions characters |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        if not r.get("available", True):
            lines.append(f"| {r['system']} | - | not available: {r['reason']} | | |")
            continue
        lines.append(
            f"| {r['system']} | {r.get('version') or '-'} | {r['tools']} | {r['chars']:,} | "
            f"{r['instructions_chars']:,} |"
        )
    return lines + _goal_lines(goals.get("tools_list", []))


def _task_lines(results: dict[str, Any], goals: dict[str, list[Target]]) -> list[str]:
    tasks = results.get("tasks")
    if not tasks:
        return []
    runs = max((r.get("runs", 0) for rows in tasks.values() for r in rows), default=0)
    lines = [
        "",
        "**Whole tasks**, each by a fixed script over MCP stdio, as an agent would do it "
        "(bench/tasks.py): the peers take a snapshot and act by ref, tabpilot uses its own tools "
        "(a short `execute_javascript` where an agent would write one); every script loads its "
        "page first. ok: the answer was right and the page shows it (checked by calls not "
        "counted); calls: tool calls made; characters: what the answers handed the model, as "
        "text, and as text with each answer's structured content (compact JSON) beside it, "
        "which some clients also forward (the target counts this one); ms: wall time from the "
        f"first call to the answer, the median of {runs} runs after a warm-up run, the servers "
        "interleaved",
        "",
        "| task | server | ok | calls | characters (text) | characters (text + structured) | "
        "ms | tools called |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, rows in tasks.items():
        for r in rows:
            task = f"{key}: {({**TASKS, **FRAME_TASKS})[key]}" if r is rows[0] else key
            if not r.get("available", True):
                reason = str(r["reason"]).replace("|", "\\|")
                lines.append(f"| {task} | {r['system']} | not available: {reason} | | | | | |")
                continue
            ok = "yes" if r["ok"] else "**no**: " + r["why"].replace("|", "\\|")
            lines.append(
                f"| {task} | {r['system']} | {ok} | {r['calls']} | {r['chars']:,} | "
                f"{r[TASK_CHARS]:,} | {r['ms']:.0f} | {', '.join(r['tools'])} |"
            )
    return lines + _goal_lines(goals.get("tasks", []))
