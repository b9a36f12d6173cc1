"""Strings that UTF-8 can carry, whatever JavaScript put in them.

A JavaScript string is UTF-16 and may hold a lone surrogate (``"\\ud800"``: half of a pair, as
``s.slice(0, 1)`` of an emoji leaves). JSON can spell it as an escape, and Python reads it into a
``str`` that UTF-8 cannot encode. The daemon's rule (docs/protocol.md, "Safe serialization"): every
answer is valid UTF-8 JSON, with each lone surrogate turned into U+FFFD (the replacement
character); a valid pair is kept as the character it spells.

The extension's lone surrogates are repaired as its frames are read (protocol.py), so no result,
title or error message holds one past that point; a caller's (in a script or a call id) is
refused as invalid_request, since pydantic's strings cannot hold one. The repair only runs when a
parser has refused the text or encoding has failed, so a result without one, the common case,
costs nothing more.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def well_formed(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD; a surrogate pair becomes its
    character."""
    # UTF-16 can write any surrogate (surrogatepass); reading it back pairs what pairs and
    # replaces the rest, in C.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def utf8(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates as U+FFFD."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return well_formed(text).encode()


def loads_lone_surrogates(text: str | bytes) -> Any:
    """JSON ``text`` that a strict parser (pydantic's) refused, read by Python's json module, which
    takes lone-surrogate escapes as they are; raises ValueError when it has none, or is not
    JSON."""
    if isinstance(text, bytes):
        text = text.decode()  # a UnicodeDecodeError is a ValueError
    if _SURROGATE_ESCAPE.search(text) is None:
        raise ValueError("no lone-surrogate escape")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def repair_json(text: str | bytes) -> str | None:
    """JSON ``text`` that a strict parser refused, rewritten with its lone-surrogate escapes as
    U+FFFD; None when that is not what was wrong with it."""
    try:
        value = loads_lone_surrogates(text)
    except ValueError:
        return None
    return well_formed(json.dumps(value, ensure_ascii=False))
