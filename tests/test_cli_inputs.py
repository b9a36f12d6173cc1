"""Inputs the CLI cannot use (a script that is not UTF-8, a port that is not a number, a token no
HTTP header can carry) and output the terminal cannot show: one `Error:` line or a readable
replacement, never a traceback. `tabpilot` runs as a real process."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.support import Command, Daemon, Reply, connected, ok, run_daemon


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as running:
        yield running


def tabpilot(
    *args: str | bytes, stdin: bytes = b"", **env: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "tabpilot", *args],
        input=stdin,
        capture_output=True,
        env={"PATH": os.environ.get("PATH", ""), **env},
        timeout=30,
    )


def assert_one_error_line(done: subprocess.CompletedProcess[bytes], says: str) -> None:
    err = done.stderr.decode("utf-8")
    assert done.returncode == 1, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert says in err


@pytest.mark.parametrize(
    ("args", "stdin", "env", "says"),
    [
        (["exec", "-"], b"\xff\xfe2 + 2", {}, "the script on stdin is not UTF-8 text (byte 0"),
        (["exec", "-"], "'é'".encode() + b"\xe9", {}, "is not UTF-8 text (byte 4 is 0xe9)"),
        (["exec", b"'\xff'"], b"", {}, "the script argument is not UTF-8 text"),
        (["exec", "1"], b"", {"TABPILOT_PORT": "abc"}, "TABPILOT_PORT must be a whole number"),
        (["tabs"], b"", {"TABPILOT_CONNECT_GRACE": "soon"}, "TABPILOT_CONNECT_GRACE must be a"),
        (["status"], b"", {"TABPILOT_TOKEN": "s3cr€t"}, "the token holds characters other than"),
    ],
)
def test_unusable_input_is_one_error_line(
    args: list[str | bytes], stdin: bytes, env: dict[str, str], says: str
) -> None:
    assert_one_error_line(tabpilot(*args, "--port", "1", stdin=stdin, **env), says)


def test_unusable_stdin_with_json_prints_a_json_failure() -> None:
    done = tabpilot("exec", "--json", "-", "--port", "1", stdin=b"\x80")
    envelope = json.loads(done.stdout)
    assert envelope["success"] is False and envelope["request_id"]
    assert envelope["error"]["code"] == "invalid_request"
    assert envelope["error"]["message"].startswith("the script on stdin is not UTF-8")


async def test_a_utf8_script_on_stdin_runs(daemon: Daemon) -> None:
    async with connected(daemon) as fake:
        done = await asyncio.to_thread(
            tabpilot,
            "exec",
            "-",
            stdin="'héllo ✓'".encode(),
            TABPILOT_PORT=str(daemon.settings.port),
        )
    assert done.returncode == 0, done.stderr
    assert fake.commands[0].params["script"] == "'héllo ✓'"


async def test_a_result_the_terminal_cannot_show_is_printed_with_replacements(
    daemon: Daemon,
) -> None:
    async def accented(command: Command) -> Reply:
        return (
            ok({"word": "héllo ✓"}, "object")
            if "json" in command.params["script"]
            else ok("héllo ✓", "string")
        )

    port = str(daemon.settings.port)
    async with connected(daemon, accented):
        plain = await asyncio.to_thread(
            tabpilot, "exec", "x", TABPILOT_PORT=port, PYTHONIOENCODING="ascii"
        )
        as_json = await asyncio.to_thread(
            tabpilot, "exec", "json", TABPILOT_PORT=port, PYTHONIOENCODING="ascii"
        )
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == b"h?llo ?\n"
    assert as_json.returncode == 0, as_json.stderr
    assert b'"word": "h?llo ?"' in as_json.stdout
