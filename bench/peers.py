"""The MCP servers compared with tabpilot, and one MCP client that speaks to all of them.

Each server runs as an agent's MCP configuration starts it, over stdio, and is driven by the
official Python SDK's own client: `tabpilot mcp` against a daemon with its managed Chromium, and
the peers pinned in bench/package.json (`make bench` installs them with `npm ci`), each launching
the same /usr/bin/chromium headless. A server differs from the others only by its tools' names and
arguments and by how its answers read, which is all `Server` says.

The SDK's client is asynchronous and the suites time plain calls, so the clients live on an event
loop in a thread of their own and each call is handed to it; that hand-off, a few tens of
microseconds, is the same for every server.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult

from bench.systems import MissingTool, Unavailable
from tabpilot.mcp.hints import PREFIX as HINT_PREFIX

BENCH = Path(__file__).resolve().parent
NODE_BIN = BENCH / "node_modules" / ".bin"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: A call that takes longer has hung: the bench fails it instead of waiting on it.
CALL_TIMEOUT_S = 120.0

#: The ref of an element in a snapshot line: tabpilot's and Playwright's `[ref=e12]` (Playwright's
#: `[ref=f1e12]` after a navigation), chrome-devtools-mcp's `uid=3_12`. Any token of either shape
#: on a line counts, so that a line that lists several refs counts each.
REF_TOKEN = re.compile(r"(?<![\w-])(?:ref=|uid=)?((?:f\d+)?e\d+|\d+_\d+)(?![\w-])")


@dataclass(frozen=True)
class FormField:
    """One field of a form to fill, as every server's form tool needs it: the label an agent
    reads in the snapshot, the kind of control (`text`, `checkbox`, `radio`, `select`), the
    ref the snapshot gave it, and the value (a boolean for a checkbox or radio)."""

    label: str
    kind: str
    ref: str
    value: str | bool


def _text(value: str | bool) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else value


#: Playwright MCP's `type` of a field, by kind.
_PLAYWRIGHT_TYPES = {
    "text": "textbox",
    "checkbox": "checkbox",
    "radio": "radio",
    "select": "combobox",
}


@dataclass(frozen=True)
class Server:
    """How one MCP server is started and what its tools are called with.

    ``page`` is what a tool needs to aim at a page: a tab id for tabpilot, a page id for
    chrome-devtools-mcp, nothing for Playwright MCP (its current tab; ``navigate`` moves it).
    """

    name: str
    version: str
    params: StdioServerParameters
    evaluate: Callable[[Any, str], tuple[str, dict[str, Any]]]
    snapshot: Callable[[Any], tuple[str, dict[str, Any]]]
    click: Callable[[Any, str], tuple[str, dict[str, Any]]]
    #: The console and network log tools, with their defaults.
    console: Callable[[Any], tuple[str, dict[str, Any]]]
    network: Callable[[Any], tuple[str, dict[str, Any]]]
    #: The value an evaluation answered, as the text of its JSON.
    value: Callable[[str], str]
    #: A screenshot of the page's viewport, or of the whole page (True), with the tool's defaults.
    screenshot: Callable[[Any, bool], tuple[str, dict[str, Any]]] | None = None
    #: Brings a page to the front, for a server whose screenshot of a background page never ends.
    front: Callable[[Any], tuple[str, dict[str, Any]]] | None = None
    #: Loads a url in the page (tabpilot's and Playwright MCP's `browser_navigate`).
    navigate: Callable[[Any, str], tuple[str, dict[str, Any]]] = lambda _, url: (
        "browser_navigate",
        {"url": url},
    )
    #: Fills a form's fields in one call, by their refs.
    fill_form: Callable[[Any, list[FormField]], tuple[str, dict[str, Any]]] | None = None
    #: Waits until a text appears on the page.
    wait_text: Callable[[Any, str], tuple[str, dict[str, Any]]] | None = None
    #: Finds a text on the page without the whole snapshot.
    find: Callable[[Any, str], tuple[str, dict[str, Any]]] | None = None


def _tabpilot_value(text: str) -> str:
    # The result, without the hints that may follow it a line each (tabpilot.mcp.hints).
    lines = text.strip().split("\n")
    while len(lines) > 1 and lines[-1].startswith(HINT_PREFIX):
        lines.pop()
    return "\n".join(lines)


def _playwright_value(text: str) -> str:
    match = re.search(r"^### Result\n(.*?)(?:\n###|\Z)", text, re.S | re.M)
    return match.group(1).strip() if match else text


def _devtools_value(text: str) -> str:
    match = re.search(r"```json\n(.*?)\n```", text, re.S)
    return match.group(1).strip() if match else text


def _with_tab(tab: Any, args: dict[str, Any]) -> dict[str, Any]:
    return args if tab is None else {**args, "tab_id": tab}


def tabpilot_server(port: int, state_dir: Path, caps: str = "") -> Server:
    """`tabpilot mcp` against the daemon on `port`, with the MCP capabilities `caps` (its
    default tools without)."""
    from tabpilot import __version__

    return Server(
        name="tabpilot",
        version=__version__,
        params=StdioServerParameters(
            command=sys.executable,
            args=["-m", "tabpilot", "mcp", "--port", str(port)]
            + (["--caps", caps] if caps else []),
            # The SDK starts servers with a few chosen variables only: PYTHONPATH, where set,
            # keeps `tabpilot mcp` on the same tabpilot as the bench.
            env={
                "TABPILOT_STATE_DIR": str(state_dir),
                **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
            },
        ),
        evaluate=lambda tab, js: ("execute_javascript", _with_tab(tab, {"script": js})),
        snapshot=lambda tab: ("browser_snapshot", _with_tab(tab, {})),
        click=lambda tab, ref: ("browser_act", _with_tab(tab, {"kind": "click", "ref": ref})),
        console=lambda tab: ("browser_console_messages", _with_tab(tab, {})),
        network=lambda tab: ("browser_network_requests", _with_tab(tab, {})),
        value=_tabpilot_value,
        screenshot=lambda tab, full: (
            "browser_take_screenshot",
            _with_tab(tab, {"full_page": True} if full else {}),
        ),
        fill_form=lambda tab, fields: (
            "browser_fill_form",
            _with_tab(tab, {"fields": [{"ref": f.ref, "value": f.value} for f in fields]}),
        ),
        wait_text=lambda tab, text: ("browser_wait_for", _with_tab(tab, {"text": text})),
        find=lambda tab, text: ("browser_find", _with_tab(tab, {"text": text})),
    )


def _pinned(package: str) -> str:
    lock = json.loads((BENCH / "package-lock.json").read_text())
    version: str = lock["packages"][f"node_modules/{package}"]["version"]
    return version


def _installed(binary: str, package: str) -> str:
    path = NODE_BIN / binary
    if not path.exists():
        raise Unavailable(f"{package} is not installed: `make bench` installs it (bench/, npm ci)")
    return str(path)


def playwright_server(workdir: Path) -> Server:
    """Playwright MCP. It writes snapshots and console logs under its working directory, so it
    runs in a temporary one."""
    command = _installed("playwright-mcp", "@playwright/mcp")
    args = ["--executable-path", CHROMIUM, "--headless", "--isolated", "--no-sandbox"]
    return Server(
        name="Playwright MCP",
        version=_pinned("@playwright/mcp"),
        params=StdioServerParameters(command=command, args=args, cwd=workdir),
        evaluate=lambda _, js: ("browser_evaluate", {"function": f"() => {js}"}),
        snapshot=lambda _: ("browser_snapshot", {}),
        click=lambda _, ref: ("browser_click", {"element": "Add to cart button", "target": ref}),
        console=lambda _: ("browser_console_messages", {}),
        network=lambda _: ("browser_network_requests", {}),
        value=_playwright_value,
        # `scale` is required by its schema; "css" is its default.
        screenshot=lambda _, full: (
            "browser_take_screenshot",
            {"scale": "css", **({"fullPage": True} if full else {})},
        ),
        fill_form=lambda _, fields: (
            "browser_fill_form",
            {
                "fields": [
                    {
                        "name": f.label,
                        "type": _PLAYWRIGHT_TYPES[f.kind],
                        "target": f.ref,
                        "value": _text(f.value),
                    }
                    for f in fields
                ]
            },
        ),
        wait_text=lambda _, text: ("browser_wait_for", {"text": text}),
        find=lambda _, text: ("browser_find", {"text": text}),
    )


def devtools_server(workdir: Path) -> Server:
    """chrome-devtools-mcp, without its usage statistics and CrUX look-ups (no network here)."""
    command = _installed("chrome-devtools-mcp", "chrome-devtools-mcp")
    args = [
        "--executablePath",
        CHROMIUM,
        "--headless",
        "--isolated",
        "--chromeArg=--no-sandbox",
        "--no-usage-statistics",
        "--no-performance-crux",
    ]
    return Server(
        name="chrome-devtools-mcp",
        version=_pinned("chrome-devtools-mcp"),
        params=StdioServerParameters(command=command, args=args, cwd=workdir),
        evaluate=lambda page, js: ("evaluate_script", {"pageId": page, "function": f"() => {js}"}),
        snapshot=lambda page: ("take_snapshot", {"pageId": page}),
        click=lambda page, ref: ("click", {"pageId": page, "uid": ref}),
        console=lambda page: ("list_console_messages", {"pageId": page}),
        network=lambda page: ("list_network_requests", {"pageId": page}),
        value=_devtools_value,
        screenshot=lambda page, full: (
            "take_screenshot",
            {"pageId": page, **({"fullPage": True} if full else {})},
        ),
        front=lambda page: ("select_page", {"pageId": page, "bringToFront": True}),
        navigate=lambda page, url: ("navigate_page", {"pageId": page, "type": "url", "url": url}),
        fill_form=lambda page, fields: (
            "fill_form",
            {"pageId": page, "elements": [{"uid": f.ref, "value": _text(f.value)} for f in fields]},
        ),
        wait_text=lambda page, text: ("wait_for", {"pageId": page, "text": [text]}),
    )


def images_of(result: CallToolResult | None) -> list[bytes]:
    """The images of a tool result's image blocks: what a model is handed to look at."""
    blocks = result.content if result is not None else []
    return [base64.b64decode(b.data) for b in blocks if getattr(b, "type", "") == "image"]


