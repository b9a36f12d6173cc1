"""One tool and everything its faces need (:class:`Tool`): the table of them is
:data:`tabpilot.tools.TOOLS`, one family file each.

A tool is data first: its params model, the description a model reads, the text formatter of its
answer, and the knobs each face or policy reads (:class:`GuardRule`, :class:`CliFace`,
:class:`McpFace`, :class:`HttpFace`). Its optional ``handle`` runs the call; without one, the
daemon sends the extension the command of the tool's name as is.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tabpilot.errors import TabpilotError
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import Params

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge
    from tabpilot.browsers.contexts import Scope

#: A handler: the caller's view of the contexts (``Scope``), the params and the request id in;
#: the answer out (the extension's, or the daemon's own), or a raised TabpilotError.
Handler = Callable[["Scope", Any, str], Awaitable[ResultFrame]]
#: What a handler that needs the caller's browser does with that browser's bridge.
BridgeHandler = Callable[["Bridge", Any, str], Awaitable[ResultFrame]]
#: A text formatter: a success envelope and the call's params (None where they are not known: a
#: cut answer's rest, the CLI) in; the text a model or a person reads out.
Text = Callable[[dict[str, Any], Any], str]


def on_bridge(handle: BridgeHandler) -> Handler:
    """A handler that runs ``handle`` with the bridge of the browser the call is for: the
    caller's active context, or the one its ``tab_id`` names (Playwright MCP's defineTabTool)."""

    async def run(scope: Scope, params: Any, request_id: str) -> ResultFrame:
        return await handle(scope.bridge(params), params, request_id)

    run.__doc__ = handle.__doc__
    return run


@dataclass(frozen=True)
class GuardRule:
    """How the large-output guard treats the tool's answers (:mod:`tabpilot.guard`)."""

    #: Characters of the answer's text a model sees at most; None: the guard's default. A tool
    #: with its own limit is long often enough that its MCP schema names ``confirm_token``.
    limit: int | None = None
    #: The one line that tells a model how to ask for less (None: the guard's generic line).
    advice: str | None = None
    #: Result fields the text carries whole: a preview cuts them first.
    cut_first: tuple[str, ...] = ()
    #: The answer is a script's value: its preview sums it up (``Array(n) [first 3, …]``), with
    #: advice by the value's type.
    summarize: bool = False


@dataclass(frozen=True)
class CliFace:
    """The tool's CLI subcommand (:mod:`tabpilot.cli`)."""

    #: `tabpilot <name>`; two words make a subcommand of a group (`context create`).
    name: str
    #: Fields taken as positional arguments, in order.
    positional: tuple[str, ...] = ()
    #: Written by hand in :mod:`tabpilot.cli` (it keeps its own output), not generated.
    hand_written: bool = False
    #: Runs in a context, the CLI's or the one `--context` names; False: it names contexts itself
    #: (the context tools).
    in_context: bool = True
    #: What the CLI remembers of a success: "use" the context it names for later commands (it was
    #: created or switched to); "forget" it when it was the one in use (it was closed).
    after: Literal["use", "forget"] | None = None


@dataclass(frozen=True)
class ClientFace:
    """The tool's method on ``tabpilot.Client`` and ``AsyncClient``, generated with its typed
    signature into :mod:`tabpilot.client.tool_methods` (``scripts/client_methods.py``)."""

    #: The method's name: ``tabpilot.Client().navigate``.
    name: str
    #: Its docstring: what it answers, for a user's IDE.
    doc: str
    #: Fields taken as positional arguments, in order; the others are keyword-only.
    positional: tuple[str, ...] = ()
    #: Fields that also take any JSON value, sent as its JSON text (eval_call_function's args).
    json_text: tuple[str, ...] = ()


@dataclass(frozen=True)
class McpFace:
    """The tool's MCP specifics (:mod:`tabpilot.mcp`)."""

    #: The capability that lists it (None: always listed): an agent that drives one browser does
    #: not pay for the context tools' schemas on every turn (:data:`tabpilot.tools.CAPS`).
    cap: str | None = None
    #: Its result is a script's value, which MCP also answers as structured content (JSON shows
    #: a value better than a text does); every other tool's text is its whole answer.
    value: bool = False
    #: The result field holding an image in base64: MCP answers it as an image content block.
    image: str | None = None
    #: On the faces whose answer a model may read (MCP, the CLI): the error that refuses these
    #: params (None: run them), for what a model must not be handed (a storage state's cookies).
    model_check: Callable[[Any], TabpilotError | None] | None = None


@dataclass(frozen=True)
class HttpFace:
    """The tool's HTTP specifics (:mod:`tabpilot.http`)."""

    #: What an empty body stands for; None: a body is required.
    empty_body: str | None = "{}"
    #: Content negotiation: (Accept header, params) -> the params to run and the raw mime type to
    #: answer with (None: the JSON envelope).
    negotiate: Callable[[str, Any], tuple[Any, str | None]] | None = None


@dataclass(frozen=True)
class Tool:
    """One tool and everything its faces need."""

    #: The extension command, the HTTP route (``POST /<name>``), the ``/ws/calls`` method and the
    #: MCP tool.
    name: str
    params: type[Params]
    #: A short human title (MCP's ``title``) and the description a model reads.
    title: str
    description: str
    #: Seconds the extension may take, before the daemon's grace: a number, or the params' own
    #: ``timeout_ms`` (:func:`timeout_ms`).
    timeout_s: float | Callable[[Any], float]
    #: The text of a success envelope, for a model and for the CLI.
    text: Text
    read_only: bool
    cli: CliFace
    client: ClientFace
    #: Runs the call; None: the extension's command of this name, as is.
    handle: Handler | None = None
    #: The extension command it sends: its own name (the default, ""), another's
    #: (eval_call_function runs execute_javascript), or None: none of its own (the daemon answers
    #: it, with the commands of protocol.DAEMON_COMMANDS where it needs the browser).
    #: tests/test_extension_commands.py holds the extension's handlers to these.
    command: str | None = ""
    #: Renumbers the tab ids in an ok result of a context other than the first: (result, the
    #: context's base) -> the result (:mod:`tabpilot.browsers.tab_ids`).
    tab_ids: Callable[[Any, int], Any] | None = None
    guard: GuardRule = field(default_factory=GuardRule)
    mcp: McpFace = field(default_factory=McpFace)
    http: HttpFace = field(default_factory=HttpFace)

    def __post_init__(self) -> None:
        if self.command == "":
            object.__setattr__(self, "command", self.name)

    @property
    def method(self) -> str:
        """The public client's method: ``tabpilot.Client().navigate``."""
        return self.client.name

    @property
    def summary(self) -> str:
        """The description's first sentence: the CLI's one-line help."""
        return self.description.split(". ", 1)[0].rstrip(".")

    def timeout(self, params: Any) -> float:
        """Seconds the extension may take for ``params``."""
        return self.timeout_s(params) if callable(self.timeout_s) else self.timeout_s


def timeout_ms(params: Any) -> float:
    """The call's own ``timeout_ms``, in seconds."""
    return float(params.timeout_ms) / 1000


def describe(text: str) -> str:
    """A description written as indented paragraphs, as a model reads it: each on one line."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def daemon_answer(request_id: str, result: Any) -> ResultFrame:
    """The ok answer of a handler that the daemon answers itself, as the extension would."""
    kind = "array" if isinstance(result, list) else "object"
    return ResultFrame(id=request_id, ok=True, result=result, result_type=kind, tab=None)
