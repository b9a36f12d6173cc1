"""Every face of every tool of the table (tabpilot.tools.TOOLS): the HTTP route and its OpenAPI, the
callers' socket, the MCP tool (through the SDK's own client), the CLI subcommand and the public
client's method (tabpilot.AsyncClient; tabpilot.Client in tests/test_public_client.py), against
the scripted fake extension. The real extension's answers are in tests/e2e/.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tabpilot import AsyncClient, cli
from tabpilot.client.connection import DaemonClient
from tabpilot.http.calls import METHODS
from tabpilot.mcp.schema import input_schema
from tabpilot.mcp.server import VALUE_TOOLS, mcp_description
from tabpilot.tools import CAPS, TOOLS
from tabpilot.tools.emulate import settings_sent
from tabpilot.tools.page import ACT_KINDS
from tabpilot.tools.screenshot import image_bytes
from tests.mcp_support import TRANSPORTS, open_mcp
from tests.mcp_support import call as mcp_call
from tests.support import TAB, Command, Daemon, Reply, connected, fail, ok, run_daemon
from tests.test_calls import call as socket_call
from tests.test_calls import calls_socket

#: The tools that send their own command to the extension. The function registry's answer from
#: the daemon, or send another command (tests/test_functions.py walks their faces), and so do the
#: context tools (tests/test_contexts.py).
#: browser_upload reads the files of the uploads folder first and sends them, not its params
#: (tests/test_files.py, tests/e2e/test_files.py).
SENT = [
    name
    for name in TOOLS
    if not name.startswith("eval_") and TOOLS[name].cli.in_context and name != "browser_upload"
]

NEW_TAB = {"id": 12, "url": "http://localhost/popup", "title": "Popup"}

#: What the fake extension answers each command with: the contract's result shapes.
RESULTS: dict[str, Any] = {
    "browser_navigate": {"url": "https://example.com/", "title": "Example", "status": 200},
    "browser_snapshot": {
        "snapshot": '- heading "Shop" [level=1]\n- button "Go" [ref=e1]',
        "refs": 1,
        "chars": 46,
        "truncated": False,
    },
    "browser_act": {
        "description": 'Clicked button "Go" (e1)',
        "route": "dom",
        "navigated": True,
        "url": "http://localhost/next",
        "opened": [NEW_TAB],
    },
    "browser_read": {"text": "World", "offset": 5, "total": 20, "more": True},
    "browser_find": {
        "total": 12,
        "matches": [
            {
                "line": "text: Item 137",
                "ref": None,
                "context": 'in listitem: "$172.24", button "Add to cart" [ref=e138]',
            }
        ],
    },
    "browser_wait_for": {
        "condition": "text",
        "description": 'text "Saved" appeared',
        "elapsed_ms": 412,
        "already": False,
        "navigated": True,
        "url": "http://localhost/next",
    },
    "browser_mouse": {"description": 'Clicked at (412, 230) on button "Save" (e7)', "route": "dom"},
    "browser_downloads": {
        "downloads": [
            {
                **{"id": 3, "name": "r.csv", "origin": "http://localhost", "state": "complete"},
                **{"size": 22, "received": 22, "mime": "text/csv", "path": "/d/r.csv"},
            }
        ],
        "count": 1,
    },
    "browser_fill_form": {
        "fields": [
            {"ref": "e3", "ok": True, "element": 'textbox "Name"', "value": "Ada"},
            {"ref": "e5", "ok": True, "element": 'checkbox "Terms"', "value": True},
        ],
        "submit": {"ref": "e9", "clicked": True, "description": 'Clicked button "Go" (e9)'},
        "route": "dom",
        "navigated": True,
        "url": "http://localhost/next",
        "opened": [],
    },
    "browser_close": {"closed_tabs": [12, 13]},
    "browser_emulate": {
        "route": "debugger",
        "in_force": {
            **{"device": "Pixel 7", "width": 412, "height": 839, "device_scale_factor": 2.625},
            **{"mobile": True, "touch": True, "timezone": "Asia/Tokyo"},
        },
        "notes": ["Touch events appear or go from the tab's next load: reload it to see them."],
    },
    "browser_tabs": [{**TAB, "active": True, "window_id": 1}],
    "browser_take_screenshot": {
        "mime_type": "image/png",
        "width": 2,
        "height": 1,
        "data": "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAAD0lEQVR4nGP8z8DAwMAAAAYIAQHLR3Z1"
        "AAAAAElFTkSuQmCC",
        "scale": 0.5,
        "captured": "element e2 (img)",
        "route": "debugger",
        "bytes": 72,
    },
    "browser_console_messages": {
        "messages": [
            {
                **{"seq": 3, "page": 2, "type": "error", "level": "error", "text": "boom"},
                **{"time": 1, "url": "http://localhost/app.js?v=2", "line": 7},
            }
        ],
        **{"level": "error", "all_pages": False, "matched": 1, "total": 4, "shown": 1},
        **{"evicted": 0, "last_seq": 4, "page": {"id": 2, "url": "http://localhost/test"}},
        "pages": [{"id": 2, "url": "http://localhost/test"}],
    },
    "browser_network_requests": {
        "requests": [
            {
                **{"seq": 9, "page": 2, "request_id": "41", "method": "GET", "type": "xhr"},
                **{"url": "http://localhost/api/cart", "status": 404, "start": 1, "duration": 35},
                **{"size": 1200, "from_cache": False, "failed": None},
            }
        ],
        **{"all_pages": False, "hidden": 3, "matched": 1, "total": 12, "shown": 1},
        **{"evicted": 0, "last_seq": 12, "page": {"id": 2, "url": "http://localhost/test"}},
        "pages": [{"id": 2, "url": "http://localhost/test"}],
    },
    "browser_ask_human": {
        "answer": "done",
        "reply": "logged in",
        "elapsed_ms": 5120,
        "url": "http://localhost/account",
    },
    "browser_network_rules": {
        "rule": {"id": 1, "kind": "block", "pattern": "**/ads/**", "types": ["image"]},
        "rules": [
            {"id": 1, "kind": "block", "pattern": "**/ads/**", "types": ["image"], "route": "dnr"}
        ],
        "scope": {"all_tabs": False, "tabs": 1},
    },
}


async def extension(command: Command) -> Reply:
    """The contract's answer to each command; a script answers itself."""
    if command.command == "execute_javascript":
        return ok(command.params["script"], "string")
    reply = ok(RESULTS[command.command], "object")
    if command.command == "browser_act":
        reply["route"] = "dom"
    return reply


