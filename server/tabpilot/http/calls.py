"""The callers' socket, ``/ws/calls``: many calls over one WebSocket (docs/protocol.md §6).

A program that makes many calls (``tabpilot mcp`` does, for every tool call of an agent) keeps one
socket open instead of making an HTTP request each time: a frame each way costs the daemon and
the caller about a quarter of a millisecond less CPU than a request through the HTTP stack (make
bench). Each call names the HTTP route that does the same and carries that route's body; each
answer carries the very envelope the route would have answered.

Nothing is lost and nothing hangs: every call gets exactly one answer, in the order the calls
finish; a frame that is not a valid call is answered with ``invalid_request`` (its id when one can
be read, else null) and the socket stays open. When the caller leaves, its calls in flight are
cancelled; a script already sent may still run, as with an HTTP caller that hangs up.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable
from typing import Any, Literal

from pydantic import ValidationError
from starlette.websockets import WebSocket

from tabpilot import guard
from tabpilot.browsers.contexts import Contexts, Scope
from tabpilot.browsers.run import run
from tabpilot.config import Settings
from tabpilot.envelope import envelope_of, failure_body, success_body
from tabpilot.errors import InvalidRequest, TabpilotError
from tabpilot.http.frame_gate import OVERSIZED
from tabpilot.http.limits import body_too_large
from tabpilot.ids import new_request_id
from tabpilot.protocol import CALL_ID, MAX_CALL_ID_CHARS, CallFrame, ResultFrame, loads, payload
from tabpilot.tools import TOOLS
from tabpilot.tools.fields import PingParams, invalid_reasons

log = logging.getLogger(__name__)

#: What a call may ask for: a tool, or the name of another route without its slash.
METHODS = (*TOOLS, "tabs", "status", "ping")


class Call(CallFrame):
    """A call frame whose method is one the daemon answers."""

    method: Literal[METHODS]  # type: ignore[valid-type]


#: Shown in the error answer to a frame that is not a call.
CALL_EXAMPLE = (
    '{"type": "call", "id": 1, "method": "execute_javascript", "params": {"script": "2 + 2"}}'
)


#: Numbers each socket, for its caller identity: never reused while the daemon runs.
_SOCKETS = itertools.count(1)


class CallsSocket:
    """One caller's socket: reads its calls, runs each in its own task, writes each answer."""

    def __init__(
        self,
        ws: WebSocket,
        contexts: Contexts,
        status: Callable[[Scope], dict[str, Any]],
        settings: Settings,
    ) -> None:
        self._ws = ws
        # The socket's active context: browser_context_switch on it moves this caller only. The
        # socket is the caller: what is kept for it (the guard's answers) answers it alone.
        self._scope = Scope(contexts, caller=("calls", next(_SOCKETS)))
        self._status = status
        self._settings = settings
        self._in_flight: dict[str | int, asyncio.Task[None]] = {}
        # Calls read and not yet answered. A caller that sends calls and never reads its answers
        # is no longer read past this many, so the answers waiting for it stay bounded; twice the
        # daemon's own bound, so that one socket still meets queue_full as HTTP callers do.
        self._unanswered = asyncio.Semaphore(2 * settings.max_in_flight)
        # One writer at a time: answers finish in any order, from their own tasks.
        self._send_lock = asyncio.Lock()

    async def serve(self) -> None:
        """Run until the caller closes the socket; then cancel what it left in flight."""
        await self._ws.accept()
        try:
            while True:
                await self._unanswered.acquire()
                message = await self._ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if OVERSIZED in message:
                    await self._on_oversized(message[OVERSIZED])
                else:
                    await self._on_frame(payload(message))
        finally:
            for task in list(self._in_flight.values()):
                task.cancel()

    async def _on_frame(self, data: str | bytes | None) -> None:
        raw = loads(data)
        call_id = _readable_id(raw)
        try:
            if not isinstance(raw, dict):
                raise InvalidRequest(
                    f"Invalid call: each frame must be one JSON object such as {CALL_EXAMPLE}."
                )
            try:
                frame = Call.model_validate(raw)
            except ValidationError as exc:
                raise InvalidRequest(_describe_call(exc)) from None
            if frame.id in self._in_flight:
                raise InvalidRequest(
                    f"Invalid call: a call with id {frame.id!r} is still in flight on this socket. "
                    "Give each call an id of its own."
                )
        except TabpilotError as error:
            # Answered before the next frame is read: a caller that floods the socket with bad
            # frames is slowed to the pace at which it reads the answers.
            await self._answer_now(call_id, error)
            return
        self._in_flight[frame.id] = asyncio.create_task(self._run(frame))

    async def _on_oversized(self, head: bytes) -> None:
        # The frame gate (frame_gate.py) threw the frame away unread but for its first bytes.
        error = body_too_large(self._settings, "call frame")
        await self._answer_now(id_from_head(head), error)

    async def _answer_now(self, call_id: str | int | None, error: TabpilotError) -> None:
        try:
            await self._answer(call_id, failure_body(new_request_id(), error))
        finally:
            self._unanswered.release()

    async def _run(self, frame: CallFrame) -> None:
        request_id = new_request_id()
        scope = self._scope.naming(frame.context)
        try:
            if frame.method == "status":
                body = success_body(request_id, self._status(scope))
            else:
                body = await envelope_of(
                    request_id,
                    lambda rid: self._call(frame, scope, rid),
                    f"the {frame.method} call",
                )
        finally:
            # Free before the answer goes out: a caller may reuse the id as soon as it has it.
            self._in_flight.pop(frame.id, None)
        try:
            await self._answer(frame.id, body)
        finally:
            self._unanswered.release()

    async def _call(self, frame: CallFrame, scope: Scope, request_id: str) -> ResultFrame:
        tool = TOOLS.get(frame.method)
        if tool is not None:
            ask, params = guard.split(tool, frame.params)
            return await run(tool, scope, params, ask, request_id)
        if frame.method == "ping":
            params = PingParams.parse(frame.params)
            return await scope.bridge(params).ping(params, request_id)
        if frame.params:
            raise InvalidRequest(f"Invalid call: {frame.method} takes no params; send {{}}.")
        return await scope.bridge(None).list_tabs(request_id)

    async def _answer(self, call_id: str | int | None, envelope: dict[str, Any]) -> None:
        # An AnswerFrame, written with json.dumps: the same text as its model_dump_json, and for a
        # large non-ASCII result (a page's text in Chinese, say) half the time.
        text = json.dumps(
            {"type": "answer", "id": call_id, "envelope": envelope},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        async with self._send_lock:
            # The caller may be gone: its answer has nobody to go to.
            with contextlib.suppress(Exception):
                await self._ws.send_text(text)


def _readable_id(raw: Any) -> str | int | None:
    """The id of a frame that may be broken, if it has one that could be echoed back."""
    if not isinstance(raw, dict):
        return None
    try:
        return CALL_ID.validate_python(raw.get("id"))
    except ValidationError:
        return None


def id_from_head(head: bytes) -> str | int | None:
    """The id of a call of which only the first bytes were read, if they hold it."""
    text = head.decode("utf-8", "ignore")  # the cut may split a character
    decoder = json.JSONDecoder()
    pos = _skip_space(text, 0)
    if not text.startswith("{", pos):
        return None
    # Member by member, until the id or a value cut short (the script, usually).
    while True:
        try:
            key, pos = decoder.raw_decode(text, _skip_space(text, pos + 1))
            pos = _skip_space(text, pos)
            if not (isinstance(key, str) and text.startswith(":", pos)):
                return None
            value, pos = decoder.raw_decode(text, _skip_space(text, pos + 1))
        except (ValueError, RecursionError):
            return None
        if pos == len(text):  # a number the cut may have shortened
            return None
        if key == "id":
            return _readable_id({"id": value})
        pos = _skip_space(text, pos)
        if not text.startswith(",", pos):
            return None


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _describe_call(exc: ValidationError) -> str:
    # pydantic reports an id of the wrong type once per member of its union; say it once.
    errors = [e for e in exc.errors() if not (len(e["loc"]) > 1 and e["loc"][0] == "id")]
    reasons = [invalid_reasons(errors, Call.model_fields)] if errors else []
    if len(errors) < exc.error_count():
        reasons.append(
            f"`id` must be a string of 1 to {MAX_CALL_ID_CHARS} characters, or an integer"
        )
    return (
        f"Invalid call: {'; '.join(reasons)}. Send a frame such as {CALL_EXAMPLE}; "
        "see docs/protocol.md."
    )
