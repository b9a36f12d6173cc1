"""Load in the real browser: thousands of commands from many callers at once, results from 1 KB to
50 MB, scripts past the limit. Every answer matches its request, nothing is lost or run twice, and
the daemon's memory comes back down afterwards.

TABPILOT_SOAK=1 runs ten times as many commands."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from selenium import webdriver

from tabpilot.protocol import MAX_RESULT_CHARS
from tests import figures
from tests.e2e.harness import Daemon, wait_for
from tests.reliability.conftest import new_tab

SOAK = os.environ.get("TABPILOT_SOAK") == "1"
COMMANDS = 100_000 if SOAK else 10_000
CALLERS = 32
TABS = 4
MIB = 1024 * 1024


def rss_bytes(pid: int) -> int:
    """Resident memory of a process, from /proc/<pid>/status (VmRSS is in kB)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for pid {pid}")


class Caller:
    """One caller with its own keep-alive connection: lean, so the daemon is what gets measured."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def execute(self, script: str, tab_id: int) -> tuple[int, dict[str, Any]]:
        body = json.dumps({"script": script, "tab_id": tab_id, "timeout_ms": 30_000})
        self.connection.request(
            "POST", "/execute_javascript", body, {"Content-Type": "application/json"}
        )
        response = self.connection.getresponse()
        return response.status, json.loads(response.read())


@contextlib.contextmanager
def peak_rss(pid: int) -> Iterator[list[int]]:
    """Samples the RSS of `pid` every 20 ms while the block runs; yields [peak]."""
    peak = [rss_bytes(pid)]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], rss_bytes(pid))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        done.set()
        thread.join()


def test_many_callers_across_tabs_get_exactly_their_own_answers(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    # Two sites, two tabs each: more than one renderer, as a person's tabs are.
    urls = [
        f"{pages.replace('127.0.0.1', host)}/other.html?load{n}"
        for host in ("127.0.0.1", "localhost")
        for n in range(TABS // 2)
    ]
    with contextlib.ExitStack() as stack:
        tabs = [stack.enter_context(new_tab(browser, daemon, url))["id"] for url in urls]
        record_token = "(window.tokens ??= []).push({token!r}), {token!r}"
        pid = daemon.process.pid

        def call(caller_index: int, count: int, prefix: str) -> list[tuple[str, int, Any]]:
            caller = Caller(daemon.port)
            wrong: list[tuple[str, int, Any]] = []
            for i in range(count):
                token = f"{prefix}{caller_index}-{i}"
                tab_id = tabs[(caller_index + i) % TABS]
                status, body = caller.execute(record_token.format(token=token), tab_id)
                answered_tab = (body.get("tab") or {}).get("id")
                if status != 200 or body.get("result") != token or answered_tab != tab_id:
                    wrong.append((token, status, body.get("error") or body.get("result")))
            caller.connection.close()
            return wrong

        def run(total: int, prefix: str) -> tuple[list[tuple[str, int, Any]], float]:
            started = time.monotonic()
            with ThreadPoolExecutor(CALLERS) as pool:
                share = [total // CALLERS + (c < total % CALLERS) for c in range(CALLERS)]
                futures = [pool.submit(call, c, share[c], prefix) for c in range(CALLERS)]
                wrong = [w for f in futures for w in f.result(timeout=600)]
            return wrong, time.monotonic() - started

        run(CALLERS * 20, "warm")  # connections, renderers and the daemon's caches warmed up
        baseline = rss_bytes(pid)
        with peak_rss(pid) as peak:
            wrong, elapsed = run(COMMANDS, "t")
        # Every caller has its answer; the daemon has let go of every command.
        wait_for(lambda: daemon.status()["in_flight"] == 0, 10, "no command in flight")
        after = rss_bytes(pid)

        assert wrong == [], f"{len(wrong)} wrong answers, first: {wrong[:3]}"
        sent = COMMANDS
        # Count in the pages: every token ran once, in the tab it was sent to.
        runs: Counter[str] = Counter()
        for tab_id in tabs:
            count = "window.tokens.filter((t) => !t.startsWith('warm'))"
            body = daemon.execute(
                f"const t = {count}; return [t.length, new Set(t).size]", tab_id=tab_id
            ).json()
            total, distinct = body["result"]
            runs["total"] += total
            runs["duplicated"] += total - distinct
        assert runs["total"] == sent
        assert runs["duplicated"] == 0
        assert daemon.status()["in_flight"] == 0
        # Nothing is held per command once answered: memory returns near where it started.
        grown = after - baseline
        assert grown < 40 * MIB, f"RSS grew {grown / MIB:.1f} MiB"

    figures.record(
        "Load",
        "commands / callers / tabs",
        f"{sent:,} / {CALLERS} / {TABS}: answered {sent - len(wrong):,}, lost 0, duplicated "
        f"{runs['duplicated']}, {sent / elapsed:,.0f} commands/s",
        figures.REAL_BROWSER,
    )
    figures.record(
        "Load",
        "daemon RSS before / peak / after",
        f"{baseline / MIB:.1f} / {peak[0] / MIB:.1f} / {after / MIB:.1f} MiB",
        figures.REAL_BROWSER,
    )


SIZES = {
    "1 KB": 1000,
    "1 MB": 1_000_000,
    "10 MB": 10_000_000,
    "16 MB (the limit is 16 MiB)": 16_000_000,
    "17 MiB": 17 * MIB,
    "50 MB": 50_000_000,
}


def test_results_come_back_whole_up_to_the_limit_and_past_it_as_result_too_large(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    timings: list[str] = []
    with httpx.Client(base_url=daemon.url, timeout=120, trust_env=False) as client:
        for name, size in SIZES.items():
            started = time.monotonic()
            response = client.post(
                "/execute_javascript",
                json={"script": f"'x'.repeat({size})", "tab_id": page["id"], "timeout_ms": 60_000},
            )
            elapsed = time.monotonic() - started
            body = response.json()
            if size + 2 <= MAX_RESULT_CHARS:
                assert response.status_code == 200, body.get("error")
                assert body["result"] == "x" * size
                timings.append(f"{name} whole in {elapsed:.2f} s")
            else:
                assert response.status_code == 502
                assert body["error"]["code"] == "result_too_large"
                assert "Return less" in body["error"]["message"]
                timings.append(f"{name} result_too_large in {elapsed:.2f} s")
            # Neither the extension nor the daemon fell over: the next command works.
            after = client.post("/execute_javascript", json={"script": "1 + 1"})
            assert after.json()["result"] == 2
        assert daemon.status()["extension"]["connected"]
    figures.record("Load", "results of 1 KB to 50 MB", "; ".join(timings), figures.REAL_BROWSER)


def test_a_script_past_the_limit_is_refused_before_it_is_sent(
    daemon: Daemon, browser: webdriver.Chrome, page: dict[str, Any]
) -> None:
    fits = "/*" + "x" * 1_000_000 + "*/ 'ran'"
    too_big = "/*" + "x" * (MIB + 1) + "*/ window.tooBigRan = true; 'ran'"
    assert daemon.execute(fits, tab_id=page["id"]).json()["result"] == "ran"
    started = time.monotonic()
    response = daemon.execute(too_big, tab_id=page["id"])
    elapsed = time.monotonic() - started
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "script_too_large"
    # Nothing reached the page.
    assert daemon.execute("window.tooBigRan ?? false", tab_id=page["id"]).json()["result"] is False
    figures.record(
        "Load",
        "script just past 1 MiB (the limit)",
        f"413 script_too_large in {elapsed * 1000:.0f} ms, nothing sent",
        figures.REAL_BROWSER,
    )
