"""The contexts suite of `make bench` (bench/contexts.py, bench/context_report.py): its targets and
tables read from results.json alone, and a context's Chromium found by its profile from outside
the daemon, with every process of its group counted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from bench import context_report as cr
from bench.contexts import _create, browser_pid, tree_memory

MB = 1024 * 1024
STARTUP = "a new context's first `1+1` < 5 s after create"
MEMORY = "each context's Chromium < 300 MB PSS, idle"
AT_ONCE = "`1+1` in 2 contexts at once: p50 ≤ 2x the default context's alone"


def _row(system: str, p50: float, **extra: Any) -> dict[str, Any]:
    return {"system": system, "n": 100, "p50": p50, "p90": p50 * 1.5, "p99": p50 * 3, **extra}


def _suite(
    first_answers: tuple[float, ...] = (1500.0, 2100.0),
    pss_mb: tuple[int, ...] = (190, 210),
    default_p50: float = 2.0,
    together_p50: float = 3.0,
) -> dict[str, Any]:
    names = [f"bench-{i + 1}" for i in range(len(first_answers))]
    return {
        "contexts": len(names),
        "startup": [
            {
                "context": name,
                "to_first_answer_ms": ms,
                "create_ms": ms - 10,
                "first_call_ms": 10.0,
                "daemon_startup_ms": ms - 12,
                "refused_first_calls": 0,
                "restarts": 0,
            }
            for name, ms in zip(names, first_answers, strict=True)
        ],
        "memory": [
            {
                "context": name,
                "pid": 100 + i,
                "processes": 10,
                "rss_bytes": 1000 * MB,
                "pss_bytes": mb * MB,
            }
            for i, (name, mb) in enumerate(zip(names, pss_mb, strict=True))
        ],
        "daemon_rss_before_bytes": 60 * MB,
        "daemon_rss_after_bytes": 62 * MB,
        "latency": [
            _row(cr.DEFAULT_ALONE, default_p50),
            *(_row(f"{n} alone", default_p50) for n in names),
            *(_row(f"{n}, all at once", together_p50) for n in names),
            _row(cr.AT_ONCE, together_p50, callers=len(names)),
        ],
    }


@pytest.mark.parametrize(
    ("suite", "expected"),
    [
        (
            _suite(),
            [
                (STARTUP, "slowest 2,100 ms, median 1,800 ms of 2", True),
                (MEMORY, "largest 210 MB PSS (1000 MB RSS summed)", True),
                (AT_ONCE, "3.00 ms vs 2.00 ms (1.50x)", True),
            ],
        ),
        (
            # One slow start (its first page stalled and Chromium was started again), one
            # context over the memory limit, and contexts at once more than twice as slow.
            _suite(first_answers=(1500.0, 17700.0), pss_mb=(190, 320), together_p50=4.5),
            [
                (STARTUP, "slowest 17,700 ms, median 9,600 ms of 2", False),
                (MEMORY, "largest 320 MB PSS (1000 MB RSS summed)", False),
                (AT_ONCE, "4.50 ms vs 2.00 ms (2.25x)", False),
            ],
        ),
    ],
)
def test_each_target_reads_its_rows_and_says_whether_it_was_met(
    suite: dict[str, Any], expected: list[cr.Target]
) -> None:
    assert cr.targets({"contexts": suite}) == expected


def test_a_run_without_the_suite_has_no_contexts_targets_or_tables() -> None:
    assert cr.targets({}) == [] and cr.markdown({}) == []


def test_a_context_that_never_answered_or_was_refused_fails_the_start_up_target() -> None:
    suite = _suite(first_answers=(1500.0, 2100.0, 1800.0), pss_mb=(190, 210, 200))
    suite["startup"][1]["refused_first_calls"] = 2
    suite["startup"][1]["first_refusal"] = "tab_not_scriptable: no url"
    never = {"context": "bench-3", "create_ms": 1790.0, "daemon_startup_ms": 1788, "restarts": 2}
    suite["startup"][2] = {
        **never,
        "refused_first_calls": 300,
        "error": "no answer to 1+1 in 30 s: tab_not_scriptable",
    }
    suite["contexts"] = 2
    suite["latency"] = [r for r in suite["latency"] if not r["system"].startswith("bench-3")]
    suite["latency"][-1]["callers"] = 2
    assert cr.targets({"contexts": suite})[0] == (
        STARTUP,
        "slowest 2,100 ms, median 1,800 ms of 2; 302 first `1+1` refused; 1 never answered "
        "(bench-3: no answer to 1+1 in 30 s: tab_not_scriptable)",
        False,
    )
    lines = cr.markdown({"contexts": suite})
    assert "| bench-3 | - | 1,790 | - | 300 | 1,788 | 2 | 10 | 1000 MB | 200 MB |" in lines
    # A Chromium gone before its memory was read: no figures, and no crash.
    suite["memory"][2] = {"context": "bench-3", "error": "no Chromium of context 'bench-3'"}
    lines = cr.markdown({"contexts": suite})
    assert "| bench-3 | - | 1,790 | - | 300 | 1,788 | 2 | - | - | - |" in lines
    assert "together 462 MB" in "\n".join(lines)
    assert "- bench-2, its first `1+1` refused: tab_not_scriptable: no url" in lines
    assert "- bench-3: no answer to 1+1 in 30 s: tab_not_scriptable" in lines


def test_a_missing_row_is_a_target_not_met_rather_than_a_crash() -> None:
    suite = _suite()
    suite["latency"] = [r for r in suite["latency"] if r["system"] != cr.DEFAULT_ALONE]
    suite["startup"], suite["memory"] = [], []
    assert cr.targets({"contexts": suite}) == [
        (STARTUP, "no context answered", False),
        (AT_ONCE, "not measured", False),
    ]


def test_the_tables_have_a_row_per_context_and_per_caller() -> None:
    lines = cr.markdown({"contexts": _suite()})
    text = "\n".join(lines)
    assert "| bench-1 | 1,500 | 1,490 | 10.0 | 0 | 1,488 | 0 | 10 | 1000 MB | 190 MB |" in lines
    assert "| bench-2 | 2,100 | 2,090 | 10.0 | 0 | 2,088 | 0 | 10 | 1000 MB | 210 MB |" in lines
    # The daemon's RSS with the contexts, plus each Chromium's PSS.
    assert "60 MB before the contexts, 62 MB with them" in text and "together 462 MB" in text
    assert f"| {cr.DEFAULT_ALONE} | 100 | 2.00 | 3.00 | 6.00 | 1.00x |" in lines
    assert "| bench-2, all at once | 100 | 3.00 | 4.50 | 9.00 | 1.50x |" in lines
    assert f"| {cr.AT_ONCE} | 100 | 3.00 | 4.50 | 9.00 | 1.50x |" in lines


def _group(tmp_path: Path, context: str) -> tuple[subprocess.Popen[bytes], Path]:
    """A stand-in for a context's Chromium: a shell leading its own process group, with a child,
    whose command line names a profile under the state folder, as the daemon starts Chromium."""
    profile = tmp_path / f"browser-{context}"
    (profile / "tabpilot-extension").mkdir(parents=True)
    managed = {"managed": True, "context": context}
    (profile / "tabpilot-extension" / "managed.json").write_text(json.dumps(managed))
    process = subprocess.Popen(
        ["sh", "-c", "sleep 30 & wait", f"--user-data-dir={profile}"], start_new_session=True
    )
    return process, profile


def test_a_contexts_process_group_is_found_by_its_profile_and_summed(tmp_path: Path) -> None:
    ours, _ = _group(tmp_path, "bench-1")
    other, _ = _group(tmp_path, "bench-2")
    try:
        # The shell's child has started once the group has two processes.
        deadline = time.monotonic() + 5
        while (memory := tree_memory(tmp_path, "bench-1"))["processes"] < 2:
            assert time.monotonic() < deadline, memory
            time.sleep(0.02)
        assert memory["pid"] == ours.pid and memory["processes"] == 2
        assert memory["rss_bytes"] > memory["pss_bytes"] > 0
        assert browser_pid(tmp_path, "bench-2") == other.pid
        with pytest.raises(RuntimeError, match="no Chromium of context 'bench-3'"):
            browser_pid(tmp_path, "bench-3")
        # A profile elsewhere is not the daemon's.
        with pytest.raises(RuntimeError, match="no Chromium"):
            browser_pid(tmp_path / "elsewhere", "bench-1")
    finally:
        for process in (ours, other):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


class _Client:
    """Answers the daemon's calls from a script: (status, envelope) in turn."""

    def __init__(self, answers: list[tuple[int, dict[str, Any]]]) -> None:
        self.answers = answers
        self.paths: list[str] = []

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        self.paths.append(path)
        status, envelope = self.answers.pop(0)
        return status, json.dumps(envelope).encode()