def text_of(result: CallToolResult) -> str:
    """Every text block of a tool result: what an agent reads."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


class Loop:
    """An asyncio event loop in a thread of its own, where the MCP clients live."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Any, timeout: float = CALL_TIMEOUT_S) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class Session:
    """One server's MCP client session, open for the `Loop`'s calls."""

    def __init__(self, loop: Loop, server: Server) -> None:
        self.loop, self.server = loop, server
        self.client: Client | None = None
        self.tools: set[str] = set()
        #: The tools as `tools/list` answered them, and the server's `instructions`.
        self.listing: list[dict[str, Any]] = []
        self.instructions: str | None = None
        self.last: CallToolResult | None = None

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        """Call a tool; its text, raising unless the server says it succeeded. The whole answer
        stays in `last`."""
        if self.client is None:
            raise Unavailable(f"{self.server.name} is not running")
        if tool not in self.tools:
            raise MissingTool(f"{self.server.name} {self.server.version} has no tool {tool!r}")
        self.last = self.loop.run(self.client.call_tool(tool, arguments))
        text = text_of(self.last)
        if self.last.is_error:
            raise RuntimeError(f"{self.server.name} {tool}: {text[:300]}")
        return text


async def _hold(server: Server, ready: Future[Client], stop: asyncio.Event) -> None:
    # The SDK's task groups must be entered and left in one task: this one, for the session's life.
    async with Client(server.params, read_timeout_seconds=CALL_TIMEOUT_S) as client:
        ready.set_result(client)
        await stop.wait()


