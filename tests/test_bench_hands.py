"""The rows of a page's hands (bench/hands.py, bench/peer_hands.py) and their tasks
(bench/tasks.py): the targets each row is held to, the readers the scripts parse each server's
answers with, and the pages; the rows themselves run in tests/e2e/test_bench.py's smoke run."""

from __future__ import annotations

import hashlib
import json
import time
import urllib.request
from typing import Any

import pytest
from bench import hand_pages as hp
from bench import hands_report, peer_hands, tasks
from bench import peer_report as pr
from bench.pages import serve

FILL_TARGET = "tabpilot `browser_fill_form` of 10 fields p50 ≤ 1/3 of the faster peer's"
WAIT_TARGET = "tabpilot `browser_wait_for` text, appearing to answer, p50 < the faster peer's"


def _peer(system: str, p50: float, **more: Any) -> dict[str, Any]:
    return {"system": system, "p50": p50, **more}


GONE = {"system": pr.DEVTOOLS, "available": False, "reason": "not installed"}


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (
            [
                _peer(pr.TABPILOT, 20.0, values_ok=True),
                _peer(pr.PLAYWRIGHT, 900.0),
                _peer(pr.DEVTOOLS, 300.0),
            ],
            (FILL_TARGET, "20.0 ms vs chrome-devtools-mcp 300.0 ms (0.07x)", True),
        ),
        (
            [_peer(pr.TABPILOT, 150.0, values_ok=True), _peer(pr.PLAYWRIGHT, 300.0), GONE],
            (FILL_TARGET, "150.0 ms vs Playwright MCP 300.0 ms (0.50x)", False),
        ),
        (
            # Fast, but the page did not get the values: not met, and the row says which.
            [
                _peer(pr.TABPILOT, 20.0, values_ok=False, wrong={"time": ["", "09:30"]}),
                _peer(pr.PLAYWRIGHT, 900.0),
            ],
            (
                FILL_TARGET,
                "20.0 ms vs Playwright MCP 900.0 ms (0.02x); the page holds other values: "
                "{'time': ['', '09:30']}",
                False,
            ),
        ),
        (
            [
                {"system": pr.TABPILOT, "available": False, "reason": "no tool"},
                _peer(pr.DEVTOOLS, 1),
            ],
            (FILL_TARGET, "tabpilot not available: no tool", False),
        ),
        (
            [_peer(pr.TABPILOT, 20.0, values_ok=True), GONE],
            (FILL_TARGET, "Playwright MCP not available: not measured", False),
        ),
    ],
)
def test_the_form_target_is_a_third_of_the_faster_peer_with_the_values_in_the_page(
    rows: list[dict[str, Any]], expected: pr.Target
) -> None:
    assert pr.targets({"peers": {"fill_form": rows}}) == [expected]


def test_the_wait_target_compares_with_the_faster_peer() -> None:
    rows = [_peer(pr.TABPILOT, 6.5), _peer(pr.PLAYWRIGHT, 40.0), _peer(pr.DEVTOOLS, 200.0)]
    assert pr.targets({"peers": {"wait_for": rows}}) == [
        (WAIT_TARGET, "6.5 ms vs Playwright MCP 40.0 ms", True)
    ]
    rows[0]["p50"] = 41.0
    assert pr.targets({"peers": {"wait_for": rows}})[0][2] is False


def test_the_peers_tables_of_the_form_and_the_wait_say_why_a_server_is_missing() -> None:
    results = {
        "peers": {
            "fill_form": [
                _peer(pr.TABPILOT, 20.0, p99=30.0, n=200, calls=2, snapshot_chars=700,
                      snapshot_ms=9.0, answer_chars=300, values_ok=True),
                {"system": pr.PLAYWRIGHT, "available": False, "reason": "a | b"},
            ],
            "wait_for": [_peer(pr.TABPILOT, 6.0, p90=8.0, p99=9.0, n=30, round_trip_p50=160.0,
                               delay_ms=150, answer_chars=40)],
        }
    }  # fmt: skip
    text = "\n".join(pr.markdown(results))
    assert "| tabpilot | - | 20.00 | 30.00 | 200 | 2 | 700 | 9 | 300 | yes |" in text
    assert "| Playwright MCP | - | not available: a / b |" in text
    assert "| tabpilot | - | 6.00 | 8.00 | 9.00 | 30 | 160.0 | 150 | 40 |" in text
    assert f"Target: {FILL_TARGET}: Playwright MCP not available: a | b; met: **no**." in text


