"""The MCP tools, through the official SDK's client, over stdio (`tabpilot mcp`) and at /mcp.

The daemon is real; the extension is the scripted fake of tests/support.py. The tools' results
from a real tab are in tests/e2e/test_mcp.py.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tabpilot import guard
from tabpilot.cli import build_parser, cmd_mcp
from tabpilot.config import DEFAULT_PORT
from tabpilot.mcp.http import MCP_PATH
from tabpilot.mcp.schema import TOOLS_LIST_BUDGET
from tabpilot.mcp.server import VALUE_TOOLS, tool_result
from tabpilot.tools import CAPS, TOOLS
from tabpilot.tools.navigate import NavigateParams, navigate_text
from tabpilot.tools.script import ExecuteParams
from tests.e2e.harness import free_port, spawn_daemon
from tests.mcp_support import TRANSPORTS, call, open_mcp
from tests.support import (
    TAB,
    Command,
    FakeExtension,
    Reply,
    connected,
    fail,
    never,
    ok,
    run_daemon,
)

#: Each test runs over both transports: `tabpilot mcp` on stdio, and the daemon's /mcp.
both = pytest.mark.parametrize("transport", TRANSPORTS)

RESULTS: dict[str, tuple[Any, str, str]] = {
    # script: (result, result_type, the text a model reads)
    "number": (42, "number", "42"),
    "string": ("hello world", "string", "hello world"),
    "object": ({"foo": "bar", "count": 5}, "object", '{"foo": "bar", "count": 5}'),
    "array": ([1, 2, 3], "array", "[1, 2, 3]"),
    "boolean": (True, "boolean", "true"),
    "undefined": (None, "undefined", "undefined"),
    "null": (None, "null", "null"),
    "unicode": ("héllo ✓", "string", "héllo ✓"),
}


async def scripted(command: Command) -> Reply:
    if command.command == "browser_tabs":
        return ok([{**TAB, "active": True, "window_id": 1}], "array", tab=None)
    if command.params["script"] == "throw":
        return fail("execution_error", "boom", "Error: boom\n    at <script>:1:7")
    result, result_type, _ = RESULTS[command.params["script"]]
    return ok(result, result_type)


@both
async def test_tools_are_listed_with_lean_schemas(transport: str) -> None:
    with run_daemon() as daemon:
        async with open_mcp(transport, daemon.settings.port) as client:
            listed = (await client.list_tools()).tools
    tools = {tool.name: tool for tool in listed}
    # The context tools are a capability of their own, listed when asked for (below).
    assert set(tools) == {*(n for n, t in TOOLS.items() if t.mcp.cap is None), "pilot_status"}
    # A model reads the whole list on every turn: it stays within its documented budget.
    wire = [tool.model_dump(exclude_none=True, by_alias=True) for tool in listed]
    assert len(json.dumps(wire, separators=(",", ":"), ensure_ascii=False)) <= TOOLS_LIST_BUDGET

    execute = tools["execute_javascript"]
    schema = execute.input_schema
    assert schema["required"] == ["script"]
    props = schema["properties"]
    assert set(props) == {*ExecuteParams.model_fields, "confirm_token"}
    assert props["dialog"]["enum"] == ["accept", "dismiss"]
    assert props["script"] == {"description": props["script"]["description"], "type": "string"}
    # Only what a model needs to write a call: no titles, bounds or null alternatives.
    for field in (field for tool in listed for field in tool.input_schema["properties"].values()):
        assert not {"title", "default", "anyOf", "maximum", "maxLength"} & set(field), field
    # What a model reads to decide when to use it, and that it acts in the user's real tab.
    description = execute.description or ""
    for words in ("user's real tab", "`return`", "(el) => el.value", "E.g."):
        assert words in description
    assert execute.annotations is None  # the defaults: it may change the page
    # Only a script's value comes as structured content; every other answer's text is all of it.
    for name, tool in tools.items():
        if name in VALUE_TOOLS:
            assert tool.output_schema is not None
            assert set(tool.output_schema["properties"]) == {"result", "error", *guard.FIELDS}
        else:
            assert tool.output_schema is None, name
    # Each description gives an example call and its answer, and says where the guard cuts.
    for name, tool in tools.items():
        assert "E.g. {" in (tool.description or ""), name
        if name in guard.LIMITS:
            assert f"Past {guard.LIMITS[name]:,} chars, a preview" in (tool.description or ""), name
    assert tools["pilot_status"].annotations and tools["pilot_status"].annotations.read_only_hint


@both
async def test_results_are_written_for_a_model(transport: str) -> None:
    # One session for every kind of result: starting `tabpilot mcp` costs more than the calls.
    with run_daemon() as daemon:
        async with connected(daemon, scripted), open_mcp(transport, daemon.settings.port) as client:
            for script, (expected, _, text) in RESULTS.items():
                result, shown = await call(client, "execute_javascript", script=script)
                assert shown == text, script
                assert result.is_error is False, script
                # The model pays once: the structured content is the value the text shows, no
                # more (programs get the whole envelope over HTTP); undefined has none.
                given = {} if script == "undefined" else {"result": expected}
                assert result.structured_content == given, script


@both
async def test_arguments_reach_the_extension(transport: str) -> None:
    with run_daemon() as daemon:
        async with connected(daemon) as fake, open_mcp(transport, daemon.settings.port) as client:
            await call(
                client,
                "execute_javascript",
                script="document.title",
                timeout_ms=1234,
                await_promise=False,
                tab_id=7,
                dialog="accept",
                prompt_text="yes",
            )
            await call(client, "execute_javascript", script="1")
    first, second = fake.commands
    assert first.params == {
        "script": "document.title",
        "timeout_ms": 1234,
        "await_promise": False,
        "tab_id": 7,
        "dialog": "accept",
        "prompt_text": "yes",
        "ref": None,
    }
    defaults = ExecuteParams(script="1").model_dump()
    assert second.params == defaults


@both
async def test_browser_tabs_and_pilot_status(transport: str) -> None:
    with run_daemon() as daemon:
        async with connected(daemon, scripted), open_mcp(transport, daemon.settings.port) as client:
            tabs, tabs_text = await call(client, "browser_tabs")
            status, status_text = await call(client, "pilot_status")
    assert tabs_text == f"{TAB['id']} (active): {TAB['title']} {TAB['url']}"
    assert "Extension: connected" in status_text
    assert "AI Web Pilot: ON" in status_text
    assert status.is_error is False
    # Their text is the whole answer: nothing more as structured content.
    assert tabs.structured_content is None and status.structured_content is None


@both
async def test_pilot_status_says_what_is_missing(transport: str) -> None:
    with run_daemon() as daemon:
        async with open_mcp(transport, daemon.settings.port) as client:
            _, alone = await call(client, "pilot_status")
            async with connected(daemon, pilot_enabled=False):
                _, off = await call(client, "pilot_status")
    assert "Extension: not connected" in alone
    assert "tabpilot serve --browser" in alone
    assert "AI Web Pilot: OFF" in off
    assert "extension popup" in off


async def _failure(transport: str, port: int, **arguments: Any) -> tuple[str, dict[str, Any]]:
    async with open_mcp(transport, port) as client:
        result, text = await call(client, "execute_javascript", **arguments)
    assert result.is_error is True
    # The message is the text; the structured content has the code and what the text leaves out.
    assert text.startswith("Error: ") and result.structured_content is not None
    assert set(result.structured_content) == {"error"}
    error = result.structured_content["error"]
    assert "message" not in error and "success" not in result.structured_content
    return text, error


@both
async def test_no_extension_says_how_to_connect_one(transport: str) -> None:
    with run_daemon(connect_grace_s=0.2) as daemon:
        text, error = await _failure(transport, daemon.settings.port, script="1")
    assert error["code"] == "extension_not_connected"
    assert "Open Chrome with the tabpilot extension" in text
    assert "tabpilot serve --browser" in text


@both
async def test_pilot_off_says_to_turn_it_on(transport: str) -> None:
    with run_daemon() as daemon:
        async with connected(daemon, pilot_enabled=False):
            text, error = await _failure(transport, daemon.settings.port, script="1")
    assert error["code"] == "pilot_disabled"
    assert "Turn it on in the tabpilot extension popup" in text


@both
async def test_timeout_says_to_narrow_the_script_or_raise_timeout_ms(transport: str) -> None:
    with run_daemon(timeout_grace_s=0.1) as daemon:
        async with connected(daemon, never):
            text, error = await _failure(
                transport, daemon.settings.port, script="1", timeout_ms=200
            )
    assert error["code"] == "execution_timeout"
    assert "Narrow the script" in text
    assert "raise timeout_ms" in text


@both
async def test_script_errors_keep_their_message_and_stack(transport: str) -> None:
    with run_daemon() as daemon:
        async with connected(daemon, scripted):
            text, error = await _failure(transport, daemon.settings.port, script="throw")
    assert text == "Error: boom"
    assert error["code"] == "execution_error"
    assert "<script>:1:7" in error["stack"]


@both
@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        ({"script": ""}, "script"),
        ({"script": "1", "timeout_ms": 0}, "timeout_ms"),
        ({"script": "1", "timeout_ms": 120_001}, "timeout_ms"),
        ({"script": "1", "tab_id": "seven"}, "tab_id"),
        ({}, "script"),
    ],
)
async def test_bad_arguments_are_an_error_result(
    transport: str, arguments: dict[str, Any], complaint: str
) -> None:
    with run_daemon() as daemon:
        async with connected(daemon) as fake, open_mcp(transport, daemon.settings.port) as client:
            result, text = await call(client, "execute_javascript", **arguments)
    assert result.is_error is True
    assert complaint in text
    assert fake.commands == []  # nothing was sent to the browser


@both
async def test_every_tool_refuses_an_unknown_argument_and_names_the_one_meant(
    transport: str,
) -> None:
    # The SDK drops what a tool's signature does not name; `tabId` for `tab_id` must not act in
    # the active tab without a word. Every tool, with every capability listed.
    with run_daemon() as daemon:
        caps = ",".join(sorted(CAPS))
        async with (
            connected(daemon) as fake,
            open_mcp(transport, daemon.settings.port, caps=caps) as client,
        ):
            listed = (await client.list_tools()).tools
            answers = {
                tool.name: await call(client, tool.name, tabId=3, unknown_arguments=1)
                for tool in listed
            }
    assert len(answers) == len(TOOLS) + 1  # and pilot_status
    for name, (result, text) in answers.items():
        assert result.is_error is True, name
        assert "`tabId`" in text and "`unknown_arguments`" in text, (name, text)
        if name != "pilot_status" and "tab_id" in TOOLS[name].params.model_fields:
            assert "did you mean `tab_id`?" in text, (name, text)
    assert fake.commands == []  # nothing was sent to the browser


async def test_daemon_not_running() -> None:
    port = free_port()
    text, error = await _failure("stdio", port, script="1")
    assert error["code"] == "daemon_unreachable"
    assert text.startswith(f"Error: The tabpilot daemon is not running on 127.0.0.1:{port}")
    assert "tabpilot serve --browser" in text
    async with open_mcp("stdio", port) as client:
        status, status_text = await call(client, "pilot_status")
    assert status.is_error is True
    assert status_text.startswith("Error: The tabpilot daemon is not running")


async def test_a_daemon_that_dies_mid_call_still_answers_over_stdio() -> None:
    with spawn_daemon() as daemon:
        fake = FakeExtension(f"ws://127.0.0.1:{daemon.port}/ws", never)
        async with fake, open_mcp("stdio", daemon.port) as client:
            pending = asyncio.ensure_future(
                client.call_tool("execute_javascript", {"script": "1", "timeout_ms": 60_000})
            )
            await fake.next_command(timeout=20)
            daemon.process.send_signal(signal.SIGKILL)
            async with asyncio.timeout(20):
                result = await pending
    assert result.is_error is True
    assert result.structured_content is not None
    assert result.structured_content["error"]["code"] == "daemon_unreachable"
    assert "may have run" in result.content[0].text  # type: ignore[union-attr]


async def test_a_daemon_that_dies_mid_call_fails_the_http_client_at_once() -> None:
    # Over HTTP the MCP server is the daemon itself, so there is nobody left to answer: the
    # SDK's client must fail the call (and its session) rather than wait.
    with spawn_daemon() as daemon:
        async with FakeExtension(f"ws://127.0.0.1:{daemon.port}/ws", never) as fake:
            with pytest.raises(BaseException) as failure:
                async with asyncio.timeout(20), open_mcp("http", daemon.port) as client:
                    pending = asyncio.ensure_future(
                        client.call_tool(
                            "execute_javascript", {"script": "1", "timeout_ms": 60_000}
                        )
                    )
                    await fake.next_command(timeout=20)
                    daemon.process.send_signal(signal.SIGKILL)
                    await pending
    # A TimeoutError would be the asyncio.timeout above: the client hung.
    assert not isinstance(failure.value, TimeoutError)


async def test_mcp_is_guarded_like_every_route() -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    with run_daemon() as daemon, httpx.Client(trust_env=False) as http:
        url = f"{daemon.base_url}/mcp"
        headers = {"accept": "application/json, text/event-stream"}
        from_page = http.post(
            url, json=initialize, headers={**headers, "origin": "https://evil.example"}
        )
        rebound = http.post(url, json=initialize, headers={**headers, "host": "evil.example"})
    assert from_page.status_code == 403
    assert from_page.json()["error"]["code"] == "forbidden_origin"
    assert rebound.status_code == 403
    assert rebound.json()["error"]["code"] == "forbidden_host"


@both
async def test_a_script_past_the_limit_is_not_sent(transport: str) -> None:
    with run_daemon(max_script_bytes=100) as daemon:
        async with connected(daemon) as fake:
            text, error = await _failure(transport, daemon.settings.port, script="1;" * 60)
    assert error["code"] == "script_too_large"
    assert "TABPILOT_MAX_SCRIPT_BYTES" in text
    assert fake.commands == []


@both
async def test_a_daemon_with_a_token(transport: str) -> None:
    """With the token, both transports run tools. Without it, `tabpilot mcp` answers each tool
    call with `unauthorized`; /mcp itself answers 401 to the SDK's client, as to anyone
    (tests/security/test_token.py checks it request by request)."""
    token = "mcp-test-token"
    with run_daemon(token=token) as daemon:
        async with connected(daemon, token=token):
            async with open_mcp(transport, daemon.settings.port, token=token) as client:
                _, shown = await call(client, "execute_javascript", script="1 + 1")
            assert shown == "1 + 1"  # the fake extension's echo
            if transport == "stdio":
                text, error = await _failure(transport, daemon.settings.port, script="1")
                assert error["code"] == "unauthorized"
                assert "TABPILOT_TOKEN" in text


async def test_tabpilot_mcp_reads_the_token_file(isolated_env: Path) -> None:
    """README: `tabpilot mcp` sends the token from $TABPILOT_TOKEN, else from the token file."""
    token = "from-the-token-file"
    isolated_env.mkdir(parents=True)
    (isolated_env / "token").write_text(token + "\n")
    (isolated_env / "token").chmod(0o600)
    with run_daemon(token=token) as daemon:
        async with (
            connected(daemon, token=token) as fake,
            open_mcp("stdio", daemon.settings.port) as client,  # no TABPILOT_TOKEN given
        ):
            result, shown = await call(client, "execute_javascript", script="from the file")
    assert (shown, result.is_error) == ("from the file", False)
    assert [c.params["script"] for c in fake.commands] == ["from the file"]


def test_readme_client_configurations_name_the_real_command_and_route() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Use it from an AI agent (MCP)")[1].split("\n## ")[0]
    blocks = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, re.S)]
    assert len(blocks) == 4
    kinds = set()
    for block in blocks:
        server = (block.get("mcpServers") or block.get("servers"))["tabpilot"]
        if "url" in server:
            assert server["url"] == f"http://127.0.0.1:{DEFAULT_PORT}{MCP_PATH}"
            kinds.add("http")
        else:
            # The one line: the absolute path of the command, and `mcp --browser`.
            assert server["command"] == "/absolute/path/to/tabpilot"
            assert server["args"] == ["mcp", "--browser"]
            args = build_parser().parse_args(server["args"])
            assert (args.func, args.browser) == (cmd_mcp, True)
            kinds.add("stdio")
    assert kinds == {"http", "stdio"}
    assert 'claude mcp add tabpilot -- "$(which tabpilot)" mcp --browser' in section
    assert "`which tabpilot` prints it" in section


def test_the_daemon_loads_the_mcp_sdk_only_when_mcp_is_first_called() -> None:
    # The SDK costs the daemon's start-up about 0.6 s and its idle memory about 28 MB.
    probe = (
        "import sys, tabpilot.http.app, tabpilot.cli\n"
        "from tabpilot.config import Settings\n"
        "tabpilot.http.app.create_app(Settings())\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert loaded.stdout.strip() == "[]"


def test_a_snapshot_reaches_the_model_once() -> None:
    # The outline is the text, and the text is the whole answer: no structured content.
    tool = TOOLS["browser_snapshot"]
    envelope = {
        "success": True,
        "request_id": "r1",
        "result": {
            "snapshot": '- button "Go" [ref=e1]',
            "refs": 1,
            "chars": 22,
            "truncated": False,
        },
        "result_type": "object",
        "tab": {"id": 1, "url": "https://example.com/", "title": "Example"},
        "duration_ms": 1.0,
    }
    answer = tool_result(envelope, tool.text)
    assert answer.content[0].text == (  # type: ignore[union-attr]
        'Page "Example" https://example.com/, 1 ref\n- button "Go" [ref=e1]'
    )
    assert answer.structured_content is None
    assert envelope["result"]["snapshot"]  # the caller's envelope is left whole


def test_a_cut_value_carries_the_guard_fields_in_the_text_and_the_structured_content() -> None:
    envelope = {
        "success": True,
        "result": "Array(500) [1, 2, 3, …]",
        "result_type": "array",
        "truncated": True,
        "total_length": 2_500,
        "shown_length": 23,
        "confirm_token": "ct_x",
        "advice": "Return fewer items.",
    }
    answer = tool_result(envelope, TOOLS["execute_javascript"].text, value=True)
    assert answer.content[0].text == (  # type: ignore[union-attr]
        "Array(500) [1, 2, 3, …]\n[Shown 23 of 2,500 characters. The rest: the same tool with "
        'only confirm_token="ct_x". Return fewer items.]'
    )
    assert answer.structured_content == {key: envelope[key] for key in ("result", *guard.FIELDS)}


@pytest.mark.parametrize(
    ("asked", "url", "status", "text"),
    [
        ("https://a.test", "https://a.test/", 200, 'Loaded "A"'),
        ("HTTPS://A.test:443/x?q#f", "https://a.test/x?q#f", 200, 'Loaded "A"'),
        ("https://a.test/", "https://a.test/", 203, 'Loaded "A" (HTTP 203)'),
        ("https://a.test/", "https://b.test/", 200, 'Navigated to https://b.test/ (HTTP 200): "A"'),
        (None, "https://a.test/", 200, 'Navigated to https://a.test/ (HTTP 200): "A"'),
    ],
)
def test_navigate_names_the_url_only_when_it_is_not_the_one_asked_for(
    asked: str | None, url: str, status: int, text: str
) -> None:
    envelope = {"success": True, "result": {"url": url, "title": "A", "status": status}}
    params = NavigateParams(url=asked) if asked else NavigateParams(action="back")
    assert navigate_text(envelope, params=params) == text
    # The CLI's answer (no params) always names it.
    assert navigate_text(envelope).startswith(f"Navigated to {url} (HTTP {status})")
