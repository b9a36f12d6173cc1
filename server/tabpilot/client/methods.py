"""What the Python client's methods share, written once for ``tabpilot.Client`` and
``tabpilot.AsyncClient``: the error and preview they raise and answer, and :func:`_tool`, which
makes the body of each tool's method.

The tools' methods (:mod:`tabpilot.client.tool_methods`) are generated from the tool table by
``scripts/client_methods.py``: each is the one definition of its parameters, typed for a user's IDE
and for mypy, and :func:`_tool` makes its body, the call of the tool whose ``method`` is its name
with the arguments given. Each client supplies ``_call``, which sends one call and answers its
result, or an awaitable of it.

A client built with ``guard`` asks the daemon's large-output guard on every tool call (README,
"Large-output guard"): an answer past its limit comes as a :class:`Preview`, and
:meth:`_Methods.rest` fetches the rest by its ``confirm_token``.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from tabpilot.config import Settings
from tabpilot.errors import TabpilotError, error_for_code
from tabpilot.guard import ask_of
from tabpilot.guard.store import PART
from tabpilot.protocol import CallMethod
from tabpilot.tools import TOOLS, Tool

R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])

#: The tools by the client's method name.
_BY_METHOD: dict[str, Tool] = {tool.method: tool for tool in TOOLS.values()}


class ClientError(TabpilotError):
    """A call failed: ``code`` and ``message`` say why and what to do, as the API table does.

    ``data`` holds the error's details where it has some (navigation_failed's reason, say),
    ``request_id`` the daemon's id of the call, ``status`` the HTTP status the route would have
    answered.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int = 500,
        data: Any = None,
        request_id: str | None = None,
        stack: str | None = None,
    ) -> None:
        super().__init__(code, message, status, stack)
        self.data = data
        self.request_id = request_id

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    @classmethod
    def from_envelope(cls, envelope: dict[str, Any]) -> ClientError:
        """The error of a failure envelope."""
        error = envelope.get("error") or {}
        code = str(error.get("code") or "internal_error")
        known = error_for_code(code)
        return cls(
            code,
            str(error.get("message") or code),
            status=known.status if known is not None else 503,
            data=error.get("data"),
            request_id=envelope.get("request_id"),
            stack=error.get("stack"),
        )


@dataclass(frozen=True)
class Preview:
    """A guarded call's answer past its limit: ``result`` is the preview (a script's value summed
    up, ``Array(500) [{id, name}, …]``; a page tool's text or list cut), or a part of the whole
    answer's text (``result_type`` ``"text_part"``). ``client.rest(preview)`` answers the rest.

    ``total_length`` and ``shown_length`` count characters of the answer's text; ``confirm_token``
    is None when the whole was too large to keep, or this is the last part.
    """

    tool: CallMethod
    result: Any
    result_type: str | None
    truncated: bool
    total_length: int
    shown_length: int
    confirm_token: str | None
    advice: str | None
    request_id: str | None = None


def result_of(envelope: dict[str, Any], method: CallMethod) -> Any:
    """An envelope's result, or the :class:`Preview` of a guarded answer that was cut; raises
    ClientError for a failure envelope."""
    if not envelope.get("success"):
        raise ClientError.from_envelope(envelope)
    if "truncated" not in envelope and envelope.get("result_type") != PART:
        return envelope.get("result")
    return Preview(
        tool=method,
        result=envelope.get("result"),
        result_type=envelope.get("result_type"),
        truncated=bool(envelope.get("truncated")),
        total_length=int(envelope.get("total_length") or 0),
        shown_length=int(envelope.get("shown_length") or 0),
        confirm_token=envelope.get("confirm_token"),
        advice=envelope.get("advice"),
        request_id=envelope.get("request_id"),
    )


def guard_fields(guard: bool | int) -> dict[str, Any]:
    """The body fields of a client's ``guard``: none, or ``"guard"``; raises ClientError for a
    value the daemon would refuse."""
    try:
        return ask_of(guard).fields() if guard is not True else {"guard": True}
    except TabpilotError as error:
        raise ClientError(error.code, error.message, status=error.status) from None


def _tool(**encode: Callable[[Any], Any]) -> Callable[[F], F]:
    """The body of a method of :class:`_Methods`: the call of the tool whose ``method`` is its
    name, with the arguments given; ``encode``: how an argument is sent, by name.

    None leaves a field out, so the daemon applies the default its params model documents."""

    def make(method: F) -> F:
        tool = _BY_METHOD[method.__name__]
        signature = inspect.signature(method)
        parameters = list(signature.parameters.values())[1:]
        positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
        required = {p.name for p in parameters if p.default is p.empty}
        known = {p.name for p in parameters}

        @functools.wraps(method)
        def call(self: _Calls[Any], /, *args: Any, **kwargs: Any) -> Any:
            # Bound by hand: Signature.bind would add some 20 µs to every call, five times the rest.
            given = dict(zip(positional, args, strict=False))
            if len(args) > len(positional) or not kwargs.keys() <= known - given.keys():
                signature.bind(self, *args, **kwargs)  # raises the TypeError Python would
            given.update(kwargs)
            if not required <= given.keys():
                signature.bind(self, *args, **kwargs)
            fields = {
                name: encode[name](value) if name in encode else value
                for name, value in given.items()
                if value is not None
            }
            result = self._call(tool.name, {**fields, **self._guard})
            return self._image(result) if tool.mcp.image else result

        return cast(F, call)

    return make


def _json_text(value: str | list[Any]) -> str:
    return value if isinstance(value, str) else json.dumps(value)


class _Calls(Generic[R]):
    """What both clients share beside the tools' methods (:mod:`tabpilot.client.tool_methods`,
    generated): ``R`` is the result, or an awaitable of it."""

    def __init__(
        self,
        port: int | None = None,
        *,
        token: str | None = None,
        guard: bool | int = False,
        context: str | None = None,
    ) -> None:
        #: The guard's body fields, sent with every tool call (:func:`guard_fields`).
        self._guard = guard_fields(guard)
        self.settings = Settings.from_env(port=port, token=token)
        self._start(context)

    def _start(self, context: str | None) -> None:
        """Set up the client's link to the daemon, every call naming ``context``."""
        raise NotImplementedError

    def _call(self, method: CallMethod, params: dict[str, Any]) -> R:
        raise NotImplementedError

    def _image(self, result: R) -> Any:
        raise NotImplementedError

    def status(self) -> R:
        """The daemon, the extension, the AI Web Pilot switch, the managed browser."""
        return self._call("status", {})

    def rest(self, preview: Preview) -> R:
        """The rest of a guarded answer that was cut, by its ``confirm_token``, without running
        the tool again: the whole result, or past 50,000 characters of its text, the next part
        as a :class:`Preview` with a token for the one after. A token answers once."""
        if preview.confirm_token is None:
            raise ClientError(
                "invalid_request",
                "This preview has no confirm_token: the whole was too large to keep, or this was "
                "the last part. Run the tool again, asking for less.",
                status=400,
            )
        return self._call(preview.tool, {"confirm_token": preview.confirm_token})
