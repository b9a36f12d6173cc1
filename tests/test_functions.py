"""The function registry (tabpilot.tools.functions): its params, the script a call runs, the
registry's rules, and the four tools on every face against the scripted fake extension. The real
browser's answers are in tests/e2e/test_functions.py."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from tabpilot import AsyncClient, ClientError, cli
from tabpilot.browsers.functions import MAX_FUNCTIONS, FunctionRegistry
from tabpilot.errors import FunctionNotFound, InvalidRequest, TooManyFunctions
from tabpilot.tools.functions import (
    CallFunctionParams,
    DefineFunctionParams,
    RemoveFunctionParams,
    call_script,
    js_literal,
)
from tests.mcp_support import call as mcp_call
from tests.mcp_support import open_mcp
from tests.support import Command, Daemon, Reply, connected, fail, ok, run_daemon
from tests.test_calls import call as socket_call
from tests.test_calls import calls_socket

ADD = "(a, b) => a + b"


async def checker(command: Command) -> Reply:
    """The extension's side: the syntax check answers the function's text; a script itself."""
    if command.command == "eval_define_function":
        source = command.params["source"]
        if source.startswith("bad"):
            reply = fail("invalid_function", "SyntaxError at line 1, column 4: Unexpected token.")
            reply["error"]["data"] = {"line": 1, "column": 4}
            return reply
        return ok({"source": source.removeprefix("// c\n").rstrip(";")}, "object", tab=None)
    return ok(command.params["script"], "string")


@pytest.fixture(scope="module")
def shared() -> Iterator[Daemon]:
    with run_daemon() as d:
        yield d


@pytest.fixture
def daemon(shared: Daemon) -> Daemon:
    """The module's daemon with an empty registry."""
    shared.app.state.bridge.functions = FunctionRegistry()
    return shared


# -- the script a call runs ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "literal"),
    [
        ([1, "a", None, True, 2.5], '[1,"a",null,true,2.5]'),
        ({"a": {"b": []}}, '{"a":{"b":[]}}'),
        # An own property, as JSON.parse makes it, not the object's prototype.
        ({"__proto__": {"x": 1}}, '{["__proto__"]:{"x":1}}'),
        ("line\u2028sep \ud800 é", '"line\\u2028sep \\ud800 \\u00e9"'),
        (12345678901234567890, "12345678901234567890"),
    ],
)
def test_json_arguments_become_literals_of_the_same_value(value: Any, literal: str) -> None:
    assert js_literal(value) == literal


def test_a_call_awaits_the_function_and_a_ref_call_puts_the_element_first() -> None:
    assert call_script(ADD, [1, "x"], False) == 'await ((a, b) => a + b\n)(1, "x")'
    assert call_script("f => f // note", [], False) == "await (f => f // note\n)()"
    assert call_script("(el, n) => n", [2], True) == (
        "(__tabpilot_el) => ((el, n) => n\n)(__tabpilot_el, 2)"
    )


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"name": "9lives", "source": ADD}, "identifier-like"),
        ({"name": "a.b", "source": ADD}, "identifier-like"),
        ({"name": "", "source": ADD}, "at least 1"),
        ({"name": "f", "source": ""}, "at least 1"),
        ({"name": "f", "source": "x" * 100_001}, "at most 100000"),
        ({"name": "f", "source": ADD, "tab_id": 1}, "`tab_id` is not a field"),
    ],
)
def test_define_params_refuse_a_bad_name_or_source(params: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidRequest, match="Invalid request") as info:
        DefineFunctionParams.parse(params)
    assert says in info.value.message


