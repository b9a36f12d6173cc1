"""Every page tool on every face, in the real browser: HTTP, the callers' socket, MCP through the
SDK's own client, the CLI and the public Python client run the same session on a real form.

tests/test_tools.py walks the whole table against a scripted extension; this walks what a new user
does with each face: open a tab, load a page, take a snapshot, type by ref, read the page, run a
function on the element, define one and call it there by name, close the tab.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from websockets.sync.client import connect

import tabpilot
from tabpilot.mcp.server import VALUE_TOOLS
from tabpilot.tools import TOOLS
from tests.e2e.harness import Daemon
from tests.mcp_support import open_mcp, text_of

Face = Callable[[str, dict[str, Any]], Any]


def _result(envelope: dict[str, Any]) -> Any:
    assert envelope["success"], envelope
    return envelope["result"]


def _http(daemon: Daemon) -> Face:
    return lambda name, params: _result(daemon.post_json(f"/{name}", params, timeout=60).json())


def _socket(daemon: Daemon) -> Face:
    def call(name: str, params: dict[str, Any]) -> Any:
        with connect(f"ws://127.0.0.1:{daemon.port}/ws/calls") as ws:
            ws.send(json.dumps({"type": "call", "id": 1, "method": name, "params": params}))
            answer = json.loads(ws.recv(timeout=60))
        assert answer["id"] == 1
        return _result(answer["envelope"])

    return call


def _mcp(daemon: Daemon) -> Face:
    """A script's value (its structured content); for any other tool the text the model reads,
    which is its whole answer (no structured content); a screenshot's text and image data."""

    async def run(name: str, params: dict[str, Any]) -> Any:
        async with open_mcp("http", daemon.port, caps="functions") as client:
            answer = await client.call_tool(name, params)
        assert not answer.is_error, answer
        text = text_of(answer)
        if name in VALUE_TOOLS:
            assert answer.structured_content is not None
            return answer.structured_content.get("result")  # none: undefined
        assert answer.structured_content is None, name  # the model pays once
        if TOOLS[name].mcp.image:  # the image comes once, as an image block after the text
            return (text, answer.content[1].data)  # type: ignore[union-attr]
        return text

    return lambda name, params: asyncio.run(run(name, params))


def _cli(daemon: Daemon) -> Face:
    def call(name: str, params: dict[str, Any]) -> Any:
        tool = TOOLS[name]
        if name == "browser_tabs":  # `tabpilot tabs ACTION [URL|ID]`, written by hand
            params = {"action": params["action"], "at": params.get("url", params.get("tab_id"))}
            tool = replace(tool, cli=replace(tool.cli, positional=("action", "at")))
        if name == "execute_javascript":  # `tabpilot exec SCRIPT`
            tool = replace(tool, cli=replace(tool.cli, positional=("script",)))
        args = [str(params.pop(field)) for field in tool.cli.positional if field in params]
        for field, value in params.items():
            flag = {"tab_id": "--tab", "values": "--value", "fields": "--field"}.get(
                field, "--" + field.replace("_", "-")
            )
            if field == "fields":  # `--field e3=alice --field e5=true`
                for item in value:
                    text = item["value"]
                    args += [
                        flag,
                        f"{item['ref']}={text if isinstance(text, str) else json.dumps(text)}",
                    ]
                continue
            args += [flag] if value is True else [flag, str(value)]
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "tabpilot",
                *tool.cli.name.split(),
                *args,
                "--json",
                "--port",
                f"{daemon.port}",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.stdout, out.stderr
        printed = json.loads(out.stdout)
        # `tabs --json` prints the result; the table's subcommands print the whole envelope.
        return printed if name == "browser_tabs" else _result(printed)

    return call


def _python(daemon: Daemon) -> Face:
    def call(name: str, params: dict[str, Any]) -> Any:
        with tabpilot.Client(daemon.port) as client:
            method = getattr(client, TOOLS[name].method)
            return method(**params)

    return call


FACES = {"http": _http, "socket": _socket, "mcp": _mcp, "cli": _cli, "python": _python}


