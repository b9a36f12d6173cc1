"""The page tools' text for a model (tools/page.py): what browser_read says of where its slice
sits in the whole."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.tools.page import read_text


def envelope(**read: Any) -> dict[str, Any]:
    return {"success": True, "result": read}


@pytest.mark.parametrize("offset", [74, 75, 1_000_000_000_000_000])
def test_an_offset_past_the_end_says_so_and_where_the_end_is(offset: int) -> None:
    text = read_text(envelope(text="", offset=offset, total=74, more=False))
    assert text == (
        f"[nothing at offset {offset}: past the end, the text is 74 chars; "
        "browser_read offset=0 reads its last part]"
    )


def test_a_long_text_points_past_the_end_to_its_last_part() -> None:
    text = read_text(envelope(text="", offset=50_000, total=30_000, more=False))
    assert text.endswith("the text is 30000 chars; browser_read offset=29000 reads its last part]")


@pytest.mark.parametrize(
    ("read", "expected"),
    [
        ({"text": "abc", "offset": 0, "total": 3, "more": False}, "abc"),
        ({"text": "", "offset": 0, "total": 0, "more": False}, ""),
        (
            {"text": "ab", "offset": 0, "total": 3, "more": True},
            "ab\n[chars 0-2 of 3; more: browser_read offset=2]",
        ),
        ({"text": "c", "offset": 2, "total": 3, "more": False}, "c\n[chars 2-3 of 3]"),
    ],
)
def test_a_slice_within_the_text_says_where_it_sits(read: dict[str, Any], expected: str) -> None:
    assert read_text(envelope(**read)) == expected
