"""The CLI face of the tools: a subcommand per tool of :data:`tabpilot.tools.TOOLS`, its options
generated from the tool's params model, its help from the tool's description.

Each prints the text a model would read (``Navigated to … (HTTP 200): "…"``), or the whole
envelope with ``--json``, and exits 1 on a failure. ``exec`` and ``tabs`` are written by hand in
:mod:`tabpilot.cli` (they predate the table and keep their own output), so they are skipped here.
"""

from __future__ import annotations

import argparse
import json
import types
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin

import httpx

from tabpilot.client import CLIENT_SLACK_S
from tabpilot.config import LOOPBACK_HOST, Settings, client_headers
from tabpilot.errors import START_DAEMON
from tabpilot.screenshot import save_image
from tabpilot.tools import TOOLS, Tool

#: Subcommands of table tools that cli.py writes by hand.
HAND_WRITTEN = ("exec", "tabs")

#: Fields whose option is not simply --field-name.
OPTION_NAMES = {"tab_id": "--tab", "values": "--value"}


class CliError(Exception):
    """A failure to print as one `Error: …` line."""


def port_of(args: argparse.Namespace) -> int:
    """The daemon's port: --port, else TABPILOT_PORT, else the default."""
    return int(args.port) if args.port is not None else Settings.from_env().port


def fetch_envelope(
    args: argparse.Namespace, method: str, path: str, **kwargs: Any
) -> tuple[int, dict[str, Any]]:
    """One request to the daemon: the HTTP status and the envelope; CliError if there is none."""
    port = port_of(args)
    url = f"http://{LOOPBACK_HOST}:{port}{path}"
    headers = client_headers(Settings.from_env())
    try:
        response = httpx.request(method, url, headers=headers, **kwargs)
    except httpx.ConnectError:
        raise CliError(
            f"the tabpilot daemon is not running on {LOOPBACK_HOST}:{port}. {START_DAEMON}"
        ) from None
    except httpx.TimeoutException:
        raise CliError(f"the daemon did not answer {path} in time.") from None
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise CliError(f"the daemon answered {path} with HTTP {response.status_code}.")
    return response.status_code, body


def _bare(annotation: Any) -> tuple[Any, bool]:
    """``annotation`` without its ``| None``, and whether it had one."""
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        return rest[0], len(rest) < len(get_args(annotation))
    return annotation, False


def _option(tool: Tool, name: str) -> tuple[list[str], dict[str, Any]]:
    """The add_argument() of one field: its flags and keywords."""
    field = tool.params.model_fields[name]
    kind, _ = _bare(field.annotation)
    help_text = (field.description or "").replace("%", "%%")
    options: dict[str, Any] = {"dest": name, "help": help_text, "default": argparse.SUPPRESS}
    if kind is bool:
        options["action"] = "store_true"
    elif get_origin(kind) is list:
        options.update(action="append", metavar=name.rstrip("s").upper())
        options["help"] += " Repeat the option for each."
    elif get_origin(kind) is Literal:
        options["choices"] = get_args(kind)
    elif kind is int:
        options.update(type=int, metavar="N")
    else:
        options["metavar"] = name.upper()
    if name in tool.positional:
        del options["dest"]
        options["metavar"] = name.upper()
        if not field.is_required():
            options["nargs"] = "?"
        return [name], options
    return [OPTION_NAMES.get(name, "--" + name.replace("_", "-"))], options


def add_tool_commands(commands: Any, port_help: str) -> None:
    """A subcommand for each tool of the table, but for those cli.py writes itself."""
    for tool in TOOLS.values():
        if tool.cli in HAND_WRITTEN:
            continue
        parser = commands.add_parser(
            tool.cli,
            help=tool.summary[0].lower() + tool.summary[1:],
            description=tool.description.replace("%", "%%"),
        )
        fields = tool.params.model_fields
        for name in (*tool.positional, *(f for f in fields if f not in tool.positional)):
            flags, options = _option(tool, name)
            parser.add_argument(*flags, **options)
        if tool.image is not None:
            parser.add_argument(
                "-o",
                "--output",
                metavar="FILE",
                help="write the image here (default: screenshot-<time>.jpg or .png in the "
                "current directory; -: stdout)",
            )
        parser.add_argument("--json", action="store_true", help="print the whole envelope")
        parser.add_argument("--port", type=int, help=port_help)
        parser.set_defaults(func=_command(tool))


def _command(tool: Tool) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        return call_tool(tool, args)

    return run


def call_tool(tool: Tool, args: argparse.Namespace) -> int:
    """Call ``tool`` with the fields given on the command line; print its text or envelope."""
    body = {name: getattr(args, name) for name in tool.params.model_fields if name in args}
    # The params' own defaults decide how long the daemon may take; the CLI waits past that.
    timeout = tool.timeout_s(tool.params.model_construct(**body)) + CLIENT_SLACK_S
    _, envelope = fetch_envelope(args, "POST", f"/{tool.name}", json=body, timeout=timeout)
    output = getattr(args, "output", None)
    if args.json:
        # The image is in the envelope; a file is written only when -o names one.
        if output is not None and envelope.get("success"):
            save_image(envelope, output)
        print(json.dumps(envelope, ensure_ascii=False))
        return 0 if envelope.get("success") else 1
    if not envelope.get("success"):
        raise CliError((envelope.get("error") or {}).get("message") or "the call failed")
    if tool.image is not None:
        path = save_image(envelope, output)
        if path != "-":
            print(f"{path}: {tool.text(envelope)}")
        return 0
    print(tool.text(envelope))
    return 0