@pytest.mark.parametrize("face", FACES)
def test_a_form_filled_through_each_face(
    face: str, daemon: Daemon, pages: str, page: dict[str, Any]
) -> None:
    call = FACES[face](daemon)
    mcp = face == "mcp"  # the text a model reads, where the other faces answer the result
    opened = call("browser_tabs", {"action": "new", "url": f"{pages}/index.html"})
    tab = int(opened.split(" ", 1)[0]) if mcp else opened["id"]
    try:
        url = f"{pages}/act/form.html?{face}"
        loaded = call("browser_navigate", {"url": url, "tab_id": tab})
        if mcp:  # the url is the one asked for: only the title
            assert loaded == 'Loaded "sign up"'
        else:
            assert (loaded["url"], loaded["title"], loaded["status"]) == (url, "sign up", 200)

        outline = call("browser_snapshot", {"tab_id": tab, "interactive_only": True})
        snapshot = outline if mcp else outline["snapshot"]
        match = re.search(r'textbox "Name" \[ref=(e\d+)\]', snapshot)
        assert match, snapshot
        name = match.group(1)
        if mcp:
            refs = re.match(r'Page "sign up" \S+, (\d+) refs\n', outline)
            assert refs and int(refs[1]) >= 8 and "[Shown" not in outline
        else:
            assert outline["refs"] >= 8 and not outline["truncated"]

        typed = call(
            "browser_act", {"kind": "type", "ref": name, "text": "a new user", "tab_id": tab}
        )
        if mcp:
            assert typed == f'Typed 10 characters into textbox "Name" ({name})'
        else:
            assert typed["description"] == f'Typed 10 characters into textbox "Name" ({name})'
            assert (typed["route"], typed["navigated"], typed["opened"]) == ("dom", False, [])

        # Two more fields in one call, read back from the page.
        email = re.search(r'textbox "Email" \[ref=(e\d+)\]', snapshot)
        agree = re.search(r'checkbox "Agree" \[ref=(e\d+)\]', snapshot)
        assert email and agree, snapshot
        fields = [
            {"ref": email[1], "value": f"{face}@example.com"},
            {"ref": agree[1], "value": True},
        ]
        filled = call("browser_fill_form", {"fields": fields, "tab_id": tab})
        if mcp:
            assert filled.split("\n") == [
                "Filled 2 of 2 fields",
                f'{email[1]} textbox "Email": "{face}@example.com"',
                f'{agree[1]} checkbox "Agree": checked',
            ]
        else:
            assert [(f["ref"], f["ok"], f["value"]) for f in filled["fields"]] == [
                (email[1], True, f"{face}@example.com"),
                (agree[1], True, True),
            ]
            assert (filled["navigated"], filled["opened"]) == (False, [])

        read = call("browser_read", {"tab_id": tab, "limit": 30})
        if mcp:
            assert read.startswith("Name")
            assert re.search(r"\n\[chars 0-30 of \d+; more: browser_read offset=30\]$", read)
        else:
            assert read["text"].startswith("Name") and read["offset"] == 0
            assert read["total"] > 30 and read["more"] is True

        waited = call("browser_wait_for", {"tab_id": tab, "text": "SIGN UP", "timeout_ms": 5000})
        if mcp:
            assert re.fullmatch(r'text "SIGN UP" is on the page \(\d+ ms\)', waited), waited
        else:
            assert (waited["condition"], waited["already"], waited["navigated"]) == (
                "text",
                True,
                False,
            )

        value = call(
            "execute_javascript", {"script": "(el) => el.value", "ref": name, "tab_id": tab}
        )
        assert value == "a new user"

        # A bulky value: a model sees its summary (tests/test_guard.py); programs get it whole.
        script = "Array.from({length: 100}, (_, i) => ({i, s: 'x'.repeat(30)}))"
        many = call("execute_javascript", {"script": script, "tab_id": tab})
        if face == "mcp":
            assert many == "Array(100) [{i, s}, {i, s}, {i, s}, …]"
        else:
            assert len(many) == 100 and many[99] == {"i": 99, "s": "x" * 30}

        # A function defined once, called on the element by its ref, listed, then removed.
        fn, source = f"value_{face}", "(el, mark) => el.value + mark"
        defined = call("eval_define_function", {"name": fn, "source": source})
        assert defined == (f"✓ Function defined: {fn}" if mcp else {"name": fn, "replaced": False})
        marked = call(
            "eval_call_function", {"name": fn, "ref": name, "args_json": '["!"]', "tab_id": tab}
        )
        assert marked == "a new user!"
        listed = call("eval_list_functions", {})
        if mcp:
            assert f"{fn}: {source}" in listed.split("\n")
        else:
            assert {"name": fn, "first_line": source} in listed["functions"]
        removed = call("eval_remove_function", {"name": fn})
        assert removed == (f"✓ Function removed: {fn}" if mcp else {"name": fn, "removed": True})

        # The Python client answers the image's bytes; the other faces, the result with base64.
        shot = call("browser_take_screenshot", {"ref": name, "format": "png", "tab_id": tab})
        if mcp:
            line, data = shot
            png = base64.b64decode(data)
            assert line.startswith(f'Screenshot of element {name} (textbox "Name"): ')
            assert re.search(r": \d+x\d+ PNG, ", line), line
        else:
            png = shot if isinstance(shot, bytes) else base64.b64decode(shot["data"])
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        if isinstance(shot, dict):
            assert shot["captured"] == f'element {name} (textbox "Name")'
            assert (shot["mime_type"], shot["bytes"]) == ("image/png", len(png))

        call("execute_javascript", {"script": f"console.warn('via {face}')", "tab_id": tab})
        logged = call("browser_console_messages", {"tab_id": tab, "level": "warning"})
        if mcp:  # the model reads the counts and the messages in the text
            assert re.match(r"\d+ messages? at warning\+ on page \d+ \(", logged), logged
            assert logged.endswith(f" warning: via {face}")
        else:
            assert logged["matched"] >= 1 and logged["level"] == "warning"
            assert {"level": "warning", "text": f"via {face}"}.items() <= logged["messages"][
                -1
            ].items()

        fetched = call("browser_network_requests", {"tab_id": tab, "type": "document"})
        if mcp:
            assert f" GET 200 document {url} (" in fetched
        else:
            assert [(r["url"], r["status"]) for r in fetched["requests"]] == [(url, 200)]
    finally:
        closed = call("browser_tabs", {"action": "close", "tab_id": tab})
        assert closed == (f"Closed tab {tab}." if mcp else {**closed, "closed": tab})
