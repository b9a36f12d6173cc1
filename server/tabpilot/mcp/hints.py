"""Hints in execute_javascript's MCP answers: one line each, toward the tool made for the job.

A script can do what every other tool does, so agents reach for it first and pay for it: a page's
whole text, selectors guessed instead of refs, the same long script sent again and again. The
answer itself says so, with no new parameter to fill (README, "Hints"):

- the first use: the first execute_javascript answer of a session names the specialized tools in
  one line, with a real call (:data:`FIRST_USE`);
- a redo: a script that does what a tool does (:data:`REDOS`) gets a line naming that tool, once
  per tool per session;
- a repeat: a script of at least :data:`MIN_REPEAT_CHARS` characters similar to two of the
  session's last :data:`RECENT_SCRIPTS` such scripts gets :data:`REPEAT`, once per family of
  similar scripts (:func:`similarity`).

Each hint is a line of the answer's text, after the result: a model reads it there, once (the
structured content carries none). Only MCP answers carry them: programs (HTTP, ``/ws/calls``, the
client, the CLI) never do. Hints follow a success only; a failure neither gets one nor counts.

A session is what the hints remember (:func:`session_key`): the ``tabpilot mcp`` process over
stdio; the ``Mcp-Session-Id`` of an HTTP client that opened one with ``initialize``; and for a
request of the 2026-07-28 revision over HTTP, which has no session, the client program it names
in its ``clientInfo`` (or, naming none, every such request together). Two agents of one program
that talk to the same daemon without sessions so share what they were told: the second may miss a
tip the first got, and neither gets one on every call. At most :data:`MAX_SESSIONS` are kept, the
least recently used forgotten first. What needs only the script is worked out while the browser
runs it (:class:`Pending`).
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent

from tabpilot.mcp.redo import redo_hints

__all__ = ["FIRST_USE", "Nudges", "Pending", "similarity", "sketch"]

#: Every hint starts so: a model tells it from the result above it.
PREFIX = "Tip: "
#: The tool that gets hints.
SCRIPT_TOOL = "execute_javascript"

FIRST_USE = (
    'Tip: browser_snapshot {} gives refs, browser_act {"kind": "click", "ref": "e12"} acts; '
    "browser_read {}, browser_console_messages {}, browser_network_requests {} read."
)

#: The tools FIRST_USE names.
FIRST_USE_TOOLS = frozenset(re.findall(r"\b(browser_[a-z_]+) \{", FIRST_USE))

REPEAT = "Tip: similar script \u00d7{n}: define it once with eval_define_function."

#: Scripts remembered per session for the repeat hint, the newest last.
RECENT_SCRIPTS = 20
#: How many similar runs (this one included) bring the repeat hint.
REPEATS_FOR_HINT = 3
#: Shorter scripts never get it, nor are remembered: a call to a defined function would be about
#: as long.
MIN_REPEAT_CHARS = 60
#: Scripts are compared on their first this many characters, which keeps a comparison cheap
#: whatever the script's size.
COMPARED_CHARS = 300
#: Similar: the Jaccard index of the two scripts' shingles is above this.
SIMILAR = 0.8
#: Sessions remembered, the least recently used forgotten first: as many as /mcp keeps open
#: (mcp_http.MCP_MAX_SESSIONS).
MAX_SESSIONS = 64

# String literals and numbers become `0`: scripts that differ only in them are one script with
# other arguments. A string ends at its line's end, so that an apostrophe in a comment cannot
# swallow the script. Each alternative starts with a literal character, which lets the regex
# engine skip to the next quote or digit.
_LITERALS = re.compile(
    r"""'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\d+(?:\.\d+)?"""
)
# A name or keyword, or one character of punctuation: whitespace and layout do not count.
_TOKENS = re.compile(r"[\w$]+|\S")
#: A shingle is this many tokens in a row.
_SHINGLE = 3
#: A sketch is a bitmap of the shingles' hashes in this many bits (512 bytes a script): two
#: compare in a microsecond or two, with bit operations done in C.
_SLOTS = 4096


def tokens(script: str) -> list[str]:
    """What is compared: the tokens of the script's first COMPARED_CHARS characters, its string
    literals and numbers each `0`."""
    return _TOKENS.findall(_LITERALS.sub("0", script[:COMPARED_CHARS]))


def shingles(script: str) -> set[tuple[str, ...]]:
    """The script's shingles: every 3 tokens in a row (all of them, for fewer)."""
    words = tokens(script)
    return set(zip(*(words[i:] for i in range(_SHINGLE)), strict=False)) or {tuple(words)}


