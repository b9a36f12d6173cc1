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
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from tabpilot.cli.images import save_image
from tabpilot.client import Client
from tabpilot.config import Settings
from tabpilot.tools import TOOLS, Tool

#: Fields whose option is not simply --field-name.
OPTION_NAMES = {
    "tab_id": "--tab",
    "values": "--value",
    "modifiers": "--modifier",
    "fields": "--field",
}


class CliError(Exception):
    """A failure to print as one `Error: …` line."""


def port_of(args: argparse.Namespace) -> int:
    """The daemon's port: --port, else TABPILOT_PORT, else the default."""
    return int(args.port) if args.port is not None else Settings.from_env().port


#: The CLI's own active context (`tabpilot context switch`), in the state dir: each command is
#: its own process, so the daemon cannot hold it.
CONTEXT_FILE_NAME = "cli-context"


def _context_file() -> Path:
    return Settings.from_env().state_dir / CONTEXT_FILE_NAME


def cli_context() -> str | None:
    """The context `tabpilot context switch` chose for later commands, if any."""
    try:
        name = _context_file().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name or None


def set_cli_context(name: str | None) -> None:
    """Make ``name`` the context of later commands (None: the daemon's default context)."""
    path = _context_file()
    if name is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_text(name + "\n", encoding="utf-8")


def context_name(args: argparse.Namespace) -> str | None:
    """The context a command runs in: --context, else the one `context switch` chose (None: the
    daemon's default)."""
    return getattr(args, "context", None) or cli_context()


def fetch_envelope(
    args: argparse.Namespace, method: str, params: dict[str, Any], *, in_context: bool = True
) -> dict[str, Any]:
    """One call to the daemon, through the public client's socket: its whole envelope (a daemon
    that does not answer is a ``daemon_unreachable`` failure). ``in_context``: in the context of
    --context, else the one `context switch` chose."""
    context = context_name(args) if in_context else None
    with Client(port_of(args), context=context) as client:
        return client.envelope(method, params)


def failed(envelope: dict[str, Any]) -> CliError:
    """The one line a failure envelope prints as."""
    error = envelope.get("error") or {}
    return CliError(str(error.get("message") or error.get("code") or "the call failed"))


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
        item: Any = get_args(kind)[0]
        if hasattr(item, "from_cli"):
            # A list of objects (browser_fill_form's fields): each written as its model reads it.
            options.update(type=_from_cli(item.from_cli), metavar=item.cli_metavar)
            options["help"] = item.cli_help
    elif get_origin(kind) is Literal:
        options["choices"] = get_args(kind)
    elif isinstance(kind, type) and issubclass(kind, BaseModel) and hasattr(kind, "from_cli"):
        # An object with a short form of its own (browser_take_screenshot's clip: X,Y,W,H).
        options.update(type=_from_cli(kind.from_cli), metavar=getattr(kind, "cli_metavar", None))
        options["help"] = getattr(kind, "cli_help", help_text)
    elif isinstance(kind, type) and issubclass(kind, BaseModel):
        options.update(type=_object_or_server, metavar=name.upper())
        options["help"] += " A JSON object, or just its server: scheme://host:port."
    elif kind is int:
        options.update(type=int, metavar="N")
    elif kind is float:
        options.update(type=float, metavar="N")
    else:
        options["metavar"] = name.upper()
    if name in tool.cli.positional:
        del options["dest"]
        options["metavar"] = name.upper()
        if get_origin(kind) is list:  # the last positional takes the rest: `upload e7 a.pdf b.png`
            options.pop("action")
            options["help"] = help_text
            options["metavar"] = name.rstrip("s").upper()
            options["nargs"] = "+"
        elif not field.is_required():
            options["nargs"] = "?"
        return [name], options
    return [OPTION_NAMES.get(name, "--" + name.replace("_", "-"))], options


