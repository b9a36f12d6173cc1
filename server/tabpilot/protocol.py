"""The wire, as pydantic models: between the daemon and the extension (docs/protocol.md §1), and
between a program and the daemon on the callers' socket (§6).

Every frame is one JSON text object tagged with a ``type`` literal. Frames the extension sends are
parsed with :data:`EXTENSION_FRAME` (a discriminated union), so a frame of an unknown ``type`` is a
validation error that the bridge logs and ignores instead of dropping the connection.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from tabpilot.errors import InvalidRequest
from tabpilot.unicode import loads_lone_surrogates, repair_json

#: Bumped on any change that an older extension could misread. The extension sends its own in
#: ``hello``; a mismatch closes the socket with :data:`CLOSE_PROTOCOL_MISMATCH`.
PROTOCOL_VERSION = 1

#: WebSocket close codes of the daemon (docs/protocol.md, "Close codes").
CLOSE_PROTOCOL_MISMATCH = 4001
CLOSE_BUSY = 4002
CLOSE_HELLO_EXPECTED = 4003
CLOSE_UNAUTHORIZED = 4004

#: Longest result the extension sends, in characters of its JSON (16 MiB). The extension answers
#: ``result_too_large`` past it (extension/inject.js holds the same number); it keeps every result
#: under Chrome's 64 MiB message limit and the daemon's ``ws_max_size``.
MAX_RESULT_CHARS = 16 * 1024 * 1024

#: Longest timeout_ms a command may ask for: two minutes.
MAX_TIMEOUT_MS = 120_000

#: Longest element ref (`e12`) a command may carry.
MAX_REF_CHARS = 64


def _whole_number(value: Any) -> Any:
    # JSON has one number type: Python's json and JavaScript's JSON.stringify write 5000.0 or
    # 5e3 for a float that holds 5000, which means the same as 5000.
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{value!r} is not a whole number of milliseconds; send e.g. 5000")
        return int(value)
    return value


#: A command's timeout in milliseconds: a whole number, written as 5000 or as 5000.0. Still
#: strict otherwise (true, "5000" and 5000.5 are refused), in every model that uses it.
TimeoutMs = Annotated[int, Strict(), Field(ge=1, le=MAX_TIMEOUT_MS), BeforeValidator(_whole_number)]


#: The tools of tabpilot.tools: each is an extension command and a call of the callers' socket.
ToolName = Literal[
    "browser_navigate",
    "browser_snapshot",
    "browser_act",
    "browser_read",
    "browser_close",
    "execute_javascript",
    "browser_tabs",
    "browser_take_screenshot",
    "browser_console_messages",
    "browser_network_requests",
]

CommandName = Literal[ToolName, "list_tabs", "ping"]


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
# Command params, also the bodies of POST /execute_javascript and POST /ping


class Params(BaseModel):
    """A request body; :meth:`parse` turns any way it is wrong into one readable sentence."""

    # Strict, and unknown fields refused: a typo such as ``timeout`` for ``timeout_ms`` should
    # be a 400 the caller sees, not a silently ignored field.
    model_config = ConfigDict(strict=True, extra="forbid")

    #: A good body, shown in the error message of a bad one.
    example: ClassVar[str] = "{}"

    @classmethod
    def parse(cls, data: str | bytes | dict[str, Any]) -> Self:
        """``data`` (JSON text or a decoded object) as this model; raises InvalidRequest."""
        try:
            if isinstance(data, dict):
                return cls.model_validate(data)
            return cls.model_validate_json(data)
        except ValidationError as exc:
            error = exc
        if not isinstance(data, dict) and _json_invalid(error):
            # A script may hold a lone surrogate: pydantic's parser refuses its escape, which the
            # callers' socket (Python's json) takes. Read it the same way here.
            try:
                value = loads_lone_surrogates(data)
            except ValueError:
                value = None
            if isinstance(value, dict):
                return cls.parse(value)
        raise InvalidRequest(describe_invalid(error.errors(), cls))


def describe_invalid(errors: Sequence[Any], model: type[Params]) -> str:
    """One readable sentence for what FastAPI would answer as a bare 422."""
    return (
        f"Invalid request: {invalid_reasons(errors, model.model_fields)}. "
        f"Send JSON such as {model.example}; see /docs."
    )


def invalid_reasons(errors: Sequence[Any], fields: Iterable[str]) -> str:
    """What is wrong with a JSON object, from pydantic's ``errors()``: "`script` is required"."""
    parts: list[str] = []
    for err in errors:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        kind = err.get("type", "")
        if kind == "json_invalid":
            parts.append("the body is not valid JSON")
        elif kind == "missing" and not where:
            parts.append("the body is missing")
        elif kind == "missing":
            parts.append(f"`{where}` is required")
        elif kind == "string_unicode":
            parts.append(
                f"`{where}` holds a lone surrogate (half of a UTF-16 pair), which has no UTF-8 "
                "form; in a script, write it as a JavaScript escape such as \\ud800"
            )
        elif kind == "extra_forbidden":
            parts.append(f"`{where}` is not a field (the fields are {', '.join(fields)})")
        elif kind == "value_error" and not where:  # a model's own rule, across fields
            parts.append(str(err.get("msg", "invalid")).removeprefix("Value error, "))
        elif not where:
            parts.append("the body must be a JSON object sent with Content-Type: application/json")
        else:
            parts.append(f"`{where}`: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "bad body"


class ExecuteParams(Params):
    """Run ``script`` in a tab: the body of ``POST /execute_javascript`` and the command params."""

    example: ClassVar[str] = '{"script": "2 + 2", "timeout_ms": 5000}'

    script: str = Field(
        min_length=1,
        description="JavaScript: an expression (`2 + 2`), or statements with `return`.",
        examples=["document.title"],
    )
    timeout_ms: TimeoutMs = Field(default=5000, description="Give up after this many milliseconds.")
    await_promise: bool = Field(default=True, description="Await a returned promise.")
    tab_id: int | None = Field(
        default=None, description="Target tab; null: the active tab of the last focused window."
    )
    dialog: Literal["accept", "dismiss"] = Field(
        default="dismiss",
        description="How to answer an alert, confirm or prompt raised while the script runs.",
    )
    prompt_text: str | None = Field(
        default=None,
        max_length=10_000,
        description="What an accepted prompt answers; null: the prompt's own default text.",
    )
    ref: str | None = Field(
        default=None,
        max_length=MAX_REF_CHARS,
        description="An element ref from browser_snapshot (`e12`); then `script` is a function "
        "called with that element, e.g. `(el) => el.textContent`.",
    )


def web_url(url: str | None, what: str) -> str | None:
    """``url`` if it is http or https; else a ValueError naming its scheme."""
    if url is not None and not url.lower().startswith(("http://", "https://")):
        scheme = url.split(":", 1)[0] if ":" in url else url
        raise ValueError(f"{what} http or https urls only, not {scheme[:20]!r}")
    return url


class TabsParams(Params):
    """List, open, select or close tabs: the body of ``POST /browser_tabs``."""

    example: ClassVar[str] = '{"action": "new", "url": "https://example.com/"}'

    action: Literal["list", "new", "select", "close"] = Field(
        default="list",
        description="`list` the tabs; open a `new` one (at `url`, else the daemon's landing page) "
        "and make it active; `select` (activate) or `close` the tab `tab_id`.",
    )
    url: str | None = Field(
        default=None, max_length=8192, description="For `new`: an http or https url."
    )
    tab_id: int | None = Field(
        default=None,
        description="For `select` and `close`: the tab. `close` without it closes the active tab "
        "if the AI opened it.",
    )

    @field_validator("url")
    @classmethod
    def _web_url(cls, url: str | None) -> str | None:
        return web_url(url, "a new tab opens")

    @model_validator(mode="after")
    def _needs_what_it_acts_on(self) -> TabsParams:
        # `close` without a tab_id is the extension's to judge: it closes the active tab only
        # if the AI opened it.
        if self.action == "select" and self.tab_id is None:
            raise ValueError("`select` needs `tab_id`; the `list` action lists the tabs")
        if self.url is not None and self.action != "new":
            raise ValueError("`url` goes with the `new` action only")
        return self


class PingParams(Params):
    """Time the chain up to one hop without running anything: the body of ``POST /ping``."""

    example: ClassVar[str] = '{"to": "page"}'

    to: Literal["worker", "content", "page"] = Field(
        default="worker",
        description="Who answers: the extension's service `worker`, the tab's `content` script, "
        "or the tab's `page` world.",
    )
    tab_id: int | None = Field(
        default=None, description="Target tab; null: the active tab of the last focused window."
    )


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
        repaired = repair_json(text) if _json_invalid(exc) else None
        if repaired is None:
            raise
    return EXTENSION_FRAME.validate_json(repaired)


def _json_invalid(exc: ValidationError) -> bool:
    # pydantic's parser refuses lone-surrogate escapes, which Python's json and JavaScript accept,
    # as one or the other of these.
    return exc.errors(include_input=False)[0]["type"] in ("json_invalid", "string_unicode")


# ---------------------------------------------------------------------------------------------
# Daemon -> extension


class DaemonHello(_Frame):
    """The daemon's answer to the extension's ``hello``."""

    type: Literal["hello"] = "hello"
    protocol_version: int = PROTOCOL_VERSION
    daemon_version: str


class CommandFrame(_Frame):
    """One command; the extension answers it with exactly one :class:`ResultFrame`."""

    type: Literal["command"] = "command"
    id: str
    command: CommandName
    params: dict[str, Any] = Field(default_factory=dict)


DaemonFrame = Annotated[DaemonHello | CommandFrame | KeepaliveFrame, Field(discriminator="type")]

#: Parses one daemon -> extension frame (used by tests and tools that play the extension).
DAEMON_FRAME: TypeAdapter[DaemonFrame] = TypeAdapter(DaemonFrame)


# ---------------------------------------------------------------------------------------------
# The callers' socket: a program and the daemon (docs/protocol.md §6)

#: Where a program opens its socket. Unlike /ws, no browser may open it: no Origin, and the token.
CALLS_PATH = "/ws/calls"

#: What a call may ask for: the name of the HTTP route that does the same, without its slash.
CallMethod = Literal[ToolName, "tabs", "status", "ping"]


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


class AnswerFrame(BaseModel):
    """The answer to one call: the envelope the HTTP route would have answered.

    ``id`` is null only when a frame was too broken to tell which call it was.
    """

    type: Literal["answer"] = "answer"
    id: CallId | None
    envelope: dict[str, Any]
