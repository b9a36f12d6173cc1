"""A page cannot drive the terminal of a person who runs the CLI: a real page in a person's Chrome
puts a screen clear, an OSC 52 clipboard write, a line overwritten by carriage returns and a
right-to-left override in its title, its text, its console and a script's value and error, and
each subcommand that prints them prints them escaped; `--raw` as they came, `--json` as JSON.
The escaping itself, and every character it covers, in tests/test_cli_terminal.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from selenium import webdriver

from tests.e2e.harness import Daemon, open_url, serving_pages
from tests.test_cli_terminal import strings

#: What the page puts everywhere: clear the screen, ask for the clipboard
#: (OSC 52, "hacked" in base64), go up a line, overwrite "safe" with "EVIL" after a carriage
#: return, and show "exe.txt" reversed, as "txt.exe".
HOSTILE = "\x1b[2J\x1b]52;c;aGFja2Vk\x07\x1b[1Asafe\rEVIL \u202etxt.exe"
PAGE = f"""<!doctype html><title>terminal</title>
<h1 id="bait">loading</h1>
<script>
  window.h = {json.dumps(HOSTILE)};
  document.title = "title " + h;
  document.getElementById("bait").textContent = "text " + h;
  console.log("console " + h);
</script>"""
#: Never written to the terminal as is, but with --raw.
OBEYED = ("\x1b", "\x07", "\u202e")


@pytest.fixture(scope="module")
def hostile_tab(browser: webdriver.Chrome, daemon: Daemon) -> Iterator[int]:
    """The hostile page, loaded in the active tab; its id."""
    with serving_pages({"/hostile.html": PAGE}) as base:
        url = f"{base}/hostile.html"
        open_url(daemon, url)
        tabs = daemon.get("/tabs").json()["result"]
        yield next(tab["id"] for tab in tabs if tab["url"] == url)


def tabpilot(daemon: Daemon, *args: str, raw: bool = False) -> subprocess.CompletedProcess[str]:
    """`tabpilot [--raw] COMMAND --port PORT ARGS`, its output as the terminal would get it."""
    head = ["--raw"] if raw else []
    done = subprocess.run(
        [sys.executable, "-m", "tabpilot", *head, args[0], "--port", str(daemon.port), *args[1:]],
        capture_output=True,
        timeout=60,
    )
    # Decoded here: text mode would read a carriage return as a newline.
    out, err = (stream.decode("utf-8") for stream in (done.stdout, done.stderr))
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)


ALL = (*OBEYED, "\r")
#: Each subcommand, what it shows of the page, and which of the page's characters reach it: Chrome
#: makes each control character of a title a space, a rendered text has its whitespace collapsed
#: (the carriage return with it), and a snapshot line quotes an element's name with its control
#: characters escaped already; the direction override reaches them all.
COMMANDS = [
    (("tabs",), "title ", ("\u202e",)),
    (("read", "--tab", "{tab}"), "text ", OBEYED),
    (("snapshot", "--tab", "{tab}"), "text ", ("\u202e",)),
    (("find", "text", "--tab", "{tab}"), "text ", ("\u202e",)),
    (("console", "--tab", "{tab}"), "console ", ALL),
    (("exec", "--tab", "{tab}", "h"), "", ALL),
]


@pytest.mark.parametrize(("command", "shows", "reach"), COMMANDS, ids=lambda c: str(c))
def test_page_text_is_escaped_unless_raw_and_json_stays_json(
    daemon: Daemon, hostile_tab: int, command: tuple[str, ...], shows: str, reach: tuple[str, ...]
) -> None:
    args = [a.format(tab=hostile_tab) for a in command]
    shown = tabpilot(daemon, *args)
    assert shown.returncode == 0, shown.stderr
    assert not any(ch in shown.stdout for ch in ALL), shown.stdout
    assert shows in shown.stdout and "EVIL \\u202etxt.exe" in shown.stdout
    for ch in reach:
        assert f"\\u{ord(ch):04x}" in shown.stdout
    if reach == ALL:
        assert (
            shows + "\\u001b[2J\\u001b]52;c;aGFja2Vk\\u0007\\u001b[1Asafe\\u000dEVIL"
            in shown.stdout
        )

    raw = tabpilot(daemon, *args, raw=True)
    assert raw.returncode == 0, raw.stderr
    assert all(ch in raw.stdout for ch in reach)
    assert (HOSTILE in raw.stdout) is (reach == ALL)

    as_json = tabpilot(daemon, *args, "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert not any(ch in as_json.stdout for ch in ALL)
    found = strings(json.loads(as_json.stdout))
    assert any(all(ch in s for ch in reach) and "\u202etxt.exe" in s for s in found)


def test_an_error_quoting_the_page_is_escaped(daemon: Daemon, hostile_tab: int) -> None:
    script = "throw new Error(h)"
    failed = tabpilot(daemon, "exec", "--tab", str(hostile_tab), script)
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith("Error: ") and "\\u001b]52;c;aGFja2Vk\\u0007" in failed.stderr
    assert not any(ch in failed.stderr for ch in ALL)
    raw = tabpilot(daemon, "exec", "--tab", str(hostile_tab), script, raw=True)
    assert raw.returncode == 1 and HOSTILE in raw.stderr
