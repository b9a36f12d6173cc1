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

from tabpilot import functions, log_text, screenshot, tool_text
from tabpilot.errors import PilotDisabled, TabpilotError
from tabpilot.log_params import ConsoleParams, NetworkParams
from tabpilot.page_params import ActParams, CloseParams, NavigateParams, ReadParams, SnapshotParams
from tabpilot.params import ExecuteParams, Params, TabsParams
from tabpilot.protocol import ResultFrame, ToolName

if TYPE_CHECKING:
    from tabpilot.bridge import Bridge

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
    #: How the daemon sends it; None: the command as is (:meth:`Bridge.command`).
    send: Send | None = None
    #: Result fields the text carries whole; MCP leaves them out of its structured content.
    in_text: tuple[str, ...] = ()
    #: The result field holding an image in base64: MCP answers it as an image content block.
    image: str | None = None
    #: HTTP content negotiation: (Accept header, params) -> the params to run and the raw mime
    #: type to answer with (None: the JSON envelope).
    negotiate: Callable[[str, Any], tuple[Any, str | None]] | None = None

    @property
    def summary(self) -> str:
        """The description's first sentence: the CLI's one-line help."""
        return self.description.split(". ", 1)[0].rstrip(".")

    async def run(self, bridge: Bridge, params: Params, request_id: str) -> ResultFrame:
        """Send this tool's command for ``params``; the extension's ok answer, or raises."""
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
            Load an http(s) url in a tab, or go back, forward, or reload; waits until the page
            has loaded. Prefer it to setting location with execute_javascript: it waits for the
            load and says what went wrong (DNS, refused, timeout, an HTTP error status).

            Answers the final url (after redirects), the page's title and the HTTP status. Then
            take a browser_snapshot to see the page.
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
            See the page as an accessibility tree: headings, text, links, fields and buttons,
            each element one can act on with a ref such as [ref=e12]. Prefer it to reading the DOM
            with execute_javascript: it is compact and gives the refs that browser_act and
            execute_javascript (with `ref`) take.

            Use `interactive_only` for just the controls, `ref` for one element's subtree. A long
            page is cut at `max_chars`; its last line says what was left out. For the page's
            prose, use browser_read.
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
            Act on the page as a person would: click, type, press a key, scroll, hover, select an
            option, check or uncheck, on an element given by its ref from browser_snapshot.
            Prefer it to dispatching events with execute_javascript: it scrolls the element into
            view, checks that it can take the action (not covered, disabled or hidden) and says
            why not.

            Answers what was done (`Clicked button "Add to cart" (e12)`), and whether the page
            navigated or opened a tab. After an action that changes the page, take a new
            snapshot: old refs may be stale.
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
            Read the visible text of the page, or of one element by its ref, a slice at a time
            (`offset`, `limit`). Prefer it to `document.body.innerText` with execute_javascript: a
            long page comes in slices, each saying where it is and how to get the next.
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
            Close the tabs the AI opened (with browser_tabs or by an action) and let go of the
            debugger; the user's own tabs stay. With the daemon's managed browser, it also stops
            that browser; the next call starts it again. Call it when the task is done.
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
            Run JavaScript in the user's real Chrome tab and return its result as JSON.

            Use it to look inside a live page: read the DOM, globals and framework state (a Redux
            store, `window.__NEXT_DATA__`, a Vue or React instance), call functions the page or
            its WebAssembly exports, or act on the page. The script runs in the page's own
            JavaScript world, in the user's browser where they may be logged in, with the page's
            full privileges: what it changes is really changed. It runs only while the user's AI
            Web Pilot switch is on.

            With `ref` (from browser_snapshot), `script` is a function called with that element:
            `(el) => el.value`.

            The result is made JSON-safe: DOM nodes, functions, Maps, Sets, cycles and the like
            come back as short descriptions. Return just the fields you need, not whole objects:
            the result is read into your context. Dialogs the script raises are answered
            (dismissed unless `dialog` is "accept") and listed after the result.
            """
        ),
        timeout_s=_timeout_ms,
        text=tool_text.script_text,
        read_only=False,
        cli="exec",
        method="execute",
        empty_body=None,
        send=_execute,
    ),
    Tool(
        name="browser_tabs",
        params=TabsParams,
        title="Open, select or close the browser's tabs",
        description=describe(
            """
            List, open, select or close tabs of the user's browser.

            A new tab becomes the active one, where the other tools act by default. A tab stuck in
            a script (tab_unresponsive) or crashed (tab_crashed) is freed by closing it and
            opening a new one. `close` without `tab_id` closes the active tab only if the AI
            opened it.
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
            f"""
            Take a screenshot of the tab: the viewport by default, one element with `ref`, or the
            whole scrollable page with `full_page`. Prefer browser_snapshot to find and act on
            elements (it gives refs and costs less); take a screenshot to see layout, images,
            colours and charts, or to check what the user sees.

            JPEG by default, or `format` png for exact pixels (and, on flat text-only pages,
            often fewer bytes). The image is scaled down to at most
            `max_size` px on its long side (default {screenshot.MAX_SIZE}; 0: no scaling); the
            answer states the scale. A page taller than {screenshot.MAX_FULL_PAGE_PX:,} CSS px is
            captured to that height, with a note.
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
            Read the tab's console: what its page logged, and its uncaught errors. Captured since
            the page loaded: console.log, info, warn, error and debug, uncaught errors and
            unhandled promise rejections (with their stack), and Content Security Policy
            violations. Prefer it to wrapping console with
            execute_javascript: capture starts before the page's first script, so messages from
            before this call are there too.

            By default the newest 50 messages of the current page at level info or above; `level`
            "error" shows errors only, "debug" everything. Each message has a sequence number:
            pass the answer's `since` next time to see only what is new. `clear` empties the log
            after answering.
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
            List the tab's network requests since its page loaded: method, url, type, status,
            duration, size, from cache or not, and why a failed one failed (DNS, refused...).
            Prefer it to reading performance entries with execute_javascript: it sees failures,
            redirects and statuses, from before this call too.

            By default the newest 50 of the current page, with successful images, fonts,
            stylesheets and media hidden (counted; `include_static` shows them). Filter with
            `url` (text, or a `*` pattern), `type` ("xhr" for fetch and XHR) and `status`
            ("failed", "4xx", "404"). `include_body` with a request's # answers that request with
            its response body (fetch and XHR only). Pass the answer's `since` next time for what
            is new.
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
            Define a named JavaScript function once: it is syntax-checked, not run. Call it in any
            tab, after any navigation, with eval_call_function, until removed or the daemon
            restarts. Nothing is stored in the page.
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
            Call a function defined with eval_define_function in a tab, with `args_json` (a JSON
            array) as its arguments; with `ref`, that element comes first. Answers like
            execute_javascript.
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
    ),
    Tool(
        name="eval_list_functions",
        params=functions.ListFunctionsParams,
        title="List the defined page functions",
        description=describe(
            """
            List the functions defined with eval_define_function: each name and its first line.
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
            Remove a function defined with eval_define_function.
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
)

#: Every tool, by name.
TOOLS: dict[str, Tool] = {tool.name: tool for tool in _TOOLS}