def _refusal(code: str, message: str) -> tuple[int, dict[str, Any]]:
    return 409, {"success": False, "error": {"code": code, "message": message}}


def test_a_refused_first_call_is_made_again_and_counted_and_a_failed_create_says_why(
    tmp_path: Path,
) -> None:
    (tmp_path / "daemon.log").write_text("the managed browser's first page did not load in 15 s\n")
    created_answer = {"success": True, "result": {"startup_ms": 1200}}
    client = _Client(
        [
            (200, created_answer),
            _refusal("tab_not_scriptable", "Cannot run scripts in tab 7 (no url)."),
            _refusal("tab_not_scriptable", "Cannot run scripts in tab 7 (no url)."),
            (200, {"success": True, "result": 2}),
            (503, {"success": False, "error": {"code": "browser_unavailable", "message": "No."}}),
        ]
    )
    rig = SimpleNamespace(client=client, daemon=SimpleNamespace(state_dir=tmp_path))
    created: list[str] = []
    row = _create(rig, "bench-1", created)  # type: ignore[arg-type]
    assert created == ["bench-1"] and "error" not in row
    assert client.paths == ["/browser_context_create"] + 3 * ["/execute_javascript?context=bench-1"]
    assert row["refused_first_calls"] == 2 and row["restarts"] == 0
    assert row["first_refusal"] == "tab_not_scriptable: Cannot run scripts in tab 7 (no url)."
    assert row["to_first_answer_ms"] >= row["create_ms"] and row["daemon_startup_ms"] == 1200

    assert _create(rig, "bench-2", created) == {  # type: ignore[arg-type]
        "context": "bench-2",
        "error": "browser_context_create failed: browser_unavailable: No.",
        "restarts": 0,
    }
    assert created == ["bench-1"]
