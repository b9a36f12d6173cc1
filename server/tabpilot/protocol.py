"""The wire, as pydantic models: between the daemon and the extension (docs/protocol.md §1), and
between a program and the daemon on the callers' socket (§6).

Every frame is one JSON text object tagged with a ``type`` literal. Frames the extension sends are
parsed with :data:`EXTENSION_FRAME` (a discriminated union), so a frame of an unknown ``type`` is a
validation error that the bridge logs and ignores instead of dropping the connection.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from tabpilot.unicode import repair_json

#: Bumped on any change that an older extension could misread. The extension sends its own in
#: ``hello``; a mismatch closes the socket with :data:`CLOSE_PROTOCOL_MISMATCH`.
PROTOCOL_VERSION = 1

#: WebSocket close codes of the daemon (docs/protocol.md, "Close codes").
CLOSE_PROTOCOL_MISMATCH = 4001
CLOSE_BUSY = 4002
CLOSE_HELLO_EXPECTED = 4003
CLOSE_UNAUTHORIZED = 4004
#: A caller closed this human browser's context (browser_context_close): it is dropped from the
#: list until its extension connects again.
CLOSE_DROPPED = 4005
#: The hello named a context that another browser holds, or a name that is not valid.
CLOSE_NAME_TAKEN = 4006

#: Longest result the extension sends, in characters of its JSON (16 MiB). The extension answers
#: ``result_too_large`` past it (extension/page/inject.js holds the same number); it keeps every
#: result under Chrome's 64 MiB message limit and the daemon's ``ws_max_size``.
MAX_RESULT_CHARS = 16 * 1024 * 1024


#: A command the daemon sends an extension: a tool's name (tabpilot.tools.TOOLS; the context tools
#: run in the daemon) or one the daemon uses itself (list_tabs, ping, storage_export,
#: storage_import). tests/test_extension_commands.py holds the extension's handlers to that list.
CommandName = str
#: The commands the daemon sends for its own ends, not as a tool.
DAEMON_COMMANDS = ("list_tabs", "ping", "storage_export", "storage_import")


class _Frame(BaseModel):
    # Extra fields are tolerated so that a newer extension can add optional data without a
    # protocol bump.
    model_config = ConfigDict(extra="ignore")


def payload(message: Mapping[str, Any]) -> str | bytes | None:
    """The text or bytes of an ASGI ``websocket.receive`` message."""
    # Not `text or bytes`: an empty text frame is a frame too, and must be read as malformed.
    text = message.get("text")
    return text if text is not None else message.get("bytes")


def loads(data: str | bytes | None) -> Any:
    """``data`` as JSON, or None when it is not JSON (or is None)."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):  # deeply nested JSON exhausts the stack; not a frame
        return None


def json_invalid(exc: ValidationError) -> bool:
    """Whether pydantic refused the JSON text itself, not what it holds."""
    # pydantic's parser refuses lone-surrogate escapes, which Python's json and JavaScript accept,
    # as one or the other of these.
    return exc.errors(include_input=False)[0]["type"] in ("json_invalid", "string_unicode")


# ---------------------------------------------------------------------------------------------
# Shared shapes


class TabInfo(BaseModel):
    """The tab a script ran in."""

    id: int
    url: str = ""
    title: str = ""


class ErrorInfo(BaseModel):
    """An error as the extension reports it."""

    code: str
    message: str = ""
    stack: str | None = None
    #: A thrown Error's other own fields (code, cause, an AggregateError's errors), serialized.
    data: Any = None


# ---------------------------------------------------------------------------------------------
# Extension -> daemon


class ExtensionHello(_Frame):
    """First frame after the socket opens."""

    type: Literal["hello"] = "hello"
    protocol_version: int
    extension_version: str
    pilot_enabled: bool
    user_agent: str | None = None
    #: The daemon's token, when it has one (a browser cannot put headers on a WebSocket).
    token: str | None = Field(default=None, repr=False)
    #: The context this browser is: a managed one's name (from its managed.json), or the name the
    #: person gave in the popup (``chrome`` by default). An older extension sends none: ``chrome``.
    context: str | None = None
    #: The secret a managed context's browser proves itself with (its managed.json).
    context_key: str | None = Field(default=None, repr=False)


class DialogRecord(BaseModel):
    """A JavaScript dialog tabpilot answered while (or just before) a script ran."""

    model_config = ConfigDict(extra="ignore")

    type: str = Field(description="`alert`, `confirm`, `prompt` or `beforeunload`.")
    message: str = Field(default="", description="The dialog's text.")
    action: str = Field(default="dismissed", description="`accepted` or `dismissed`.")
    text: str | None = Field(default=None, description="What an accepted prompt answered.")
    before: bool | None = Field(
        default=None, description="true: left open by the page before this command, and answered."
    )


