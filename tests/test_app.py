"""The HTTP API: routes, the envelope on every answer, and the one error handler."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tabpilot.cli import build_parser
from tabpilot.config import Settings
from tabpilot.http.app import bind_socket, create_app, make_server
from tests.support import Command, Daemon, Reply, connected, fail, ok, run_daemon


def _add_broken_route(app: FastAPI) -> None:
    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("a bug")


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon(configure_app=_add_broken_route, connect_grace_s=0.2) as running:
        yield running


def assert_failure(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status
    body: dict[str, Any] = response.json()
    assert body["success"] is False
    assert set(body) == {"success", "request_id", "error"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    assert body["request_id"] == response.headers["x-request-id"]
    return body


async def test_health(client: httpx.AsyncClient) -> None:
    response = await client.get("/health")
    body = response.json()
    assert response.status_code == 200
    assert body["success"] is True and body["result"] == {"status": "ok"}
    assert set(body) == {"success", "request_id", "result", "result_type", "tab", "duration_ms"}


async def test_status_without_extension(daemon: Daemon, client: httpx.AsyncClient) -> None:
    result = (await client.get("/status")).json()["result"]
    assert result == {
        "daemon_version": daemon.settings.version,
        "protocol_version": 1,
        "extension": {
            "connected": False,
            "version": None,
            "id": None,
            "pilot_enabled": None,
            "connected_at": None,
        },
        "in_flight": 0,
        "browser": None,
        # No browser has connected: a person's Chrome that does becomes the default context.
        "default_context": None,
        "active_context": None,
        "contexts": [],
    }


async def test_request_ids_are_unique_and_match_the_header(client: httpx.AsyncClient) -> None:
    responses = await asyncio.gather(*(client.get("/health") for _ in range(50)))
    ids = [r.json()["request_id"] for r in responses]
    assert len(set(ids)) == 50
    assert ids == [r.headers["x-request-id"] for r in responses]


async def test_landing_page_is_a_normal_web_page(client: httpx.AsyncClient) -> None:
    response = await client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "tabpilot daemon is running" in response.text
    assert 'href="/docs"' in response.text
    assert response.headers["x-request-id"]


async def test_openapi_documents_the_error_table(client: httpx.AsyncClient) -> None:
    assert (await client.get("/docs")).status_code == 200
    schema = (await client.get("/openapi.json")).json()
    description = schema["info"]["description"]
    for code, status in [("extension_not_connected", 503), ("execution_error", 200)]:
        assert f"| `{code}` | {status} |" in description
    execute = schema["paths"]["/execute_javascript"]["post"]
    assert {"400", "403", "503", "504"} <= set(execute["responses"])
    body_schema = execute["requestBody"]["content"]["application/json"]["schema"]
    assert set(body_schema["properties"]) == {
        "script",
        "timeout_ms",
        "await_promise",
        "tab_id",
        "dialog",
        "prompt_text",
        "ref",
    }


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        ("{bad json", "application/json"),
        ("", "application/json"),
        ("[1, 2]", "application/json"),
        ('"just a string"', "application/json"),
        ("{}", "application/json"),
        ('{"script": ""}', "application/json"),
        ('{"script": 42}', "application/json"),
        ('{"script": "1", "timeout_ms": 0}', "application/json"),
        ('{"script": "1", "timeout_ms": 120001}', "application/json"),
        ('{"script": "1", "timeout_ms": "5000"}', "application/json"),
        ('{"script": "1", "await_promise": "no"}', "application/json"),
        ('{"script": "1", "tab_id": "first"}', "application/json"),
        ('{"script": "1", "timeout": 10}', "application/json"),
        ("script=1", "application/x-www-form-urlencoded"),
    ],
)
async def test_bad_bodies_are_400_invalid_request(
    client: httpx.AsyncClient, content: str, content_type: str
) -> None:
    response = await client.post(
        "/execute_javascript", content=content, headers={"content-type": content_type}
    )
    body = assert_failure(response, 400, "invalid_request")
    assert "detail" not in body
    assert "see /docs" in body["error"]["message"]


async def test_bad_body_message_names_the_field(client: httpx.AsyncClient) -> None:
    response = await client.post("/execute_javascript", json={"timeout_ms": 5})
    assert "`script` is required" in response.json()["error"]["message"]


async def test_json_is_read_whatever_the_content_type(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    # `curl -d '{...}'` without -H sends a form content type; no browser is involved, so it works.
    async with connected(daemon):
        response = await client.post(
            "/execute_javascript",
            content='{"script": "plain"}',
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
    assert response.json()["result"] == "plain"


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/nope", 404, "not_found"),
        ("POST", "/nope/deeper", 404, "not_found"),
        ("GET", "/execute_javascript", 405, "method_not_allowed"),
        ("DELETE", "/status", 405, "method_not_allowed"),
    ],
)
async def test_unknown_routes_and_methods_use_the_envelope(
    client: httpx.AsyncClient, method: str, path: str, status: int, code: str
) -> None:
    assert_failure(await client.request(method, path), status, code)


async def test_unexpected_exception_is_500_internal_error(client: httpx.AsyncClient) -> None:
    body = assert_failure(await client.get("/boom"), 500, "internal_error")
    assert "a bug" not in body["error"]["message"]  # no internals leak to the caller


async def test_execute_success_envelope(daemon: Daemon, client: httpx.AsyncClient) -> None:
    async def handler(command: Command) -> Reply:
        return ok({"name": "test", "value": 42, "text": "héllo ✓"}, "object")

    async with connected(daemon, handler):
        response = await client.post("/execute_javascript", json={"script": "x"})
    body = response.json()
    assert response.status_code == 200
    assert body["success"] is True
    assert body["result"] == {"name": "test", "value": 42, "text": "héllo ✓"}
    assert body["result_type"] == "object"
    assert body["tab"] == {"id": 7, "url": "http://localhost/test", "title": "Test page"}
    assert isinstance(body["duration_ms"], float) and body["duration_ms"] >= 0
    assert "héllo ✓".encode() in response.content  # not \\u-escaped


async def test_undefined_result_keeps_its_type(daemon: Daemon, client: httpx.AsyncClient) -> None:
    async def handler(command: Command) -> Reply:
        return ok(None, "undefined")

    async with connected(daemon, handler):
        body = (await client.post("/execute_javascript", json={"script": "undefined"})).json()
    assert (body["success"], body["result"], body["result_type"]) == (True, None, "undefined")


@pytest.mark.parametrize("code", ["execution_error", "syntax_error", "promise_rejected"])
async def test_script_errors_are_http_200_with_success_false(
    daemon: Daemon, client: httpx.AsyncClient, code: str
) -> None:
    async def handler(command: Command) -> Reply:
        return fail(code, "test error", "Error: test error\n    at <anonymous>:1:7")

    async with connected(daemon, handler):
        response = await client.post("/execute_javascript", json={"script": "throw 1"})
    body = assert_failure(response, 200, code)
    assert body["error"]["message"] == "test error"
    assert body["error"]["stack"].startswith("Error: test error")


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("tab_not_found", 404),
        ("no_target_tab", 404),
        ("tab_not_scriptable", 409),
        ("csp_blocked", 409),
        ("execution_timeout", 504),
        ("extension_error", 502),
        ("unknown_command", 502),
        ("something_new", 502),
    ],
)
async def test_extension_error_codes_map_to_statuses(
    daemon: Daemon, client: httpx.AsyncClient, code: str, status: int
) -> None:
    async def handler(command: Command) -> Reply:
        return fail(code, "detail from the extension")

    async with connected(daemon, handler):
        response = await client.post("/execute_javascript", json={"script": "1", "tab_id": 99})
    expected = "extension_error" if code == "something_new" else code
    body = assert_failure(response, status, expected)
    assert "detail from the extension" in body["error"]["message"]


async def test_tabs_lists_what_the_extension_reports(
    daemon: Daemon, client: httpx.AsyncClient
) -> None:
    async with connected(daemon) as fake:
        response = await client.get("/tabs")
    body = response.json()
    assert response.status_code == 200
    assert body["result"] == [
        {
            "id": 7,
            "url": "http://localhost/test",
            "title": "Test page",
            "active": True,
            "window_id": 1,
        }
    ]
    assert [(c.command, c.params) for c in fake.commands] == [("list_tabs", {})]


async def test_tabs_without_extension_is_503(client: httpx.AsyncClient) -> None:
    assert_failure(await client.get("/tabs"), 503, "extension_not_connected")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::", "localhost"])
def test_refuses_to_listen_anywhere_but_loopback(host: str) -> None:
    with pytest.raises(SystemExit, match=r"127\.0\.0\.1"):
        bind_socket(Settings(host=host, port=0))


def test_create_app_needs_no_browser_when_not_managed() -> None:
    app = create_app(Settings(port=0))
    assert app.state.browser is None
    assert app.state.bridge.connected is False


async def test_accepted_connections_send_without_nagle_delay() -> None:
    # Each response and each WebSocket frame is a few small writes; without TCP_NODELAY on the
    # accepted socket, Nagle's algorithm meets the peer's delayed ACK and every round trip costs
    # about 40 ms more.
    sock = bind_socket(Settings(port=0))
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            conn = transport.get_extra_info("socket")
            accepted.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
    try:
        port = sock.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(accepted, 5) != 0
        writer.close()
    finally:
        server.close()
        await server.wait_closed()


async def test_the_extension_socket_is_not_compressed(daemon: Daemon) -> None:
    # The client offers permessage-deflate, as Chrome does; on loopback it would only cost a
    # compress and a decompress of every frame, large results included.
    async with connected(daemon) as fake:
        assert fake.ws.response is not None
        assert "Sec-WebSocket-Extensions" not in fake.ws.response.headers


def test_access_log_is_off_unless_asked_for() -> None:
    assert make_server(Settings(port=0)).config.access_log is False
    assert make_server(Settings(port=0, access_log=True)).config.access_log is True
    args = build_parser().parse_args(["serve", "--access-log"])
    assert args.access_log is True


async def test_an_idle_keep_alive_connection_outlives_uvicorns_default(daemon: Daemon) -> None:
    # A caller that calls every few seconds keeps its connection rather than connecting anew.
    assert make_server(Settings(port=0)).config.timeout_keep_alive > 60
    reader, writer = await asyncio.open_connection("127.0.0.1", daemon.settings.port)
    try:
        request = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        for pause in (6, 0):  # 6 s: past uvicorn's 5 s default
            writer.write(request)
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 200")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            await asyncio.sleep(pause)
    finally:
        writer.close()
