"""Host and Origin refusals, over HTTP and the WebSocket handshake, and request ids on refusals."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from tabpilot.http.security import fetch_site_refused, host_allowed, origin_refused
from tests.support import EXTENSION_ORIGIN, Daemon, run_daemon


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with run_daemon() as running:
        yield running


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "127.0.0.1:7878",
        "localhost",
        "localhost:1",
        "LOCALHOST:7878",
        "[::1]",
        "[::1]:80",
    ],
)
def test_loopback_hosts_are_allowed(host: str) -> None:
    assert host_allowed(host)


@pytest.mark.parametrize(
    "host",
    [
        None,
        "",
        "evil.com",
        "evil.com:7878",
        "127.0.0.1.evil.com",
        "127.0.0.1.evil.com:7878",
        "localhost.evil.com",
        "[::1].evil.com",
        "127.0.0.2",
        "0.0.0.0:7878",
        "127.0.0.1:port",
        "[::2]:7878",
    ],
)
def test_other_hosts_are_refused(host: str | None) -> None:
    assert not host_allowed(host)


@pytest.mark.parametrize(
    ("origin", "websocket", "refused"),
    [
        (None, False, False),
        ("chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf", False, False),
        ("chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf/", True, False),
        ("chrome-extension://abc", False, True),  # another installed extension
        ("chrome-extension://abc", True, True),
        ("http://evil.com", False, True),
        ("https://example.org", False, True),
        ("http://127.0.0.1:7878", False, True),
        ("null", False, True),  # sandboxed iframes and data: pages send "null"
        ("chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf", True, False),
        (None, True, True),
        ("http://evil.com", True, True),
    ],
)
def test_origin_rules(origin: str | None, websocket: bool, refused: bool) -> None:
    assert origin_refused(origin, websocket=websocket) is refused


@pytest.mark.parametrize(
    ("origin", "refused"),
    [
        (None, False),  # a program: tabpilot mcp, a script
        ("chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf", True),  # even tabpilot's own
        ("http://evil.com", True),
        ("null", True),
    ],
)
def test_the_callers_socket_takes_no_origin_at_all(origin: str | None, refused: bool) -> None:
    assert origin_refused(origin, websocket=True, caller_socket=True) is refused


@pytest.mark.parametrize(
    ("site", "origin", "refused"),
    [
        (None, None, False),  # curl, the CLI
        ("none", None, False),  # typed in the address bar
        ("same-origin", None, False),  # the /docs page fetching /openapi.json
        ("cross-site", None, True),  # <img src> or <script src> on another site
        ("same-site", None, True),  # a page on another port of 127.0.0.1
        ("Cross-Site", None, True),
        ("cross-site", "chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf", False),
    ],
)
def test_fetch_metadata_rules(site: str | None, origin: str | None, refused: bool) -> None:
    assert fetch_site_refused(site, origin) is refused


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
@pytest.mark.parametrize("path", ["/status", "/tabs"])
async def test_no_cors_get_from_a_page_is_403(
    client: httpx.AsyncClient, site: str, path: str
) -> None:
    response = await client.get(path, headers={"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"})
    _assert_refused(response, 403, "forbidden_origin")


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
async def test_a_tab_navigating_to_the_landing_page_is_served_whoever_sent_it(
    client: httpx.AsyncClient, site: str
) -> None:
    # As chrome.tabs.update marks it: the managed browser's first page, browser_navigate.
    navigation = {
        "Sec-Fetch-Site": site,
        "Sec-Fetch-Mode": "navigate",
        "Sec-Fetch-Dest": "document",
    }
    response = await client.get("/", headers=navigation)
    assert response.status_code == 200 and "tabpilot daemon is running" in response.text
    # Only the landing page, only a top-level navigation, and only to read it.
    _assert_refused(await client.get("/status", headers=navigation), 403, "forbidden_origin")
    framed = {**navigation, "Sec-Fetch-Dest": "iframe"}
    _assert_refused(await client.get("/", headers=framed), 403, "forbidden_origin")
    fetched = {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}
    _assert_refused(await client.get("/", headers=fetched), 403, "forbidden_origin")
    _assert_refused(await client.post("/", headers=navigation), 403, "forbidden_origin")


def _assert_refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status
    body = response.json()
    assert body["success"] is False
    assert body["error"]["code"] == code
    assert body["request_id"] == response.headers["x-request-id"]
    assert len(body["request_id"]) >= 16


@pytest.mark.parametrize(
    "host",
    [
        "evil.com",
        "evil.com:{port}",
        "127.0.0.1.evil.com",
        "127.0.0.1.evil.com:{port}",
        "evil.example:{port}",
        "attacker.com",
    ],
)
@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/health"), ("GET", "/status"), ("POST", "/execute_javascript")]
)
async def test_foreign_host_header_is_403(
    daemon: Daemon, client: httpx.AsyncClient, host: str, method: str, path: str
) -> None:
    headers = {"Host": host.format(port=daemon.settings.port)}
    response = await client.request(method, path, headers=headers, json={"script": "1"})
    _assert_refused(response, 403, "forbidden_host")


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "127.0.0.1", "localhost", "[::1]:{port}"])
async def test_loopback_host_header_is_served(
    daemon: Daemon, client: httpx.AsyncClient, host: str
) -> None:
    response = await client.get("/health", headers={"Host": host.format(port=daemon.settings.port)})
    assert response.status_code == 200
    assert response.json()["success"] is True
    assert response.json()["request_id"] == response.headers["x-request-id"]


@pytest.mark.parametrize("origin", ["http://evil.com", "https://evil.com", "null"])
@pytest.mark.parametrize(
    ("content_type", "content"),
    [
        ("application/json", '{"script": "1"}'),
        ("text/plain", '{"script": "1"}'),
        ("application/x-www-form-urlencoded", "script=1"),
        ("multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="s"\r\n'),
    ],
)
async def test_web_page_origins_are_403_for_every_content_type(
    client: httpx.AsyncClient, origin: str, content_type: str, content: str
) -> None:
    response = await client.post(
        "/execute_javascript",
        content=content,
        headers={"Origin": origin, "Content-Type": content_type},
    )
    _assert_refused(response, 403, "forbidden_origin")


async def test_web_page_origin_is_refused_on_get_too(client: httpx.AsyncClient) -> None:
    response = await client.get("/status", headers={"Origin": "https://evil.com"})
    _assert_refused(response, 403, "forbidden_origin")


async def test_extension_origin_may_call_http(daemon: Daemon, client: httpx.AsyncClient) -> None:
    response = await client.get("/status", headers={"Origin": EXTENSION_ORIGIN})
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True and body["request_id"] == response.headers["x-request-id"]
    assert body["result"]["daemon_version"] == daemon.settings.version


async def test_another_extensions_origin_is_refused(client: httpx.AsyncClient) -> None:
    other = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
    response = await client.get("/status", headers={"Origin": other})
    _assert_refused(response, 403, "forbidden_origin")


async def test_another_extension_cannot_open_the_websocket(daemon: Daemon) -> None:
    with pytest.raises(InvalidStatus) as caught:
        await connect(
            daemon.ws_url,
            origin=Origin("chrome-extension://abcdefghijklmnopabcdefghijklmnop"),
            proxy=None,
            open_timeout=5,
        )
    assert caught.value.response.status_code == 403


@pytest.mark.parametrize("origin", [None, "http://evil.com", "https://evil.com", "null"])
async def test_websocket_refuses_non_extension_origins(daemon: Daemon, origin: str | None) -> None:
    with pytest.raises(InvalidStatus) as caught:
        await connect(
            daemon.ws_url, origin=Origin(origin) if origin else None, proxy=None, open_timeout=5
        )
    assert caught.value.response.status_code == 403
    assert b"forbidden_origin" in caught.value.response.body


async def test_websocket_refuses_foreign_host(daemon: Daemon, client: httpx.AsyncClient) -> None:
    # A raw handshake: the websockets client cannot replace its own Host header.
    handshake = {
        "Host": "evil.com",
        "Origin": "chrome-extension://test",
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    }
    response = await client.get("/ws", headers=handshake)
    _assert_refused(response, 403, "forbidden_host")
