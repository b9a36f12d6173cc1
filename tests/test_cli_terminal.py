"""What the CLI writes to a terminal (tabpilot/cli/terminal.py): each control character, escape
sequence and bidirectional override a page sent is shown escaped, `--raw` writes it as it came, and
`--json` stays JSON; against a real daemon and the scripted extension. A real page's in
tests/e2e/test_terminal.py."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from collections.abc import Iterator

import pytest

from tabpilot.cli import main
from tabpilot.cli.terminal import EscapingStream, escape
from tests.support import TAB, Command, Daemon, Reply, connected, fail, ok, run_daemon

ESC = "\x1b"
#: What a hostile page sends: a screen clear, an OSC 52 clipboard write, a line overwritten by a
#: bare carriage return, and a right-to-left override that shows `exe.txt` as `txt.exe`.
HOSTILE = f"{ESC}[2J{ESC}]52;c;aGk=\x07safe\rEVIL \u202etxt.exe"
SHOWN = "\\u001b[2J\\u001b]52;c;aGk=\\u0007safe\\u000dEVIL \\u202etxt.exe"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, ü, 漢字, emoji 🙂", "plain text, ü, 漢字, emoji 🙂"),
        ("lines\nand\ttabs\r\nkept", "lines\nand\ttabs\r\nkept"),
        (HOSTILE, SHOWN),
        ("\x00\x08\x0b\x0c\x7f", "\\u0000\\u0008\\u000b\\u000c\\u007f"),
        ("a\rb", "a\\u000db"),  # a bare carriage return; one before a newline moves nothing
        ("end\r", "end\\u000d"),
        ("\x85\x9b31m\x9d", "\\u0085\\u009b31m\\u009d"),  # C1: NEL, CSI and OSC in one character
        (
            "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c",
            "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c",
        ),
        ("\u200d\u2028 \u00a0", "\u200d\u2028 \u00a0"),  # joiners, separators and spaces stay
    ],
)
def test_escape_shows_what_a_terminal_would_obey(text: str, shown: str) -> None:
    assert escape(text) == shown


def test_escaped_json_is_the_same_json() -> None:
    value = {"title": HOSTILE, "c1": "\x9b", "del": "\x7f", "keys \u202e": [HOSTILE]}
    for text in (json.dumps(value, ensure_ascii=False), json.dumps(value, indent=2)):
        written = escape(text)
        assert json.loads(written) == value
        assert not any(ch in written for ch in (ESC, "\r", "\x07", "\x9b", "\x7f", "\u202e"))


def test_the_stream_escapes_text_and_passes_bytes() -> None:
    raw = io.BytesIO()
    underlying = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    stream = EscapingStream(underlying)
    print(HOSTILE, file=stream)
    stream.buffer.write(b"\x1b\x89PNG")  # an image to stdout stays bytes
    assert raw.getvalue() == (SHOWN + "\n").encode() + b"\x1b\x89PNG"
    assert (stream.encoding, stream.isatty()) == ("utf-8", False)


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as running:
        yield running


async def hostile(command: Command) -> Reply:
    """A page whose every string is HOSTILE: a script's value, a tab's title, a read's text, and
    the message of a script that throws."""
    if command.command == "browser_tabs":
        return ok([{**TAB, "title": HOSTILE, "active": True, "window_id": 1}], "array", tab=None)
    if command.command == "browser_read":
        return ok({"text": HOSTILE, "total_chars": len(HOSTILE), "more": False}, "object")
    if command.params.get("script") == "throw":
        return fail("execution_error", HOSTILE)
    return ok(HOSTILE, "string", tab={**TAB, "title": HOSTILE})


async def cli(daemon: Daemon, *args: str) -> int:
    """`tabpilot ARGS --port PORT`, in a thread: the fake extension answers on this loop."""
    code: int = await asyncio.to_thread(main, [*args, "--port", str(daemon.settings.port)])
    return code


def strings(value: object) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for item in value for s in strings(item)] if isinstance(value, list) else []


COMMANDS = [("exec", "x"), ("tabs",), ("read",)]


@pytest.mark.parametrize("command", COMMANDS)
async def test_a_page_cannot_drive_the_terminal(
    daemon: Daemon, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    async with connected(daemon, hostile):
        assert await cli(daemon, *command) == 0
        shown = capsys.readouterr().out
        assert await cli(daemon, "--raw", *command) == 0
        raw = capsys.readouterr().out
        assert await cli(daemon, *command, "--json") == 0
        as_json = capsys.readouterr().out
    assert SHOWN in shown and not any(ch in shown for ch in (ESC, "\r", "\x07", "\u202e"))
    assert HOSTILE in raw
    # --json: the page's strings come back whole from the JSON, and its text holds none of them.
    assert HOSTILE in strings(json.loads(as_json))
    assert not any(ch in as_json for ch in (ESC, "\r", "\x07", "\u202e"))


async def test_an_error_quoting_the_page_is_escaped_too(
    daemon: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    async with connected(daemon, hostile):
        assert await cli(daemon, "exec", "throw") == 1
        err = capsys.readouterr().err
        assert await cli(daemon, "--raw", "exec", "throw") == 1
        raw = capsys.readouterr().err
    assert SHOWN in err and ESC not in err and "\u202e" not in err
    assert HOSTILE in raw


def test_streams_are_given_back(capsys: pytest.CaptureFixture[str]) -> None:
    before = sys.stdout, sys.stderr
    with pytest.raises(SystemExit):
        main(["--raw"])
    assert main(["tabs", "close", "x"]) == 1  # refused before any call: `Error: …` on stderr
    assert (sys.stdout, sys.stderr) == before
    assert "needs a tab id" in capsys.readouterr().err
