"""The guard's previews (tabpilot/guard_preview.py): a bulky value summed up in one line, as a
model reads it past a tool's limit."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.guard.preview import brief, element_line, summary

BUTTON = "[BUTTON#buy.btn.primary @ (120,340) 88x32]"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([1, 2], "Array(2) [1, 2]"),
        ([{"id": 1, "name": "a"}] * 5, "Array(5) [{id, name}, {id, name}, {id, name}, …]"),
        ([[1, 2], "é" * 70, None, 4], 'Array(4) [Array(2), "' + "é" * 60 + '…", null, …]'),
        ([{"i": 0}] * 100 + ["... 312 more items"], "Array(412) [{i}, {i}, {i}, …]"),
        ([BUTTON], "Array(1) [<button id=#buy class=.btn.primary> @ (120,340) 88x32]"),
        ({"a": 1, "b": [2]}, "Object(2) {a, b}"),
        ("a long string stays a string", "a long string stays a string"),
        (42, 42),
        (None, None),
    ],
)
def test_a_bulky_value_is_summed_up_in_one_line(value: Any, expected: Any) -> None:
    assert summary(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({f"k{i}": i for i in range(8)}, "{k0, k1, k2, k3, k4, k5, …}"),
        ({"a": 1}, "{a}"),
        ("short", '"short"'),
        (True, "true"),
    ],
)
def test_an_item_of_an_array_is_brief(value: Any, expected: str) -> None:
    assert brief(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (BUTTON, "<button id=#buy class=.btn.primary> @ (120,340) 88x32"),
        ("[DIV]", "<div>"),
        ("[svg:path.icon @ (-4,0) 0x0]", "<svg:path class=.icon> @ (-4,0) 0x0"),
        ("[not an element", None),
        ("BUTTON#buy", None),
    ],
)
def test_an_element_is_one_line(value: str, expected: str | None) -> None:
    assert element_line(value) == expected