def _http(p50: float, **more: Any) -> list[dict[str, Any]]:
    return [{"system": "tabpilot HTTP", "p50": p50, "p90": p50, "p99": p50, "n": 10, **more}]


def test_each_http_row_is_held_to_its_limit_and_to_the_page_afterwards() -> None:
    hands = {
        "fill_form": _http(12.0, values_ok=True),
        "wait_for": _http(25.0, round_trip_p50=160.0),
        "upload": _http(300.0, sent=20, confirmed=19),
        "drag": [{"system": "tabpilot HTTP", "available": False, "reason": "no ref"}],
    }
    assert hands_report.targets({"hands": hands}) == [
        ("tabpilot `browser_fill_form`, 10 fields over HTTP p50 ≤ 30 ms", "12.0 ms", True),
        (
            "tabpilot `browser_wait_for` a text, from its appearing to the answer over HTTP "
            "p50 ≤ 20 ms",
            "25.0 ms",
            False,
        ),
        (
            "tabpilot `browser_upload` of a 5 MB file, to the page's confirmation of its size "
            "and SHA-256 over HTTP p50 ≤ 500 ms",
            "300.0 ms; the page: 19 of 20 files confirmed",
            False,
        ),
        (
            "tabpilot `browser_act` drag of a card onto another (native drag and drop) over "
            "HTTP p50 ≤ 30 ms",
            "not available: no ref",
            False,
        ),
    ]
    hands["drag"] = _http(9.0, drags=10, drops_counted=10, order_ok=True)
    assert hands_report.targets({"hands": hands})[-1][1:] == ("9.0 ms", True)
    text = "\n".join(hands_report.markdown({"hands": hands}))
    assert "| 10 drops of 10, order right |" in text and "19 of 20 files confirmed" in text


# The readers, on each server's snapshot of the same pages.

TABPILOT_FORM = """Page "Delivery details" http://127.0.0.1:4000/form.html, 12 refs
- main [ref=e12]:
  - textbox "Full name" [ref=e1]
  - textbox "Delivery date" [ref=e5]
  - group "Shipping":
    - radio "Standard shipping" [ref=e9]"""
PLAYWRIGHT_FORM = """- paragraph [ref=e17]:
  - generic [ref=e18]:
    - text: Delivery date
    - textbox "Delivery date" [ref=e19]
- group "Shipping" [ref=e32]:
  - generic [ref=e34]:
    - radio "Standard shipping" [ref=e35]
    - text: Standard shipping"""
DEVTOOLS_FORM = """uid=1_3 form
  uid=1_12 "Delivery date "
  uid=1_13 Date "Delivery date"
    uid=1_14 spinbutton "Month Month" value="0"
  uid=1_39 "Shipping"
  uid=1_40 radio "Standard shipping\""""


@pytest.mark.parametrize(
    ("text", "date", "radio"),
    [(TABPILOT_FORM, "e5", "e9"), (PLAYWRIGHT_FORM, "e19", "e35"), (DEVTOOLS_FORM, "1_13", "1_40")],
)
def test_a_control_is_found_by_its_label_not_by_the_labels_own_text(
    text: str, date: str, radio: str
) -> None:
    assert tasks.control_ref(text, "Delivery date") == date
    assert tasks.control_ref(text, "Standard shipping") == radio
    with pytest.raises(LookupError):
        tasks.control_ref(text, "Shipping")  # a group's name, not a control


def test_the_cards_order_is_read_from_a_list_one_card_a_line() -> None:
    moved = [hp.CARDS[-1], *hp.CARDS[:-1]]
    playwright = "- list [ref=e4]:\n" + "".join(f"  - listitem [ref=e{i}]: {c}\n"
                                                  for i, c in enumerate(moved))  # fmt: skip
    devtools = "".join(f'uid=3_{i} "{c}"\n' for i, c in enumerate(moved))
    status = f'uid=3_9 "Moved {hp.CARDS[-1]} before {hp.CARDS[0]}"\n'
    for text in (playwright, devtools + status):
        assert tasks.card_order(text) == ", ".join(moved)
    assert tasks.card_order(f'Dragged listitem "{hp.CARDS[-1]}" onto "{hp.CARDS[0]}"') is None


