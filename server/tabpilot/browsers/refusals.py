"""Refusals the daemon answers itself, told to the extension so that the person sees them.

With the AI Web Pilot off the daemon refuses a command at once, without sending it (bridge.py), so
the extension would never hear of it; yet the popup's Recent activity lists every command, refusals
included. A flood of refusals must not become a flood of frames or of stored entries: they are
counted per code for ``REPORT_DELAY_S`` and sent as one ``refused`` frame per code, which the
worker folds into one entry with a count (extension/worker/link/activity.js).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable

from tabpilot.protocol import RefusedFrame

#: How long refusals are gathered before they are sent: long enough that a flood costs a few frames
#: a second, short enough that the popup shows a refusal while the person looks.
REPORT_DELAY_S = 0.2
#: Commands the popup does not list (a ping runs and reads nothing), so not reported either.
UNLISTED = frozenset({"ping"})


class Refusals:
    """The refusals of one extension link not yet told to its extension."""

    def __init__(
        self, send: Callable[[RefusedFrame], Awaitable[None]], delay_s: float = REPORT_DELAY_S
    ) -> None:
        self._send = send
        self._delay_s = delay_s
        self._counts: dict[str, Counter[str]] = {}
        self._task: asyncio.Task[None] | None = None

    def note(self, command: str, code: str) -> None:
        """Count one refusal of ``command`` with ``code``; it is sent within ``delay_s``."""
        if command in UNLISTED:
            return
        self._counts.setdefault(code, Counter())[command] += 1
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._report())

    async def _report(self) -> None:
        await asyncio.sleep(self._delay_s)
        # Refusals noted while these are sent start the next round.
        counts, self._counts, self._task = self._counts, {}, None
        for code, commands in counts.items():
            frame = RefusedFrame(code=code, count=sum(commands.values()), commands=dict(commands))
            await self._send(frame)

    def close(self) -> None:
        """Drop what was not sent: the link is gone, and with it the popup's list. Safe twice."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self._counts.clear()
