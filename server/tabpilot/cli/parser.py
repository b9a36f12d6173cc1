"""The parser of every `tabpilot` command, one function a hand-written command; the tools'
subcommands come from their table (:func:`tabpilot.cli.tool_commands.add_tool_commands`)."""

from __future__ import annotations

import argparse
from typing import Any

from tabpilot import __version__
from tabpilot.cli.autostart import IDLE_STOP_S
from tabpilot.cli.commands import cmd_exec, cmd_mcp, cmd_serve, cmd_status, cmd_tabs
from tabpilot.cli.extension import cmd_extension
from tabpilot.cli.tool_commands import add_context_option, add_tool_commands
from tabpilot.config import DEFAULT_PORT, LOOPBACK_HOST
from tabpilot.errors import TabpilotError
from tabpilot.tools import parse_caps


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command; the README's CLI reference is generated from it."""
    parser = argparse.ArgumentParser(
        prog="tabpilot",
        description="Run JavaScript in a real Chrome tab, gated by the AI Web Pilot switch.",
    )
    parser.add_argument("--version", action="version", version=f"tabpilot {__version__}")
    parser.add_argument(
        "--raw",
        action="store_true",
        help="print what pages sent as is; by default, control characters, escape sequences and "
        "bidirectional overrides in the output are shown escaped (ESC as \\u001b), so that a "
        "page cannot drive your terminal",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    port_help = f"daemon port (default: $TABPILOT_PORT or {DEFAULT_PORT})"
    add_serve_parser(commands, port_help)
    add_exec_parser(commands, port_help)
    add_mcp_parser(commands, port_help)
    add_status_parser(commands, port_help)
    add_tabs_parser(commands, port_help)
    add_extension_parser(commands)
    add_tool_commands(commands, port_help)
    return parser


def add_serve_parser(commands: Any, port_help: str) -> None:
    """`tabpilot serve`."""
    serve = commands.add_parser(
        "serve",
        help="run the daemon on 127.0.0.1",
        description="Run the daemon on 127.0.0.1 until Ctrl-C. It never binds another address.",
    )
    serve.add_argument("--port", type=int, help=port_help)
    serve.add_argument(
        "--host",
        default=LOOPBACK_HOST,
        help="only 127.0.0.1 is accepted: the daemon drives your browser, so it is never "
        "reachable from the network",
    )
    serve.add_argument(
        "--browser",
        action="store_true",
        help="also launch a managed headless Chromium with the extension (the pilot starts on)",
    )
    serve.add_argument(
        "--headed", action="store_true", help="like --browser, with a visible window"
    )
    serve.add_argument(
        "--connect-grace",
        type=float,
        metavar="SECONDS",
        help="how long a command waits for the extension to connect (default: 3)",
    )
    serve.add_argument(
        "--access-log",
        action="store_true",
        help="log every HTTP request (off by default: a log line per call costs more than the "
        "call's own work in the daemon)",
    )
    serve.add_argument(
        "--block-site",
        action="append",
        metavar="SITE",
        help="never let the AI act on SITE (bank.example covers its subdomains, *.example.com "
        "only them), in the managed browser and in a person's Chrome, on top of the rules in its "
        "popup; repeat for more (default: $TABPILOT_BLOCK_SITES)",
    )
    serve.add_argument(
        "--only-site",
        action="append",
        metavar="SITE",
        help="let the AI act only on the sites given so (repeat for more; default: "
        "$TABPILOT_ONLY_SITES)",
    )
    serve.add_argument(
        "--token",
        metavar="SECRET",
        help="require this shared secret from every caller and the extension (default: "
        "$TABPILOT_TOKEN, else the file token in the state dir); other users can read a "
        "command line, so prefer the file",
    )
    serve.add_argument(
        "--idle-stop",
        type=_seconds,
        metavar="SECONDS",
        help="stop after SECONDS with no caller (no request, no `tabpilot mcp` connected); "
        "`tabpilot mcp --browser` starts its daemon so (default: run until stopped)",
    )
    # Its output is the daemon's log (uvicorn colours it on a terminal), not a page's text.
    serve.set_defaults(func=cmd_serve, own_streams=True)


def add_exec_parser(commands: Any, port_help: str) -> None:
    """`tabpilot exec`."""
    run = commands.add_parser(
        "exec",
        help="run JavaScript in a tab and print the result",
        description="Run JavaScript in a tab and print the result. Exits 1 on any failure.",
    )
    run.add_argument(
        "script", metavar="SCRIPT", help="an expression or a body with return; - reads stdin"
    )
    run.add_argument("--tab", type=int, metavar="ID", help="tab id (default: the active tab)")
    run.add_argument(
        "--ref",
        metavar="REF",
        help="an element ref from `tabpilot snapshot`; SCRIPT is then a function called with "
        "the element, e.g. '(el) => el.value'",
    )
    run.add_argument(
        "--timeout-ms",
        type=_timeout_ms,
        default=5000,
        metavar="N",
        help="give up after N ms (default: 5000)",
    )
    run.add_argument(
        "--no-await", action="store_true", help="return a promise as is instead of awaiting it"
    )
    run.add_argument(
        "--dialog",
        choices=("accept", "dismiss"),
        default="dismiss",
        help="answer alerts, confirms and prompts the script raises (default: dismiss)",
    )
    run.add_argument(
        "--prompt-text", metavar="TEXT", help="what an accepted prompt answers (default: its own)"
    )
    run.add_argument("--json", action="store_true", help="print the whole response envelope")
    add_context_option(run)
    run.add_argument("--port", type=int, help=port_help)
    run.set_defaults(func=cmd_exec)


def add_mcp_parser(commands: Any, port_help: str) -> None:
    """`tabpilot mcp`."""
    mcp = commands.add_parser(
        "mcp",
        help="serve the MCP tools over stdio, for an agent's MCP configuration",
        description="Serve tabpilot's MCP tools (the page tools, execute_javascript, "
        "browser_tabs, pilot_status) over stdio. An MCP client starts it; each call "
        "goes to the daemon on the port: a running `tabpilot serve` (for the extension in your "
        "own Chrome), or, with --browser, one it starts by itself when none answers.",
    )
    mcp.add_argument(
        "--browser",
        action="store_true",
        help="when no daemon answers on the port, start `tabpilot serve --browser` (its own "
        "headless Chromium) in the background, shared by every client that starts so; its log "
        "is daemon-PORT.log in the state dir",
    )
    mcp.add_argument(
        "--idle-stop",
        type=_seconds,
        default=IDLE_STOP_S,
        metavar="SECONDS",
        help="with --browser: the daemon it starts stops after SECONDS with no client "
        f"(default: {IDLE_STOP_S:g})",
    )
    mcp.add_argument(
        "--stay",
        action="store_true",
        help="with --browser: the daemon it starts runs until stopped, like `tabpilot serve`",
    )
    mcp.add_argument(
        "--caps",
        type=_caps,
        metavar="CAPS",
        help="also list these tools, comma-separated: contexts (create, switch, list, close and "
        "save browser contexts)",
    )
    mcp.add_argument("--port", type=int, help=port_help)
    # Its stdout is the MCP protocol itself.
    mcp.set_defaults(func=cmd_mcp, own_streams=True)


def add_status_parser(commands: Any, port_help: str) -> None:
    """`tabpilot status`."""
    status = commands.add_parser(
        "status",
        help="show what is connected and whether the pilot is on",
        description="Show the daemon, the extension, the AI Web Pilot switch and the browser.",
    )
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    status.add_argument("--port", type=int, help=port_help)
    status.set_defaults(func=cmd_status)


def add_tabs_parser(commands: Any, port_help: str) -> None:
    """`tabpilot tabs`."""
    tabs = commands.add_parser(
        "tabs",
        help="list, open, select or close the browser's tabs",
        description="List the browser's tabs (the default), open a new one (at URL, else the "
        "daemon's landing page), or select or close the tab ID. Closing a stuck tab and opening "
        "a new one is the way back from a page no script can free.",
    )
    tabs.add_argument(
        "action", nargs="?", default="list", choices=("list", "new", "select", "close")
    )
    tabs.add_argument("target", nargs="?", metavar="URL|ID", help="the url to open, or a tab id")
    tabs.add_argument("--json", action="store_true", help="print the result as JSON")
    add_context_option(tabs)
    tabs.add_argument("--port", type=int, help=port_help)
    tabs.set_defaults(func=cmd_tabs)


def add_extension_parser(commands: Any) -> None:
    """`tabpilot extension`."""
    extension = commands.add_parser(
        "extension",
        help="print the extension's folder, for Load unpacked in your own Chrome",
        description="Print the folder of the extension this tabpilot carries, for "
        "chrome://extensions: turn on Developer mode, click Load unpacked, choose the folder. "
        "That folder moves when tabpilot is upgraded; --copy-to puts a copy where it stays "
        "(its id is the same everywhere).",
    )
    extension.add_argument(
        "--copy-to",
        metavar="DIR",
        help="copy the extension to DIR, a new or empty folder, or one holding an earlier copy, "
        "which it replaces; any other folder is left alone",
    )
    extension.set_defaults(func=cmd_extension)


def _timeout_ms(text: str) -> int:
    """--timeout-ms: a whole number of milliseconds, written 5000 or 5000.0 as the API takes it."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of milliseconds") from None
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"{text} is not a whole number of milliseconds")
    return int(value)


def _seconds(text: str) -> float:
    """--idle-stop: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds above 0")
    return value


def _caps(text: str) -> str:
    try:
        parse_caps(text)
    except TabpilotError as error:
        raise argparse.ArgumentTypeError(error.message) from None
    return text
