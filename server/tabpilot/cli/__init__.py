"""The `tabpilot` command line: start the daemon, run JavaScript, see what is connected.

Each hand-written command is in :mod:`~tabpilot.cli.commands` (`tabpilot extension`, about the
installation rather than the daemon, in :mod:`~tabpilot.cli.extension`) and its parser in
:mod:`~tabpilot.cli.parser`; every tool's subcommand is generated from the tool table in
:mod:`~tabpilot.cli.tool_commands`. The CLI talks to the daemon through :mod:`tabpilot.client`'s
connection helpers and loads none of the daemon's runtime until `tabpilot serve` starts it.
"""

from __future__ import annotations

import codecs
import io
import sys
from collections.abc import Sequence

from tabpilot.cli.commands import EXIT_FAILED, cmd_mcp, format_result
from tabpilot.cli.parser import build_parser
from tabpilot.cli.terminal import terminal_streams
from tabpilot.cli.tool_commands import CliError

__all__ = ["build_parser", "cmd_mcp", "format_result", "main"]


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
    # A page's text is escaped on its way to the terminal (tabpilot.cli.terminal), an error's
    # message included: it may quote the page.
    with terminal_streams(raw=args.raw or getattr(args, "own_streams", False)):
        try:
            code: int = args.func(args)
        except CliError as error:
            print(f"Error: {error}", file=sys.stderr)
            return EXIT_FAILED
        except KeyboardInterrupt:
            return EXIT_FAILED
    return code
