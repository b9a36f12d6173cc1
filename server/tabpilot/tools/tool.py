"""One tool and everything its faces need (:class:`Tool`); the table of them is
:data:`tabpilot.tools.TOOLS`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tabpilot.errors import TabpilotError
from tabpilot.protocol import ResultFrame, ToolName
from tabpilot.tools.fields import Params

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge
    from tabpilot.browsers.contexts import Scope

Send = Callable[["Bridge", Any, str], Awaitable[ResultFrame]]
RunInDaemon = Callable[["Scope", Any, str], Awaitable[ResultFrame]]


@dataclass(frozen=True)
class Tool:
    """One tool and everything its faces need."""

    name: ToolName
    params: type[Params]
    #: A short human title (MCP's ``title``) and the description a model reads.
    title: str
    description: str
    #: Seconds the extension may take, before the daemon's grace.
    timeout_s: Callable[[Any], float]
    #: The text of a success envelope, for a model and for the CLI.
    text: Callable[[dict[str, Any]], str]
    read_only: bool
    #: The CLI subcommand and the public client's method.
    cli: str
    method: str
    #: Fields the CLI takes as positional arguments, in order.
    positional: tuple[str, ...] = ()
    #: What an empty HTTP body stands for; None: a body is required.
    empty_body: str | None = "{}"
    #: How the daemon sends it to the bridge of the call's context; None: the command as is
    #: (:meth:`Bridge.command`).
    send: Send | None = None
    #: A tool the daemon answers itself, with the caller's view of the contexts (the context
    #: tools); it sends nothing as such.
    daemon: RunInDaemon | None = None
    #: The MCP capability that lists it (None: always listed): an agent that drives one
    #: browser does not pay for the context tools' schemas on every turn (:data:`CAPS`).
    cap: str | None = None
    #: On the faces whose answer a model may read (MCP, the CLI): the error that refuses these
    #: params (None: run them), for what a model must not be handed (a storage state's cookies).
    model_check: Callable[[Any], TabpilotError | None] | None = None
    #: Result fields the text carries whole: the large-output guard cuts them first.
    in_text: tuple[str, ...] = ()
    #: The result field holding an image in base64: MCP answers it as an image content block.
    image: str | None = None
    #: Its result is a script's value, which MCP also answers as structured content (JSON shows
    #: a value better than a text does); every other tool's text is its whole answer.
    value: bool = False
    #: HTTP content negotiation: (Accept header, params) -> the params to run and the raw mime
    #: type to answer with (None: the JSON envelope).
    negotiate: Callable[[str, Any], tuple[Any, str | None]] | None = None

    @property
    def summary(self) -> str:
        """The description's first sentence: the CLI's one-line help."""
        return self.description.split(". ", 1)[0].rstrip(".")

    async def run(self, scope: Scope, params: Params, request_id: str) -> ResultFrame:
        """Run this tool for ``params`` in the caller's context (``scope``): the extension's ok
        answer, or the daemon's own; or raises."""
        if self.daemon is not None:
            return await self.daemon(scope, params, request_id)
        bridge = scope.bridge(params)
        if self.send is not None:
            return await self.send(bridge, params, request_id)
        return await bridge.command(self.name, params, request_id, self.timeout_s(params))


def describe(text: str) -> str:
    """A description written as indented paragraphs, as a model reads it: each on one line."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)
