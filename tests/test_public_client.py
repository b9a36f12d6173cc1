"""tabpilot.Client and tabpilot.AsyncClient against a real daemon and the scripted fake extension:
a method per tool, results as plain data, one exception class for every failure."""

from __future__ import annotations

import asyncio
import inspect
import time
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

import tabpilot
from tabpilot import AsyncClient, Client, ClientError, TabpilotError
from tabpilot.browsers.bridge import BROWSER_START_GRACE_S
from tabpilot.client.connection import CLIENT_SLACK_S
from tabpilot.config import Settings
from tabpilot.tools import TOOLS
from tabpilot.tools.screenshot import image_bytes
from tests.e2e.harness import free_port
from tests.support import Command, Reply, connected, fail, never, ok, run_daemon
from tests.test_tools import RESULTS, extension

#: Each method's call, and the params the extension receives for it (beyond the defaults).
CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any], dict[str, Any]]] = {
    "browser_navigate": (("https://example.com/",), {}, {"url": "https://example.com/"}),
    "browser_snapshot": ((), {"ref": "e4"}, {"ref": "e4"}),
    "browser_act": (
        ("type", "e3"),
        {"text": "hello", "submit": True},
        {"kind": "type", "ref": "e3", "text": "hello", "submit": True},
    ),
    "browser_read": ((), {"offset": 5, "limit": 5}, {"offset": 5, "limit": 5}),
    "browser_close": ((), {}, {}),
    "execute_javascript": (
        ("(el) => el.id",),
        {"ref": "e2", "timeout_ms": 900},
        {"script": "(el) => el.id", "ref": "e2", "timeout_ms": 900},
    ),
    "browser_tabs": ((), {}, {"action": "list"}),
    "browser_take_screenshot": ((), {"full_page": True}, {"full_page": True}),
    "browser_console_messages": (
        (),
        {"level": "debug", "clear": True},
        {"level": "debug", "clear": True},
    ),
    "browser_network_requests": ((), {"include_body": 9}, {"include_body": 9}),
}


def test_the_package_exports_the_clients_and_one_error_class() -> None:
    assert tabpilot.__version__
    assert issubclass(ClientError, TabpilotError)
    assert {"Client", "AsyncClient", "ClientError", "TabpilotError"} <= set(tabpilot.__all__)


@pytest.mark.parametrize("name", TOOLS)
def test_each_tool_has_a_method_taking_its_params(name: str) -> None:
    tool = TOOLS[name]
    for cls in (Client, AsyncClient):
        method = getattr(cls, tool.method)
        parameters = set(inspect.signature(method).parameters) - {"self"}
        assert parameters == set(tool.params.model_fields), (cls, tool.method)
        assert method.__doc__


def _leaves(annotation: Any) -> set[Any]:
    """The types an annotation accepts, a Literal's values one by one; None left out."""
    origin = get_origin(annotation)
    if origin is Literal:
        return {("literal", value) for value in get_args(annotation)}
    if origin in (Union, UnionType, Annotated):
        parts = get_args(annotation)[:1] if origin is Annotated else get_args(annotation)
        return set().union(*(_leaves(part) for part in parts))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {dict}  # a nested model (a context's proxy) is sent as a dict
    return set() if annotation is type(None) else {origin or annotation}


@pytest.mark.parametrize("name", TOOLS)
def test_each_method_takes_what_its_params_model_takes(name: str) -> None:
    # The method's signature is typed by hand, for a user's IDE: it must take every value the
    # model takes, require what the model requires, and leave the rest to the model's default.
    tool = TOOLS[name]
    method = getattr(Client, tool.method)
    hints = get_type_hints(method)
    for field, info in tool.params.model_fields.items():
        parameter = inspect.signature(method).parameters[field]
        assert (parameter.default is parameter.empty) == info.is_required(), field
        assert parameter.default in (parameter.empty, None, info.default), field
        assert _leaves(info.annotation) <= _leaves(hints[field]), field


async def test_every_method_returns_the_result_over_one_socket() -> None:
    with run_daemon() as daemon:
        async with connected(daemon, extension) as fake:

            def calls() -> dict[str, Any]:
                with Client(daemon.settings.port) as client:
                    results = {
                        name: getattr(client, TOOLS[name].method)(*args, **kwargs)
                        for name, (args, kwargs, _) in CALLS.items()
                    }
                    results["status"] = client.status()
                return results

            results = await asyncio.to_thread(calls)
    for name, (_, _, sent) in CALLS.items():
        expected = RESULTS.get(name, sent.get("script"))
        if TOOLS[name].mcp.image:  # the image's bytes
            expected = image_bytes(expected)
        assert results[name] == expected, name
    assert results["status"]["extension"]["connected"] is True
    expected = [(n, TOOLS[n].params.parse(sent).model_dump()) for n, (_, _, sent) in CALLS.items()]
    assert [(c.command, c.params) for c in fake.commands] == expected


async def test_the_async_client_runs_calls_at_once() -> None:
    with run_daemon() as daemon:
        async with connected(daemon, extension), AsyncClient(daemon.settings.port) as client:
            scripts = [f"{i} + 1" for i in range(20)]
            answers = await asyncio.gather(*(client.execute(s) for s in scripts))
            page = await client.navigate("https://example.com/")
            status = await client.status()
    assert answers == scripts
    assert page == RESULTS["browser_navigate"]
    assert status["extension"]["connected"] is True


