"""The guard's store: whole answers kept under one-time tokens, and the parts a token answers.

A cut answer (:mod:`tabpilot.guard.preview`) is kept whole under a ``confirm_token``
(:class:`Store`: :data:`KEEP_S` seconds, at most :data:`KEEP_BYTES` in all, oldest out first). The
same tool called with the token alone answers it, without running anything again: whole up to
:data:`PAGE_CHARS` characters of text, else the next part of its text (:data:`PART`) with a token
for the one after. A token answers once; a spent, old, unknown or other tool's token raises
confirm_token_used, confirm_token_expired, confirm_token_unknown or confirm_token_mismatch.

A token answers only the caller it was given to (its :data:`Caller`: an MCP session, a
``/ws/calls`` socket, HTTP requests naming one context; tabpilot.browsers.contexts.Scope says
which). Another caller's token raises confirm_token_unknown, as one never given out does, used,
expired or not, so that nobody learns it exists; it stays good for its own caller.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from tabpilot.errors import (
    ConfirmTokenExpired,
    ConfirmTokenMismatch,
    ConfirmTokenUnknown,
    ConfirmTokenUsed,
)
from tabpilot.protocol import ResultFrame

#: What one confirm_token answers at most: the whole, or a part of this many characters.
PAGE_CHARS = 50_000
#: How long the daemon keeps a cut answer, and how much it keeps in all: each kept answer counts
#: two bytes a character of its text (the text, and the value it was written from).
KEEP_S = 600.0
KEEP_BYTES = 32 * 1024 * 1024
#: The result_type of a part of a whole answer's text (its result is that text).
PART = "text_part"
#: Who a kept answer belongs to: any value that is equal only for the same caller.
Caller = Hashable


class Guarded(ResultFrame):
    """A previewed answer: ``guard`` holds the fields the envelope adds."""

    guard: dict[str, Any] = Field(default_factory=dict)


@dataclass
class Kept:
    """A whole answer kept under a token: its caller, its frame, its text, and where the next
    part starts."""

    caller: Caller
    tool: str
    answer: ResultFrame
    text: str
    start: int
    until: float

    @property
    def size(self) -> int:
        return 2 * len(self.text)


class Store:
    """Whole answers by one-time token, for :data:`KEEP_S` seconds and :data:`KEEP_BYTES` in all."""

    def __init__(self, keep_s: float = KEEP_S, keep_bytes: int = KEEP_BYTES) -> None:
        self.keep_s = keep_s
        self.keep_bytes = keep_bytes
        self._kept: OrderedDict[str, Kept] = OrderedDict()
        self._size = 0
        # Tokens that were good once, whose they were, and why they are no more: "used" or
        # "expired". Bounded.
        self._gone: OrderedDict[str, tuple[Caller, str]] = OrderedDict()

    def keep(
        self, caller: Caller, tool: str, answer: ResultFrame, text: str, start: int = 0
    ) -> str | None:
        """Keep ``answer`` (its text ``text``) for ``caller``; its token, or None when it is too
        large to keep."""
        kept = Kept(caller, tool, answer, text, start, time.monotonic() + self.keep_s)
        if kept.size > self.keep_bytes:
            return None
        self._sweep()
        while self._kept and self._size + kept.size > self.keep_bytes:
            self._drop(next(iter(self._kept)), "expired")  # the oldest first
        token = "ct_" + secrets.token_urlsafe(12)
        self._kept[token] = kept
        self._size += kept.size
        return token

    def take(self, caller: Caller, tool: str, token: str, request_id: str) -> ResultFrame:
        """The answer kept under ``token`` for ``caller`` and ``tool``: whole, or its next part;
        raises."""
        self._sweep()
        kept = self._kept.get(token)
        if kept is not None and kept.until <= time.monotonic():
            self._drop(token, "expired")
            kept = None
        if kept is None:
            owner, gone = self._gone.get(token, (None, None))
            if gone is None or owner != caller:
                raise ConfirmTokenUnknown()
            raise ConfirmTokenUsed() if gone == "used" else ConfirmTokenExpired()
        if kept.caller != caller:
            raise ConfirmTokenUnknown()  # the same words as a token never given out
        if kept.tool != tool:
            raise ConfirmTokenMismatch(
                f"That confirm_token belongs to {kept.tool}: call {kept.tool} with it (the token "
                "is still good)."
            )
        self._drop(token, "used")
        end = kept.start + PAGE_CHARS
        if kept.start == 0 and len(kept.text) <= PAGE_CHARS:
            return kept.answer.model_copy(update={"id": request_id})
        part = kept.text[kept.start : end]
        fields: dict[str, Any] = {
            "truncated": end < len(kept.text),
            "total_length": len(kept.text),
            "shown_length": min(end, len(kept.text)),
        }
        if end < len(kept.text):
            fields["confirm_token"] = self.keep(caller, tool, kept.answer, kept.text, end)
            fields["advice"] = (
                f"Characters {kept.start:,} to {end:,} of {len(kept.text):,}; call {tool} with "
                "the new confirm_token for the next part."
            )
        return guarded(kept.answer, fields, id=request_id, result=part, result_type=PART)

    def _drop(self, token: str, why: str) -> None:
        kept = self._kept.pop(token)
        self._size -= kept.size
        self._gone[token] = (kept.caller, why)
        while len(self._gone) > GONE_TOKENS:
            self._gone.popitem(last=False)

    def _sweep(self) -> None:
        now = time.monotonic()
        while self._kept:
            token, kept = next(iter(self._kept.items()))
            if kept.until > now:
                return
            self._drop(token, "expired")


#: How many spent tokens the store remembers, to say "used" or "expired" rather than "unknown".
GONE_TOKENS = 4096


def guarded(answer: ResultFrame, fields: dict[str, Any], **changes: Any) -> Guarded:
    """``answer`` with ``changes`` and the guard's ``fields``; nothing copied or checked again
    (a large result would cost tens of milliseconds)."""
    frame = {name: getattr(answer, name) for name in type(answer).model_fields}
    return Guarded.model_construct(**{**frame, **changes, "guard": fields})


#: The daemon's one store.
STORE = Store()


__all__ = [
    "KEEP_BYTES",
    "KEEP_S",
    "PAGE_CHARS",
    "PART",
    "STORE",
    "Caller",
    "Guarded",
    "Store",
    "guarded",
]
