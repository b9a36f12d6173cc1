"""The function registry: define a function once, call it in any tab, after any navigation.

The registry lives in the daemon's memory (:class:`FunctionRegistry`, one per daemon, on its
bridge): every caller of the daemon shares it (HTTP, ``/ws/calls``, both MCP transports, the CLI,
``tabpilot.Client``), and it is gone when the daemon stops. Nothing is kept in the page: a call
runs as an ``execute_javascript`` whose script the daemon builds from the stored function and the
call's JSON arguments (:func:`call_script`), by the same routes, switch and dialog handling, so the
page's own scripts cannot read, replace or call a function between calls.

A definition is checked without running anything: the extension's service worker parses the
source (acorn, extension/worker/tools/functions.js) and answers the function's own text, which is
what is stored. So defining needs the extension connected and AI Web Pilot on; listing and
removing are the daemon's alone, and work with no browser at all.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, field_validator

from tabpilot.errors import ExtensionError, ExtensionNotConnected, ScriptTooLarge
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, Ref, TimeoutMs, result_of
from tabpilot.tools.script import ExecuteParams, run_script, script_text
from tabpilot.tools.tool import (
    ClientFace,
    CliFace,
    GuardRule,
    HttpFace,
    McpFace,
    Tool,
    daemon_answer,
    describe,
    on_bridge,
    timeout_ms,
)

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge

#: The longest source of one function, in characters.
MAX_SOURCE_CHARS = 100_000
#: The longest name; a name is identifier-like: letters, digits, `_` and `$`, no digit first.
MAX_NAME_CHARS = 64
#: The longest `args_json`, in characters.
MAX_ARGS_CHARS = 1_000_000
#: The extension parses the source in its service worker: milliseconds, once it is awake.
DEFINE_TIMEOUT_S = 10.0

NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
#: Where the element of a call with `ref` is held while the function is called with it: a name no
#: function's source would use for a global of its own.
ELEMENT = "__tabpilot_el"


def _valid_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise ValueError(
            "a function's name is identifier-like: letters, digits, _ and $, not starting with a "
            "digit, such as add_to_cart"
        )
    return name


class _Named(Params):
    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS, description="e.g. `total`.")

    @field_validator("name")
    @classmethod
    def _identifier_like(cls, name: str) -> str:
        return _valid_name(name)


class DefineFunctionParams(_Named):
    """Define (or replace) a named function."""

    example: ClassVar[str] = '{"name": "add", "source": "(a, b) => a + b"}'

    source: str = Field(
        min_length=1,
        max_length=MAX_SOURCE_CHARS,
        description="One function: `(a, b) => a + b`, `async (el) => {…}`.",
    )


class CallFunctionParams(_Named):
    """Call a defined function in a tab."""

    example: ClassVar[str] = '{"name": "add", "args_json": "[1, 2]"}'

    args_json: str = Field(
        default="[]",
        max_length=MAX_ARGS_CHARS,
        description='A JSON array: `[1, "a"]`.',
    )
    ref: Ref | None = Field(default=None, description="Snapshot ref: the first argument.")
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(default=5000, description="Give up after this many ms.")

    @field_validator("args_json")
    @classmethod
    def _an_array(cls, text: str) -> str:
        decode_args(text)
        return text


class ListFunctionsParams(Params):
    """List the defined functions; takes no fields."""

    example: ClassVar[str] = "{}"


class RemoveFunctionParams(_Named):
    """Remove a defined function."""

    example: ClassVar[str] = '{"name": "add"}'


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode_args(text: str) -> list[Any]:
    """The arguments of ``args_json``; a ValueError saying what is wrong with it."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("is nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"is not valid JSON ({exc})") from None
    if not isinstance(value, list):
        raise ValueError('must be a JSON array of the arguments: [1, "a"]; one object: [{"a": 1}]')
    return value


def js_literal(value: Any) -> str:
    """A JSON value as a JavaScript literal that makes the same value as ``JSON.parse`` would,
    without calling anything of the page's: a `__proto__` key is an own property here too."""
    if isinstance(value, dict):
        members = ",".join(
            ('["__proto__"]' if key == "__proto__" else json.dumps(key)) + ":" + js_literal(item)
            for key, item in value.items()
        )
        return "{" + members + "}"
    if isinstance(value, list):
        return "[" + ",".join(js_literal(item) for item in value) + "]"
    # ASCII only: U+2028 and lone surrogates come as escapes.
    return json.dumps(value)


def call_script(source: str, args: list[Any], with_element: bool) -> str:
    """The script that calls the stored function ``source`` with ``args``.

    Without an element, ``await (source)(args)``: awaited like any async function, so a function
    that throws and one whose promise rejects both answer ``execution_error``. With one, a function
    that execute_javascript calls with the ref's element, which it puts first. The "\\n" keeps a
    trailing line comment from swallowing the parenthesis.
    """
    literals = [js_literal(arg) for arg in args]
    if with_element:
        called = ", ".join([ELEMENT, *literals])
        return f"({ELEMENT}) => ({source}\n)({called})"
    return f"await ({source}\n)({', '.join(literals)})"


