"""Contexts (tabpilot.browsers.contexts): several managed Chromiums on the rig's daemon.

- **Start-up**: N contexts are created one after another; each is timed from sending
  browser_context_create to the answer of its first `1+1` (`?context=NAME`), beside the
  `startup_ms` the daemon itself reports. A `1+1` refused (the context's tab not ready) is made
  again, and counted. A context whose first page never loaded is started again by the daemon
  (tabpilot.browsers.supervisor); its log says so, and the row counts those restarts.
- **Memory**, once they are idle: each context's Chromium is found from outside the daemon, as
  the process whose `--user-data-dir` is a profile under the daemon's state folder, its name read
  from that profile's extension copy (managed.json). The daemon starts it in a session of its
  own, so its process group is its whole process tree: RSS summed over the group (shared pages
  counted once per process, so an over-count) and PSS summed (shared pages split between the
  processes that map them: what the tree adds to the machine). Chromium's crash handler leaves the
  group and is not counted (a few MB).
- **`1+1` round trip**, one caller per context, each on its own keep-alive connection: all the
  contexts at once, beside each context alone and the rig's default context (its browser driven
  by Selenium) alone, interleaved in blocks so that load on a shared machine falls on all alike.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.clients import AsyncKeepAlive, raw_post
from bench.context_report import AT_ONCE, DEFAULT_ALONE
from bench.rig import Rig, proc_status
from bench.suites import summary

#: The daemon's log line when a context's first page did not load and its Chromium is restarted.
RESTART_LINE = "first page did not load in"
#: How long a new context's `1+1` is called again while it is refused.
FIRST_ANSWER_WAIT_S = 30.0
#: How long the contexts are left alone before their memory is read.
SETTLE_S = 2.0


def names(count: int) -> list[str]:
    return [f"bench-{i + 1}" for i in range(count)]


def measure(rig: Rig, count: int, calls: int, warmup: int, blocks: int) -> dict[str, Any]:
    """The contexts suite: start-up, memory and `1+1` of `count` new managed contexts, each
    closed at the end whatever happens. A context that did not start, or never answered, gets a
    start-up row that says why and is left out of the rows after it."""
    created: list[str] = []
    try:
        daemon_before = proc_status(rig.pid)["VmRSS"]
        startup = [_create(rig, name, created) for name in names(count)]
        answering = [r["context"] for r in startup if "error" not in r]
        time.sleep(SETTLE_S if calls > 50 else SETTLE_S / 4)
        memory = [_memory(rig.daemon.state_dir, n) for n in created]
        daemon_after = proc_status(rig.pid)["VmRSS"]
        latency = asyncio.run(_latency(rig.port, answering, calls, warmup, blocks))
    finally:
        for name in created:
            try:
                rig.client.post("/browser_context_close", {"name": name})
            except Exception as exc:  # the others are closed all the same
                print(f"bench: closing context {name} failed: {exc}", file=sys.stderr)
    return {
        "contexts": len(answering),
        "startup": startup,
        "memory": memory,
        "daemon_rss_before_bytes": daemon_before,
        "daemon_rss_after_bytes": daemon_after,
        "latency": latency,
    }


def _create(rig: Rig, name: str, created: list[str]) -> dict[str, Any]:
    """Create context `name` (added to `created` once it exists), then call `1+1` in it until it
    answers: the time to that answer, and the calls refused before it, each counted."""
    log = rig.daemon.state_dir / "daemon.log"
    restarts_before = _count_lines(log, RESTART_LINE)
    row: dict[str, Any] = {"context": name}
    start = time.perf_counter()
    answer, why = _post(rig, "/browser_context_create", {"name": name})
    if answer is None:
        row["error"] = f"browser_context_create failed: {why}"
        row["restarts"] = _count_lines(log, RESTART_LINE) - restarts_before
        return row
    created.append(name)
    answered = time.perf_counter()
    row["create_ms"] = round((answered - start) * 1000, 1)
    row["daemon_startup_ms"] = answer["result"]["startup_ms"]
    refused: list[str] = []
    while True:
        first, why = _post(rig, f"/execute_javascript?context={name}", {"script": "1+1"})
        if first is None:
            refused.append(why)
            if time.perf_counter() - answered > FIRST_ANSWER_WAIT_S:
                row["error"] = f"no answer to 1+1 in {FIRST_ANSWER_WAIT_S:g} s: {why}"
                break
            time.sleep(0.1)
            continue
        if first["result"] != 2:
            raise RuntimeError(f"1+1 in context {name} gave {first['result']!r}")
        done = time.perf_counter()
        row["to_first_answer_ms"] = round((done - start) * 1000, 1)
        row["first_call_ms"] = round((done - answered) * 1000, 1)
        break
    row["refused_first_calls"] = len(refused)
    if refused:
        row["first_refusal"] = refused[0]
    row["restarts"] = _count_lines(log, RESTART_LINE) - restarts_before
    return row


def _post(rig: Rig, path: str, payload: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """(the envelope, "") of a call that succeeded, else (None, "code: message")."""
    status, data = rig.client.request("POST", path, json.dumps(payload).encode())
    try:
        body = json.loads(data)
    except ValueError:
        return None, f"HTTP {status}: {data[:200]!r}"
    if status == 200 and body.get("success") is True:
        return body, ""
    error = body.get("error") or {}
    return None, f"{error.get('code')}: {error.get('message')}"[:400]


def _count_lines(path: Path, text: str) -> int:
    try:
        return path.read_text(errors="replace").count(text)
    except OSError:
        return 0


# -- memory ---------------------------------------------------------------------------------------


def _processes() -> dict[int, tuple[int, list[str]]]:
    """pid -> (process group, command line) of every process we may read."""
    out: dict[int, tuple[int, list[str]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                group = int(stat.read().rsplit(")", 1)[1].split()[2])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                argv = cmdline.read().decode(errors="replace").split("\0")
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile, or not ours to read
        out[int(entry)] = (group, argv)
    return out


def browser_pid(state_dir: Path, context: str, processes: dict[int, Any] | None = None) -> int:
    """The pid of context `context`'s Chromium (the browser process, not a helper): the process
    whose `--user-data-dir` is a profile under `state_dir` made for that context."""
    processes = _processes() if processes is None else processes
    for pid, (_, argv) in processes.items():
        if any(a.startswith("--type=") for a in argv):
            continue
        for arg in argv:
            if not arg.startswith("--user-data-dir="):
                continue
            profile = Path(arg.split("=", 1)[1])
            if profile.parent != state_dir:
                continue
            try:
                managed = json.loads((profile / "tabpilot-extension" / "managed.json").read_text())
            except (OSError, ValueError):
                continue
            if managed.get("context") == context:
                return pid
    raise RuntimeError(f"no Chromium of context {context!r} under {state_dir}")


def tree_memory(state_dir: Path, context: str) -> dict[str, Any]:
    """RSS and PSS, summed over the process group of context `context`'s Chromium, in bytes."""
    processes = _processes()
    pid = browser_pid(state_dir, context, processes)
    group = processes[pid][0]
    if group != pid:
        raise RuntimeError(f"Chromium {pid} of {context!r} does not lead its process group")
    members = [p for p, (g, _) in processes.items() if g == group]
    rss = pss = 0
    for member in members:
        rss += _field(f"/proc/{member}/status", "VmRSS")
        pss += _field(f"/proc/{member}/smaps_rollup", "Pss")
    return {"pid": pid, "processes": len(members), "rss_bytes": rss, "pss_bytes": pss}


