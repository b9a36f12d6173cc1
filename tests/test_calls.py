"""The callers' socket, /ws/calls: the routes' envelopes over one WebSocket, one answer per call."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from tabpilot.protocol import CALLS_PATH, AnswerFrame
from tests.support import TAB, Command, Daemon, Reply, connected, never, ok, run_daemon, until


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as d:
        yield d


@asynccontextmanager
async def calls_socket(
    daemon: Daemon, host: str = "127.0.0.1", **headers: str
) -> AsyncIterator[ClientConnection]:
    """The socket, opened as a program would; ``host`` is what its Host header names."""
    port = daemon.settings.port
    url = f"ws://{host}:{port}{CALLS_PATH}"
    async with connect(
        url, host="127.0.0.1", port=port, additional_headers=headers, proxy=None, open_timeout=10
    ) as ws:
        yield ws


async def call(
    ws: ClientConnection, method: str, params: dict[str, Any] | None = None, call_id: Any = 1
) -> dict[str, Any]:
    frame = {"type": "call", "id": call_id, "method": method, "params": params or {}}
    await ws.send(json.dumps(frame))
    return await answer(ws)


async def answer(ws: ClientConnection) -> dict[str, Any]:
    """The next answer, checked against protocol.AnswerFrame."""
    text = await asyncio.wait_for(ws.recv(), 10)
    AnswerFrame.model_validate_json(text)
    frame: dict[str, Any] = json.loads(text)
    assert frame["type"] == "answer"
    return frame


def _same(envelope: dict[str, Any]) -> dict[str, Any]:
    """An envelope without what differs from call to call."""
    return {k: v for k, v in envelope.items() if k not in ("request_id", "duration_ms")}


async def test_each_method_answers_what_its_route_answers(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon), calls_socket(daemon) as ws:
        pairs = [
            ("execute_javascript", {"script": "document.title"}, "POST", "/execute_javascript"),
            ("tabs", {}, "GET", "/tabs"),
            ("ping", {"to": "page"}, "POST", "/ping"),
        ]
        for method, params, verb, path in pairs:
            over_socket = await call(ws, method, params, call_id=method)
            over_http = await client.request(verb, path, json=params if verb == "POST" else None)
            assert over_socket["id"] == method
            assert _same(over_socket["envelope"]) == _same(over_http.json())
            assert over_socket["envelope"]["success"] is True
        status = (await call(ws, "status"))["envelope"]
    assert status["result"]["extension"]["connected"] is True
    assert (
        status["result"]["daemon_version"]
        == (await client.get("/status")).json()["result"]["daemon_version"]
    )


async def test_many_calls_in_flight_each_get_their_own_answer(daemon: Daemon) -> None:
    async def slow_echo(command: Command) -> Reply:
        await asyncio.sleep(random.uniform(0, 0.05))  # answers come back out of order
        return ok(command.params["script"], "string")

    async with connected(daemon, slow_echo), calls_socket(daemon) as ws:
        for n in range(60):
            script = f"'script {n}'"
            frame = {"type": "call", "id": f"c{n}", "method": "execute_javascript"}
            await ws.send(json.dumps({**frame, "params": {"script": script}}))
        answers = [await answer(ws) for _ in range(60)]
    by_id = {a["id"]: a["envelope"]["result"] for a in answers}
    assert by_id == {f"c{n}": f"'script {n}'" for n in range(60)}


BAD_FRAMES: list[tuple[str, str | bytes, Any, str]] = [
    # (name, frame, the id the answer carries, part of its message)
    ("not JSON", "not json", None, "one JSON object"),
    ("empty", "", None, "one JSON object"),
    ("array", "[1, 2]", None, "one JSON object"),
    ("null", "null", None, "one JSON object"),
    ("deeply nested", "[" * 100_000 + "]" * 100_000, None, "one JSON object"),
    ("invalid UTF-8", b"\xff\xfe binary", None, "one JSON object"),
    ("no type", '{"id": 3, "method": "status"}', 3, "`type` is required"),
    ("another type", '{"type": "result", "id": 3, "method": "status"}', 3, "`type`"),
    ("no id", '{"type": "call", "method": "status"}', None, "`id` is required"),
    ("id a boolean", '{"type": "call", "id": true, "method": "status"}', None, "`id`"),
    ("id a float", '{"type": "call", "id": 1.5, "method": "status"}', None, "`id`"),
    ("id empty", '{"type": "call", "id": "", "method": "status"}', None, "`id`"),
    (
        "id too long",
        json.dumps({"type": "call", "id": "x" * 129, "method": "status"}),
        None,
        "`id`",
    ),
    ("unknown method", '{"type": "call", "id": 4, "method": "eval"}', 4, "`method`"),
    ("extra field", '{"type": "call", "id": 4, "method": "status", "x": 1}', 4, "`x` is not"),
    ("params a list", '{"type": "call", "id": 5, "method": "ping", "params": []}', 5, "`params`"),
    (
        "no script",
        '{"type": "call", "id": 6, "method": "execute_javascript", "params": {"scrip": "1"}}',
        6,
        "`script` is required",
    ),
    (
        "timeout a string",
        '{"type": "call", "id": 7, "method": "execute_javascript", '
        '"params": {"script": "1", "timeout_ms": "5"}}',
        7,
        "`timeout_ms`",
    ),
    ("tabs with params", '{"type": "call", "id": 8, "method": "tabs", "params": {"a": 1}}', 8, ""),
]


@pytest.mark.parametrize(
    ("frame", "call_id", "says"), [c[1:] for c in BAD_FRAMES], ids=[c[0] for c in BAD_FRAMES]
)
async def test_a_bad_frame_is_answered_and_the_socket_keeps_serving(
    daemon: Daemon, frame: str | bytes, call_id: Any, says: str
) -> None:
    async with connected(daemon) as fake, calls_socket(daemon) as ws:
        await ws.send(frame)
        bad = await answer(ws)
        good = await call(ws, "execute_javascript", {"script": "'still here'"}, call_id=99)
    assert bad["id"] == call_id
    assert bad["envelope"]["success"] is False
    assert bad["envelope"]["error"]["code"] == "invalid_request"
    assert says in bad["envelope"]["error"]["message"]
    assert (good["id"], good["envelope"]["result"]) == (99, "'still here'")
    assert [c.params.get("script") for c in fake.commands] == ["'still here'"]


async def test_a_call_as_a_binary_frame_is_a_call(daemon: Daemon) -> None:
    async with connected(daemon), calls_socket(daemon) as ws:
        await ws.send(
            b'{"type": "call", "id": 1, "method": "execute_javascript", "params": {"script": "2"}}'
        )
        assert (await answer(ws))["envelope"]["result"] == "2"


async def test_an_id_still_in_flight_is_refused_and_the_first_call_still_answered(
    daemon: Daemon,
) -> None:
    release = asyncio.Event()

    async def held(command: Command) -> Reply:
        await release.wait()
        return ok("first", "string")

    async with connected(daemon, held) as fake, calls_socket(daemon) as ws:
        frame = {"type": "call", "id": "same", "method": "execute_javascript"}
        await ws.send(json.dumps({**frame, "params": {"script": "1"}}))
        await fake.next_command()
        await ws.send(json.dumps({**frame, "params": {"script": "2"}}))
        refused = await answer(ws)
        release.set()
        first = await answer(ws)
    assert refused["id"] == "same"
    assert "still in flight" in refused["envelope"]["error"]["message"]
    assert first["envelope"]["result"] == "first"
    assert len(fake.commands) == 1


@pytest.mark.parametrize(
    ("pilot", "script", "code"),
    [
        (False, "1", "pilot_disabled"),
        (True, "x" * (1024 * 1024 + 1), "script_too_large"),
    ],
)
async def test_failures_are_the_routes_envelopes(
    daemon: Daemon, pilot: bool, script: str, code: str
) -> None:
    async with connected(daemon, pilot_enabled=pilot) as fake, calls_socket(daemon) as ws:
        got = await call(ws, "execute_javascript", {"script": script})
    assert got["envelope"]["error"]["code"] == code
    assert fake.commands == []


async def test_no_extension_is_extension_not_connected() -> None:
    with run_daemon(connect_grace_s=0.1) as daemon:
        async with calls_socket(daemon) as ws:
            got = await call(ws, "tabs")
    assert got["envelope"]["error"]["code"] == "extension_not_connected"


async def test_a_caller_that_leaves_mid_call_leaves_nothing_in_flight(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon, never) as fake:
        async with calls_socket(daemon) as ws:
            frame = {"type": "call", "id": 1, "method": "execute_javascript"}
            await ws.send(json.dumps({**frame, "params": {"script": "1", "timeout_ms": 60_000}}))
            await fake.next_command()

        async def none_in_flight() -> bool:
            return (await client.get("/status")).json()["result"]["in_flight"] == 0

        await until(none_in_flight, "the daemon to cancel the call of the socket that left")
        fake.handler = None
        assert (await client.post("/execute_javascript", json={"script": "'ok'"})).json()[
            "result"
        ] == "'ok'"


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({"Origin": "http://evil.example"}, 403, "forbidden_origin"),
        ({"Origin": "null"}, 403, "forbidden_origin"),
        (
            {"Origin": "chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf"},
            403,
            "forbidden_origin",
        ),
        ({"host": "rebound.example"}, 403, "forbidden_host"),
    ],
)
async def test_browsers_and_other_hosts_cannot_open_it(
    daemon: Daemon, headers: dict[str, str], status: int, code: str
) -> None:
    async with connected(daemon) as fake:
        with pytest.raises(InvalidStatus) as refused:
            async with calls_socket(daemon, **headers):
                pass
    assert refused.value.response.status_code == status
    assert json.loads(refused.value.response.body or b"")["error"]["code"] == code
    assert fake.commands == []


async def test_it_needs_the_token_when_the_daemon_has_one() -> None:
    with run_daemon(token="s3cret") as daemon:
        async with connected(daemon, token="s3cret"):
            with pytest.raises(InvalidStatus) as refused:
                async with calls_socket(daemon):
                    pass
            with pytest.raises(InvalidStatus) as wrong:
                async with calls_socket(daemon, Authorization="Bearer nope"):
                    pass
            async with calls_socket(daemon, Authorization="Bearer s3cret") as ws:
                got = await call(ws, "execute_javascript", {"script": "'in'"})
    assert refused.value.response.status_code == wrong.value.response.status_code == 401
    assert got["envelope"]["result"] == "'in'"
    assert got["envelope"]["tab"] == TAB


async def test_an_id_can_be_used_again_once_answered(daemon: Daemon) -> None:
    async with connected(daemon), calls_socket(daemon) as ws:
        answers = [
            await call(ws, "execute_javascript", {"script": f"'{n}'"}, call_id="same")
            for n in range(20)
        ]
    assert [a["envelope"]["result"] for a in answers] == [f"'{n}'" for n in range(20)]
