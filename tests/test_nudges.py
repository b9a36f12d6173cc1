"""Hints in execute_javascript's MCP answers (tabpilot.mcp.hints; docs/tools.md, "Hints"): the
similarity of scripts, the table of scripts that redo a tool, the rules of a session, and the
answers of the official SDK's client over stdio and at /mcp, with the fake extension of
tests/support.py. A real tab: tests/e2e/test_nudges.py."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent

from tabpilot.mcp import hints as nudges
from tabpilot.mcp.hints import (
    FIRST_USE,
    REPEAT,
    Nudges,
    shingles,
    similarity,
    sketch,
    tokens,
)
from tabpilot.mcp.http import MCP_MAX_SESSIONS
from tabpilot.mcp.redo import REDOS, redo_hints
from tabpilot.tools import TOOLS
from tabpilot.tools.script import ExecuteParams
from tests.mcp_support import hints_of, open_mcp, text_of
from tests.support import Command, Reply, connected, echo, fail, run_daemon

TOOLS_PAGE = (Path(__file__).resolve().parents[1] / "docs" / "tools.md").read_text()

#: One script with three sets of arguments, and another one: long enough for the repeat hint.
ROWS = (
    "const rows = [...document.querySelectorAll('{sel}')]; "
    "return rows.slice(0, {n}).map((row) => row.textContent.trim());"
)
FAMILY = [ROWS.format(sel=sel, n=n) for sel, n in (("#a tr", 5), ("#b li", 10), ("ul.c li", 3))]
OTHER = (
    "const form = document.forms[0]; "
    "return Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v)]));"
)
SCRIPT = "execute_javascript"
READ = next(redo.hint for redo in REDOS if redo.tool == "browser_read")


def repeat(n: int) -> str:
    return REPEAT.format(n=n)


def jaccard(a: str, b: str) -> float:
    """The similarity as docs/tools.md defines it, on the shingles themselves."""
    x, y = shingles(a), shingles(b)
    return len(x & y) / len(x | y)


# The similarity of scripts.


def test_a_shingle_is_three_tokens_with_literals_as_zero() -> None:
    assert shingles("const  x = 'it\\'s';\n return x * 2.5") == {
        ("const", "x", "="),
        ("x", "=", "0"),
        ("=", "0", ";"),
        ("0", ";", "return"),
        (";", "return", "x"),
        ("return", "x", "*"),
        ("x", "*", "0"),
    }
    assert shingles("document.title") == {("document", ".", "title")}
    assert shingles("x()") == {("x", "(", ")")}
    assert shingles("x") == {("x",)}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("document.title", "document.title"),
        ("return  1 +\n\t1", "return 2+2"),  # layout, numbers
        (FAMILY[0], FAMILY[1]),  # the same script with other strings and numbers
        ("x.querySelector('#a')", 'x.querySelector("#some-other")'),
        ("x", "x"),  # shorter than a shingle
    ],
)
def test_the_same_script_is_similarity_one(a: str, b: str) -> None:
    assert jaccard(a, b) == 1.0
    assert similarity(sketch(a), sketch(b)) == 1.0


@pytest.mark.parametrize(
    ("a", "b", "low", "high"),
    [
        (FAMILY[0], FAMILY[0].replace("trim()", "trim().toLowerCase()"), 0.8, 0.95),
        (FAMILY[0], OTHER, 0.0, 0.2),
        (FAMILY[0], FAMILY[0] + " // and a comment that says a good deal more about it", 0.6, 0.8),
        ("document.body.innerText", "document.body.textContent", 0.4, 0.6),
        ("document.title", "location.href", 0.0, 0.0),
    ],
)
def test_similar_scripts_and_other_ones(a: str, b: str, low: float, high: float) -> None:
    assert low <= jaccard(a, b) <= high


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (FAMILY[0], FAMILY[0].replace("trim()", "trim().toLowerCase()")),
        (FAMILY[0], OTHER),
        ("document.body.innerText", "document.body.textContent"),
    ],
)
def test_the_sketch_gives_the_jaccard_index_of_the_shingles(a: str, b: str) -> None:
    # Exactly that of the bitmap's bits; now and then two of a few dozen shingles share a bit,
    # which moves the index by a few hundredths (which ones varies with the process's hash seed).
    bits = [{hash(shingle) % 4096 for shingle in shingles(text)} for text in (a, b)]
    assert similarity(sketch(a), sketch(b)) == len(bits[0] & bits[1]) / len(bits[0] | bits[1])
    assert abs(similarity(sketch(a), sketch(b)) - jaccard(a, b)) < 0.1


def test_a_huge_script_is_compared_on_its_beginning() -> None:
    huge = "let total = 0; " + "total += 1; " * 500_000
    assert tokens(huge) == tokens(huge[: nudges.COMPARED_CHARS])
    assert similarity(sketch(huge), sketch(huge + "return total")) == 1.0


# The scripts that redo a tool.

REDONE = [
    ("document.body.innerText", "browser_read"),
    ("return document.documentElement.textContent.slice(0, 500)", "browser_read"),
    ("document.body.outerHTML", "browser_snapshot"),
    ("document.querySelector('#buy').click()", "browser_act"),
    ("(el) => el.click()", "browser_act"),
    ("el.dispatchEvent(new MouseEvent('click', {bubbles: true}))", "browser_act"),
    ("document.querySelector('#q').value = 'shoes'", "browser_act"),
    ("location.href = 'https://example.com/'", "browser_navigate"),
    ("history.back()", "browser_navigate"),
    ("document.title", "browser_tabs"),
    ("({title: document.title, url: location.href})", "browser_tabs"),
    ("return [document.title, window.location.href]", "browser_tabs"),
    (
        "window.__logs = []; console.log = (...a) => window.__logs.push(a)",
        "browser_console_messages",
    ),
    ("addEventListener('error', (e) => errors.push(e.message))", "browser_console_messages"),
    ("performance.getEntriesByType('resource').map((e) => e.name)", "browser_network_requests"),
    ("const send = XMLHttpRequest.prototype.send", "browser_network_requests"),
    ("html2canvas(document.body).then((c) => c.toDataURL())", "browser_take_screenshot"),
]
NOT_REDONE = [
    "1 + 1",
    "document.title.length > 0",  # more than the title
    "document.querySelector('#price').textContent",  # one element: what scripts are for
    "document.body.innerHTML = '<p>fixture</p>'",  # writes the page
    "location.href === 'https://example.com/'",  # compares
    "input.value === ''",
    "const allocation = 5; myconsole = null; return allocation",
    "window.__NEXT_DATA__.props.pageProps",
]


@pytest.mark.parametrize(("script", "tool"), REDONE)
def test_a_script_that_redoes_a_tool_names_it(script: str, tool: str) -> None:
    assert [name for name, _ in redo_hints(script)] == [tool]


@pytest.mark.parametrize("script", NOT_REDONE)
def test_other_scripts_name_no_tool(script: str) -> None:
    assert redo_hints(script) == []


def test_every_row_of_the_table_is_tested_and_in_the_docs() -> None:
    assert {redo.tool for redo in REDOS} == {tool for _, tool in REDONE}
    section = TOOLS_PAGE.split("\n## Hints\n")[1].split("\n## ")[0]
    for redo in REDOS:
        assert f"| `{redo.tool}` | {redo.catches} |" in section, redo.tool


def _calls(hint: str) -> list[tuple[str, dict[str, Any]]]:
    # `tool_name {json}`, and a bare `{json}` after one for the same tool.
    calls, tool = [], None
    for name, arguments in re.findall(r"(?:\b([a-z_]+) )?(\{[^{}]*\})", hint):
        tool = name or tool
        calls.append((tool, json.loads(arguments)))
    return calls


def test_every_call_a_hint_shows_takes_those_arguments() -> None:
    hints = [FIRST_USE, *(redo.hint for redo in REDOS)]
    shown = [call for hint in hints for call in _calls(hint)]
    assert len(shown) >= 13
    for tool, arguments in shown:
        TOOLS[tool].params.model_validate(arguments)  # a wrong name or field would raise
    assert all(hint.startswith("Tip: ") for hint in [*hints, repeat(3)])
    assert all("\n" not in hint for hint in [*hints, repeat(3)])
    # Each is one short line: the model pays for it in its context.
    assert len(FIRST_USE) <= 170
    assert all(len(hint) <= 100 for hint in [*hints[1:], repeat(3)])
    assert {
        "browser_snapshot",
        "browser_act",
        "browser_read",
        "browser_console_messages",
        "browser_network_requests",
    } == nudges.FIRST_USE_TOOLS


# The rules of a session.


def test_each_hint_comes_as_often_as_the_rules_say() -> None:
    session = Nudges()
    assert session.hints("s", "1 + 1") == [FIRST_USE]
    assert session.hints("s", "2 + 2") == []
    assert session.hints("s", "document.body.innerText") == [READ]
    assert session.hints("s", "document.body.innerText") == []  # once per tool
    assert session.hints("s", "document.body.textContent.length") == []
    assert [session.hints("s", script) for script in FAMILY] == [[], [], [repeat(3)]]
    assert session.hints("s", FAMILY[0]) == []  # once per family
    assert session.hints("s", OTHER) == []
    assert session.hints("s", OTHER) == []
    assert session.hints("s", OTHER + " ") == [repeat(3)]  # another family, its own hint
    # Another session starts afresh.
    assert session.hints("t", FAMILY[0]) == [FIRST_USE]


def test_the_first_use_tip_does_not_name_a_tool_twice_in_one_answer() -> None:
    session = Nudges()
    # The tip names browser_read already; a later redo still names it.
    assert session.hints("s", "document.body.innerText") == [FIRST_USE]
    assert session.hints("s", "document.body.innerText") == [READ]
    # browser_tabs is not in the tip: its redo hint comes with it.
    tabs = next(r.hint for r in REDOS if r.tool == "browser_tabs")
    assert Nudges().hints("s", "document.title") == [FIRST_USE, tabs]


def test_short_scripts_never_get_the_repeat_hint() -> None:
    session = Nudges()
    session.hints("s", "1 + 1")
    assert [session.hints("s", "window.scrollY") for _ in range(10)] == [[]] * 10


def test_a_family_that_left_the_recent_scripts_is_hinted_again() -> None:
    session = Nudges()
    session.hints("s", "1 + 1")
    assert [session.hints("s", script) for script in FAMILY][-1] == [repeat(3)]
    for n in range(nudges.RECENT_SCRIPTS):
        session.hints(
            "s", f"const v{n} = innerWidth * innerHeight; return [v{n}, navigator.language];"
        )
    assert [session.hints("s", script) for script in FAMILY] == [[], [], [repeat(3)]]


def test_the_count_is_of_the_recent_similar_scripts() -> None:
    session = Nudges()
    session.hints("s", "1 + 1")
    for _ in range(2):
        session.hints("s", FAMILY[0])
    assert session.hints("s", FAMILY[1]) == [repeat(3)]
    for script in FAMILY * 10:
        assert session.hints("s", script) == []


def test_the_sessions_remembered_are_bounded() -> None:
    assert nudges.MAX_SESSIONS == MCP_MAX_SESSIONS
    session = Nudges(max_sessions=2)
    for key in ("a", "b", "a", "c"):  # c forgets b, the least recently used
        session.hints(key, "1")
    assert session.hints("a", "1") == []
    assert session.hints("c", "1") == []
    assert session.hints("b", "1") == [FIRST_USE]


def _answer(text: str = "2", is_error: bool = False) -> CallToolResult:
    structured = {"error": {"code": "execution_error"}} if is_error else {"result": text}
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=is_error,
    )


def _context(headers: dict[str, str] | None, client: str | None = None) -> Any:
    """A request's context: over stdio (no headers), or over HTTP with ``headers``, its client
    program named ``client`` in its clientInfo (as the 2026-07-28 revision's requests do)."""
    request = None if headers is None else SimpleNamespace(headers=headers)
    info = None if client is None else SimpleNamespace(client_info=SimpleNamespace(name=client))
    return SimpleNamespace(
        request_context=SimpleNamespace(request=request),
        session=SimpleNamespace(client_params=info),
    )


def _text(result: CallToolResult) -> str:
    return result.content[0].text  # type: ignore[union-attr]


STDIO = _context(None)


def answered(
    session: Nudges, context: Any, answer: CallToolResult, script: str = "1", tool: str = SCRIPT
) -> CallToolResult:
    """``answer`` as the MCP tool hands it back, ``script`` having run."""
    pending = session.prepare(context, tool, ExecuteParams(script=script))
    return pending.answer(answer) if pending else answer


def test_an_answer_gets_its_hints_in_the_text_only() -> None:
    session = Nudges()
    hinted = answered(session, STDIO, _answer("tabpilot"), "document.title")
    hints = [FIRST_USE, next(r.hint for r in REDOS if r.tool == "browser_tabs")]
    assert _text(hinted) == "\n".join(["tabpilot", *hints])
    # A client that hands the model the structured content too does not pay for them twice.
    assert hinted.structured_content == {"result": "tabpilot"}
    assert (text_of(hinted), hints_of(hinted)) == ("tabpilot", hints)
    assert answered(session, STDIO, _answer("tabpilot"), "document.title") == _answer("tabpilot")


async def test_the_script_is_looked_at_while_it_runs() -> None:
    # prepare() leaves the work to the event loop, which does it while the call is awaited.
    session = Nudges()
    pending = session.prepare(STDIO, SCRIPT, ExecuteParams(script=FAMILY[0]))
    assert pending is not None and pending._script is None
    await asyncio.sleep(0)
    assert pending._script is not None and pending._script.sketch == sketch(FAMILY[0])
    assert _text(pending.answer(_answer())) == f"2\n{FIRST_USE}"


@pytest.mark.parametrize(
    ("tool", "context", "answer"),
    [
        (SCRIPT, STDIO, _answer("Error: boom", is_error=True)),
        ("browser_read", STDIO, _answer()),
        (SCRIPT, Context(), _answer()),  # outside of a request
    ],
)
def test_no_hints_for_a_failure_another_tool_or_outside_of_a_request(
    tool: str, context: Any, answer: CallToolResult
) -> None:
    session = Nudges()
    assert answered(session, context, answer, tool=tool) is answer
    # Nothing was counted: the first hinted answer still gets the first-use tip.
    assert hints_of(answered(session, STDIO, _answer())) == [FIRST_USE]


def test_http_sessions_are_told_apart_by_their_id() -> None:
    session = Nudges()
    for key in ("one", "two"):
        context = _context({"mcp-session-id": key})
        assert hints_of(answered(session, context, _answer())) == [FIRST_USE]
        assert answered(session, context, _answer()) == _answer()


def test_requests_without_a_session_are_told_apart_by_their_client_program() -> None:
    # The 2026-07-28 revision: no session; the client names itself in each request's _meta.
    session = Nudges()
    for client in ("agent-one", "agent-two", None):  # None: a request that names none
        context = _context({}, client)
        assert hints_of(answered(session, context, _answer())) == [FIRST_USE]
        assert answered(session, context, _answer()) == _answer()
        # Its own key, apart from any session's and stdio's.
        assert nudges.session_key(context) == nudges.STATELESS + (client or "")
    assert hints_of(answered(session, STDIO, _answer())) == [FIRST_USE]


# Through the SDK's client: `tabpilot mcp` (stdio), and /mcp in a session.


async def scripted(command: Command) -> Reply:
    if command.params.get("script") == "throw":
        return fail("execution_error", "boom")
    return await echo(command)


async def _hints(client: Any, script: str) -> list[str]:
    """Run ``script``; its hints, checked to end the text the model reads."""
    result = await client.call_tool("execute_javascript", {"script": script})
    assert isinstance(result, CallToolResult) and result.is_error is False
    assert text_of(result) == script  # the fake extension's echo, then each hint on its line
    assert result.structured_content == {"result": script}  # no hints there
    return hints_of(result)


@pytest.mark.parametrize(("transport", "mode"), [("stdio", "auto"), ("http", "legacy")])
async def test_hints_in_an_mcp_session(transport: str, mode: str) -> None:
    with run_daemon() as daemon:
        async with connected(daemon, scripted):
            port = daemon.settings.port
            async with open_mcp(transport, port, mode=mode) as client:
                failed = await client.call_tool("execute_javascript", {"script": "throw"})
                assert failed.is_error and hints_of(failed) == []
                assert await _hints(client, "1 + 1") == [FIRST_USE]
                assert await _hints(client, "document.body.innerText") == [READ]
                assert await _hints(client, "document.body.innerText") == []
                assert [await _hints(client, script) for script in FAMILY] == [[], [], [repeat(3)]]
                assert await _hints(client, FAMILY[1]) == []
                assert await _hints(client, OTHER) == []
                tabs = await client.call_tool("browser_tabs", {})
                assert hints_of(tabs) == [] and tabs.structured_content is None
            if transport == "http":  # over stdio a new session is a new process: seconds more
                async with open_mcp(transport, port, mode=mode) as client:
                    assert await _hints(client, "1 + 1") == [FIRST_USE]  # a new session


async def test_hints_without_a_session_by_client_program_and_none_for_programs() -> None:
    with run_daemon() as daemon:
        async with connected(daemon):
            # The 2026-07-28 revision over HTTP: each request on its own; the hints are kept for
            # the client program each names, so each comes as often as in a session.
            async with open_mcp("http", daemon.settings.port) as client:
                assert await _hints(client, "1 + 1") == [FIRST_USE]
                assert await _hints(client, "document.body.innerText") == [READ]
                assert await _hints(client, "document.body.innerText") == []
                assert [await _hints(client, script) for script in FAMILY] == [[], [], [repeat(3)]]
            async with daemon.client() as http:
                for script in ("1 + 1", "document.body.innerText", *FAMILY):
                    body = (await http.post("/execute_javascript", json={"script": script})).json()
                    assert body["success"] is True and "hints" not in body
                    assert body["result"] == script