async def test_a_failure_raises_client_error_with_code_message_data_and_request_id() -> None:
    data = {"reason": "dns", "url": "https://nowhere.invalid/"}

    async def refuses(command: Command) -> Reply:
        reply = fail("navigation_failed", "The name nowhere.invalid does not resolve.")
        reply["error"]["data"] = data
        return reply

    with run_daemon() as daemon:
        async with connected(daemon, refuses) as fake:

            def navigate() -> ClientError:
                with Client(daemon.settings.port) as client, pytest.raises(ClientError) as info:
                    client.navigate("https://nowhere.invalid/")
                return info.value

            error = await asyncio.to_thread(navigate)
            async with AsyncClient(daemon.settings.port) as client:
                with pytest.raises(ClientError) as bad_kind:
                    await client.act("jump", "e1")  # type: ignore[arg-type]
    assert (error.code, error.status, error.data) == ("navigation_failed", 502, data)
    assert error.message == "The name nowhere.invalid does not resolve."
    assert error.request_id == fake.commands[0].id
    assert str(error) == f"navigation_failed: {error.message}"
    assert bad_kind.value.code == "invalid_request" and "'click'" in bad_kind.value.message
    assert len(fake.commands) == 1


async def test_pilot_off_raises_pilot_disabled() -> None:
    with run_daemon() as daemon:
        async with connected(daemon, pilot_enabled=False):
            with Client(daemon.settings.port) as client, pytest.raises(ClientError) as info:
                await asyncio.to_thread(client.execute, "1")
    assert info.value.code == "pilot_disabled"


def test_no_daemon_raises_daemon_unreachable_at_once() -> None:
    started = time.monotonic()
    with Client(free_port()) as client, pytest.raises(ClientError) as info:
        client.execute("1")
    assert info.value.code == "daemon_unreachable"
    assert "tabpilot serve" in info.value.message
    assert time.monotonic() - started < 5


async def test_the_token_comes_from_the_environment_or_the_argument(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with run_daemon(token="s3cret") as daemon:
        async with connected(daemon, token="s3cret"):
            port = daemon.settings.port
            with Client(port) as client, pytest.raises(ClientError) as refused:
                await asyncio.to_thread(client.execute, "1")
            with Client(port, token="s3cret") as client:
                given = await asyncio.to_thread(client.execute, "1")
            monkeypatch.setenv("TABPILOT_TOKEN", "s3cret")
            monkeypatch.setenv("TABPILOT_PORT", str(port))
            with Client() as client:
                from_env = await asyncio.to_thread(client.execute, "2")
    assert refused.value.code == "unauthorized"
    assert (given, from_env) == ("1", "2")


async def test_the_client_outlives_a_daemon_restart() -> None:
    port = free_port()
    client = Client(port)
    try:
        for script in ("before", "after"):
            with run_daemon(port=port) as daemon:
                async with connected(daemon):
                    assert await asyncio.to_thread(client.execute, script) == script
    finally:
        client.close()


async def test_a_call_the_daemon_gives_up_on_raises_its_timeout() -> None:
    with run_daemon() as daemon:
        async with connected(daemon, never):
            with Client(daemon.settings.port) as client:
                with pytest.raises(ClientError) as info:
                    await asyncio.to_thread(client.execute, "while (true) {}", timeout_ms=200)
                # The socket still serves the next call.
                status = await asyncio.to_thread(client.status)
    assert info.value.code == "execution_timeout"
    assert status["in_flight"] == 0


def test_clients_wait_for_a_managed_browser_started_again() -> None:
    # The daemon may take BROWSER_START_GRACE_S to start the managed browser again before it
    # even sends the command: a client must still be waiting for its answer then.
    settings = Settings.from_env()
    grace = BROWSER_START_GRACE_S + settings.timeout_grace_s
    assert max(grace, settings.connect_grace_s) < CLIENT_SLACK_S


async def test_a_large_result_arrives_whole() -> None:
    big = "ü" * 3_000_000  # 6 MB of UTF-8: many reads of the socket, one message

    async def large(command: Command) -> Reply:
        return ok(big, "string")

    with run_daemon() as daemon:
        async with connected(daemon, large):
            with Client(daemon.settings.port) as client:
                first = await asyncio.to_thread(client.execute, "big")
                second = await asyncio.to_thread(client.read)
    assert first == second == big


async def test_the_function_registry_methods_and_a_list_of_arguments() -> None:
    from tests.test_functions import checker

    with run_daemon() as daemon:
        async with connected(daemon, checker) as fake:

            def calls() -> list[Any]:
                with Client(daemon.settings.port) as client:
                    return [
                        client.define_function("add", "(a, b) => a + b"),
                        client.call_function("add", [{"a": [1]}, "é"], ref="e3", tab_id=4),
                        client.list_functions(),
                        client.remove_function("add"),
                    ]

            defined, called, listed, removed = await asyncio.to_thread(calls)
    assert defined == {"name": "add", "replaced": False}
    # A list is sent as JSON text; each argument reaches the page as a literal of its value.
    assert called == '(__tabpilot_el) => ((a, b) => a + b\n)(__tabpilot_el, {"a":[1]}, "\\u00e9")'
    assert fake.commands[1].params["ref"] == "e3" and fake.commands[1].params["tab_id"] == 4
    assert listed == {"functions": [{"name": "add", "first_line": "(a, b) => a + b"}], "limit": 100}
    assert removed == {"name": "add", "removed": True}


def test_the_generated_tool_methods_are_what_the_table_writes() -> None:
    # client/tool_methods.py is written from the tool table by scripts/client_methods.py
    # (`make docs`): a tool added or changed without running it fails here.
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    script = root / "scripts" / "client_methods.py"
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    generated = root / "server" / "tabpilot" / "client" / "tool_methods.py"
    assert run.stdout == generated.read_text(), "run `make docs` (scripts/client_methods.py)"
