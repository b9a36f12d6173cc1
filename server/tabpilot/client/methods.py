"""The Python client's methods, written once for ``tabpilot.Client`` and ``tabpilot.AsyncClient``.

Each method of :class:`_Methods` is the one definition of its parameters, typed for a user's IDE
and for mypy; its body is made by :func:`_tool` from the tool of :data:`tabpilot.tools.TOOLS` whose
``method`` is its name: the call of that tool with the arguments given (tests/test_public_client.py
checks each signature against the tool's params model). Each client supplies ``_call``, which
sends one call and answers its result, or an awaitable of it.

A client built with ``guard`` asks the daemon's large-output guard on every tool call (README,
"Large-output guard"): an answer past its limit comes as a :class:`Preview`, and
:meth:`_Methods.rest` fetches the rest by its ``confirm_token``.
"""

# Every method body here is made by _tool; mypy would take each docstring-only body for a
# method that forgot to return.
# mypy: disable-error-code="empty-body"

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, cast

from tabpilot.errors import TabpilotError, error_for_code
from tabpilot.guard import ask_of
from tabpilot.guard.store import PART
from tabpilot.protocol import CallMethod
from tabpilot.tools import TOOLS, Tool
from tabpilot.tools.logs import RequestType

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
        def call(self: _Methods[Any], /, *args: Any, **kwargs: Any) -> Any:
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