def _from_cli(read: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type from a model's own reading of one command-line word."""

    def convert(text: str) -> Any:
        try:
            return read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def _object_or_server(text: str) -> dict[str, Any] | str:
    """A nested object given on the command line (a context's proxy): JSON, or a bare url that
    stands for ``{"server": url}``."""
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"not a JSON object: {exc}") from None
        return value if isinstance(value, dict) else text
    return {"server": text}


def add_tool_commands(commands: Any, port_help: str) -> None:
    """A subcommand for each tool of the table, but for those cli.py writes itself; a tool whose
    `cli` is two words (`context create`) is a subcommand of the first."""
    groups: dict[str, Any] = {}
    for tool in TOOLS.values():
        if tool.cli.hand_written:
            continue
        where, name = commands, tool.cli.name
        if " " in name:
            group, name = name.split(" ", 1)
            if group not in groups:
                parent = commands.add_parser(
                    group,
                    help=GROUP_HELP[group],
                    description=GROUP_HELP[group][0].upper() + GROUP_HELP[group][1:] + ".",
                )
                groups[group] = parent.add_subparsers(
                    dest=f"{group}_command", metavar="COMMAND", required=True
                )
            where = groups[group]
        parser = where.add_parser(
            name,
            help=tool.summary[0].lower() + tool.summary[1:],
            description=tool.description.replace("%", "%%"),
        )
        fields = tool.params.model_fields
        for name in (*tool.cli.positional, *(f for f in fields if f not in tool.cli.positional)):
            flags, options = _option(tool, name)
            parser.add_argument(*flags, **options)
        if tool.mcp.image is not None:
            parser.add_argument(
                "-o",
                "--output",
                metavar="FILE",
                help="write the image here (default: screenshot-<time>.jpg or .png in the "
                "current directory; -: stdout)",
            )
        parser.add_argument("--json", action="store_true", help="print the whole envelope")
        if tool.cli.in_context:
            add_context_option(parser)
        parser.add_argument("--port", type=int, help=port_help)
        parser.set_defaults(func=_command(tool))


#: What `tabpilot <group> --help` says of a group of subcommands.
GROUP_HELP = {"context": "create, list, switch, close and save the daemon's browser contexts"}


def add_context_option(parser: argparse.ArgumentParser) -> None:
    """``--context NAME``: the context a command runs in."""
    parser.add_argument(
        "--context",
        metavar="NAME",
        help="the context to run in (default: the one `tabpilot context switch` chose, else "
        "the daemon's default context)",
    )


def _command(tool: Tool) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        return call_tool(tool, args)

    return run


def call_tool(tool: Tool, args: argparse.Namespace) -> int:
    """Call ``tool`` with the fields given on the command line; print its text or envelope."""
    body = {name: getattr(args, name) for name in tool.params.model_fields if name in args}
    if tool.mcp.model_check is not None:
        # An agent may run the CLI and read what it prints.
        refused = tool.mcp.model_check(tool.params.model_construct(**body))
        if refused is not None:
            raise CliError(refused.message)
    envelope = fetch_envelope(args, tool.name, body, in_context=tool.cli.in_context)
    if envelope.get("success"):
        _follow_context(tool, envelope)
    output = getattr(args, "output", None)
    if args.json:
        # The image is in the envelope; a file is written only when -o names one.
        if output is not None and envelope.get("success"):
            save_image(envelope, output)
        print(json.dumps(envelope, ensure_ascii=False))
        return 0 if envelope.get("success") else 1
    if not envelope.get("success"):
        raise failed(envelope)
    if tool.mcp.image is not None:
        path = save_image(envelope, output)
        if path != "-":
            print(f"{path}: {tool.text(envelope, None)}")
        return 0
    print(tool.text(envelope, None))
    return 0


def _follow_context(tool: Tool, envelope: dict[str, Any]) -> None:
    """Later commands run in the context this one created or switched to; not in one it
    closed."""
    result = envelope.get("result")
    name = result.get("name") if isinstance(result, dict) else None
    if tool.cli.after == "use":
        set_cli_context(name)
    elif tool.cli.after == "forget" and name == cli_context():
        set_cli_context(None)
