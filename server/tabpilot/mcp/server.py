"""The MCP tools of tabpilot, defined once (the one adapter from the tool table) and served two
ways.

- ``tabpilot mcp`` serves them over stdio (:mod:`tabpilot.mcp.stdio`) and forwards each call to
  the running daemon over its callers' socket (:class:`tabpilot.client.connection.DaemonClient`,
  one WebSocket for every call).
- The daemon serves them itself at ``/mcp`` (streamable HTTP, :mod:`tabpilot.mcp.http`, mounted
  on first use), calling its contexts directly (:class:`tabpilot.mcp.local.LocalBackend`), behind
  the same Host, Origin and token guard as every other route.

Both hand the same :class:`Backend` to :func:`build_server`, so there is one definition of each
tool. Every call answers a ``CallToolResult`` whose text is written for a model: ``42``,
``Loaded "Example Domain"``, a snapshot, or ``Error: <what to do next>`` with ``isError``.

The model pays once (:func:`tool_result`): a client may hand the model the structured content
beside the text, so it carries only what the text cannot. A script's value
(:data:`VALUE_TOOLS`) is the one thing a text shows less well than JSON: those tools declare an
output schema, and their structured content is the value (and the guard's fields when it was
cut). Every other tool's text is its whole answer: no output schema, no structured content. A
failure's structured content is its error's code and the fields its message leaves out (a stack).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Protocol

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import PlainValidator, ValidationError, WithJsonSchema

from tabpilot import __version__, guard
from tabpilot.envelope import failure_body
from tabpilot.errors import InvalidRequest
from tabpilot.ids import new_request_id
from tabpilot.mcp.confirm import MCP_PARAMETER, given, mcp_ask
from tabpilot.mcp.hints import Nudges, session_key
from tabpilot.mcp.schema import input_schema, output_schema
from tabpilot.mcp.unknown import UNKNOWN, keep_unknown, refuse_unknown
from tabpilot.tools import TOOLS, Tool, describe
from tabpilot.tools.fields import Params, invalid_reasons

__all__ = ["Backend", "build_server", "tool_result"]

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
tabpilot drives the user's real Chrome through its extension, only while the user's AI Web Pilot
switch is on. See a page with browser_snapshot (refs such as e12), act by ref with browser_act,
read it with browser_read; execute_javascript does anything else. The tools act in the active tab
unless given `tab_id` (browser_tabs lists them); `timeout_ms` bounds a call. An answer's text is
all of it; a script's value also comes as structured content `result`. A failure is isError with
`Error: <what to do next>` (structured: `error.code`). A long answer is cut to a preview that ends
`[Shown n of m characters. The rest: the same tool with only confirm_token="…". <advice>]` (a
script's structured content adds `truncated`, `total_length`, `shown_length`, `confirm_token`,
`advice`). Lines starting `Tip:` point to a better tool. Ask only for what you need: answers fill
your context. `follow` on an act: a tab it opens becomes the active tab."""

#: With the contexts capability: what a context is, said once.
CONTEXTS_INSTRUCTIONS = """
Several browsers (contexts) may be open: yours is the active one (browser_context_switch); a
`tab_id` names its context by itself."""
VISION_INSTRUCTIONS = """
browser_mouse's x, y are CSS px of the viewport: a viewport screenshot's pixels at scale 1."""
#: With the emulation capability: whose emulation it is.
EMULATION_INSTRUCTIONS = """
browser_emulate's settings hold in that tab, across its navigations, until reset or the tab
closes."""
#: With the files capability: where uploads come from.
FILES_INSTRUCTIONS = """
browser_upload reads only the uploads folder the person chose (TABPILOT_UPLOAD_DIR); paths are
relative to it."""
#: With the functions capability: what the registry is for.
FUNCTIONS_INSTRUCTIONS = """
eval_define_function keeps a function in the daemon; eval_call_function runs it by name in any tab,
without its source again."""
#: With the network capability: what a rule's pattern is and where rules apply.
NETWORK_INSTRUCTIONS = """
browser_network_rules patterns are globs over the whole url (`**/api/*`); rules touch only the AI's
tabs and last until removed."""
#: What the instructions add for each capability a client asks for (tabpilot.tools.CAPS).
CAP_INSTRUCTIONS = {
    "contexts": CONTEXTS_INSTRUCTIONS,
    "emulation": EMULATION_INSTRUCTIONS,
    "files": FILES_INSTRUCTIONS,
    "functions": FUNCTIONS_INSTRUCTIONS,
    "network": NETWORK_INSTRUCTIONS,
    "vision": VISION_INSTRUCTIONS,
}


class Backend(Protocol):
    """Where the tools send their calls; each method answers one envelope (a plain dict).

    ``session`` is the key of the MCP session calling (:func:`tabpilot.mcp.hints.session_key`):
    each has its own active context.
    """

    async def run_tool(
        self,
        tool: Tool,
        params: Params | None,
        ask: guard.Ask = guard.WHOLE,
        session: object | None = None,
    ) -> dict[str, Any]: ...

    async def status(self, session: object | None = None) -> dict[str, Any]: ...