class _Methods(Generic[R]):
    """The calls, once for both clients: ``R`` is the result, or an awaitable of it."""

    #: The guard's body fields, sent with every tool call (:func:`guard_fields`).
    _guard: dict[str, Any]

    def _call(self, method: CallMethod, params: dict[str, Any]) -> R:
        raise NotImplementedError

    def _image(self, result: R) -> Any:
        raise NotImplementedError

    @_tool()
    def execute(
        self,
        script: str,
        *,
        ref: str | None = None,
        timeout_ms: int | None = None,
        await_promise: bool | None = None,
        tab_id: int | None = None,
        dialog: Literal["accept", "dismiss"] | None = None,
        prompt_text: str | None = None,
    ) -> R:
        """Run ``script`` in a tab; its result (JSON-safe data). With ``ref``, ``script`` is a
        function called with that element: ``"(el) => el.value"``."""

    @_tool()
    def navigate(
        self,
        url: str | None = None,
        *,
        action: Literal["goto", "back", "forward", "reload"] | None = None,
        tab_id: int | None = None,
        timeout_ms: int | None = None,
    ) -> R:
        """Load ``url`` (or go back, forward, reload) and wait for it: ``{url, title, status}``."""

    @_tool()
    def snapshot(
        self,
        *,
        ref: str | None = None,
        interactive_only: bool | None = None,
        max_chars: int | None = None,
        tab_id: int | None = None,
    ) -> R:
        """The page's accessibility tree with refs: ``{snapshot, refs, chars, truncated}``."""

    @_tool()
    def act(
        self,
        kind: Literal["click", "type", "press", "scroll", "hover", "select", "check", "uncheck"],
        ref: str | None = None,
        *,
        text: str | None = None,
        key: str | None = None,
        direction: Literal["up", "down", "left", "right"] | None = None,
        amount: int | None = None,
        submit: bool | None = None,
        values: list[str] | None = None,
        trusted: bool | None = None,
        tab_id: int | None = None,
        timeout_ms: int | None = None,
    ) -> R:
        """One action on the element ``ref``: ``{description, route, navigated, url, new_tabs}``."""

    @_tool()
    def read(
        self,
        *,
        ref: str | None = None,
        offset: int | None = None,
        limit: int | None = None,
        tab_id: int | None = None,
    ) -> R:
        """A slice of the page's visible text: ``{text, offset, total, more}``."""

    @_tool()
    def tabs(
        self,
        action: Literal["list", "new", "select", "close"] = "list",
        *,
        url: str | None = None,
        tab_id: int | None = None,
    ) -> R:
        """List the tabs, or open, select or close one."""

    @_tool()
    def console_messages(
        self,
        *,
        level: Literal["error", "warning", "info", "debug"] | None = None,
        since: int | None = None,
        limit: int | None = None,
        all_pages: bool | None = None,
        clear: bool | None = None,
        tab_id: int | None = None,
    ) -> R:
        """The tab's console messages: ``{messages, matched, total, shown, evicted, last_seq,
        page, pages, level, all_pages, cleared?}``; each message ``{seq, page, level, type, text,
        time, url?, line?, column?, stack?}``."""

    @_tool()
    def network_requests(
        self,
        *,
        url: str | None = None,
        type: RequestType | None = None,
        status: str | None = None,
        include_static: bool | None = None,
        include_body: int | None = None,
        since: int | None = None,
        limit: int | None = None,
        all_pages: bool | None = None,
        clear: bool | None = None,
        tab_id: int | None = None,
    ) -> R:
        """The tab's network requests: ``{requests, matched, total, shown, hidden, evicted,
        last_seq, page, pages, all_pages, cleared?}``, each request ``{seq, page, request_id,
        method, url, type, status, start, duration, size, from_cache, failed, redirect_to?}``;
        with ``include_body``, ``{request, body: {text, size, truncated, cap, source, note?}}``."""

    @_tool()
    def close_browser(self) -> R:
        """Close the tabs the AI opened (and stop the daemon's managed browser):
        ``{closed_tabs, browser?}``."""

    def status(self) -> R:
        """The daemon, the extension, the AI Web Pilot switch, the managed browser."""
        return self._call("status", {})

    @_tool()
    def screenshot(
        self,
        *,
        ref: str | None = None,
        full_page: bool | None = None,
        format: Literal["jpeg", "png"] | None = None,
        quality: int | None = None,
        max_size: int | None = None,
        tab_id: int | None = None,
        timeout_ms: int | None = None,
    ) -> Any:
        """The tab's viewport, one element (``ref``) or the whole page (``full_page``) as image
        bytes: JPEG by default, or ``format="png"``; at most ``max_size`` px on its long side
        (default 1568; 0: no scaling)."""

    @_tool()
    def define_function(self, name: str, source: str) -> R:
        """Define (or replace) the function ``name`` for eval_call_function, daemon-wide; the
        extension checks its syntax without running it: ``{name, replaced}``."""

    @_tool(args_json=_json_text)
    def call_function(
        self,
        name: str,
        args_json: str | list[Any] | None = None,
        *,
        ref: str | None = None,
        tab_id: int | None = None,
        timeout_ms: int | None = None,
    ) -> R:
        """Call the defined function ``name`` in a tab with ``args_json`` (JSON text of the
        arguments' array, or a list, encoded here); with ``ref``, the element comes first. Its
        result, as :meth:`execute` answers."""

    @_tool()
    def list_functions(self) -> R:
        """The defined functions: ``{functions: [{name, first_line}], limit}``."""

    @_tool()
    def remove_function(self, name: str) -> R:
        """Remove the defined function ``name``: ``{name, removed}``."""

    @_tool()
    def context_create(
        self,
        name: str,
        *,
        proxy: dict[str, Any] | None = None,
        storage_state: str | dict[str, Any] | None = None,
    ) -> R:
        """Start the managed context ``name`` (a fresh headless Chromium), optionally through
        ``proxy`` (``{server, username?, password?, bypass?}``) and with ``storage_state`` loaded
        (a saved name, or a Playwright storageState dict); it becomes this client's active
        context: ``{name, is_active, managed, connected, page_count, current_url, proxy,
        startup_ms, storage?}``."""

    @_tool()
    def context_switch(self, name: str) -> R:
        """Make ``name`` this client's active context: ``{name, is_active, managed, …}``."""

    @_tool()
    def context_list(self) -> R:
        """Every context: ``[{name, is_active, managed, connected, page_count, current_url,
        proxy}]``."""

    @_tool()
    def context_close(self, name: str) -> R:
        """Close the managed context ``name`` (its browser stops), or drop a person's Chrome
        from the list: ``{name, managed, closed, active}``."""

    @_tool()
    def context_save_storage(self, name: str | None = None, *, path: str | None = None) -> R:
        """The cookies and localStorage of context ``name`` (the active one by default), as
        Playwright's storageState: written to ``path`` (a name under the daemon's storage/
        folder), else in the answer's ``storage_state``. ``{name, cookies, origins, pages,
        skipped, path?, storage_state?}``."""

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
