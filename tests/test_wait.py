"""browser_wait_for's params (tabpilot.tools.wait): exactly one condition, refused before anything
reaches the browser with a message that names the valid choices; and its answer's text."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.errors import InvalidRequest
from tabpilot.tools.wait import WAIT_FOR, WaitParams, glob_error, wait_text


@pytest.mark.parametrize(
    ("params", "condition"),
    [
        ({"text": "Saved"}, "text"),
        ({"text_gone": "Loading"}, "text_gone"),
        ({"ref": "e3", "state": "enabled"}, "ref"),
        ({"selector": ".toast"}, "selector"),
        ({"url": "**/done{,.html}"}, "url"),
        ({"network_idle": True}, "network_idle"),
        ({"dom_stable": 500.0}, "dom_stable"),
        ({"time": 0}, "time"),
        ({"network_idle": False, "text": "x"}, "text"),
    ],
)
def test_one_condition_is_taken(params: dict[str, Any], condition: str) -> None:
    assert WaitParams.parse(params).condition == condition


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({}, "give one condition: text, text_gone, ref, selector, url, network_idle, dom_stable"),
        ({"network_idle": False}, "give one condition"),
        ({"text": "a", "selector": "b"}, "one condition per call, not text and selector"),
        (
            {"ref": "e1", "state": "shown"},
            "'visible', 'hidden', 'enabled', 'attached' or 'detached'",
        ),
        ({"state": "hidden"}, "`state` goes with `ref` or `selector`"),
        (
            {"text": "a", "state": "hidden"},
            "`state` (visible, hidden, enabled, attached, detached)",
        ),
        ({"time": -1}, "`time`: Input should be greater than or equal to 0"),
        ({"time": 30_001}, "`time`: Input should be less than or equal to 30000"),
        ({"time": 1.5}, "not a whole number"),
        ({"dom_stable": 10}, "`dom_stable`: Input should be greater than or equal to 50"),
        ({"dom_stable": 5000, "timeout_ms": 5000}, "must be less than `timeout_ms`"),
        ({"text": ""}, "`text`: String should have at least 1 character"),
        ({"url": "**/{a"}, "a `{` is not closed"),
        ({"url": "**/a}"}, "a `}` closes no `{`"),
        ({"url": "{a,{b}}"}, "braces do not nest"),
        ({"visible": "e1"}, "`visible` is not a field (the fields are text, text_gone, ref"),
        ({"text": "a", "timeout_ms": 120_001}, "`timeout_ms`"),
    ],
)
def test_bad_conditions_are_refused_naming_the_choices(params: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        WaitParams.parse(params)
    assert says in refused.value.message


def test_a_glob_is_checked_as_the_extension_reads_it() -> None:
    assert [glob_error(g) for g in ("**/a", "*/{a,b}", "https://a.test/?q=1")] == [None] * 3


def test_the_daemon_waits_past_the_extensions_own_timeout() -> None:
    # The extension answers wait_timeout at timeout_ms, after asking the page what is still
    # false; the daemon must still be listening then, never answering a generic timeout first.
    assert WAIT_FOR.timeout(WaitParams.parse({"text": "a", "timeout_ms": 5000})) >= 6.0
    assert WAIT_FOR.timeout(WaitParams.parse({"time": 20_000, "timeout_ms": 1000})) >= 21.0


@pytest.mark.parametrize(
    ("result", "text"),
    [
        (
            {"condition": "text", "description": 'text "Saved" appeared', "elapsed_ms": 412},
            'text "Saved" appeared after 412 ms',
        ),
        (
            {
                "condition": "text",
                "description": 'text "Hi" is on the page',
                "elapsed_ms": 3,
                "already": True,
            },
            'text "Hi" is on the page (3 ms)',
        ),
        ({"condition": "time", "description": "waited 250 ms", "elapsed_ms": 251}, "Waited 251 ms"),
        (
            {
                "condition": "url",
                "description": 'url became http://a/done (matches "**/done")',
                "elapsed_ms": 80,
                "navigated": True,
                "url": "http://a/done",
            },
            'url became http://a/done (matches "**/done") after 80 ms; the page navigated to '
            "http://a/done",
        ),
    ],
)
def test_the_answer_says_what_held_and_when(result: dict[str, Any], text: str) -> None:
    assert wait_text({"success": True, "result": result}) == text