#: The tools whose handler sends the extension more than the model's params: browser_emulate
#: spells a device out into its metrics.
SENT_AS = {"browser_emulate": settings_sent}


def sent_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """What the extension is sent for a call of `name` with `params`."""
    parsed = TOOLS[name].params.parse(params)
    return SENT_AS[name](parsed) if name in SENT_AS else parsed.model_dump()


@dataclass(frozen=True)
class Case:
    """One call of a tool on every face: its params, the text a model reads, the CLI's argv."""

    params: dict[str, Any]
    text: str
    argv: tuple[str, ...]


CASES: dict[str, Case] = {
    "browser_navigate": Case(
        {"url": "https://example.com/"},
        'Navigated to https://example.com/ (HTTP 200): "Example"',
        ("navigate", "https://example.com/"),
    ),
    "browser_snapshot": Case(
        {"interactive_only": True, "max_chars": 5000},
        'Page "Test page" http://localhost/test, 1 ref\n'
        '- heading "Shop" [level=1]\n- button "Go" [ref=e1]',
        ("snapshot", "--interactive-only", "--max-chars", "5000"),
    ),
    "browser_act": Case(
        {"kind": "select", "ref": "e7", "values": ["Blue", "Red"], "trusted": True, "follow": True},
        'Clicked button "Go" (e1); the page navigated to http://localhost/next; '
        'opened tab 12: "Popup"',
        ("act", "select", "e7", "--value", "Blue", "--value", "Red", "--trusted", "--follow"),
    ),
    "browser_read": Case(
        {"offset": 5, "limit": 5},
        "World\n[chars 5-10 of 20; more: browser_read offset=10]",
        ("read", "--offset", "5", "--limit", "5"),
    ),
    "browser_find": Case(
        {"text": "Item 137", "limit": 1},
        '12 matches\n- text: Item 137 \u2014 in listitem: "$172.24", button "Add to cart" '
        "[ref=e138]\n\u2026 11 more; narrow the query",
        ("find", "Item 137", "--limit", "1"),
    ),
    "browser_wait_for": Case(
        {"text": "Saved", "timeout_ms": 5000},
        'text "Saved" appeared after 412 ms; the page navigated to http://localhost/next',
        ("wait", "--text", "Saved", "--timeout-ms", "5000"),
    ),
    "browser_mouse": Case(
        {"action": "click", "x": 412, "y": 230, "modifiers": ["Shift"]},
        'Clicked at (412, 230) on button "Save" (e7) (DOM events)',
        ("mouse", "click", "412", "230", "--modifier", "Shift"),
    ),
    "browser_fill_form": Case(
        {"fields": [{"ref": "e3", "value": "Ada"}, {"ref": "e5", "value": True}], "submit": "e9"},
        'Filled 2 of 2 fields\ne3 textbox "Name": "Ada"\ne5 checkbox "Terms": checked\n'
        'Clicked button "Go" (e9); the page navigated to http://localhost/next',
        ("fill", "--field", "e3=Ada", "--field", "e5=true", "--submit", "e9"),
    ),
    "browser_ask_human": Case(
        {"message": "Please log in", "ref": "e4", "timeout_ms": 60000},
        'The person answered done: "logged in"\nThe tab is at http://localhost/account',
        ("ask", "Please log in", "--ref", "e4", "--timeout-ms", "60000"),
    ),
    "browser_close": Case({}, "Closed 2 tabs.", ("close",)),
    "browser_emulate": Case(
        {"device": "Pixel 7", "timezone": "Asia/Tokyo"},
        "Tab 7 emulates Pixel 7; viewport 412x839; scale 2.625; mobile; touch; timezone "
        "Asia/Tokyo (through the debugger).\nTouch events appear or go from the tab's next load: "
        "reload it to see them.",
        ("emulate", "--device", "Pixel 7", "--timezone", "Asia/Tokyo"),
    ),
    "browser_downloads": Case(
        {"limit": 5},
        '1 download, newest first:\n- "r.csv" (22 bytes) complete at /d/r.csv from http://localhost',
        ("downloads", "--limit", "5"),
    ),
    "execute_javascript": Case(
        {"script": "(el) => el.value", "ref": "e3"},
        "(el) => el.value",
        ("exec", "(el) => el.value", "--ref", "e3"),
    ),
    "browser_tabs": Case(
        {"action": "list"}, "7 (active): Test page http://localhost/test", ("tabs",)
    ),
    "browser_take_screenshot": Case(
        {"clip": {"x": 1, "y": 2, "width": 30, "height": 40.5}, "scale": 2.5, "format": "png"},
        "Screenshot of element e2 (img): 2x1 PNG, 72 bytes, scale 0.5 (debugger)",
        ("screenshot", "--clip", "1,2,30,40.5", "--scale", "2.5", "--format", "png"),
    ),
    "browser_console_messages": Case(
        {"level": "error", "since": 2},
        "1 message at error+ on page 2 (4 in all); newer: since=4\n#3 error: boom (app.js:7)",
        ("console", "--level", "error", "--since", "2"),
    ),
    "browser_network_requests": Case(
        {"status": "4xx", "url": "/api/"},
        "1 request on page 2 (12 in all; 3 static hidden: include_static=true); newer: since=12; "
        "a body: include_body=<#>\n#9 GET 404 xhr http://localhost/api/cart (35 ms, 1.2 kB)",
        ("network", "--status", "4xx", "--url", "/api/"),
    ),
    "browser_network_rules": Case(
        {"action": "add", "kind": "block", "pattern": "**/ads/**", "types": ["image"]},
        "Added rule 1 in the AI's 1 tab\n#1 block **/ads/** (image; declarativeNetRequest)",
        ("rules", "add", "--kind", "block", "--pattern", "**/ads/**", "--types", "image"),
    ),
}


