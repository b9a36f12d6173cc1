"""A page's hands over HTTP, on the rig's browser: a person's Chrome with the extension, its
debugger switch off, driven through tabpilot's own routes on one keep-alive connection, like the
`1+1` rows.

Each row has its page (bench/hand_pages.py) in a tab of its own, brought to the front as the tab a
person watches, and checks the page afterwards:

- `fill_form`: `POST /browser_fill_form` of the ten-field form, the two sets of values in turn,
  with the refs of one snapshot; the page must hold the values filled last;
- `wait_for`: `POST /browser_wait_for` a text the page shows a moment after the call
  (bench/peer_hands.py's `wait_once`); each figure is the time from the text appearing (the
  page's wall clock) to the answer reaching this process (its own, on the same machine);
- `upload`: `POST /browser_upload` of a 5 MB file from the daemon's uploads folder, two files in
  turn, timed until the page has read the file and confirms its size and SHA-256;
- `drag`: `POST /browser_act` {kind: drag} of the list's last card onto its first (native drag
  and drop); the page must count every drop and show the order the drags made.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.e2e.harness import wait_for

from bench import hand_pages as hp
from bench.pages import serve
from bench.peer_hands import wait_figures, wait_once, wait_state, wrong_values
from bench.rig import Rig
from bench.suites import Counts, latency
from bench.systems import System, guarded
from bench.tasks import control_ref, ref_after

#: How long the upload row waits for the page to confirm a file.
CONFIRM_S = 30.0

Maker = Callable[[Rig, int, Counts, dict[str, Any]], System]


def _post(rig: Rig, path: str, payload: dict[str, Any]) -> dict[str, Any]:
    return rig.client.post(path, payload)


def _page(rig: Rig, tab: int, script: str) -> Any:
    """The value of `script`, a JSON.stringify(...), in the tab."""
    body = _post(rig, "/execute_javascript", {"script": script, "tab_id": tab})
    return json.loads(body["result"])


def _snapshot(rig: Rig, tab: int, interactive_only: bool = True) -> str:
    body = _post(rig, "/browser_snapshot", {"tab_id": tab, "interactive_only": interactive_only})
    return str(body["result"]["snapshot"])


@contextmanager
def _front_tab(rig: Rig, url: str) -> Iterator[int]:
    """A new tab at `url`, in front while the block runs, closed after; its id."""
    driver = rig.driver
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(url)
        driver.execute_cdp_cmd("Page.bringToFront", {})

        def opened() -> int | None:
            tabs = rig.daemon.get("/tabs").json()["result"]
            return next((int(t["id"]) for t in tabs if t["url"] == url), None)

        yield wait_for(opened, 20, f"the tab of {url}")
    finally:
        driver.close()
        driver.switch_to.window(first)
        driver.execute_cdp_cmd("Page.bringToFront", {})


def fill_form_system(rig: Rig, tab: int, counts: Counts, found: dict[str, Any]) -> System:
    state: dict[str, Any] = {"fills": 0}

    def setup() -> None:
        snapshot = _snapshot(rig, tab)
        labels = {hp.field_label(f, v) for v in hp.VALUES for f in hp.FIELDS}
        refs = {label: control_ref(snapshot, label) for label in labels}
        state["payloads"] = [
            {"tab_id": tab, "fields": [{"ref": refs[hp.field_label(f, v)], "value": _value(f, v)}
                                       for f in hp.FIELDS]}
            for v in hp.VALUES
        ]  # fmt: skip

    def call() -> float:
        body = _post(rig, "/browser_fill_form", state["payloads"][state["fills"] % 2])
        state["fills"] += 1
        return float(body["duration_ms"])

    def teardown() -> None:
        found["fills"] = state["fills"]
        try:
            page = _page(rig, tab, "JSON.stringify(window.formState())")
            wrong = wrong_values(page, hp.VALUES[(state["fills"] - 1) % 2])
            found["values_ok"], found["wrong"] = not wrong, {k: list(v) for k, v in wrong.items()}
        except Exception as exc:  # the row says so
            found["values_ok"], found["wrong"] = False, f"unknown ({exc})"[:200]

    calls = counts.hands_calls
    return System("tabpilot HTTP", guarded(call), guarded(setup), teardown, calls, calls // 10)


def _value(field: str, values: dict[str, Any]) -> Any:
    return True if field == "shipping" else values[field]  # the radio that is picked


def wait_system(rig: Rig, tab: int, counts: Counts, found: dict[str, Any]) -> System:
    state = wait_state()

    def call() -> float:
        return wait_once(
            state,
            lambda label, ms: _post(
                rig, "/execute_javascript", {"script": hp.arm_js(label, ms), "tab_id": tab}
            ),
            lambda label: str(
                _post(rig, "/browser_wait_for", {"tab_id": tab, "text": label, "timeout_ms": 5000})
            ),
            lambda: _page(rig, tab, hp.SHOWN_JS),
        )

    def teardown() -> None:
        found.update(wait_figures(state))
        found.pop("answer_chars", None)  # an envelope's, not what a model reads

    return System(
        "tabpilot HTTP",
        guarded(call),
        teardown=teardown,
        calls=counts.hands_waits,
        warmup=1,
        timed_by_call=True,
    )


def upload_system(rig: Rig, tab: int, counts: Counts, found: dict[str, Any]) -> System:
    folder = rig.daemon.state_dir / "uploads"
    expected = []
    for name in hp.BIG_FILES:
        data = hp.file_bytes(name, hp.BIG_BYTES)
        expected.append(
            {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        )
    state: dict[str, Any] = {"sent": 0, "confirmed": 0}

    def setup() -> None:
        for name in hp.BIG_FILES:
            hp.write_file(folder, name, hp.BIG_BYTES)
        state["ref"] = control_ref(_snapshot(rig, tab), "Receipt")

    def call() -> float:
        want = expected[state["sent"] % 2]
        payload = {"tab_id": tab, "ref": state["ref"], "paths": [want["name"]]}
        body = _post(rig, "/browser_upload", payload)
        state["sent"] += 1

        def confirmed() -> Any:
            count, received = _page(rig, tab, hp.RECEIVED_JS)
            return received if count >= state["sent"] else None

        received = wait_for(confirmed, CONFIRM_S, "the page to confirm the file")
        got = {k: received.get(k) for k in want}
        if got != want:
            raise RuntimeError(f"the page received {got}, not {want}")
        state["confirmed"] += 1
        return float(body["duration_ms"])

    def teardown() -> None:
        found["bytes"] = hp.BIG_BYTES
        found["confirmed"] = state["confirmed"]
        found["sent"] = state["sent"]

    return System(
        "tabpilot HTTP",
        guarded(call),
        guarded(setup),
        teardown,
        calls=counts.hands_uploads,
        warmup=1,
    )


def drag_system(rig: Rig, tab: int, counts: Counts, found: dict[str, Any]) -> System:
    state: dict[str, Any] = {"order": list(hp.CARDS), "drags": 0}

    def setup() -> None:
        # The whole snapshot: an interactive_only one lists the cards' refs without their text.
        snapshot = _snapshot(rig, tab, interactive_only=False)
        state["refs"] = {card: ref_after(snapshot, card) for card in hp.CARDS}

    def call() -> float:
        order, refs = state["order"], state["refs"]
        payload = {"tab_id": tab, "kind": "drag", "ref": refs[order[-1]], "to_ref": refs[order[0]]}
        body = _post(rig, "/browser_act", payload)
        state["order"] = [order[-1], *order[:-1]]
        state["drags"] += 1
        return float(body["duration_ms"])

    def teardown() -> None:
        found["drags"] = state["drags"]
        try:
            drops, order = _page(rig, tab, hp.ORDER_JS)
            found["drops_counted"] = drops
            found["order_ok"] = order == state["order"] and drops == state["drags"]
        except Exception as exc:  # the row says so
            found["drops_counted"], found["order_ok"] = f"unknown ({exc})"[:200], False

    calls = counts.hands_calls
    return System("tabpilot HTTP", guarded(call), guarded(setup), teardown, calls, calls // 10)


#: results["hands"] key -> its page and its system.
ROWS: dict[str, tuple[str, Maker]] = {
    "fill_form": (hp.FORM, fill_form_system),
    "wait_for": (hp.WAIT, wait_system),
    "upload": (hp.UPLOAD, upload_system),
    "drag": (hp.BOARD, drag_system),
}


def measure(rig: Rig, counts: Counts) -> dict[str, list[dict[str, Any]]]:
    """Each row, one after another, each in a tab of its own."""
    out: dict[str, list[dict[str, Any]]] = {}
    with serve(hp.hand_pages(), hp.answer) as base:
        for key, (path, make) in ROWS.items():
            print(f"bench: a page's hands over HTTP: {key}", file=sys.stderr, flush=True)
            found: dict[str, Any] = {}
            with _front_tab(rig, base + path) as tab:
                rows = latency([make(rig, tab, counts, found)], counts)
            rows[0].update(found)
            out[key] = rows
    return out
