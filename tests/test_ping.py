"""POST /ping: a round trip to one hop of the chain that runs nothing, for the benchmark."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support import Command, Daemon, Reply, connected, fail, ok, run_daemon
from tests.test_app import assert_failure


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon(connect_grace_s=0.2) as running:
        yield running


async def pong(command: Command) -> Reply:
    return ok("pong", "string", tab=None)


@pytest.mark.parametrize(
    ("body", "params"),
    [
        (b"", {"to": "worker", "tab_id": None}),
        (b'{"to": "content"}', {"to": "content", "tab_id": None}),
        (b'{"to": "page", "tab_id": 7}', {"to": "page", "tab_id": 7}),
    ],
)
async def test_ping_sends_one_ping_command_and_answers_pong(
    daemon: Daemon, client: httpx.AsyncClient, body: bytes, params: dict[str, object]
) -> None:
    async with connected(daemon, pong) as fake:
        response = await client.post("/ping", content=body)
    envelope = response.json()
    assert response.status_code == 200
    assert (envelope["success"], envelope["result"], envelope["result_type"]) == (
        True,
        "pong",
        "string",
    )
    assert envelope["duration_ms"] >= 0
    assert [(c.command, c.params) for c in fake.commands] == [("ping", params)]


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b'{"to": "script"}', "`to`"),
        (b'{"to": "page", "script": "1"}', "the fields are to, tab_id"),
        (b'{"tab_id": "7"}', "`tab_id`"),
        (b"[]", "JSON object"),
    ],
)
async def test_bad_ping_bodies_are_400_and_never_reach_the_extension(
    daemon: Daemon, client: httpx.AsyncClient, body: bytes, named: str
) -> None:
    async with connected(daemon, pong) as fake:
        response = await client.post("/ping", content=body)
    message = assert_failure(response, 400, "invalid_request")["error"]["message"]
    assert named in message
    assert '{"to": "page"}' in message
    assert fake.commands == []


async def test_ping_is_refused_while_the_pilot_is_off(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon, pong, pilot_enabled=False) as fake:
        response = await client.post("/ping", json={"to": "page"})
    assert_failure(response, 403, "pilot_disabled")
    assert fake.commands == []


async def test_an_extension_without_ping_says_unknown_command(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async def old_extension(command: Command) -> Reply:
        return fail("unknown_command", 'Unknown command "ping"; this extension knows ...')

    async with connected(daemon, old_extension):
        response = await client.post("/ping", json={"to": "worker"})
    assert_failure(response, 502, "unknown_command")


async def test_ping_without_extension_is_503(client: httpx.AsyncClient) -> None:
    assert_failure(await client.post("/ping"), 503, "extension_not_connected")