async def define(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    """eval_define_function: the extension checks the source, the daemon keeps its text."""
    bridge.functions.check_room(params.name)  # refused before anything is sent
    try:
        answer = await bridge.command("eval_define_function", params, request_id, DEFINE_TIMEOUT_S)
    except ExtensionNotConnected:
        raise ExtensionNotConnected(
            "eval_define_function checks the source's syntax in the tabpilot extension, and no "
            "extension is connected, so nothing was defined. Open Chrome with the tabpilot "
            "extension, or start the daemon with `tabpilot serve --browser`, then retry."
        ) from None
    checked = answer.result.get("source") if isinstance(answer.result, dict) else None
    if not isinstance(checked, str) or not checked:
        raise ExtensionError(
            "The extension's syntax check gave no function text. Update tabpilot and its "
            "extension to the same version."
        )
    replaced = bridge.functions.put(params.name, checked)
    return daemon_answer(request_id, {"name": params.name, "replaced": replaced})


async def call(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    """eval_call_function: an execute_javascript of the script built for this call."""
    stored = bridge.functions.get(params.name)
    script = call_script(stored.source, decode_args(params.args_json), params.ref is not None)
    execute = ExecuteParams(
        script=script, timeout_ms=params.timeout_ms, tab_id=params.tab_id, ref=params.ref
    )
    try:
        return await run_script(bridge, execute, request_id)
    except ScriptTooLarge:
        raise ScriptTooLarge(
            f"{params.name!r} with these arguments is longer than a script may be, so nothing "
            "was sent. Pass smaller arguments (let the function fetch big data itself), or raise "
            "the limit with TABPILOT_MAX_SCRIPT_BYTES."
        ) from None


async def list_functions(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    """eval_list_functions: ``{functions: [{name, first_line}], limit}``."""
    functions = bridge.functions
    return daemon_answer(request_id, {"functions": functions.listing(), "limit": functions.limit})


async def remove(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    """eval_remove_function: ``{name, removed: true}``."""
    bridge.functions.remove(params.name)
    return daemon_answer(request_id, {"name": params.name, "removed": True})


def define_text(envelope: dict[str, Any], params: Any = None) -> str:
    """`✓ Function defined: add`."""
    result = result_of(envelope)
    again = " (it replaced the one of that name)" if result.get("replaced") else ""
    return f"✓ Function defined: {result.get('name')}{again}"


def list_text(envelope: dict[str, Any], params: Any = None) -> str:
    """One line per function: `add: (a, b) => a + b`."""
    functions = result_of(envelope).get("functions") or []
    if not functions:
        return "No functions are defined. Define one with eval_define_function."
    return "\n".join(f"{f.get('name')}: {f.get('first_line')}" for f in functions)


def remove_text(envelope: dict[str, Any], params: Any = None) -> str:
    """`✓ Function removed: add`."""
    return f"✓ Function removed: {result_of(envelope).get('name')}"


DEFINE = Tool(
    name="eval_define_function",
    params=DefineFunctionParams,
    title="Define a reusable page function",
    description=describe(
        """
        Define a named function once, syntax-checked, not run; eval_call_function calls it in
        any tab, after any navigation. Nothing is kept in the page. E.g. {"name": "h",
        "source": "(sel) => document.querySelector(sel).textContent"} → ✓ Function defined: h
        """
    ),
    timeout_s=DEFINE_TIMEOUT_S,
    text=define_text,
    read_only=False,
    client=ClientFace(
        "define_function",
        doc=(
            "Define (or replace) the function ``name`` for eval_call_function, daemon-wide; the "
            "extension checks its syntax without running it: ``{name, replaced}``."
        ),
        positional=("name", "source"),
    ),
    cli=CliFace("define", positional=("name", "source")),
    mcp=McpFace(cap="functions"),
    handle=on_bridge(define),
    http=HttpFace(empty_body=None),
)


CALL = Tool(
    name="eval_call_function",
    params=CallFunctionParams,
    title="Call a defined page function",
    description=describe(
        """
        Call a function from eval_define_function with `args_json` (a JSON array); with
        `ref`, that element comes first. Answers like execute_javascript. E.g. {"name": "h",
        "args_json": "[\\"h1\\"]"} → Sign in
        """
    ),
    timeout_s=timeout_ms,
    text=script_text,
    read_only=False,
    client=ClientFace(
        "call_function",
        doc=(
            "Call the defined function ``name`` in a tab with ``args_json`` (JSON text of the "
            "arguments' array, or a list, encoded here); with ``ref``, the element comes first. "
            "Its result, as :meth:`execute` answers."
        ),
        positional=("name", "args_json"),
        json_text=("args_json",),
    ),
    cli=CliFace("call", positional=("name", "args_json")),
    handle=on_bridge(call),
    command="execute_javascript",
    guard=GuardRule(limit=2_000),
    mcp=McpFace(cap="functions", value=True),
    http=HttpFace(empty_body=None),
)


LIST = Tool(
    name="eval_list_functions",
    params=ListFunctionsParams,
    title="List the defined page functions",
    description=describe(
        """
        The functions eval_define_function defined: each name and first line. E.g. {} → h:
        (sel) => document.querySelector(sel).textContent
        """
    ),
    timeout_s=0.0,
    text=list_text,
    read_only=True,
    client=ClientFace(
        "list_functions",
        doc="The defined functions: ``{functions: [{name, first_line}], limit}``.",
    ),
    cli=CliFace("functions"),
    mcp=McpFace(cap="functions"),
    handle=on_bridge(list_functions),
    command=None,
)


REMOVE = Tool(
    name="eval_remove_function",
    params=RemoveFunctionParams,
    title="Remove a defined page function",
    description=describe(
        """
        Remove a function eval_define_function defined. E.g. {"name": "h"} → ✓ Function
        removed: h
        """
    ),
    timeout_s=0.0,
    text=remove_text,
    read_only=False,
    client=ClientFace(
        "remove_function",
        doc="Remove the defined function ``name``: ``{name, removed}``.",
        positional=("name",),
    ),
    cli=CliFace("undefine", positional=("name",)),
    mcp=McpFace(cap="functions"),
    handle=on_bridge(remove),
    command=None,
    http=HttpFace(empty_body=None),
)

TOOLS = (
    DEFINE,
    CALL,
    LIST,
    REMOVE,
)