#: The tools whose answer is a script's value (``Tool.value``): their structured content carries
#: it as JSON.
VALUE_TOOLS = frozenset(name for name, tool in TOOLS.items() if tool.mcp.value)


def tool_result(
    envelope: dict[str, Any],
    text: Callable[[dict[str, Any]], str],
    *,
    image: str | None = None,
    value: bool = False,
) -> CallToolResult:
    """The envelope as a tool result: ``text(envelope)`` on success, ``Error: …`` on failure.

    The text is the answer as a model reads it, the guard's line ending it when the answer was
    cut. With ``value`` (:data:`VALUE_TOOLS`), the structured content is ``{"result": <the value
    as JSON>}``, no ``result`` for ``undefined`` (as JSON.stringify leaves such a key out), and
    the guard's fields when it cut the value to a preview; else there is none. ``image`` names the
    result's field of base64 image data (its type in ``mime_type``): it follows the text as an
    image content block. A failure's structured content is ``{"error": {"code": …}}`` with the
    fields of the error that its message, the text, leaves out; ``isError`` says it failed.
    """
    picture: list[ImageContent] = []
    structured: dict[str, Any] | None = None
    if envelope.get("success"):
        body = guard.text(envelope, text)
        is_error = False
        result = envelope.get("result")
        if image and isinstance(result, dict) and isinstance(result.get(image), str):
            mime = str(result.get("mime_type") or "image/png")
            picture = [ImageContent(type="image", data=result[image], mime_type=mime)]
        if value:
            given = {} if envelope.get("result_type") == "undefined" else {"result": result}
            cut = {key: envelope[key] for key in guard.FIELDS if key in envelope}
            structured = {**given, **cut}
    else:
        error = dict(envelope.get("error") or {})
        body = f"Error: {error.pop('message', None) or 'unknown error'}"
        is_error = True
        structured = {"error": error}
    return CallToolResult(
        content=[TextContent(type="text", text=body), *picture],
        structured_content=structured,
        is_error=is_error,
    )


def tool_description(fn: Callable[..., Any]) -> str:
    """A tool's docstring as a model should read it: dedented, each paragraph on one line."""
    return describe(fn.__doc__ or "")


def mcp_description(tool: Tool) -> str:
    """A tool's description as MCP lists it: the table's, and where the guard cuts its answer."""
    limit = tool.guard.limit
    if limit is None:
        return tool.description
    end = "" if tool.description.endswith(".") else "."
    return f"{tool.description}{end} Past {limit:,} chars, a preview."


def table_tool(
    tool: Tool, backend: Backend, nudges: Nudges | None = None
) -> Callable[..., Awaitable[CallToolResult]]:
    """The MCP tool function of a table tool, its parameters the params model's fields.

    The SDK is handed each field's own JSON schema and takes any value, so that the params model,
    strict as on every other face, is what judges the arguments: a wrong one answers the usual
    ``Error: Invalid arguments: …`` rather than the SDK's validation dump.
    """
    model = tool.params
    # Lean, with nested models written in place: the SDK's own argument model keeps no $defs.
    properties = input_schema(model)["properties"]
    value = tool.mcp.value

    async def call(mcp_context: Context, **arguments: Any) -> CallToolResult:
        # Unknown names go to the strict params model, which refuses them as HTTP does.
        arguments |= arguments.pop(UNKNOWN, {})
        try:
            ask = mcp_ask(tool, arguments)
            params = None if ask.token else model.model_validate(given(arguments, model))
        except ValidationError as exc:
            reasons = invalid_reasons(exc.errors(), model.model_fields)
            error = InvalidRequest(f"Invalid arguments: {reasons}.")
            return tool_result(failure_body(new_request_id(), error), _no_text)
        except InvalidRequest as error:
            return tool_result(failure_body(new_request_id(), error), _no_text)
        # Hints toward the tool made for the job (nudges.py), in this MCP session only; none for
        # a cut answer's rest (nothing ran).
        pending = None
        if nudges is not None and params is not None:
            pending = nudges.prepare(mcp_context, tool.name, params)
        if tool.mcp.model_check is not None and params is not None:
            refused = tool.mcp.model_check(params)
            if refused is not None:
                return tool_result(failure_body(new_request_id(), refused), _no_text)
        envelope = await backend.run_tool(tool, params, ask, session=session_key(mcp_context))
        # The call's params let a formatter say less (browser_navigate: the url asked for).
        answer = tool_result(
            envelope, lambda done: tool.text(done, params), image=tool.mcp.image, value=value
        )
        return pending.answer(answer) if pending else answer

    parameters = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            # Typed `str` where a string goes: the SDK parses any other field's string as JSON
            # first (a script "null" would become None). PlainValidator: it accepts as is.
            annotation=Annotated[
                str if _takes_text(field.annotation) else Any,
                PlainValidator(_as_is),
                WithJsonSchema(properties[name]),
            ],
            # None for a required one too: a confirm_token comes alone (the published schema
            # still says it is required, mcp_schema.input_schema).
            default=None if field.is_required() else field.default,
        )
        for name, field in model.model_fields.items()
    ]
    parameters.append(MCP_PARAMETER)
    # The SDK hands the request's context (its session) to the parameter typed Context.
    parameters.append(
        inspect.Parameter("mcp_context", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    )
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        parameters, return_annotation=CallToolResult
    )
    call.__name__ = tool.name
    return call


