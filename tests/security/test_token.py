"""The optional shared secret: unit rules, the HTTP guard, the extension's hello, and the CLI
reading the token file by itself."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tabpilot.browsers.managed import ManagedBrowser
from tabpilot.cli import main
from tabpilot.config import Settings, client_headers, read_token
from tabpilot.http.security import bearer_token
from tabpilot.ids import token_matches
from tabpilot.protocol import CALLS_PATH, CLOSE_UNAUTHORIZED
from tests.mcp_support import INITIALIZE, MCP_HEADERS
from tests.support import Daemon, connected, run_daemon

TOKEN = "s3cret-token-for-tests"


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon(token=TOKEN) as running:
        yield running


# -- the rules -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected", "ok"),
    [
        (None, None, True),
        ("anything", None, True),
        (None, "", True),
        (None, TOKEN, False),
        ("", TOKEN, False),
        (TOKEN[:-1], TOKEN, False),
        (TOKEN + "x", TOKEN, False),
        (TOKEN.upper(), TOKEN, False),
        ("s3cret-tökén", TOKEN, False),
        (TOKEN, TOKEN, True),
    ],
)
def test_token_matches(given: str | None, expected: str | None, ok: bool) -> None:
    assert token_matches(given, expected) is ok


@pytest.mark.parametrize(
    ("header", "token"),
    [
        (None, None),
        ("", None),
        ("Bearer", None),
        ("Bearer ", None),
        ("Basic abc", None),
        ("Bearer abc", "abc"),
        ("bearer  abc ", "abc"),
    ],
)
def test_bearer_token(header: str | None, token: str | None) -> None:
    assert bearer_token(header) == token


def test_client_headers_carry_the_token_only_when_set() -> None:
    assert client_headers(Settings()) == {}
    assert client_headers(Settings(token=TOKEN)) == {"Authorization": f"Bearer {TOKEN}"}


def test_token_is_kept_out_of_the_settings_repr() -> None:
    assert TOKEN not in repr(Settings(token=TOKEN))


def test_token_comes_from_the_environment_then_the_file(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Settings.from_env().token is None
    isolated_env.mkdir(parents=True)
    (isolated_env / "token").write_text(f"{TOKEN}\nignored second line\n")
    assert Settings.from_env().token == TOKEN
    monkeypatch.setenv("TABPILOT_TOKEN", "from-env")
    assert Settings.from_env().token == "from-env"
    monkeypatch.setenv("TABPILOT_TOKEN", "")
    assert Settings.from_env().token is None  # set and empty: no token, whatever the file says
    assert read_token(isolated_env / "nowhere") is None


async def test_every_token_is_compared_with_hmac_compare_digest(
    daemon: Daemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: tokens are compared in constant time (hmac.compare_digest), whichever way they
    come: an HTTP header, the callers' socket, the extension's hello."""
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(given: bytes, expected: bytes) -> bool:
        compared.append((given, expected))
        return real(given, expected)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    expected = TOKEN.encode()
    async with daemon.client() as client:
        await client.get("/status", headers={"Authorization": "Bearer by-http"})
    assert (b"by-http", expected) in compared
    with pytest.raises(InvalidStatus):
        await connect(
            f"ws://127.0.0.1:{daemon.settings.port}{CALLS_PATH}",
            additional_headers={"Authorization": "Bearer by-calls-socket"},
            proxy=None,
        )
    assert (b"by-calls-socket", expected) in compared
    fake = await daemon.extension(token="by-hello", expect_daemon_hello=False).connect()
    assert (await fake.wait_closed())[0] == CLOSE_UNAUTHORIZED
    assert (b"by-hello", expected) in compared


# -- HTTP ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization", [None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer"]
)
@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/status"), ("GET", "/tabs"), ("POST", "/execute_javascript"), ("GET", "/nope")],
)
async def test_without_the_token_every_browser_route_is_401(
    daemon: Daemon, authorization: str | None, method: str, path: str
) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    async with daemon.client() as client:
        response = await client.request(method, path, headers=headers, json={"script": "1"})
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    body = response.json()
    assert body["success"] is False and body["request_id"] == response.headers["x-request-id"]
    assert body["error"]["code"] == "unauthorized"
    assert "Authorization: Bearer" in body["error"]["message"]
    assert TOKEN not in response.text


TOOLS_CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "execute_javascript", "arguments": {"script": "through mcp"}},
}