def sketch(script: str) -> int:
    """The script's :func:`shingles`, as a bitmap of their hashes.

    Two sketches' :func:`similarity` is the Jaccard index of the two sets, but for shingles that
    share a bit (about one pair in a hundred shingles). Python's string hash varies between
    processes, never within one: sketches are compared only with those of the same process.
    """
    slots = bytearray(_SLOTS // 8)
    for hashed in map(hash, shingles(script)):
        slot = hashed % _SLOTS
        slots[slot >> 3] |= 1 << (slot & 7)
    return int.from_bytes(slots, "little")


def similarity(a: int, b: int) -> float:
    """The Jaccard index of two sketches: shared shingles over all of them, 0 to 1."""
    union = (a | b).bit_count()
    return (a & b).bit_count() / union if union else 1.0


@dataclass(frozen=True)
class _Script:
    """What the hints need of a script, worked out from it alone."""

    redos: list[tuple[str, str]]
    #: None: too short to be remembered.
    sketch: int | None

    @classmethod
    def of(cls, script: str) -> _Script:
        long = len(" ".join(script[: MIN_REPEAT_CHARS * 3].split())) >= MIN_REPEAT_CHARS
        return cls(redo_hints(script), sketch(script) if long else None)


@dataclass
class _Seen:
    sketch: int
    family: int


@dataclass
class _Session:
    """What a session has been told, and its last scripts."""

    tipped: bool = False
    redone: set[str] = field(default_factory=set)
    recent: deque[_Seen] = field(default_factory=lambda: deque(maxlen=RECENT_SCRIPTS))
    hinted: set[int] = field(default_factory=set)
    families: int = 0

    def hints(self, script: _Script) -> list[str]:
        hints: list[str] = []
        named: frozenset[str] = frozenset()
        if not self.tipped:
            self.tipped = True
            hints.append(FIRST_USE)
            named = FIRST_USE_TOOLS  # not named twice in one answer; a later redo still may
        for tool, hint in script.redos:
            if tool not in self.redone and tool not in named:
                self.redone.add(tool)
                hints.append(hint)
        if script.sketch is not None and (repeat := self._repeat(script.sketch)):
            hints.append(repeat)
        return hints

    def _repeat(self, mine: int) -> str | None:
        best, family, similar = SIMILAR, -1, 1
        for seen in self.recent:
            score = similarity(mine, seen.sketch)
            if score > SIMILAR:
                similar += 1
                if score >= best:  # the newest of the most similar
                    best, family = score, seen.family
        if family < 0:
            family = self.families
            self.families += 1
        self.recent.append(_Seen(mine, family))
        # A family is hinted once while it is in the recent scripts; one that left may come back.
        self.hinted &= {seen.family for seen in self.recent}
        if similar < REPEATS_FOR_HINT or family in self.hinted:
            return None
        self.hinted.add(family)
        return REPEAT.format(n=similar)


#: The session key of a stdio server: its process is one session.
STDIO = "stdio"
#: The key of HTTP requests without a session, followed by the client program's name, if given.
STATELESS = "stateless:"


def session_key(ctx: Context[Any, Any]) -> str | None:
    """The session a request belongs to, from the SDK's request context; None: outside of one.

    The SDK builds a new ServerSession for each request, so it cannot be the key. Over stdio there
    is no HTTP request and the process is the session; over HTTP the SDK has checked the
    ``Mcp-Session-Id`` against the sessions it keeps before calling the tool. A request without
    a session (the 2026-07-28 revision) is keyed by the client program it names (module doc).
    """
    try:
        request = ctx.request_context.request
    except ValueError:  # outside of a request
        return None
    if request is None:
        return STDIO
    headers = getattr(request, "headers", None)
    session = headers.get("mcp-session-id") if headers is not None else None
    if session:
        return f"session:{session}"
    params = getattr(getattr(ctx, "session", None), "client_params", None)
    info = getattr(params, "client_info", None)
    return STATELESS + str(getattr(info, "name", "") or "")[:100]


class Nudges:
    """The hints of one MCP server's sessions, the last :data:`MAX_SESSIONS` of them."""

    def __init__(self, max_sessions: int = MAX_SESSIONS) -> None:
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._max_sessions = max_sessions

    def prepare(self, ctx: Context[Any, Any], tool: str, params: Any) -> Pending | None:
        """A call's hints to come, None if it can get none: another tool, or no session."""
        if tool != SCRIPT_TOOL:
            return None
        key = session_key(ctx)
        return None if key is None else Pending(self, key, params.script)

    def hints(self, key: str, script: str | _Script) -> list[str]:
        """The hints for a successful run of ``script`` in session ``key``, noted as given."""
        session = self._sessions.pop(key, None) or _Session()
        self._sessions[key] = session
        while len(self._sessions) > self._max_sessions:
            self._sessions.popitem(last=False)
        return session.hints(_Script.of(script) if isinstance(script, str) else script)


class Pending:
    """The hints of one call. What the script alone tells (its sketch, the tools it redoes) is
    worked out while the browser runs it: the event loop is idle then, so a long script's
    hundreds of microseconds of work are not added to the answer's time."""

    def __init__(self, nudges: Nudges, key: str, script: str) -> None:
        self._nudges, self._key, self._source = nudges, key, script
        self._script: _Script | None = None
        try:
            self._soon: asyncio.Handle | None = asyncio.get_running_loop().call_soon(self._work)
        except RuntimeError:  # no loop: at answer time
            self._soon = None

    def _work(self) -> _Script:
        if self._script is None:
            self._script = _Script.of(self._source)
        return self._script

    def answer(self, result: CallToolResult) -> CallToolResult:
        """``result`` with its hints, each a line after the text. A failure is left as it is, and
        does not count."""
        if self._soon is not None:
            self._soon.cancel()
        text = result.content[0] if result.content else None
        if result.is_error or not isinstance(text, TextContent):
            return result
        hints = self._nudges.hints(self._key, self._work())
        if not hints:
            return result
        lines = TextContent(type="text", text="\n".join((text.text, *hints)))
        return result.model_copy(update={"content": [lines, *result.content[1:]]})
