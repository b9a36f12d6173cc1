"""The tools, defined once: every face of tabpilot is generated from :data:`TOOLS`.

Each :class:`~tabpilot.tools.tool.Tool` holds its params model, a description written for a model,
its timeout rule, whether it only reads, and the formatter of its answer's text. Its name is at once
the extension command it sends, the HTTP route (``POST /<name>``), the ``/ws/calls`` method, the
MCP tool, and, in ``cli`` and the public client, the subcommand and method. The faces:
:mod:`tabpilot.http.tool_routes` (HTTP), :mod:`tabpilot.http.calls` (the callers' socket),
:mod:`tabpilot.mcp.server` (MCP), :mod:`tabpilot.cli.tool_commands` (CLI) and :mod:`tabpilot.client`
(``tabpilot.Client``). The context tools' entries are in :mod:`tabpilot.tools.context_table`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast

from tabpilot.errors import InvalidRequest, PilotDisabled, TabpilotError
from tabpilot.protocol import ResultFrame
from tabpilot.tools import functions, log_text, screenshot
from tabpilot.tools import text as tool_text
from tabpilot.tools.context_table import CONTEXT_TOOLS
from tabpilot.tools.fields import ExecuteParams, TabsParams
from tabpilot.tools.logs import ConsoleParams, NetworkParams
from tabpilot.tools.page import ActParams, CloseParams, NavigateParams, ReadParams, SnapshotParams
from tabpilot.tools.tool import Tool, describe

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge

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


def _timeout_ms(params: Any) -> float:
    return float(params.timeout_ms) / 1000


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
    *CONTEXT_TOOLS,
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


__all__ = ["CAPS", "TOOLS", "Tool", "describe", "parse_caps"]
