"""The tools, defined once: every face of tabpilot is generated from :data:`TOOLS`.

Each :class:`Tool` holds its params model, a description written for a model, its timeout rule,
whether it only reads, and the formatter of its answer's text. Its name is at once the extension
command it sends, the HTTP route (``POST /<name>``), the ``/ws/calls`` method, the MCP tool, and,
in ``cli`` and the public client, the subcommand and method. The faces: :mod:`tabpilot.tool_routes`
(HTTP), :mod:`tabpilot.calls` (the callers' socket), :mod:`tabpilot.mcp_server` (MCP),
:mod:`tabpilot.cli_tools` (CLI) and :mod:`tabpilot.sdk` (``tabpilot.Client``).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from tabpilot import context_tools, functions, log_text, screenshot, tool_text
from tabpilot.errors import InvalidRequest, PilotDisabled, TabpilotError
from tabpilot.log_params import ConsoleParams, NetworkParams
from tabpilot.page_params import ActParams, CloseParams, NavigateParams, ReadParams, SnapshotParams
from tabpilot.params import ExecuteParams, Params, TabsParams
from tabpilot.protocol import ResultFrame, ToolName

if TYPE_CHECKING:
    from tabpilot.bridge import Bridge
    from tabpilot.contexts import Scope

log = logging.getLogger(__name__)

#: browser_tabs is a quick chrome.tabs call (bridge.LIST_TABS_TIMEOUT_S).
TABS_TIMEOUT_S = 5.0
#: A snapshot or a read walks the DOM once; no page takes longer, even a huge one.
PAGE_WALK_TIMEOUT_S = 30.0
#: A log query reads the worker's ring, after asking the tab for what it logged just now (at most
#: a second: a busy tab is not waited for).
LOG_TIMEOUT_S = 10.0
#: Closing tabs and detaching the debugger: a handful of chrome.* calls.
CLOSE_TIMEOUT_S = 30.0

Send = Callable[["Bridge", Any, str], Awaitable[ResultFrame]]
RunInDaemon = Callable[["Scope", Any, str], Awaitable[ResultFrame]]


def _timeout_ms(params: Any) -> float:
    return float(params.timeout_ms) / 1000


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


async def _execute(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    # The bridge refuses an oversized script before anything is sent.
    return await bridge.execute(cast(ExecuteParams, params), request_id)


async def _close(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    # The extension closes what the AI opened; then the daemon stops its managed browser, if it
    # runs one, whether or not the extension could answer. The next call starts it again.
    browser = bridge.browser
    if browser is None:
        return await bridge.command("browser_close", params, request_id, CLOSE_TIMEOUT_S)
    answer: ResultFrame | None = None
    if browser.running:  # a stopped browser is not started only to be closed
        try:
            answer = await bridge.command("browser_close", params, request_id, CLOSE_TIMEOUT_S)
        except PilotDisabled:
            raise  # the switch holds for this tool as for every other
        except TabpilotError as error:
            log.info("browser_close: the extension did not answer (%s); stopping", error.code)
    await browser.stop()
    bridge.drop_link("The managed browser was stopped (browser_close).")
    closed = answer.result if answer is not None and isinstance(answer.result, dict) else {}
    return ResultFrame(
        id=request_id,
        ok=True,
        result={"closed_tabs": closed.get("closed_tabs", []), "browser": "stopped"},
        result_type="object",
        tab=answer.tab if answer is not None else None,
    )


_TOOLS = (
    Tool(
        name="browser_navigate",
        params=NavigateParams,
        title="Open a url in the browser tab",
        description=describe(
            """
            Open an http(s) url (or go back, forward, reload) and wait for the load. E.g. {"url":
            "https://a.test"} → Loaded "A"; at another url (a redirect, back): Navigated to
            https://b.test/ (HTTP 200): "B"; or why it failed.
            """
        ),
        timeout_s=_timeout_ms,
        text=tool_text.navigate_text,
        read_only=False,
        cli="navigate",
        method="navigate",
        positional=("url",),
    ),
    Tool(
        name="browser_snapshot",
        params=SnapshotParams,
        title="See the page's structure",
        description=describe(
            """
            The page as an accessibility tree with refs to act on, far smaller than the DOM.
            `interactive_only`: controls only. E.g. {} → Page "Shop" https://a.test/, 9 refs⏎-
            main [ref=e8]:⏎  - button "Buy" [ref=e12]
            """
        ),
        timeout_s=lambda params: PAGE_WALK_TIMEOUT_S,
        text=tool_text.snapshot_text,
        read_only=True,
        cli="snapshot",
        in_text=("snapshot",),
        method="snapshot",
    ),
    Tool(
        name="browser_act",
        params=ActParams,
        title="Click, type, press, scroll or select in the page",
        description=describe(
            """
            Act on an element by its snapshot ref as a person would, or say why not. E.g.
            {"kind": "click", "ref": "e12"} → Clicked button "Buy" (e12). Snapshot again after:
            refs go stale.
            """
        ),
        timeout_s=_timeout_ms,
        text=tool_text.act_text,
        read_only=False,
        cli="act",
        method="act",
        positional=("kind", "ref"),
    ),
    Tool(
        name="browser_read",
        params=ReadParams,
        title="Read the page's text",
        description=describe(
            """
            The page's visible text, or a ref's, in slices. Better than innerText with
            execute_javascript. E.g. {"limit": 30} → the text⏎[chars 0-30 of 99; more: browser_read
            offset=30]
            """
        ),
        timeout_s=lambda params: PAGE_WALK_TIMEOUT_S,
        text=tool_text.read_text,
        read_only=True,
        cli="read",
        in_text=("text",),
        method="read",
    ),
    Tool(
        name="browser_close",
        params=CloseParams,
        title="Close what the AI opened",
        description=describe(
            """
            Close the tabs the AI opened and release the debugger (stops the managed browser).
            Use it when done. E.g. {} → Closed 2 tabs.
            """
        ),
        timeout_s=lambda params: CLOSE_TIMEOUT_S,
        text=tool_text.close_text,
        read_only=False,
        cli="close",
        method="close_browser",
        send=_close,
    ),
    Tool(
        name="execute_javascript",
        params=ExecuteParams,
        title="Run JavaScript in the user's browser tab",
        description=describe(
            """
            Run JavaScript in the user's real tab, with the page's privileges, and get the result
            as JSON: an expression, or statements with `return`; with `ref`, a function of that
            element, `(el) => el.value`. Return only what you need. E.g. {"script":
            "document.title"} → Example Domain; structured content {"result": "Example Domain"}.
            A bulky value's preview: `Array(n) [first 3, …]`, `Object(n) {keys}`, `<tag id=#a
            class=.b> @ (x,y) WxH`. `Tip:` lines may follow.
            """
        ),
        timeout_s=_timeout_ms,
        text=tool_text.script_text,
        read_only=False,
        cli="exec",
        method="execute",
        empty_body=None,
        send=_execute,
        value=True,
    ),
    Tool(
        name="browser_tabs",
        params=TabsParams,
        title="Open, select or close the browser's tabs",
        description=describe(
            """
            List, open (`new`), select or close tabs; the tools act in the active tab by
            default. E.g. {"action": "list"} → 7 (active): A https://a.test/
            """
        ),
        timeout_s=lambda params: TABS_TIMEOUT_S,
        text=tool_text.browser_tabs_text,
        read_only=False,
        cli="tabs",
        method="tabs",
    ),
    Tool(
        name="browser_take_screenshot",
        params=screenshot.ScreenshotParams,
        title="See the page as an image",
        description=describe(
            """
            An image of the viewport, an element (`ref`) or the whole page. For layout and looks;
            browser_snapshot costs less for finding elements. E.g. {} → Screenshot of the viewport:
            1280x720 JPEG, 61 KB, scale 1 (debugger), then the image.
            """
        ),
        timeout_s=_timeout_ms,
        text=screenshot.screenshot_text,
        read_only=True,
        cli="screenshot",
        method="screenshot",
        image="data",
        negotiate=screenshot.negotiate,
    ),
    Tool(
        name="browser_console_messages",
        params=ConsoleParams,
        title="Read the page's console",
        description=describe(
            """
            The page's console since it loaded: logs, uncaught errors, CSP violations; the newest
            50 at info and above by default. E.g. {"level": "error"} → 1 message at error+ on page
            4 (15 in all); newer: since=15⏎#15 error: x is undefined (app.js:3)
            """
        ),
        timeout_s=lambda params: LOG_TIMEOUT_S,
        text=log_text.console_text,
        read_only=True,
        cli="console",
        method="console_messages",
        in_text=("messages",),
    ),
    Tool(
        name="browser_network_requests",
        params=NetworkParams,
        title="List the page's network requests",
        description=describe(
            """
            The page's requests since it loaded: method, url, type, status, time, size, why it
            failed; static files hidden unless `include_static`. E.g. {"status": "failed"} → 1
            request on page 4 (28 in all); newer: since=33; …⏎#33 GET 503 xhr https://a.test/api
            (81 ms, 40 B)
            """
        ),
        timeout_s=lambda params: LOG_TIMEOUT_S,
        text=log_text.network_text,
        read_only=True,
        cli="network",
        method="network_requests",
        in_text=("requests", "body"),
    ),
    Tool(
        name="eval_define_function",
        params=functions.DefineFunctionParams,
        title="Define a reusable page function",
        description=describe(
            """
            Define a named function once, syntax-checked, not run; eval_call_function calls it in
            any tab, after any navigation. Nothing is kept in the page. E.g. {"name": "h",
            "source": "(sel) => document.querySelector(sel).textContent"} → ✓ Function defined: h
            """
        ),
        timeout_s=lambda params: functions.DEFINE_TIMEOUT_S,
        text=functions.define_text,
        read_only=False,
        cli="define",
        method="define_function",
        positional=("name", "source"),
        empty_body=None,
        send=functions.define,
    ),
    Tool(
        name="eval_call_function",
        params=functions.CallFunctionParams,
        title="Call a defined page function",
        description=describe(
            """
            Call a function from eval_define_function with `args_json` (a JSON array); with
            `ref`, that element comes first. Answers like execute_javascript. E.g. {"name": "h",
            "args_json": "[\\"h1\\"]"} → Sign in
            """
        ),
        timeout_s=_timeout_ms,
        text=tool_text.script_text,
        read_only=False,
        cli="call",
        method="call_function",
        positional=("name", "args_json"),
        empty_body=None,
        send=functions.call,
        value=True,
    ),
    Tool(
        name="eval_list_functions",
        params=functions.ListFunctionsParams,
        title="List the defined page functions",
        description=describe(
            """
            The functions eval_define_function defined: each name and first line. E.g. {} → h:
            (sel) => document.querySelector(sel).textContent
            """
        ),
        timeout_s=lambda params: 0.0,
        text=functions.list_text,
        read_only=True,
        cli="functions",
        method="list_functions",
        send=functions.list_functions,
    ),
    Tool(
        name="eval_remove_function",
        params=functions.RemoveFunctionParams,
        title="Remove a defined page function",
        description=describe(
            """
            Remove a function eval_define_function defined. E.g. {"name": "h"} → ✓ Function
            removed: h
            """
        ),
        timeout_s=lambda params: 0.0,
        text=functions.remove_text,
        read_only=False,
        cli="undefine",
        method="remove_function",
        positional=("name",),
        empty_body=None,
        send=functions.remove,
    ),
    Tool(
        name="browser_context_create",
        params=context_tools.CreateParams,
        title="Open a new isolated browser",
        description=describe(
            """
            A new isolated browser (own cookies, tabs), made your active context. E.g. {"name":
            "b"} → Created context "b" (managed), now active: 1 tab, http://…
            """
        ),
        timeout_s=lambda params: context_tools.CREATE_TIMEOUT_S,
        text=context_tools.create_text,
        read_only=False,
        cli="context create",
        method="context_create",
        positional=("name",),
        empty_body=None,
        daemon=context_tools.create,
        cap="contexts",
    ),
    Tool(
        name="browser_context_switch",
        params=context_tools.NameParams,
        title="Work in another browser context",
        description=describe(
            """
            Your next calls run in this context's tabs. E.g. {"name": "chrome"} → Switched to
            context "chrome" (person's Chrome): 3 tabs, https://a.test/
            """
        ),
        timeout_s=lambda params: context_tools.LIST_TIMEOUT_S,
        text=context_tools.switch_text,
        read_only=False,
        cli="context switch",
        method="context_switch",
        positional=("name",),
        empty_body=None,
        daemon=context_tools.switch,
        cap="contexts",
    ),
    Tool(
        name="browser_context_list",
        params=context_tools.ListParams,
        title="List the browser contexts",
        description=describe(
            """
            The browsers, yours marked *. E.g. {} → * default (managed): 1 tab, https://a.test/
            """
        ),
        timeout_s=lambda params: context_tools.LIST_TIMEOUT_S,
        text=context_tools.list_text,
        read_only=True,
        cli="context list",
        method="context_list",
        daemon=context_tools.list_contexts,
        cap="contexts",
    ),
    Tool(
        name="browser_context_close",
        params=context_tools.NameParams,
        title="Close a browser context",
        description=describe(
            """
            Close a context and its browser (a person's Chrome is only unlisted). E.g. {"name":
            "b"} → Closed context "b" and stopped its browser. Active: default.
            """
        ),
        timeout_s=lambda params: context_tools.CLOSE_TIMEOUT_S,
        text=context_tools.close_text,
        read_only=False,
        cli="context close",
        method="context_close",
        positional=("name",),
        empty_body=None,
        daemon=context_tools.close,
        cap="contexts",
    ),
    Tool(
        name="browser_context_save_storage",
        params=context_tools.SaveStorageParams,
        title="Save a context's cookies and localStorage",
        description=describe(
            """
            Save cookies and localStorage (Playwright storageState) as file `path`, for
            browser_context_create's `storage_state`. E.g. {"path": "login"} → Saved context
            "default" to …/login.json: 4 cookies, localStorage of 1 origin.
            """
        ),
        timeout_s=lambda params: context_tools.EXPORT_TIMEOUT_S,
        text=context_tools.save_text,
        read_only=False,
        cli="context save",
        method="context_save_storage",
        positional=("name",),
        daemon=context_tools.save_storage,
        cap="contexts",
        model_check=context_tools.refuse_unsaved,
    ),
)

#: Every tool, by name.
TOOLS: dict[str, Tool] = {tool.name: tool for tool in _TOOLS}

#: The MCP capabilities a client may ask for, as Playwright MCP's `--caps`: `tabpilot mcp --caps
#: contexts`, or `/mcp?caps=contexts`. Every other face has every tool.
CAPS = frozenset(tool.cap for tool in TOOLS.values() if tool.cap is not None)


def parse_caps(text: str) -> frozenset[str]:
    """The capabilities of a comma-separated list, or InvalidRequest naming the known ones."""
    asked = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = asked - CAPS
    if unknown:
        raise InvalidRequest(
            f"Unknown MCP capability {sorted(unknown)[0]!r}; the capabilities are "
            f"{', '.join(sorted(CAPS))}."
        )
    return asked