@pytest.mark.parametrize(
    ("args_json", "says"),
    [
        ('{"a": 1}', 'must be a JSON array of the arguments: [1, "a"]; one object: [{"a": 1}]'),
        ("1", "must be a JSON array"),
        ("[1, 2", "is not valid JSON"),
        ("[Infinity]", "Infinity is not JSON"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_call_params_want_a_json_array(args_json: str, says: str) -> None:
    with pytest.raises(InvalidRequest) as info:
        CallFunctionParams.parse({"name": "f", "args_json": args_json})
    assert says in info.value.message


def test_the_call_params_default_to_no_arguments_and_take_a_ref() -> None:
    params = CallFunctionParams.parse({"name": "f", "ref": "e3", "tab_id": 4})
    assert (params.args_json, params.ref, params.tab_id, params.timeout_ms) == ("[]", "e3", 4, 5000)
    assert RemoveFunctionParams.parse({"name": "$_x1"}).name == "$_x1"


# -- the registry -------------------------------------------------------------------------------


def test_the_registry_keeps_replaces_lists_and_removes() -> None:
    registry = FunctionRegistry()
    assert registry.put("add", ADD) is False
    assert registry.put("long", "function long() {\n  return 1\n}") is False
    assert registry.put("add", "(a, b) =>\n  a + b") is True  # replaced, in its place
    assert registry.get("add").source == "(a, b) =>\n  a + b"
    assert registry.listing() == [
        {"name": "add", "first_line": "(a, b) =>"},
        {"name": "long", "first_line": "function long() {"},
    ]
    registry.remove("add")
    with pytest.raises(FunctionNotFound, match=r"No function is named 'add'.*defined ones: long"):
        registry.get("add")
    with pytest.raises(FunctionNotFound):
        registry.remove("add")


def test_a_long_first_line_is_cut() -> None:
    registry = FunctionRegistry()
    registry.put("f", "() => " + "x" * 500)
    first = registry.listing()[0]["first_line"]
    assert len(first) == 120 and first.endswith("…")


def test_the_registry_holds_at_most_its_limit_but_a_name_may_be_defined_again() -> None:
    registry = FunctionRegistry()
    assert registry.limit == MAX_FUNCTIONS == 100
    for i in range(MAX_FUNCTIONS):
        registry.put(f"f{i}", ADD)
    registry.put("f7", "x => x")
    with pytest.raises(TooManyFunctions, match="holds 100 functions, its limit"):
        registry.put("one_more", ADD)
    registry.remove("f0")
    registry.put("one_more", ADD)


# -- the tools, on every face -------------------------------------------------------------------

Face = Callable[[Daemon, str, dict[str, Any]], Awaitable[Any]]


async def _http(daemon: Daemon, name: str, params: dict[str, Any]) -> Any:
    async with daemon.client() as client:
        return (await client.post(f"/{name}", json=params)).json()


async def _socket(daemon: Daemon, name: str, params: dict[str, Any]) -> Any:
    async with calls_socket(daemon) as ws:
        return (await socket_call(ws, name, params))["envelope"]


async def _mcp(daemon: Daemon, name: str, params: dict[str, Any]) -> Any:
    async with open_mcp("http", daemon.settings.port, caps="functions") as client:
        result, text = await mcp_call(client, name, **params)
    return {**(result.structured_content or {}), "text": text}


def _argv(name: str, params: dict[str, Any]) -> list[str]:
    argv = {
        "eval_define_function": ["define", params.get("name"), params.get("source")],
        "eval_call_function": ["call", params.get("name"), params.get("args_json", "[]")],
        "eval_list_functions": ["functions"],
        "eval_remove_function": ["undefine", params.get("name")],
    }[name]
    return argv + (["--ref", params["ref"]] if "ref" in params else [])


async def _cli(daemon: Daemon, name: str, params: dict[str, Any]) -> Any:
    argv = [*_argv(name, params), "--port", str(daemon.settings.port), "--json"]
    return json.loads(await asyncio.to_thread(_printed, argv))


def _printed(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        cli.main(argv)
    return (out.getvalue() + err.getvalue()).rstrip("\n")


async def _python(daemon: Daemon, name: str, params: dict[str, Any]) -> Any:
    method = {
        "eval_define_function": "define_function",
        "eval_call_function": "call_function",
        "eval_list_functions": "list_functions",
        "eval_remove_function": "remove_function",
    }[name]
    async with AsyncClient(daemon.settings.port) as client:
        try:
            result = await getattr(client, method)(**params)
        except ClientError as error:
            return {"success": False, "error": {"code": error.code, "message": error.message}}
    return {"success": True, "result": result}


FACES: dict[str, Face] = {
    "http": _http,
    "socket": _socket,
    "mcp": _mcp,
    "cli": _cli,
    "python": _python,
}


@pytest.mark.parametrize("face", FACES)
async def test_define_call_list_and_remove_on_each_face(daemon: Daemon, face: str) -> None:
    run = FACES[face]
    async with connected(daemon, checker) as fake:
        source = "// c\n" + ADD
        defined = await run(daemon, "eval_define_function", {"name": "add", "source": source})
        called = await run(daemon, "eval_call_function", {"name": "add", "args_json": '[1, "x"]'})
        on_element = await run(
            daemon, "eval_call_function", {"name": "add", "args_json": "[2]", "ref": "e3"}
        )
        listed = await run(daemon, "eval_list_functions", {})
        removed = await run(daemon, "eval_remove_function", {"name": "add"})
        gone = await run(daemon, "eval_call_function", {"name": "add"})
    # The daemon keeps the text the extension's check answered, and builds each call's script.
    script = 'await ((a, b) => a + b\n)(1, "x")'
    on_script = "(__tabpilot_el) => ((a, b) => a + b\n)(__tabpilot_el, 2)"
    assert called["result"] == script and on_element["result"] == on_script
    assert gone["error"]["code"] == "function_not_found"
    if face != "mcp":
        assert defined["success"] and defined["result"] == {"name": "add", "replaced": False}
        assert listed["result"] == {"functions": [{"name": "add", "first_line": ADD}], "limit": 100}
        assert removed["result"] == {"name": "add", "removed": True}
        assert gone["success"] is False
    else:  # the text a model reads; only a called function's value is structured content too
        assert {"text"} == set(defined) == set(listed) == set(removed)
        assert defined["text"] == "✓ Function defined: add"
        assert called["text"] == script
        assert listed["text"] == f"add: {ADD}"
        assert removed["text"] == "✓ Function removed: add"
        assert gone["text"].startswith("Error: No function is named 'add' in this daemon.")
    sent = [(c.command, c.params) for c in fake.commands]
    assert sent[0] == ("eval_define_function", {"name": "add", "source": "// c\n" + ADD})
    assert [command for command, _ in sent[1:]] == ["execute_javascript"] * 2
    execute = [params for command, params in sent if command == "execute_javascript"]
    assert execute[0] == {
        **{"script": script, "timeout_ms": 5000, "await_promise": True, "tab_id": None},
        **{"dialog": "dismiss", "prompt_text": None, "ref": None},
    }
    assert (execute[-1]["script"], execute[-1]["ref"]) == (on_script, "e3")


async def test_the_cli_prints_what_a_model_reads(daemon: Daemon) -> None:
    port = ["--port", str(daemon.settings.port)]

    async def printed(*argv: str) -> str:
        return await asyncio.to_thread(_printed, [*argv, *port])

    async with connected(daemon, checker):
        assert await printed("functions") == (
            "No functions are defined. Define one with eval_define_function."
        )
        assert await printed("define", "add", ADD) == "✓ Function defined: add"
        assert await printed("define", "add", ADD) == (
            "✓ Function defined: add (it replaced the one of that name)"
        )
        assert await printed("call", "add", "[1, 2]") == "await ((a, b) => a + b\n)(1, 2)"
        assert await printed("functions") == f"add: {ADD}"
        assert await printed("undefine", "add") == "✓ Function removed: add"
        assert (await printed("undefine", "add")).startswith(
            "Error: No function is named 'add' in this daemon. None is defined."
        )


async def test_a_call_answers_as_execute_javascript_does(daemon: Daemon) -> None:
    async def page(command: Command) -> Reply:
        if command.command == "eval_define_function":
            return ok({"source": command.params["source"]}, "object", tab=None)
        reply = ok({"total": 3}, "object")
        reply["route"] = "debugger"
        reply["dialogs"] = [{"type": "alert", "message": "hi", "action": "dismissed"}]
        return reply

    async with connected(daemon, page), daemon.client() as client:
        await client.post("/eval_define_function", json={"name": "t", "source": "() => 1"})
        body = (await client.post("/eval_call_function", json={"name": "t", "tab_id": 7})).json()
        async with open_mcp("http", daemon.settings.port, caps="functions") as mcp:
            _, text = await mcp_call(mcp, "eval_call_function", name="t")
    assert body["result"] == {"total": 3} and body["result_type"] == "object"
    assert body["route"] == "debugger" and body["tab"]["id"] == 7
    assert body["dialogs"] == [{"type": "alert", "message": "hi", "action": "dismissed"}]
    assert text == '{"total": 3}\n[alert "hi" dismissed]'


async def test_a_syntax_error_is_invalid_function_with_its_position(daemon: Daemon) -> None:
    async with connected(daemon, checker), daemon.client() as client:
        response = await client.post("/eval_define_function", json={"name": "b", "source": "bad"})
        listed = (await client.post("/eval_list_functions")).json()
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_function"
    assert error["message"].startswith("SyntaxError at line 1, column 4")
    assert error["data"] == {"line": 1, "column": 4}
    assert listed["result"]["functions"] == []


async def test_a_full_registry_refuses_a_new_name_before_anything_is_sent(daemon: Daemon) -> None:
    daemon.app.state.bridge.functions = FunctionRegistry(limit=1)
    async with connected(daemon, checker) as fake, daemon.client() as client:
        first = await client.post("/eval_define_function", json={"name": "a", "source": ADD})
        again = await client.post("/eval_define_function", json={"name": "a", "source": ADD})
        refused = await client.post("/eval_define_function", json={"name": "b", "source": ADD})
    assert first.status_code == again.status_code == 200
    assert again.json()["result"]["replaced"] is True
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "too_many_functions"
    assert "eval_remove_function" in refused.json()["error"]["message"]
    assert len(fake.commands) == 2


async def test_an_unknown_function_is_404_and_nothing_is_sent(daemon: Daemon) -> None:
    async with connected(daemon, checker) as fake, daemon.client() as client:
        response = await client.post("/eval_call_function", json={"name": "nope"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "function_not_found"
    assert (
        "None is defined. Define it with eval_define_function"
        in (response.json()["error"]["message"])
    )
    assert fake.commands == []


async def test_list_and_remove_need_no_browser_and_define_says_why_it_does(
    daemon: Daemon,
) -> None:
    daemon.app.state.bridge.functions.put("kept", ADD)
    async with daemon.client() as client:
        listed = await client.post("/eval_list_functions", json={})
        removed = await client.post("/eval_remove_function", json={"name": "kept"})
        defined = await client.post("/eval_define_function", json={"name": "f", "source": ADD})
    assert listed.json()["result"]["functions"] == [{"name": "kept", "first_line": ADD}]
    assert removed.status_code == 200
    assert defined.status_code == 503
    error = defined.json()["error"]
    assert error["code"] == "extension_not_connected"
    assert "checks the source's syntax in the tabpilot extension" in error["message"]


async def test_the_pilot_switch_gates_define_and_call_not_list_or_remove(daemon: Daemon) -> None:
    daemon.app.state.bridge.functions.put("kept", ADD)
    async with (
        connected(daemon, checker, pilot_enabled=False) as fake,
        daemon.client() as client,
    ):
        defined = await client.post("/eval_define_function", json={"name": "f", "source": ADD})
        called = await client.post("/eval_call_function", json={"name": "kept"})
        listed = await client.post("/eval_list_functions", json={})
        removed = await client.post("/eval_remove_function", json={"name": "kept"})
    assert defined.json()["error"]["code"] == called.json()["error"]["code"] == "pilot_disabled"
    assert listed.status_code == removed.status_code == 200
    assert fake.commands == []


async def test_an_extension_that_answers_no_text_is_an_extension_error(daemon: Daemon) -> None:
    async def old(command: Command) -> Reply:
        return ok(None, "undefined", tab=None)

    async with connected(daemon, old), daemon.client() as client:
        response = await client.post("/eval_define_function", json={"name": "f", "source": ADD})
        listed = (await client.post("/eval_list_functions")).json()
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "extension_error"
    assert listed["result"]["functions"] == []


async def test_arguments_past_the_script_limit_are_refused_naming_them() -> None:
    with run_daemon(max_script_bytes=1000) as daemon:
        daemon.app.state.bridge.functions.put("f", ADD)
        async with connected(daemon, checker) as fake, daemon.client() as client:
            response = await client.post(
                "/eval_call_function", json={"name": "f", "args_json": json.dumps(["x" * 2000])}
            )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "script_too_large"
    assert (
        "'f' with these arguments is longer than a script may be"
        in (response.json()["error"]["message"])
    )
    assert fake.commands == []
