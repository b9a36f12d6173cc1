"""The large-output guard: a model sees a preview of a bulky answer and gets the rest with its
confirm_token; programs get whole results unless they ask for the guard.

Through the MCP SDK's own client over stdio (`tabpilot mcp`) and at /mcp, one session each; the
daemon is real, the extension the scripted fake of tests/support.py. An element's line from a
real page is in tests/e2e/test_guard_dom.py.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tabpilot import AsyncClient, Client, ClientError, Preview, guard
from tabpilot.guard import store as guard_store
from tests.mcp_support import TRANSPORTS, call, open_mcp
from tests.support import Command, Daemon, Reply, connected, ok, run_daemon
from tests.test_calls import answer as socket_answer
from tests.test_calls import call as socket_call
from tests.test_calls import calls_socket

ITEMS = [{"id": i, "name": f"item {i}"} for i in range(500)]
KEYS = {f"key{i}": i for i in range(300)}
LONG = "".join(f"{i:09d}\n" for i in range(12_000))  # 120,000 characters: three parts
ELEMENT = "[BUTTON#buy.btn.primary @ (120,340) 88x32]"
SNAPSHOT = "".join(f'- button "Buy {i}" [ref=e{i}]\n' for i in range(2_000))
RESULTS: dict[str, tuple[Any, str]] = {
    "items": (ITEMS, "array"),
    "keys": (KEYS, "object"),
    "long": (LONG, "string"),
    "nodes": ([ELEMENT] * 60, "array"),
    "small": ({"a": 1}, "object"),
    # The page's serializer sends 100 items of a longer list, then says how many it left out.
    "capped": ([{"i": i, "s": "x" * 30} for i in range(100)] + ["... 312 more items"], "array"),
}


async def scripted(command: Command) -> Reply:
    if command.command == "browser_snapshot":
        return ok({"snapshot": SNAPSHOT, "refs": 2_000}, "object")
    result, result_type = RESULTS[command.params["script"]]
    return ok(result, result_type)


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as d:
        yield d


def scripts_run(commands: list[Command]) -> list[str]:
    return [c.params["script"] for c in commands if c.command == "execute_javascript"]


async def error_code(client: Any, tool: str, **arguments: Any) -> str:
    result, text = await call(client, tool, **arguments)
    assert result.is_error and text.startswith("Error: ")
    assert result.structured_content is not None
    return str(result.structured_content["error"]["code"])


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_model_sees_a_preview_and_gets_the_rest_with_its_token(
    daemon: Daemon, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with (
        connected(daemon, scripted) as fake,
        open_mcp(transport, daemon.settings.port) as client,
    ):
        # An array past 2,000 characters: its summary, the guard's fields, the same in both.
        result, text = await call(client, "execute_javascript", script="items")
        preview = "Array(500) [{id, name}, {id, name}, {id, name}, …]"
        sc = result.structured_content
        assert sc is not None and not result.is_error
        assert text.splitlines()[0] == preview
        assert sc["result"] == preview
        whole = json.dumps(ITEMS, ensure_ascii=False)
        assert (sc["truncated"], sc["total_length"], sc["shown_length"]) == (
            True,
            len(whole),
            len(preview),
        )
        token = sc["confirm_token"]
        assert f'confirm_token="{token}"' in text and ".slice(0, 20)" in sc["advice"]
        assert sc["advice"] in text

        # The token answers the whole without running the script again, once.
        result, text = await call(client, "execute_javascript", confirm_token=token)
        assert (text, result.is_error) == (whole, False)
        assert result.structured_content and result.structured_content["result"] == ITEMS
        assert "truncated" not in result.structured_content
        assert scripts_run(fake.commands) == ["items"]
        assert await error_code(client, "execute_javascript", confirm_token=token) == (
            "confirm_token_used"
        )
        assert await error_code(client, "execute_javascript", confirm_token="ct_never") == (
            "confirm_token_unknown"
        )
        assert await error_code(
            client, "execute_javascript", script="items", confirm_token="ct_x"
        ) == ("invalid_request")

        # An object: its top-level keys. Its token belongs to execute_javascript only.
        result, text = await call(client, "execute_javascript", script="keys")
        assert text.startswith("Object(300) {key0, key1, key2, ")
        assert result.structured_content and len(text.split("\n[Shown")[0]) <= 2_000
        token = result.structured_content["confirm_token"]
        assert await error_code(client, "browser_snapshot", confirm_token=token) == (
            "confirm_token_mismatch"
        )
        result, text = await call(client, "execute_javascript", confirm_token=token)
        assert json.loads(text) == KEYS

        # Elements: one line each, with their box.
        result, text = await call(client, "execute_javascript", script="nodes")
        assert text.startswith(
            "Array(60) [<button id=#buy class=.btn.primary> @ (120,340) 88x32, "
            "<button id=#buy class=.btn.primary> @ (120,340) 88x32, "
        )

        # 120,000 characters: the preview, then three parts of 50,000 at most.
        result, text = await call(client, "execute_javascript", script="long")
        sc = result.structured_content
        assert sc is not None and sc["result"] == LONG[: len(sc["result"]) - 1] + "…"
        assert sc["shown_length"] <= 2_000 and "browser_read" in sc["advice"]
        parts = []
        while sc.get("confirm_token"):
            result, text = await call(
                client, "execute_javascript", confirm_token=sc["confirm_token"]
            )
            sc = result.structured_content
            assert sc is not None and isinstance(sc["result"], str)
            parts.append(sc["result"])
            assert text.startswith(sc["result"])
            assert sc["shown_length"] == len("".join(parts)) and sc["total_length"] == len(LONG)
        assert "".join(parts) == LONG and len(parts) == 3 and sc["truncated"] is False
        assert scripts_run(fake.commands) == ["items", "keys", "nodes", "long"]

        # A page tool past its own limit: its text cut, the guard's fields in its last line (its
        # text is its whole answer: no structured content).
        result, text = await call(client, "browser_snapshot")
        assert result.structured_content is None and not result.is_error
        found = re.search(
            r"\n\[Shown ([\d,]+) of ([\d,]+) characters\. The rest: the same tool "
            r'with only confirm_token="(ct_[\w-]+)"\. (.*)\]$',
            text,
        )
        assert found, text[-300:]
        shown, total = (int(found[n].replace(",", "")) for n in (1, 2))
        assert shown <= guard.LIMITS["browser_snapshot"] < total and "`ref`" in found[4]
        assert text.startswith('Page "') and "…\n[Shown " in text
        rest, whole = await call(client, "browser_snapshot", confirm_token=found[3])
        # The first part of its whole text, the rest of it past 50,000 characters.
        assert not rest.is_error and whole.startswith('Page "')
        assert len(whole.split("\n[Shown ")[0]) == min(total, guard_store.PAGE_CHARS)

        # Small answers are not touched; an expired token says so.
        result, text = await call(client, "execute_javascript", script="small")
        assert text == '{"a": 1}' and "truncated" not in (result.structured_content or {})
        monkeypatch.setattr(guard_store.STORE, "keep_s", 0.0)
        result, _ = await call(client, "execute_javascript", script="keys")
        token = (result.structured_content or {})["confirm_token"]
        assert await error_code(client, "execute_javascript", confirm_token=token) == (
            "confirm_token_expired"
        )


async def test_programs_get_whole_results_unless_they_ask(daemon: Daemon) -> None:
    async with connected(daemon, scripted) as fake, daemon.client() as http:
        body = (await http.post("/execute_javascript", json={"script": "items"})).json()
        assert body["result"] == ITEMS and "truncated" not in body
        body = (
            await http.post("/execute_javascript", json={"script": "items", "guard": True})
        ).json()
        assert body["result"] == "Array(500) [{id, name}, {id, name}, {id, name}, …]"
        assert body["truncated"] is True
        response = await http.post(
            "/execute_javascript", json={"confirm_token": body["confirm_token"]}
        )
        assert response.json()["result"] == ITEMS
        response = await http.post(
            "/execute_javascript", json={"confirm_token": body["confirm_token"]}
        )
        assert (response.status_code, response.json()["error"]["code"]) == (
            410,
            "confirm_token_used",
        )
        body = (
            await http.post("/execute_javascript", json={"script": "capped", "guard": 300})
        ).json()
        assert body["result"] == "Array(412) [{i, s}, {i, s}, {i, s}, …]"
        response = await http.post("/execute_javascript", json={"script": "items", "guard": "yes"})
        assert response.status_code == 400 and "`guard`" in response.json()["error"]["message"]

        async with calls_socket(daemon) as ws:
            frame = await socket_call(ws, "execute_javascript", {"script": "items"})
            assert frame["envelope"]["result"] == ITEMS
            frame = await socket_call(ws, "execute_javascript", {"script": "keys", "guard": 500})
            envelope = frame["envelope"]
            assert envelope["truncated"] is True and envelope["shown_length"] <= 500
            token = envelope["confirm_token"]
            frame = await socket_call(ws, "browser_read", {"confirm_token": token})
            assert frame["envelope"]["error"]["code"] == "confirm_token_mismatch"
            frame = await socket_call(ws, "execute_javascript", {"confirm_token": token})
            assert frame["envelope"]["result"] == KEYS

        async with AsyncClient(daemon.settings.port) as program:
            assert await program.execute("items") == ITEMS
    assert scripts_run(fake.commands) == ["items", "items", "capped", "items", "keys", "items"]


async def test_the_python_client_opts_in_and_fetches_the_rest(daemon: Daemon) -> None:
    async with connected(daemon, scripted) as fake:

        def calls() -> list[Any]:
            with Client(daemon.settings.port, guard=True) as client:
                cut = client.execute("items")
                whole = client.rest(cut)
                with pytest.raises(ClientError) as used:
                    client.rest(cut)
                small = client.execute("small")
                long = client.execute("long")
                parts = [long]
                while parts[-1].confirm_token:
                    parts.append(client.rest(parts[-1]))
                with pytest.raises(ClientError) as last:
                    client.rest(parts[-1])
            with Client(daemon.settings.port, guard=300) as client:
                capped = client.execute("capped")
            return [cut, whole, used.value, small, parts, last.value, capped]

        cut, whole, used, small, parts, last, capped = await asyncio.to_thread(calls)
        async with AsyncClient(daemon.settings.port, guard=500) as program:
            keys = await program.execute("keys")
            assert isinstance(keys, Preview)
            assert await program.rest(keys) == KEYS
    preview = "Array(500) [{id, name}, {id, name}, {id, name}, …]"
    assert isinstance(cut, Preview) and cut.confirm_token
    assert (cut.tool, cut.result, cut.result_type, cut.truncated) == (
        "execute_javascript",
        preview,
        "array",
        True,
    )
    assert (cut.total_length, cut.shown_length) == (len(json.dumps(ITEMS)), len(preview))
    assert ".slice(0, 20)" in str(cut.advice) and cut.request_id
    assert whole == ITEMS and used.code == "confirm_token_used" and small == {"a": 1}
    # 120,000 characters: the preview, then three parts of the text.
    assert parts[0].shown_length <= 2_000 and parts[0].result.endswith("…")
    assert [p.result_type for p in parts[1:]] == ["text_part"] * 3
    assert "".join(p.result for p in parts[1:]) == LONG
    assert [p.truncated for p in parts[1:]] == [True, True, False]
    assert last.code == "invalid_request" and "no confirm_token" in last.message
    assert isinstance(capped, Preview) and capped.result == "Array(412) [{i, s}, {i, s}, {i, s}, …]"
    assert isinstance(keys, Preview) and keys.shown_length <= 500
    # The rest never runs the script again.
    assert scripts_run(fake.commands) == ["items", "small", "long", "capped", "keys"]


@pytest.mark.parametrize("limit", ["yes", 5, 2_000_000, 1.5])
def test_a_client_with_a_bad_guard_is_refused_at_once(limit: Any) -> None:
    with pytest.raises(ClientError) as refused:
        Client(1, guard=limit)
    assert refused.value.code == "invalid_request" and "`guard`" in refused.value.message


# -- a confirm_token answers only the caller that received it ------------------------------------


@pytest.mark.parametrize(("transport", "mode"), [("stdio", "auto"), ("http", "legacy")])
async def test_another_mcp_session_cannot_redeem_a_sessions_token(
    daemon: Daemon, transport: str, mode: str
) -> None:
    """Over stdio each session is a `tabpilot mcp` process (its own /ws/calls socket); at /mcp, an
    Mcp-Session-Id."""
    async with (
        connected(daemon, scripted) as fake,
        open_mcp(transport, daemon.settings.port, mode=mode) as mine,
        open_mcp(transport, daemon.settings.port, mode=mode) as other,
    ):
        result, _ = await call(mine, "execute_javascript", script="items")
        token = (result.structured_content or {})["confirm_token"]
        refused, text = await call(other, "execute_javascript", confirm_token=token)
        assert refused.is_error and (refused.structured_content or {})["error"]["code"] == (
            "confirm_token_unknown"
        )
        assert "another caller" in text and "token of your own" in text
        # Nor over HTTP or a socket of its own: a program is another caller too.
        async with daemon.client() as http:
            body = (await http.post("/execute_javascript", json={"confirm_token": token})).json()
        assert body["error"]["code"] == "confirm_token_unknown"
        # The owner still gets its whole answer, and nothing ran again.
        whole, text = await call(mine, "execute_javascript", confirm_token=token)
        assert not whole.is_error and json.loads(text) == ITEMS
        # Once spent, the other session is still told nothing of it; the owner is.
        assert await error_code(other, "execute_javascript", confirm_token=token) == (
            "confirm_token_unknown"
        )
        assert await error_code(mine, "execute_javascript", confirm_token=token) == (
            "confirm_token_used"
        )
    assert scripts_run(fake.commands) == ["items"]


async def test_sessionless_mcp_requests_are_told_apart_by_the_program_they_name(
    daemon: Daemon,
) -> None:
    """The 2026-07-28 revision over HTTP has no session: a request names only its program."""
    async with (
        connected(daemon, scripted),
        open_mcp("http", daemon.settings.port, name="agent-a") as mine,
        open_mcp("http", daemon.settings.port, name="agent-b") as other,
        open_mcp("http", daemon.settings.port, name="agent-a") as same_program,
    ):
        result, _ = await call(mine, "execute_javascript", script="keys")
        token = (result.structured_content or {})["confirm_token"]
        assert await error_code(other, "execute_javascript", confirm_token=token) == (
            "confirm_token_unknown"
        )
        whole, text = await call(same_program, "execute_javascript", confirm_token=token)
        assert not whole.is_error and json.loads(text) == KEYS


async def test_another_socket_cannot_redeem_a_sockets_token(daemon: Daemon) -> None:
    async with (
        connected(daemon, scripted),
        calls_socket(daemon) as mine,
        calls_socket(daemon) as other,
    ):
        frame = await socket_call(mine, "browser_snapshot", {"guard": True})
        token = frame["envelope"]["confirm_token"]
        refused = await socket_call(other, "browser_snapshot", {"confirm_token": token})
        assert refused["envelope"]["error"]["code"] == "confirm_token_unknown"
        # A call of the socket that names a context is still the socket's.
        context = (await socket_call(mine, "status"))["envelope"]["result"]["default_context"]
        named = {"confirm_token": token}
        await mine.send(
            json.dumps(
                {
                    "type": "call",
                    "id": 2,
                    "method": "browser_snapshot",
                    "params": named,
                    "context": context,
                }
            )
        )
        envelope = (await socket_answer(mine))["envelope"]
        assert envelope["success"] is True and envelope["result"].startswith('Page "')
        # Another Python client is another socket; its own token answers it.
        async with AsyncClient(daemon.settings.port) as program:
            cut = await program.envelope("execute_javascript", {"script": "keys", "guard": True})
            frame = await socket_call(
                other, "execute_javascript", {"confirm_token": cut["confirm_token"]}
            )
            assert frame["envelope"]["error"]["code"] == "confirm_token_unknown"
            rest = await program.envelope(
                "execute_javascript", {"confirm_token": cut["confirm_token"]}
            )
            assert rest["result"] == KEYS


async def test_http_callers_are_told_apart_by_the_context_they_name(daemon: Daemon) -> None:
    async with connected(daemon, scripted), daemon.client() as http:
        context = (await http.get("/status")).json()["result"]["default_context"]
        body = (
            await http.post("/execute_javascript", json={"script": "keys", "guard": True})
        ).json()
        token = body["confirm_token"]
        # Another caller: HTTP naming a context, and a socket.
        response = await http.post(
            f"/execute_javascript?context={context}", json={"confirm_token": token}
        )
        assert (response.status_code, response.json()["error"]["code"]) == (
            404,
            "confirm_token_unknown",
        )
        async with calls_socket(daemon) as ws:
            frame = await socket_call(ws, "execute_javascript", {"confirm_token": token})
            assert frame["envelope"]["error"]["code"] == "confirm_token_unknown"
        # Any HTTP request that names no context is the same caller: it gets the rest.
        async with daemon.client() as again:
            response = await again.post("/execute_javascript", json={"confirm_token": token})
        assert response.json()["result"] == KEYS
        # And a token given in a named context answers requests naming it.
        body = (
            await http.post(
                f"/execute_javascript?context={context}", json={"script": "keys", "guard": True}
            )
        ).json()
        response = await http.post(
            "/execute_javascript", json={"confirm_token": body["confirm_token"]}
        )
        assert response.json()["error"]["code"] == "confirm_token_unknown"
        response = await http.post(
            f"/execute_javascript?context={context}", json={"confirm_token": body["confirm_token"]}
        )
        assert response.json()["result"] == KEYS
