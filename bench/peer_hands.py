"""tabpilot beside Playwright MCP and chrome-devtools-mcp with a page's hands (bench/peer_suite.py):

- a form of ten fields (bench/hand_pages.py), filled in one call by each server's form tool with
  the refs of a snapshot each server takes first, as an agent would: the fill's time, the
  characters of the snapshot and of the fill's answer, and, afterwards, whether the page holds
  the values filled last;
- a wait for a text: the page shows it when a slow request answers, about `WAIT_DELAY_MS` after
  the wait was sent, and the figure is the time from the text appearing (the page's wall clock)
  to the answer reaching the client (the client's, on the same machine).

Both navigate each server's current page, so they run after the rows that use the pages opened
at the start.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import TYPE_CHECKING, Any

from bench import hand_pages as hp
from bench.peers import FormField
from bench.suites import Counts
from bench.systems import System, Unavailable, guarded
from bench.tasks import control_ref

if TYPE_CHECKING:
    from bench.peer_suite import Peer

#: The kind of control of each field of the form (a text box otherwise).
KINDS = {"country": "select", "newsletter": "checkbox", "shipping": "radio"}


def show(peer: Peer, path: str) -> Any:
    """Loads `path` in the server's current page (chrome-devtools-mcp: the page opened last,
    brought to the front, so that its timers run as a visible page's); what its tools aim at."""
    server, _ = peer.open
    target = peer.pages.get("/products.html") if server.front is not None else None
    peer.run(server.navigate(target, peer.base + path))
    if server.front is not None:
        peer.run(server.front(target))
    peer.showing = path
    return target


def page_value(peer: Peer, target: Any, script: str) -> Any:
    """The value of `script`, a JSON.stringify(...), through the server's evaluation tool."""
    server, _ = peer.open
    value = json.loads(server.value(peer.run(server.evaluate(target, script))))
    return json.loads(value) if isinstance(value, str) else value


def form_fields(refs: dict[str, str], values: dict[str, Any]) -> list[FormField]:
    """The ten fields to fill with `values`, by the refs of their labels."""
    fields = []
    for field in hp.FIELDS:
        label = hp.field_label(field, values)
        value = True if field == "shipping" else values[field]  # the radio that is picked
        fields.append(FormField(label, KINDS.get(field, "text"), refs[label], value))
    return fields


def wrong_values(state: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """The fields whose value in the page differs from the one filled: name -> (page, filled)."""
    return {k: (state.get(k), v) for k, v in expected.items() if state.get(k) != v}


def _calls(peer: Peer, counts: Counts) -> tuple[int, int]:
    # As bench/peer_suite.py's rows: tabpilot's fill takes milliseconds, the peers' tenths.
    if peer.fast:
        return counts.peer_fast, max(1, counts.peer_fast // 20)
    return counts.peer_slow, 1


def fill_form_system(peer: Peer, counts: Counts, found: dict[str, Any]) -> System:
    """Fills of the ten-field form, the two sets of values in turn; `found` gets the snapshot's
    characters and time, the first fill's answer, and whether the page holds the last values."""
    state: dict[str, Any] = {"fills": 0}

    def setup() -> None:
        server, _ = peer.open
        if server.fill_form is None:
            raise Unavailable(f"{peer.name} has no form tool here")
        target = state["target"] = show(peer, hp.FORM)
        started = time.perf_counter()
        snapshot = peer.run(server.snapshot(target))
        snapshot_ms = (time.perf_counter() - started) * 1000
        labels = {hp.field_label(f, v) for v in hp.VALUES for f in hp.FIELDS}
        refs = {label: control_ref(snapshot, label) for label in labels}
        state["args"] = [server.fill_form(target, form_fields(refs, v)) for v in hp.VALUES]
        started = time.perf_counter()
        answer = call()
        found[peer.name] = {
            "calls": 2,  # the snapshot for the refs, then the fill
            "snapshot_chars": len(snapshot),
            "snapshot_ms": round(snapshot_ms, 2),
            "answer_chars": len(answer),
            "first_fill_ms": round((time.perf_counter() - started) * 1000, 2),
        }

    def call() -> str:
        answer = peer.run(state["args"][state["fills"] % 2])
        state["fills"] += 1
        return answer

    def timed() -> None:
        call()

    def teardown() -> None:
        row = found.setdefault(peer.name, {})
        row["fills"] = state["fills"]
        try:
            page = page_value(peer, state["target"], "JSON.stringify(window.formState())")
            wrong = wrong_values(page, hp.VALUES[(state["fills"] - 1) % 2])
            row["values_ok"], row["wrong"] = not wrong, {k: list(v) for k, v in wrong.items()}
        except Exception as exc:  # the row says so; the other servers' figures stand
            row["values_ok"], row["wrong"] = False, f"unknown ({exc})"[:200]

    calls, warmup = _calls(peer, counts)
    return System(peer.name, guarded(timed), guarded(setup), teardown, calls, warmup)


def wait_system(peer: Peer, counts: Counts, found: dict[str, Any]) -> System:
    """Waits for a text the page shows `WAIT_DELAY_MS` after the call, a new text each time; each
    sample is the time from the text appearing to the answer arriving, in ms."""
    state: dict[str, Any] = {"n": 0, "round_trips": [], "skews": [], "chars": 0}

    def setup() -> None:
        server, _ = peer.open
        if server.wait_text is None:
            raise Unavailable(f"{peer.name} has no tool that waits for a text here")
        state["target"] = show(peer, hp.WAIT)
        call()

    def call() -> float:
        server, _ = peer.open
        assert server.wait_text is not None  # setup checked it
        target = state["target"]
        state["n"] += 1
        label = hp.wait_label(state["n"])
        peer.run(server.evaluate(target, hp.arm_js(label, hp.WAIT_DELAY_MS)))
        sent = time.perf_counter()
        answer = peer.run(server.wait_text(target, label))
        arrived = time.time() * 1000
        state["round_trips"].append((time.perf_counter() - sent) * 1000)
        state["chars"] = max(state["chars"], len(answer))
        shown = page_value(peer, target, hp.SHOWN_JS)
        if not shown or shown[0] is None:
            raise RuntimeError(f"{label!r} had not appeared when the wait answered: {answer[:200]}")
        state["skews"].append(shown[0] - shown[1])
        return arrived - float(shown[0])

    def teardown() -> None:
        if state["round_trips"]:
            found[peer.name] = {
                "answer_chars": state["chars"],
                "round_trip_p50": round(statistics.median(state["round_trips"]), 2),
                "clock_skew_ms": round(statistics.median(state["skews"]), 2),
                "delay_ms": hp.WAIT_DELAY_MS,
            }

    return System(
        peer.name,
        guarded(call),
        guarded(setup),
        teardown,
        calls=counts.peer_slow,
        warmup=1,
        timed_by_call=True,
    )