class ResultFrame(_Frame):
    """The one answer to a command."""

    type: Literal["result"] = "result"
    id: str
    ok: bool
    result: Any = None
    result_type: str | None = None
    tab: TabInfo | None = None
    error: ErrorInfo | None = None
    #: Which route ran a script: "page", "trusted_types", "user_scripts" or "debugger".
    route: str | None = None
    dialogs: list[DialogRecord] | None = None
    #: Scripts only: the downloads the script started (worker/tab/downloads.js), where it did.
    downloads: list[dict[str, Any]] | None = None
    #: Scripts only: the tabs the script opened (worker/tab/opened-tabs.js), where it did.
    opened: list[dict[str, Any]] | None = None

    @model_validator(mode="after")
    def _error_when_not_ok(self) -> ResultFrame:
        if not self.ok and self.error is None:
            raise ValueError("a result with ok=false must carry an error")
        return self


class PilotFrame(_Frame):
    """The human flipped the AI Web Pilot switch."""

    type: Literal["pilot"] = "pilot"
    enabled: bool


class KeepaliveFrame(_Frame):
    """Sent by either side; the extension's keeps its service worker alive."""

    type: Literal["keepalive"] = "keepalive"


ExtensionFrame = Annotated[
    ExtensionHello | ResultFrame | PilotFrame | KeepaliveFrame, Field(discriminator="type")
]

#: Parses one extension -> daemon frame from JSON text (``EXTENSION_FRAME.validate_json(text)``).
EXTENSION_FRAME: TypeAdapter[ExtensionFrame] = TypeAdapter(ExtensionFrame)


def parse_extension_frame(text: str | bytes) -> ExtensionFrame:
    """Parse one frame from the extension; raises :class:`pydantic.ValidationError`.

    A lone surrogate in a string (a page's title, a result) becomes U+FFFD (tabpilot.unicode).
    """
    try:
        return EXTENSION_FRAME.validate_json(text)
    except ValidationError as exc:
        repaired = repair_json(text) if json_invalid(exc) else None
        if repaired is None:
            raise
    return EXTENSION_FRAME.validate_json(repaired)


# ---------------------------------------------------------------------------------------------
# Daemon -> extension


class DaemonHello(_Frame):
    """The daemon's answer to the extension's ``hello``."""

    type: Literal["hello"] = "hello"
    protocol_version: int = PROTOCOL_VERSION
    daemon_version: str
    #: The daemon's site rules (``tabpilot serve --block-site/--only-site``): ``{"never": [...],
    #: "only": [...] | None}``, which the extension adds to the person's own; None: none.
    site_rules: dict[str, list[str] | None] | None = None


class CommandFrame(_Frame):
    """One command; the extension answers it with exactly one :class:`ResultFrame`."""

    type: Literal["command"] = "command"
    id: str
    command: CommandName
    params: dict[str, Any] = Field(default_factory=dict)


class RefusedFrame(_Frame):
    """Commands the daemon refused itself without sending them (the AI Web Pilot off), so that the
    popup's Recent activity lists them too: ``count`` of them with ``code`` since the last such
    frame, ``commands`` by name (tabpilot.browsers.refusals)."""

    type: Literal["refused"] = "refused"
    code: str
    count: int
    commands: dict[str, int] = Field(default_factory=dict)


DaemonFrame = Annotated[
    DaemonHello | CommandFrame | KeepaliveFrame | RefusedFrame, Field(discriminator="type")
]

#: Parses one daemon -> extension frame (used by tests and tools that play the extension).
DAEMON_FRAME: TypeAdapter[DaemonFrame] = TypeAdapter(DaemonFrame)


# ---------------------------------------------------------------------------------------------
# The callers' socket: a program and the daemon (docs/protocol.md §6)

#: Where a program opens its socket. Unlike /ws, no browser may open it: no Origin, and the token.
CALLS_PATH = "/ws/calls"

#: What a call may ask for: the name of the HTTP route that does the same, without its slash (the
#: callers' socket, tabpilot.http.calls, holds a call to the routes there are).
CallMethod = str


#: Longest string id of a call.
MAX_CALL_ID_CHARS = 128

#: A call's id, chosen by the caller: a string of 1 to MAX_CALL_ID_CHARS characters, or an integer.
CallId = Annotated[StrictStr, Field(min_length=1, max_length=MAX_CALL_ID_CHARS)] | StrictInt

#: Validates an id on its own, for the answer to a frame too broken to be a call.
CALL_ID: TypeAdapter[CallId] = TypeAdapter(CallId)


class CallFrame(BaseModel):
    """One call; the daemon answers it with exactly one :class:`AnswerFrame` of the same id."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["call"]
    #: Chosen by the caller, echoed in the answer; unique among the caller's calls in flight.
    id: CallId
    method: CallMethod
    #: The route's JSON body; {} for ``tabs`` and ``status``.
    params: dict[str, Any] = Field(default_factory=dict)
    #: The context to run in, for this call only; else the socket's active context
    #: (browser_context_switch), else the default one.
    context: StrictStr | None = None


class AnswerFrame(BaseModel):
    """The answer to one call: the envelope the HTTP route would have answered.

    ``id`` is null only when a frame was too broken to tell which call it was.
    """

    type: Literal["answer"] = "answer"
    id: CallId | None
    envelope: dict[str, Any]