@contextmanager
def session(loop: Loop, server: Server) -> Iterator[Session]:
    """Start the server, open a client session to it and list its tools."""
    stop = asyncio.Event()
    ready: Future[Client] = Future()
    held = asyncio.run_coroutine_threadsafe(_hold(server, ready, stop), loop.loop)

    def failed(done: Future[None]) -> None:
        if not ready.done() and done.exception() is not None:
            ready.set_exception(done.exception() or RuntimeError("stopped"))

    held.add_done_callback(failed)
    opened = Session(loop, server)
    try:
        opened.client = ready.result(CALL_TIMEOUT_S)
        listed, cursor = [], None
        while True:  # every page of it
            page = loop.run(opened.client.list_tools(cursor=cursor))
            listed += page.tools
            cursor = page.next_cursor
            if cursor is None:
                break
        opened.tools = {tool.name for tool in listed}
        # As sent: the fields the server set, no more (the SDK's models fill in the rest).
        opened.listing = [
            tool.model_dump(mode="json", by_alias=True, exclude_unset=True) for tool in listed
        ]
        opened.instructions = opened.client.instructions
        yield opened
    finally:
        loop.loop.call_soon_threadsafe(stop.set)
        try:
            held.result(30)
        except Exception as exc:  # must not hide the results
            print(f"bench: {server.name} did not stop cleanly: {exc!r}", file=sys.stderr)


def button_refs(text: str, name: str) -> list[str]:
    """The refs of the buttons called `name` in a snapshot, in order, each once.

    A ref stands on the button's own line (`- button "Add to cart" [ref=e12]`, `uid=1_31 button
    "Add to cart"`), or, where a snapshot collapses a run of same-shape siblings into a template
    and one line of fields per sibling, in the field the template names for it:
    `- 300 x listitem: (…, button "Add to cart" [ref={3}], …); one per line: {1}|{2}|{3}` and
    below it lines like `Walnut desk lamp|$9.00|e15`.
    """
    button = f'button "{name}"'
    refs: dict[str, None] = {}
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if button not in line:
            continue
        field = re.search(re.escape(button) + r"[^,)]*?\[ref=(\{\d+\})\]", line)
        spec = re.search(r"one per line: (\S+)\s*$", line)
        if field and spec:
            column = spec.group(1).split("|").index(field.group(1))
            indent = len(line) - len(line.lstrip())
            for row in lines[index + 1 :]:
                if len(row) - len(row.lstrip()) <= indent:
                    break
                cells = row.strip().split("|")
                if column < len(cells) and REF_TOKEN.fullmatch(cells[column]):
                    refs[cells[column]] = None
            continue
        refs.update(dict.fromkeys(REF_TOKEN.findall(line.replace(button, ""))))
    return list(refs)