def test_the_confirmations_are_read_wherever_an_answer_shows_them() -> None:
    data = hp.file_bytes(hp.RECEIPT, hp.RECEIPT_BYTES)
    shown = hp.confirmation(hp.RECEIPT, data)
    assert shown == (
        f"Received {hp.RECEIPT}: 122,880 bytes, SHA-256 {hashlib.sha256(data).hexdigest()[:16]}"
    )
    assert tasks.upload_confirmation(f"- status [ref=e7]: {shown}\n- main") == shown
    assert tasks.upload_confirmation(f'uid=2_6 "{shown}"') == shown
    assert tasks.upload_confirmation("No receipt yet") is None
    assert tasks.opened(f"- status [ref=e9]: Opened {hp.RESULT}") == f"Opened {hp.RESULT}"
    assert tasks.opened("5 results") is None


def test_a_stringified_value_is_read_however_a_server_shows_a_string() -> None:
    value = {"a": [1, "x"]}
    as_is = json.dumps(value)  # a server that shows a string value as it is
    quoted = json.dumps(as_is)  # one that shows it as JSON
    assert tasks.from_json(as_is) == tasks.from_json(quoted) == value
    assert tasks.from_json(json.dumps("plain")) == "plain"


# The pages.


def test_the_form_has_ten_labelled_fields_and_the_two_sets_change_every_one() -> None:
    html = hp.form_html()
    assert len(hp.FIELDS) == 10
    for field in hp.FIELDS:
        for values in hp.VALUES:
            assert hp.field_label(field, values) in html
    first, second = hp.VALUES
    assert all(first[k] != second[k] for k in hp.FIELDS)


def test_no_wait_label_is_part_of_another() -> None:
    labels = [hp.wait_label(i) for i in range(1, 2000)]
    # As long as each other and all different: none can hold another.
    assert len({len(label) for label in labels}) == 1 and len(set(labels)) == len(labels)
    assert hp.wait_label(7) not in hp.wait_label(17)


def test_the_slow_request_answers_after_the_time_it_asks_for() -> None:
    with serve(hp.hand_pages(), hp.answer) as base:
        started = time.perf_counter()
        with urllib.request.urlopen(f"{base}{hp.AFTER}?ms=200", timeout=10) as answer:
            assert answer.status == 200
        assert time.perf_counter() - started >= 0.2
        for path in (hp.FORM, hp.WAIT, hp.UPLOAD, hp.BOARD, hp.SEARCH):
            with urllib.request.urlopen(base + path, timeout=10) as page:
                assert page.status == 200


def test_a_wait_made_too_late_is_made_again_with_a_longer_delay() -> None:
    """The wait row's own logic, on a page clock: a text that appeared before the wait was sent
    (a server whose arming call returned late) is no figure; the delay doubles."""
    state = peer_hands.wait_state()
    arm_lag_ms = 400.0  # the arming call returns this long after it armed the page
    page: dict[str, Any] = {}

    def arm(label: str, ms: int) -> None:
        page["at"] = time.time() * 1000 + ms
        # Under the lag, the text appears while the call has not returned yet.
        time.sleep((ms + 1 if ms < arm_lag_ms else arm_lag_ms) / 1000)

    def wait(label: str) -> str:
        remaining = page["at"] - time.time() * 1000
        time.sleep(max(0.0, remaining) / 1000 + 0.003)
        return f"text {label!r} appeared"

    def shown() -> list[float]:
        return [page["at"], page["at"]]

    figure = peer_hands.wait_once(state, arm, wait, shown)
    assert state["delay"] == 4 * hp.WAIT_DELAY_MS  # 150 and 300 < 400
    assert state["n"] == 3 and 0 <= figure < 50
    assert peer_hands.wait_figures(state)["delay_ms"] == 600