#: Where a model's text over MCP differs from the CLI's: the page is at the url it asked for.
MCP_TEXT = {"browser_navigate": 'Loaded "Example"'}


def _same(envelope: dict[str, Any]) -> dict[str, Any]:
    """An envelope without what differs from call to call."""
    return {k: v for k, v in envelope.items() if k not in ("request_id", "duration_ms")}


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as d:
        yield d


def test_every_tool_has_a_case_and_is_a_command_and_a_call() -> None:
    assert set(CASES) == set(SENT)
    assert set(TOOLS) <= set(METHODS)


@pytest.mark.parametrize("name", SENT)
async def test_http_socket_and_client_answer_one_envelope(daemon: Daemon, name: str) -> None:
    tool, case = TOOLS[name], CASES[name]
    async with connected(daemon, extension) as fake, daemon.client() as client:
        schema = (await client.get("/openapi.json")).json()
        response = await client.post(f"/{name}", json=case.params)
        async with calls_socket(daemon) as ws:
            answer = await socket_call(ws, name, case.params)
        async with DaemonClient(daemon.settings) as daemon_client:
            from_client = await daemon_client.run_tool(tool, tool.params.parse(case.params))
        async with AsyncClient(daemon.settings.port) as public:
            result = await getattr(public, tool.method)(**case.params)
    route = schema["paths"][f"/{name}"]["post"]
    body_schema = route["requestBody"]["content"]["application/json"]["schema"]
    model_schema = tool.params.model_json_schema()
    assert set(body_schema["properties"]) == set(model_schema["properties"])
    assert body_schema.get("required", []) == model_schema.get("required", [])
    assert body_schema["additionalProperties"] is False
    assert route["description"] == tool.description
    assert {"400", "403", "404", "409", "410", "502", "503", "504"} <= set(route["responses"])

    assert response.status_code == 200, response.text
    envelope = response.json()
    assert envelope["success"] is True
    assert envelope["tab"] == TAB
    assert envelope["result"] == RESULTS.get(name, case.params.get("script"))
    assert _same(answer["envelope"]) == _same(envelope) == _same(from_client)
    # A screenshot's method answers the image's bytes; the others, the result.
    assert result == (image_bytes(envelope["result"]) if tool.mcp.image else envelope["result"])
    # A route where the extension sends one (act: dom or debugger), and none elsewhere.
    assert envelope.get("route") == ("dom" if name == "browser_act" else None)
    # One command each time, named as the tool, with the model's params.
    sent = sent_params(name, case.params)
    assert [(c.command, c.params) for c in fake.commands] == [(name, sent)] * 4


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_mcp_lists_and_answers_every_tool(daemon: Daemon, transport: str) -> None:
    async with (
        connected(daemon, extension) as fake,
        open_mcp(transport, daemon.settings.port) as client,
    ):
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        # A tool of an MCP capability (browser_mouse's `vision`) is not listed without it.
        listed_sent = [name for name in SENT if TOOLS[name].mcp.cap is None]
        answers = {name: await mcp_call(client, name, **CASES[name].params) for name in listed_sent}
    # The tools of an MCP capability (the contexts') are listed when a client asks for it.
    assert set(listed) == {*(n for n, t in TOOLS.items() if t.mcp.cap is None), "pilot_status"}
    for name, tool in TOOLS.items():
        if tool.mcp.cap is not None:
            continue
        listing = listed[name]
        # A tool with a limit of its own is cut often enough that its schema names confirm_token.
        token = tool.guard.limit is not None
        assert listing.input_schema == input_schema(tool.params, token=token)
        fields = {*tool.params.model_fields, *(["confirm_token"] if token else [])}
        assert set(listing.input_schema["properties"]) == fields
        assert listing.description == mcp_description(tool)
        reads = listing.annotations is not None and listing.annotations.read_only_hint
        assert reads is tool.read_only
        if name not in answers:
            continue
        result, text = answers[name]
        assert not result.is_error, text
        assert text == MCP_TEXT.get(name, CASES[name].text)
        # The text is the whole answer; a script's value also comes as structured content.
        if name in VALUE_TOOLS:  # the fake extension's echo of the script
            assert result.structured_content == {"result": CASES[name].params["script"]}
        else:
            assert result.structured_content is None, name
    assert [c.command for c in fake.commands] == listed_sent