def _assert_unauthorized(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"] == "Bearer"
    body = response.json()
    assert body["success"] is False and body["request_id"] == response.headers["x-request-id"]
    assert body["error"]["code"] == "unauthorized"
    assert TOKEN not in response.text


async def test_mcp_needs_the_token_for_initialize_and_tools_call(daemon: Daemon) -> None:
    """/mcp is guarded like every other route: 401 without the token or with a wrong one, for
    the initialize that opens a session and for a tool call in an open session alike."""
    right = {**MCP_HEADERS, **client_headers(daemon.settings)}
    wrong = {**MCP_HEADERS, "Authorization": "Bearer not-the-token"}
    async with connected(daemon, token=TOKEN) as fake, daemon.client() as client:
        for headers in (MCP_HEADERS, wrong):
            _assert_unauthorized(await client.post("/mcp", json=INITIALIZE, headers=headers))
        opened = await client.post("/mcp", json=INITIALIZE, headers=right)
        assert opened.status_code == 200, opened.text
        assert opened.json()["result"]["serverInfo"]["name"] == "tabpilot"
        session = {"mcp-session-id": opened.headers["mcp-session-id"]}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await client.post("/mcp", json=initialized, headers={**right, **session})
        for headers in (MCP_HEADERS, wrong):
            refused = await client.post("/mcp", json=TOOLS_CALL, headers={**headers, **session})
            _assert_unauthorized(refused)
        assert fake.commands == []  # nothing refused reached the extension
        answered = await client.post("/mcp", json=TOOLS_CALL, headers={**right, **session})
    assert answered.status_code == 200, answered.text
    assert answered.json()["result"]["structuredContent"]["result"] == "through mcp"
    assert [c.params["script"] for c in fake.commands] == ["through mcp"]


@pytest.mark.parametrize("path", ["/health", "/", "/openapi.json", "/docs"])
async def test_routes_that_tell_nothing_stay_open(daemon: Daemon, path: str) -> None:
    async with daemon.client() as client:
        response = await client.get(path)
    assert response.status_code == 200


async def test_with_the_token_commands_run(daemon: Daemon) -> None:
    async with (
        connected(daemon, token=TOKEN),
        daemon.client(headers=client_headers(daemon.settings)) as client,
    ):
        response = await client.post("/execute_javascript", json={"script": "with token"})
        assert response.json()["result"] == "with token"
        assert (await client.get("/status")).json()["result"]["extension"]["connected"]


async def test_a_web_page_with_the_token_is_still_refused(daemon: Daemon) -> None:
    headers = {"Origin": "https://evil.example", **client_headers(daemon.settings)}
    async with daemon.client() as client:
        response = await client.post("/execute_javascript", headers=headers, json={"script": "1"})
    assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden_origin")


# -- the extension's hello -----------------------------------------------------------------------


@pytest.mark.parametrize("token", [None, "", "not-the-token-42", TOKEN + " "])
async def test_an_extension_without_the_token_is_closed_with_4004(
    daemon: Daemon, caplog: pytest.LogCaptureFixture, token: str | None
) -> None:
    caplog.set_level(logging.WARNING, logger="tabpilot")
    fake = await daemon.extension(token=token, expect_daemon_hello=False).connect()
    code, reason = await fake.wait_closed()
    assert code == CLOSE_UNAUTHORIZED
    assert reason is not None and reason.startswith("unauthorized")
    assert any("wrong or no token" in r.getMessage() for r in caplog.records)
    assert not fake.frames  # not even the daemon's hello
    async with daemon.client(headers=client_headers(daemon.settings)) as client:
        status = (await client.get("/status")).json()["result"]
    assert status["extension"]["connected"] is False
    if token:
        assert not any(token in r.getMessage() for r in caplog.records)


async def test_a_daemon_without_a_token_takes_any_hello() -> None:
    with run_daemon() as open_daemon:
        async with connected(open_daemon, token="whatever") as fake, open_daemon.client() as c:
            assert fake.daemon_hello is not None
            assert (await c.post("/execute_javascript", json={"script": "x"})).status_code == 200


# -- the CLI -------------------------------------------------------------------------------------


def test_the_cli_reads_the_token_file_by_itself(
    daemon: Daemon, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = str(daemon.settings.port)
    assert main(["status", "--json", "--port", port]) == 1
    assert "requires a token" in capsys.readouterr().err
    isolated_env.mkdir(parents=True)
    token_file = isolated_env / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    assert main(["status", "--json", "--port", port]) == 0
    assert json.loads(capsys.readouterr().out)["daemon_version"] == daemon.settings.version


def test_the_cli_sends_tabpilot_token(
    daemon: Daemon, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABPILOT_TOKEN", TOKEN)
    response = httpx.get(f"{daemon.base_url}/status", headers=client_headers(Settings.from_env()))
    assert response.status_code == 200
    assert main(["tabs", "--port", str(daemon.settings.port)]) == 1  # no extension: 503
    assert "No tabpilot extension is connected" in capsys.readouterr().err


def test_the_managed_browser_gets_the_token_in_a_private_file(tmp_path: Path) -> None:
    browser = ManagedBrowser(Settings(port=9123, state_dir=tmp_path, token=TOKEN))
    profile, extension = browser._prepare_profile()
    managed_file = extension / "managed.json"
    assert json.loads(managed_file.read_text())["token"] == TOKEN
    assert managed_file.stat().st_mode & 0o077 == 0
    assert profile.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("content", [None, b"\xff\xfe not text"])
def test_an_unreadable_token_file_stops_with_one_line(
    isolated_env: Path, content: bytes | None
) -> None:
    isolated_env.mkdir(parents=True, exist_ok=True)
    path = isolated_env / "token"
    if content is None:
        path.mkdir()  # a directory where the file should be: reading it fails
    else:
        path.write_bytes(content)
    with pytest.raises(SystemExit) as stop:
        read_token(isolated_env)
    message = str(stop.value)
    assert message.startswith(f"tabpilot: cannot read the token file {path}")
    assert "\n" not in message
