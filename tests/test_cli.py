"""The command line: result formatting, exit codes, a reference (docs/cli.md) that matches --help,
and what each command and option sends and prints, against a real daemon and the scripted
extension."""

from __future__ import annotations

import asyncio
import io
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabpilot.cli import format_result, main
from tests.support import TAB, Daemon, connected, run_daemon

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("result", "result_type", "printed"),
    [
        (42, "number", "42"),
        (1.5, "number", "1.5"),
        ("hello world", "string", "hello world"),
        ("NaN", "number", "NaN"),
        ({"foo": "bar", "count": 5}, "object", '{\n  "foo": "bar",\n  "count": 5\n}'),
        ([1, 2, 3], "array", "[\n  1,\n  2,\n  3\n]"),
        (True, "boolean", "true"),
        (None, "null", "null"),
        (None, "undefined", "undefined"),
        ({"name": "ü"}, "object", '{\n  "name": "ü"\n}'),
    ],
)
def test_format_result(result: Any, result_type: str, printed: str) -> None:
    assert format_result(result, result_type) == printed


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2
    assert "usage: tabpilot" in capsys.readouterr().err


def test_exec_without_a_daemon(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        unused_port = sock.getsockname()[1]
    assert main(["exec", "1", "--port", str(unused_port)]) == 1
    err = capsys.readouterr().err
    # The words every client says (tabpilot.client): the CLI calls through it.
    assert err.startswith("Error: The tabpilot daemon is not running on 127.0.0.1:")
    assert "tabpilot serve --browser" in err
    # With --json: the envelope itself, its code and request id included.
    assert main(["exec", "1", "--json", "--port", str(unused_port)]) == 1
    envelope = json.loads(capsys.readouterr().out)
    assert envelope["success"] is False and envelope["request_id"]
    assert envelope["error"]["code"] == "daemon_unreachable"


def test_cli_reference_matches_help() -> None:
    generated = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "cli_reference.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    page = (REPO / "docs" / "cli.md").read_text()
    assert generated in page, "docs/cli.md's CLI reference is stale: run `make docs`"


def test_serve_browser_without_chromium_says_how_to_install_it(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path), "TABPILOT_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run(
        [sys.executable, "-m", "tabpilot", "serve", "--browser", "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("tabpilot: No Chromium found")
    assert "apt-get install chromium" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "localhost", "::"])
def test_serve_refuses_any_address_but_loopback(host: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tabpilot", "serve", "--host", host, "--port", "0"],
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], "TABPILOT_STATE_DIR": str(tmp_path)},
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"tabpilot: refusing to listen on {host!r}")


# -- against a real daemon and the scripted extension ------------------------------------------


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as running:
        yield running


async def _cli(daemon: Daemon, *args: str) -> int:
    """`tabpilot ARGS --port PORT`, in a thread: the fake extension answers on this loop."""
    code: int = await asyncio.to_thread(main, [*args, "--port", str(daemon.settings.port)])
    return code


async def test_exec_reads_the_script_from_stdin(
    daemon: Daemon, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = "const a = 'multi';\nconst b = \"line\";\nreturn a + ' ' + b"
    # Real stdin: text over bytes, which the CLI reads as UTF-8 itself.
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(script.encode())))
    async with connected(daemon) as fake:
        assert await _cli(daemon, "exec", "-") == 0
    assert [c.params["script"] for c in fake.commands] == [script]
    assert capsys.readouterr().out == script + "\n"  # the fake extension's echo, as printed


async def test_exec_options_reach_the_extension(daemon: Daemon) -> None:
    async with connected(daemon) as fake:
        options = ("--no-await", "--tab", "7", "--timeout-ms", "1234", "--dialog", "accept")
        assert await _cli(daemon, "exec", *options, "--prompt-text", "yes", "x") == 0
        assert await _cli(daemon, "exec", "y") == 0
    assert fake.commands[0].params == {
        "script": "x",
        "timeout_ms": 1234,
        "await_promise": False,
        "tab_id": 7,
        "dialog": "accept",
        "prompt_text": "yes",
        "ref": None,
    }
    defaults = fake.commands[1].params
    assert (defaults["await_promise"], defaults["tab_id"], defaults["dialog"]) == (
        True,
        None,
        "dismiss",
    )


async def test_exec_json_prints_the_whole_envelope(
    daemon: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    async with connected(daemon) as fake:
        assert await _cli(daemon, "exec", "--json", "document.title") == 0
    envelope = json.loads(capsys.readouterr().out)
    assert envelope["success"] is True
    assert (envelope["result"], envelope["result_type"]) == ("document.title", "string")
    assert envelope["tab"] == TAB
    assert envelope["request_id"] == fake.commands[0].id
    assert envelope["duration_ms"] >= 0


async def test_tabs_lists_the_tabs(daemon: Daemon, capsys: pytest.CaptureFixture[str]) -> None:
    async with connected(daemon):
        assert await _cli(daemon, "tabs") == 0
        printed = capsys.readouterr().out
        assert await _cli(daemon, "tabs", "--json") == 0
        listed = json.loads(capsys.readouterr().out)
    assert printed == f"* {TAB['id']:>6}  {TAB['title']}  {TAB['url']}\n"
    assert listed == [{**TAB, "active": True, "window_id": 1}]
