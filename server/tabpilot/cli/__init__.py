"""The `tabpilot` command line: start the daemon, run JavaScript, see what is connected."""

from __future__ import annotations

import argparse
import codecs
import importlib.util
import io
import json
import logging
import sys
from collections.abc import Sequence
from typing import Any

from tabpilot import __version__
from tabpilot.cli.tool_commands import (
    CliError,
    add_context_option,
    add_tool_commands,
    context_query,
    fetch_envelope,
    port_of,
)
from tabpilot.client.connection import CLIENT_SLACK_S
from tabpilot.config import DEFAULT_PORT, LOOPBACK_HOST, Settings
from tabpilot.envelope import result_text
from tabpilot.errors import TabpilotError
from tabpilot.tools import parse_caps

EXIT_OK = 0
EXIT_FAILED = 1


def format_result(result: Any, result_type: str | None) -> str:
    """A result as a person reads it: `42`, `hello world`, indented JSON, `undefined`."""
    return result_text(result, result_type, indent=2)


def _request(args: argparse.Namespace, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
    status, body = fetch_envelope(args, method, path, params=context_query(args), **kwargs)
    if not body.get("success"):
        error = body.get("error") or {}
        raise CliError(error.get("message") or f"HTTP {status}")
    return body


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the daemon in the foreground until Ctrl-C."""
    from tabpilot.http.app import serve

    settings = Settings.from_env(
        host=args.host,
        port=args.port,
        connect_grace_s=args.connect_grace,
        managed_browser=args.browser or args.headed,
        headed=args.headed,
        access_log=args.access_log or None,
        token=args.token,
    )
    serve(settings)
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve tabpilot's MCP tools over stdio, forwarding each call to the running daemon."""
    import anyio

    from tabpilot.client.connection import DaemonClient
    from tabpilot.mcp.server import run_stdio

    # stdout carries the protocol; anything the server logs goes to stderr.
    logging.basicConfig(level=logging.WARNING, format="tabpilot mcp: %(levelname)s: %(message)s")
    settings = Settings.from_env(port=args.port)

    caps = parse_caps(args.caps or "")

    async def serve() -> None:
        async with DaemonClient(settings) as client:
            await run_stdio(client, caps)

    # uvloop where it is installed (not on Windows), as the daemon runs: its loop and pipes
    # cost less per call.
    anyio.run(serve, backend_options={"use_uvloop": importlib.util.find_spec("uvloop") is not None})
    return EXIT_OK


def _script(arg: str) -> str:
    """The script of `exec`: the argument, or stdin for `-`; either must be UTF-8 text."""
    if arg == "-":
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"byte {exc.start} is {data[exc.start]:#04x}"
            raise CliError(
                f"the script on stdin is not UTF-8 text ({where}). Save it as UTF-8 and retry."
            ) from None
    try:
        arg.encode("utf-8")  # undecodable bytes of argv arrive as lone surrogates
    except UnicodeEncodeError:
        raise CliError(
            "the script argument is not UTF-8 text. Pass UTF-8, or save the script to a file "
            "and run `tabpilot exec - < FILE`."
        ) from None
    return arg


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


def _caps(text: str) -> str:
    try:
        parse_caps(text)
    except TabpilotError as error:
        raise argparse.ArgumentTypeError(error.message) from None
    return text


def cmd_exec(args: argparse.Namespace) -> int:
    """Run one script and print its result."""
    try:
        payload: dict[str, Any] = {
            "script": _script(args.script),
            "timeout_ms": args.timeout_ms,
            "await_promise": not args.no_await,
            "dialog": args.dialog,
        }
        if args.prompt_text is not None:
            payload["prompt_text"] = args.prompt_text
        if args.tab is not None:
            payload["tab_id"] = args.tab
        if args.ref is not None:
            payload["ref"] = args.ref
        body = _request(
            args,
            "POST",
            "/execute_javascript",
            json=payload,
            timeout=args.timeout_ms / 1000 + CLIENT_SLACK_S,
        )
    except CliError as error:
        if args.json:
            print(json.dumps({"success": False, "error": {"message": str(error)}}))
        raise
    if args.json:
        print(json.dumps(body, ensure_ascii=False))
    else:
        print(format_result(body["result"], body.get("result_type")))
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    """Say in one glance what is connected and whether the pilot is on."""
    status = _request(args, "GET", "/status", timeout=5)["result"]
    if args.json:
        print(json.dumps(status, indent=2))
        return EXIT_OK
    extension = status.get("extension") or {}
    pilot = extension.get("pilot_enabled")
    lines = [
        ("daemon", f"tabpilot {status.get('daemon_version')} on {LOOPBACK_HOST}:{port_of(args)}"),
        (
            "extension",
            f"connected (version {extension.get('version')}, id {extension.get('id')})"
            if extension.get("connected")
            else "not connected: open Chrome with the tabpilot extension, "
            "or run `tabpilot serve --browser`",
        ),
        (
            "pilot",
            "unknown"
            if pilot is None
            else ("ON" if pilot else "OFF (turn on AI Web Pilot in the extension popup)"),
        ),
        ("in flight", str(status.get("in_flight", 0))),
    ]
    browser = status.get("browser")
    if browser:
        mode = "headless" if browser.get("headless") else "headed"
        state = (
            f"running (pid {browser.get('pid')})"
            if browser.get("running")
            else "stopped (the next call starts it)"
        )
        lines.append(("browser", f"managed {mode} Chromium, {state}"))
    contexts = status.get("contexts") or []
    if len(contexts) > 1:
        default = status.get("default_context")
        lines.append(
            (
                "contexts",
                ", ".join(
                    c["name"]
                    + (" (default)" if c["name"] == default else "")
                    + ("" if c.get("connected") else " (not connected)")
                    for c in contexts
                ),
            )
        )
    width = max(len(label) for label, _ in lines)
    for label, value in lines:
        print(f"{label.ljust(width)}  {value}")
    return EXIT_OK


def cmd_tabs(args: argparse.Namespace) -> int:
    """List the browser's tabs, or open, select or close one."""
    body: dict[str, Any] = {"action": args.action}
    if args.action == "new" and args.target is not None:
        body["url"] = args.target
    elif args.action == "close" and args.target is None:
        pass  # the active tab, if the AI opened it: the extension decides
    elif args.action in ("select", "close"):
        if args.target is None or not args.target.isdigit():
            raise CliError(
                f"tabpilot tabs {args.action} needs a tab id; `tabpilot tabs` lists them."
            )
        body["tab_id"] = int(args.target)
    elif args.target is not None:
        raise CliError(f"tabpilot tabs {args.action} takes no argument.")
    result = _request(args, "POST", "/browser_tabs", json=body, timeout=15)["result"]
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return EXIT_OK
    for tab in result if args.action == "list" else [result]:
        if "closed" in tab:
            print(f"closed {tab['closed']}")
            if tab.get("opened"):
                print(f"opened {tab['opened']['id']}  {tab['opened']['url']}")
            continue
        mark = "*" if tab.get("active") else " "
        print(f"{mark} {tab.get('id'):>6}  {tab.get('title') or '(untitled)'}  {tab.get('url')}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command; the README's CLI reference is generated from it."""
    parser = argparse.ArgumentParser(
        prog="tabpilot",
        description="Run JavaScript in a real Chrome tab, gated by the AI Web Pilot switch.",
    )
    parser.add_argument("--version", action="version", version=f"tabpilot {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    port_help = f"daemon port (default: $TABPILOT_PORT or {DEFAULT_PORT})"

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
        "--token",
        metavar="SECRET",
        help="require this shared secret from every caller and the extension (default: "
        "$TABPILOT_TOKEN, else the file token in the state dir); other users can read a "
        "command line, so prefer the file",
    )
    serve.set_defaults(func=cmd_serve)

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

    mcp = commands.add_parser(
        "mcp",
        help="serve the MCP tools over stdio, for an agent's MCP configuration",
        description="Serve tabpilot's MCP tools (the page tools, execute_javascript, "
        "browser_tabs, pilot_status) over stdio. An MCP client starts it; each call "
        "goes to the daemon, which must be running (`tabpilot serve`).",
    )
    mcp.add_argument(
        "--caps",
        type=_caps,
        metavar="CAPS",
        help="also list these tools, comma-separated: contexts (create, switch, list, close and "
        "save browser contexts)",
    )
    mcp.add_argument("--port", type=int, help=port_help)
    mcp.set_defaults(func=cmd_mcp)

    status = commands.add_parser(
        "status",
        help="show what is connected and whether the pilot is on",
        description="Show the daemon, the extension, the AI Web Pilot switch and the browser.",
    )
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    status.add_argument("--port", type=int, help=port_help)
    status.set_defaults(func=cmd_status)

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

    add_tool_commands(commands, port_help)
    return parser


def _replace_unprintable(exc: UnicodeError) -> tuple[str, int]:
    # A lone surrogate (a JavaScript string may hold one) has no UTF-8 form: U+FFFD, as the
    # daemon writes it; a character the terminal's encoding lacks: "?". Never a traceback.
    assert isinstance(exc, UnicodeEncodeError)
    utf = exc.encoding.lower().replace("-", "").replace("_", "").startswith("utf")
    return ("\ufffd" if utf else "?") * (exc.end - exc.start), exc.end


codecs.register_error("tabpilot.replace", _replace_unprintable)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `tabpilot` console command."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="tabpilot.replace")
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except CliError as error:
        print(f"Error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_FAILED
    return code
