"""The guard's store (tabpilot/guard_store.py): whole answers kept under one-time tokens, within
their bounds of time and memory, and the error each spent, old, unknown or other tool's token
raises."""

from __future__ import annotations

import pytest

from tabpilot.errors import (
    ConfirmTokenExpired,
    ConfirmTokenMismatch,
    ConfirmTokenUnknown,
    ConfirmTokenUsed,
)
from tabpilot.guard.store import PAGE_CHARS, PART, Guarded, Store
from tabpilot.protocol import ResultFrame

ANSWER = ResultFrame(id="r", ok=True, result="x", result_type="string")
#: The caller the answers are kept for, and another one.
ME, OTHER = ("calls", 1), ("calls", 2)


def test_the_store_keeps_within_its_bounds() -> None:
    store = Store(keep_bytes=1_000)
    first = store.keep(ME, "execute_javascript", ANSWER, "a" * 300)
    second = store.keep(ME, "execute_javascript", ANSWER, "b" * 300)  # 1,200 bytes: the first goes
    assert first and second
    assert store.keep(ME, "execute_javascript", ANSWER, "c" * 600) is None  # larger than it all
    with pytest.raises(ConfirmTokenExpired):
        store.take(ME, "execute_javascript", first, "r2")
    assert store.take(ME, "execute_javascript", second, "r3").result == "x"


def test_a_token_answers_once_for_its_own_tool_within_its_time() -> None:
    store = Store()
    token = store.keep(ME, "execute_javascript", ANSWER, "a" * 10)
    assert token and token.startswith("ct_")
    with pytest.raises(ConfirmTokenMismatch, match="belongs to execute_javascript"):
        store.take(ME, "browser_read", token, "r1")
    whole = store.take(ME, "execute_javascript", token, "r2")  # a mismatch leaves it good
    assert (whole.id, whole.result, whole.result_type) == ("r2", "x", "string")
    with pytest.raises(ConfirmTokenUsed):
        store.take(ME, "execute_javascript", token, "r3")
    with pytest.raises(ConfirmTokenUnknown):
        store.take(ME, "execute_javascript", "ct_never", "r4")
    old = Store(keep_s=0.0).keep(ME, "execute_javascript", ANSWER, "a")
    assert old
    with pytest.raises(ConfirmTokenUnknown):  # each store knows its own tokens only
        store.take(ME, "execute_javascript", old, "r5")


def test_an_expired_token_says_so() -> None:
    store = Store(keep_s=0.0)
    token = store.keep(ME, "execute_javascript", ANSWER, "a")
    assert token
    with pytest.raises(ConfirmTokenExpired):
        store.take(ME, "execute_javascript", token, "r1")


def test_a_long_text_comes_in_parts_each_with_the_next_token() -> None:
    store = Store()
    text = "".join(f"{i:09d}\n" for i in range(12_000))  # 120,000 characters: three parts
    token = store.keep(ME, "browser_read", ANSWER, text)
    parts: list[str] = []
    while token:
        part = store.take(ME, "browser_read", token, "r")
        assert isinstance(part, Guarded)
        fields = part.guard
        assert part.result_type == PART and len(part.result) <= PAGE_CHARS
        parts.append(part.result)
        assert (
            fields["shown_length"] == len("".join(parts)) == min(len(parts) * PAGE_CHARS, 120_000)
        )
        assert fields["total_length"] == len(text)
        assert fields["truncated"] is (len(parts) < 3)
        token = fields.get("confirm_token")
    assert "".join(parts) == text and len(parts) == 3


def test_a_token_answers_only_its_own_caller_and_tells_no_other_it_exists() -> None:
    store = Store()
    text = "".join(f"{i:09d}\n" for i in range(6_000))  # 60,000 characters: two parts
    token = store.keep(ME, "browser_read", ANSWER, text)
    assert token
    never = ConfirmTokenUnknown().message
    for caller in (OTHER, ("http", None), ("mcp", "session:x"), None):
        with pytest.raises(ConfirmTokenUnknown) as refused:
            store.take(caller, "browser_read", token, "r1")
        assert refused.value.message == never  # the words of a token never given out
        assert "another caller" in never and "token of your own" in never
    with pytest.raises(ConfirmTokenUnknown):  # not even which tool it belongs to
        store.take(OTHER, "execute_javascript", token, "r2")
    first = store.take(ME, "browser_read", token, "r3")  # the refusals lost nothing
    assert isinstance(first, Guarded) and first.result == text[:PAGE_CHARS]
    # The next part's token is the same caller's.
    after = first.guard["confirm_token"]
    with pytest.raises(ConfirmTokenUnknown):
        store.take(OTHER, "browser_read", after, "r4")
    assert store.take(ME, "browser_read", after, "r5").result == text[PAGE_CHARS:]
    # Spent or expired, another caller's token still says nothing of it; its own caller is told.
    with pytest.raises(ConfirmTokenUnknown):
        store.take(OTHER, "browser_read", token, "r6")
    with pytest.raises(ConfirmTokenUsed):
        store.take(ME, "browser_read", token, "r7")
    old = Store(keep_s=0.0)
    gone = old.keep(ME, "browser_read", ANSWER, "a")
    assert gone
    with pytest.raises(ConfirmTokenUnknown):
        old.take(OTHER, "browser_read", gone, "r8")
    with pytest.raises(ConfirmTokenExpired):
        old.take(ME, "browser_read", gone, "r9")