def _no_text(envelope: dict[str, Any]) -> str:
    # A failure's text is its error's (tool_result); a success never comes here.
    raise AssertionError("a failure envelope has no success text")


def _as_is(value: Any) -> Any:
    return value


def _takes_text(annotation: Any) -> bool:
    # str, str | None, a constrained str; not a list of them, which may come as a JSON string.
    text = str(annotation)
    return "str" in text and "list[" not in text


def status_text(envelope: dict[str, Any]) -> str:
    """pilot_status: the daemon, the extension and the switch, one line each."""
    status = envelope.get("result") or {}
    extension = status.get("extension") or {}
    lines = [f"Daemon: tabpilot {status.get('daemon_version')}, running."]
    if not extension.get("connected"):
        lines.append(
            "Extension: not connected. Open Chrome with the tabpilot extension, or start the "
            "daemon with `tabpilot serve --browser`."
        )
        return "\n".join(lines)
    lines.append(f"Extension: connected (version {extension.get('version')}).")
    if extension.get("pilot_enabled"):
        lines.append("AI Web Pilot: ON. Scripts may run.")
    else:
        lines.append(
            "AI Web Pilot: OFF. Nothing can run until the user turns on AI Web Pilot in the "
            "tabpilot extension popup."
        )
    return "\n".join(lines)


def build_server(backend: Backend, caps: frozenset[str] = frozenset()) -> MCPServer:
    """An MCP server whose tools call ``backend``: the tools of the table that need no
    capability or one of ``caps`` (tabpilot.tools.CAPS), and one of its own."""
    instructions = INSTRUCTIONS + "".join(CAP_INSTRUCTIONS.get(cap, "") for cap in sorted(caps))
    # log_level: the SDK configures logging only where nothing else has; keep it quiet there.
    server = MCPServer(
        "tabpilot", version=__version__, instructions=instructions, log_level="WARNING"
    )
    # The SDK wraps every message in an OpenTelemetry span, a no-op without an exporter that still
    # costs about 0.15 ms of a tools/call (make bench); tabpilot exports no traces.
    server._lowlevel_server.middleware = []

    async def pilot_status(mcp_context: Context, **arguments: Any) -> CallToolResult:
        """Is tabpilot ready: the daemon, the extension, the user's AI Web Pilot switch? E.g. {} →
        a line each, the last `AI Web Pilot: ON. Scripts may run.`"""
        try:
            refuse_unknown("pilot_status", arguments.get(UNKNOWN, {}))
        except InvalidRequest as error:
            return tool_result(failure_body(new_request_id(), error), _no_text)
        status = await backend.status(session=session_key(mcp_context))
        return tool_result(status, status_text)

    # The other hints' defaults (destructive, open world, not idempotent) suit the tools that act.
    reads = ToolAnnotations(read_only_hint=True)
    nudges = Nudges()
    for tool in TOOLS.values():
        if tool.mcp.cap is not None and tool.mcp.cap not in caps:
            continue
        server.add_tool(
            table_tool(tool, backend, nudges),
            name=tool.name,
            description=mcp_description(tool),
            annotations=reads if tool.read_only else None,
        )
        long = tool.guard.limit is not None
        answers = output_schema(*guard.FIELDS) if tool.mcp.value else None
        _publish(server, tool.name, input_schema(tool.params, token=long), answers)
    pilot_status.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("mcp_context", inspect.Parameter.KEYWORD_ONLY, annotation=Context)],
        return_annotation=CallToolResult,
    )
    server.add_tool(pilot_status, description=tool_description(pilot_status), annotations=reads)
    _publish(server, "pilot_status", {"type": "object", "properties": {}}, None)
    return server


def _publish(
    server: MCPServer, name: str, parameters: dict[str, Any], answers: dict[str, Any] | None
) -> None:
    """Give a registered tool its lean schemas (:mod:`tabpilot.mcp.schema`); ``answers`` None:
    no output schema (the text is the whole answer).

    The output schema is published without a model, so the SDK does not validate each answer
    against it again: the structured content is built by :func:`tool_result`, in that shape.
    """
    registered = server._tool_manager.get_tool(name)
    assert registered is not None
    keep_unknown(registered)
    registered.parameters = parameters
    registered.fn_metadata.output_model = None
    registered.fn_metadata.output_schema = answers
