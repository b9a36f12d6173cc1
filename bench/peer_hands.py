"""tabpilot beside Playwright MCP and chrome-devtools-mcp with a page's hands (bench/peer_suite.py):

- a form of ten fields (bench/hand_pages.py), filled in one call by each server's form tool with
  the refs of a snapshot each server takes first, as an agent would: the fill's time, the
  characters of the snapshot and of the fill's answer, and, afterwards, whether the page holds
  the values filled last;
- a wait for a text: the page shows it a moment after the wait was sent (`WAIT_DELAY_MS` after
  the call that armed it returned, more for a server whose calls return late), and the figure is
  the time from the text appearing (the page's wall clock) to the answer reaching the client
  (the client's, on the same machine).

Both navigate each server's current page, so they run after the rows that use the pages opened
at the start.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bench import hand_pages as hp
from bench.peers import FormField
from bench.suites import Counts
from bench.systems import System, Unavailable, guarded
from bench.tasks import control_ref, from_json

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
    return from_json(server.value(peer.run(server.evaluate(target, script))))


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
    # As bench/peer_suite.py's rows: tabpilot's fill takes milliseconds; the peers' take a second
    # or two, and are measured half as many times as their other tools.
    if peer.fast:
        return counts.peer_fast, max(1, counts.peer_fast // 20)
    return max(2, counts.peer_slow // 2), 1


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


def wait_once(
    state: dict[str, Any],
    arm: Callable[[str, int], object],
    wait: Callable[[str], str],
    shown: Callable[[], Any],
) -> float:
    """One wait for a new text: `arm` makes the page show it `state["delay"]` ms later, `wait`
    waits for it, `shown` reads when it appeared ([page clock, Date.now()]). The time from the
    text appearing to the answer, in ms. Where the text appeared before the wait was even sent
    (the call that armed it returned that late), the delay doubles and the wait is made again."""
    while True:
        state["n"] += 1
        label = hp.wait_label(state["n"])
        arm(label, state["delay"])
        sent_at = time.time() * 1000
        sent = time.perf_counter()
        answer = wait(label)
        arrived = time.time() * 1000
        round_trip = (time.perf_counter() - sent) * 1000
        at = shown()
        if not at or at[0] is None:
            raise RuntimeError(f"{label!r} had not appeared when the wait answered: {answer[:200]}")
        if at[0] >= sent_at:
            break
        if state["delay"] >= hp.WAIT_DELAY_MAX_MS:
            raise RuntimeError(
                f"the text appeared before the wait was sent, {state['delay']} ms on"
            )
        state["delay"] *= 2
    state["round_trips"].append(round_trip)
    state["skews"].append(at[0] - at[1])
    state["chars"] = max(state.get("chars", 0), len(answer))
    return arrived - float(at[0])


def wait_state() -> dict[str, Any]:
    return {"n": 0, "delay": hp.WAIT_DELAY_MS, "round_trips": [], "skews": [], "chars": 0}


def wait_figures(state: dict[str, Any]) -> dict[str, Any]:
    """What a wait row records beside its samples."""
    if not state["round_trips"]:
        return {}
    return {
        "answer_chars": state["chars"],
        "round_trip_p50": round(statistics.median(state["round_trips"]), 2),
        "clock_skew_ms": round(statistics.median(state["skews"]), 3),
        "delay_ms": state["delay"],
    }


def wait_system(peer: Peer, counts: Counts, found: dict[str, Any]) -> System:
    """Waits for a text the page shows a moment after the call, a new text each time; each
    sample is the time from the text appearing to the answer arriving, in ms."""
    state = wait_state()

    def setup() -> None:
        server, _ = peer.open
        if server.wait_text is None:
            raise Unavailable(f"{peer.name} has no tool that waits for a text here")
        state["target"] = show(peer, hp.WAIT)
        call()

    def call() -> float:
        server, _ = peer.open
        target, wait_text = state["target"], server.wait_text
        assert wait_text is not None  # setup checked it
        return wait_once(
            state,
            lambda label, ms: peer.run(server.evaluate(target, hp.arm_js(label, ms))),
            lambda label: peer.run(wait_text(target, label)),
            lambda: page_value(peer, target, hp.SHOWN_JS),
        )

    def teardown() -> None:
        found[peer.name] = wait_figures(state)

    return System(
        peer.name,
        guarded(call),
        guarded(setup),
        teardown,
        calls=counts.peer_slow,
        warmup=1,
        timed_by_call=True,
    )
