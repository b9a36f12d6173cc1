"""The hand-written commands of `tabpilot`: serve, mcp, exec, status and tabs (the tools' own
subcommands are generated in :mod:`tabpilot.cli.tool_commands`)."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import logging
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from tabpilot.cli.autostart import Autostarting, ensure_daemon
from tabpilot.cli.tool_commands import (
    CliError,
    failed,
    fetch_envelope,
    port_of,
)
from tabpilot.config import LOOPBACK_HOST, Settings, parse_sites
from tabpilot.envelope import failure_body, result_text
from tabpilot.errors import InvalidRequest
from tabpilot.ids import new_request_id
from tabpilot.tools import parse_caps

T = TypeVar("T")

EXIT_OK = 0
EXIT_FAILED = 1


def format_result(result: Any, result_type: str | None) -> str:
    """A result as a person reads it: `42`, `hello world`, indented JSON, `undefined`."""
    return result_text(result, result_type, indent=2)


def _request(args: argparse.Namespace, method: str, params: dict[str, Any]) -> dict[str, Any]:
    envelope = fetch_envelope(args, method, params)
    if not envelope.get("success"):
        raise failed(envelope)
    return envelope


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
        block_sites=parse_sites(args.block_site, "--block-site") if args.block_site else None,
        only_sites=parse_sites(args.only_site, "--only-site") if args.only_site else None,
        idle_stop_s=args.idle_stop,
    )
    serve(settings)
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve tabpilot's MCP tools over stdio, forwarding each call to the running daemon."""
    # stdout carries the protocol; anything the server logs goes to stderr.
    logging.basicConfig(level=logging.WARNING, format="tabpilot mcp: %(levelname)s: %(message)s")
    settings = Settings.from_env(port=args.port)
    caps = parse_caps(args.caps or "")
    idle_stop_s = None if args.stay else args.idle_stop
    # With --browser, the daemon is found or started in a thread from the first moment, while
    # the MCP SDK below imports (about 0.6 s).
    first_start = _in_thread(ensure_daemon, settings, idle_stop_s) if args.browser else None

    import anyio

    from tabpilot.client.connection import DaemonClient
    from tabpilot.mcp.stdio import run_stdio

    async def serve() -> None:
        async with DaemonClient(settings) as client:
            if first_start is None:
                await run_stdio(client, caps)
                return
            backend = Autostarting(client, settings, idle_stop_s, first_start)
            # MCP is served while the daemon starts (initialize needs none of it); the first
            # call waits for the start, and gets a working browser.
            starting = asyncio.create_task(backend.start())
            await run_stdio(backend, caps)
            starting.cancel()

    # uvloop where it is installed (not on Windows), as the daemon runs: its loop and pipes
    # cost less per call.
    anyio.run(serve, backend_options={"use_uvloop": importlib.util.find_spec("uvloop") is not None})
    return EXIT_OK


def _in_thread(fn: Callable[..., T], *args: Any) -> Future[T]:
    """``fn(*args)`` running in a thread of its own (a daemon thread: it never holds up exit)."""
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # handed to whoever awaits the future
            future.set_exception(exc)

    threading.Thread(target=run, name="tabpilot-autostart", daemon=True).start()
    return future


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


def cmd_exec(args: argparse.Namespace) -> int:
    """Run one script and print its result."""
    try:
        payload: dict[str, Any] = {
            "script": _script(args.script),
            "timeout_ms": args.timeout_ms,
            "await_promise": not args.no_await,
            "dialog": args.dialog,
        }
        given = {"prompt_text": args.prompt_text, "tab_id": args.tab, "ref": args.ref}
        payload |= {name: value for name, value in given.items() if value is not None}
    except CliError as error:
        if args.json:  # the script could not be read: no call was made
            print(json.dumps(failure_body(new_request_id(), InvalidRequest(str(error)))))
        raise
    body = fetch_envelope(args, "execute_javascript", payload)
    if args.json:
        print(json.dumps(body, ensure_ascii=False))
        return EXIT_OK if body.get("success") else EXIT_FAILED
    if not body.get("success"):
        raise failed(body)
    print(format_result(body["result"], body.get("result_type")))
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    """Say in one glance what is connected and whether the pilot is on."""
    status = _request(args, "status", {})["result"]
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
    result = _request(args, "browser_tabs", body)["result"]
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