def _memory(state_dir: Path, context: str) -> dict[str, Any]:
    """tree_memory's row for `context`, or one that says why there is none."""
    try:
        return {"context": context, **tree_memory(state_dir, context)}
    except RuntimeError as exc:
        return {"context": context, "error": str(exc)}


def _field(path: str, name: str) -> int:
    """A `Name:   123 kB` line of a /proc file, in bytes (0 if the process is gone)."""
    try:
        with open(path) as lines:
            for line in lines:
                key, _, value = line.partition(":")
                if key == name:
                    return int(value.split()[0]) * 1024
    except OSError:
        pass
    return 0


# -- 1+1 in each context, alone and all at once --------------------------------------------------


async def _latency(
    port: int, contexts: list[str], calls: int, warmup: int, blocks: int
) -> list[dict[str, Any]]:
    """Rows of `1+1` times, ms: the default context alone, each context alone, then each context
    with every other one running at the same time, and all of those together."""
    requests: dict[str | None, bytes] = {
        None: raw_post(port, "/execute_javascript", {"script": "1+1"})
    }
    for name in contexts:
        requests[name] = raw_post(port, f"/execute_javascript?context={name}", {"script": "1+1"})
    conns = {key: await AsyncKeepAlive.open(port) for key in requests}
    alone: dict[str | None, list[float]] = {key: [] for key in requests}
    together: dict[str, list[float]] = {name: [] for name in contexts}
    try:
        for key in requests:
            await _calls(conns[key], requests[key], warmup, None)
        per_block = max(1, calls // blocks)
        for _ in range(blocks):
            for key in requests:
                await _calls(conns[key], requests[key], per_block, alone[key].append)
            await _at_once(conns, requests, contexts, per_block, together)
    finally:
        for conn in conns.values():
            await conn.close()
    rows = [{"system": DEFAULT_ALONE, **summary(alone[None])}]
    rows += [{"system": f"{name} alone", **summary(alone[name])} for name in contexts]
    if contexts:
        rows += [{"system": f"{n}, all at once", **summary(together[n])} for n in contexts]
        everything = [t for name in contexts for t in together[name]]
        rows.append({"system": AT_ONCE, "callers": len(contexts), **summary(everything)})
    return rows


async def _calls(
    conn: AsyncKeepAlive, request: bytes, n: int, record: Callable[[float], None] | None
) -> None:
    for _ in range(n):
        start = time.perf_counter()
        body = await conn.call(request)
        if record is not None:
            record((time.perf_counter() - start) * 1000)
        if b'"result":2,' not in body:
            raise RuntimeError(f"1+1 gave {body[:200]!r}")


async def _at_once(
    conns: dict[Any, AsyncKeepAlive],
    requests: dict[Any, bytes],
    contexts: list[str],
    n: int,
    out: dict[str, list[float]],
) -> None:
    """One caller per context, each recording its first `n` calls and going on calling until
    every caller has its `n`, so that each recorded call has the others running beside it."""
    pending = [len(contexts)]

    async def caller(name: str) -> None:
        times: list[float] = []
        counted = False
        while pending[0]:
            await _calls(conns[name], requests[name], 1, times.append)
            if len(times) == n and not counted:
                counted = True
                pending[0] -= 1
        out[name] += times[:n]

    await asyncio.gather(*(caller(name) for name in contexts))