@pytest.mark.parametrize("name", SENT)
async def test_the_cli_prints_the_text_and_with_json_the_envelope(
    daemon: Daemon,
    name: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # where a screenshot's file goes
    argv = [*CASES[name].argv, "--port", str(daemon.settings.port)]
    async with connected(daemon, extension) as fake:
        assert await asyncio.to_thread(cli.main, argv) == 0
        text = capsys.readouterr().out
        assert await asyncio.to_thread(cli.main, [*argv, "--json"]) == 0
        printed = capsys.readouterr().out
    tool = TOOLS[name]
    sent = sent_params(name, CASES[name].params)
    assert [(c.command, c.params) for c in fake.commands] == [(name, sent)] * 2
    if tool.cli.hand_written:  # written by hand, with output of their own
        return
    if tool.mcp.image:  # the image goes to a file, named first
        path, text = text.split(": ", 1)
        assert re.fullmatch(r"screenshot-\d{8}-\d{6}\.png", path), path
        assert (tmp_path / path).read_bytes() == image_bytes(RESULTS[name])
    assert text == CASES[name].text + "\n"
    envelope = json.loads(printed)
    assert envelope["success"] is True and envelope["result"] == RESULTS[name]


@pytest.mark.parametrize(
    ("name", "params", "says"),
    [
        ("browser_navigate", {"url": "file:///etc/passwd"}, "not 'file'"),
        ("browser_navigate", {"url": "javascript:alert(1)"}, "not 'javascript'"),
        ("browser_navigate", {}, "`goto` needs `url`"),
        ("browser_navigate", {"action": "back", "url": "https://a.example/"}, "takes no `url`"),
        ("browser_act", {"kind": "jump", "ref": "e1"}, ", ".join(f"'{k}'" for k in ACT_KINDS[:-1])),
        ("browser_act", {"kind": "click"}, "`click` needs `ref`"),
        ("browser_act", {"kind": "type", "ref": "e1"}, "`type` needs `text`"),
        ("browser_act", {"kind": "press"}, "`press` needs `key`"),
        ("browser_snapshot", {"max_chars": 10}, "`max_chars`"),
        ("browser_wait_for", {}, "give one condition: text, text_gone, ref, selector, url"),
        ("browser_wait_for", {"text": "a", "ref": "e1"}, "not text and ref"),
        ("browser_wait_for", {"ref": "e1", "state": "shown"}, "'visible', 'hidden', 'enabled'"),
        ("browser_wait_for", {"time": 60_000}, "`time`: Input should be less than or equal"),
        ("browser_wait_for", {"url": "**/{a,b"}, "a `{` is not closed"),
        ("browser_read", {"offset": -1}, "`offset`"),
        ("execute_javascript", {"script": "1", "ref": 5}, "`ref`"),
        ("browser_take_screenshot", {"ref": "e1", "full_page": True}, "do not go together"),
        ("browser_take_screenshot", {"format": "png", "quality": 50}, "`quality` is for jpeg"),
        ("browser_take_screenshot", {"format": "gif"}, "'jpeg' or 'png'"),
        ("browser_take_screenshot", {"quality": 0}, "`quality`"),
        (
            "browser_take_screenshot",
            {"clip": {"x": 0, "y": 0, "width": 9, "height": 9}, "full_page": True},
            "does not go with `full_page`",
        ),
        (
            "browser_take_screenshot",
            {"clip": {"x": 0, "y": 0, "width": 0, "height": 9}},
            "greater than 0",
        ),
        ("browser_take_screenshot", {"scale": 9}, "`scale`"),
        ("eval_define_function", {"name": "1st", "source": "x => x"}, "identifier-like"),
        ("eval_define_function", {"name": "f", "source": ""}, "`source`: String should have"),
        ("eval_define_function", {"name": "f" * 65, "source": "x => x"}, "at most 64"),
        ("eval_call_function", {"name": "f", "args_json": '{"a": 1}'}, "must be a JSON array"),
        ("eval_call_function", {"name": "f", "args_json": "[1,"}, "is not valid JSON"),
        ("eval_call_function", {"name": "f", "args_json": "[NaN]"}, "NaN is not JSON"),
        ("eval_remove_function", {"name": "a-b"}, "identifier-like"),
    ],
)
async def test_bad_input_is_refused_on_every_face_before_anything_is_sent(
    daemon: Daemon, name: str, params: dict[str, Any], says: str
) -> None:
    async with (
        connected(daemon, extension) as fake,
        daemon.client() as client,
        calls_socket(daemon) as ws,
        open_mcp("http", daemon.settings.port, caps=",".join(sorted(CAPS))) as mcp,
    ):
        response = await client.post(f"/{name}", json=params)
        answer = await socket_call(ws, name, params)
        result, text = await mcp_call(mcp, name, **params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert says in error["message"]
    assert answer["envelope"]["error"] == error
    assert result.is_error and text.startswith("Error: Invalid arguments: ") and says in text
    assert fake.commands == []


async def test_an_unknown_field_is_refused_not_ignored(daemon: Daemon) -> None:
    # HTTP and the socket refuse a typo such as `tab` for `tab_id`, and name the field meant
    # (MCP too: tests/test_mcp_server.py).
    async with connected(daemon, extension) as fake, daemon.client() as client:
        response = await client.post("/browser_close", json={"tab_id": 3})
        async with calls_socket(daemon) as ws:
            answer = await socket_call(ws, "browser_read", {"tab": 3})
    assert response.status_code == 400
    assert "`tab_id` is not a field" in response.json()["error"]["message"]
    assert (
        "`tab` is not a field; did you mean `tab_id`? "
        "(the fields are ref, offset, limit, visible_only, tab_id)"
        in (answer["envelope"]["error"]["message"])
    )
    assert fake.commands == []


async def test_pilot_off_refuses_every_tool(daemon: Daemon) -> None:
    async with connected(daemon, extension, pilot_enabled=False) as fake, daemon.client() as c:
        responses = {name: await c.post(f"/{name}", json=CASES[name].params) for name in SENT}
    for name, response in responses.items():
        assert response.status_code == 403, name
        assert response.json()["error"]["code"] == "pilot_disabled", name
    assert fake.commands == []


@pytest.mark.parametrize(
    ("code", "status", "data"),
    [
        ("ref_not_found", 404, {"doc": "d1"}),
        ("stale_ref", 410, None),
        ("element_not_interactable", 409, {"reason": "covered", "cover": "div#cookie-banner"}),
        ("navigation_failed", 502, {"reason": "dns", "url": "https://nowhere.invalid/"}),
        ("debugger_disabled", 403, None),
    ],
)
async def test_the_page_tools_errors_keep_their_status_message_and_data(
    daemon: Daemon, code: str, status: int, data: Any
) -> None:
    async def refuses(command: Command) -> Reply:
        reply = fail(code, f"the extension's own words for {code}")
        reply["error"]["data"] = data
        return reply

    async with connected(daemon, refuses), daemon.client() as client:
        response = await client.post("/browser_act", json={"kind": "click", "ref": "e1"})
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"] == f"the extension's own words for {code}"
    assert error.get("data") == data


def test_the_docs_name_every_tool_on_every_face() -> None:
    root = Path(__file__).resolve().parents[1]
    tools, cli, protocol = (
        (root / "docs" / page).read_text() for page in ("tools.md", "cli.md", "protocol.md")
    )
    for name, tool in TOOLS.items():
        row = f"| `{name}` | `tabpilot {tool.cli.name}` | `{tool.method}()` |"
        assert row in tools, row
        assert f"`{name}`" in protocol, name
        assert f"$ tabpilot {tool.cli.name} --help" in cli, tool.cli.name
