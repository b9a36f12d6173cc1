"""browser_network_rules in the real Chromium with the real extension: block, redirect, request
headers and mocks, observed from the page (its fetches and images) and by the server (which echoes
the headers it got), each request a rule touched marked in browser_network_requests; in the
managed browser (every route) and in a person's Chrome with the debugger switch off (block by
declarativeNetRequest in the AI's tab only, a mock refused). The pages come from two sites:
127.0.0.1 and localhost are one server under two site names."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from selenium import webdriver

import tabpilot
from tests.e2e.acting import call, ok, refused
from tests.e2e.harness import Daemon, set_popup_switch, wait_for
from tests.mcp_support import open_mcp, text_of

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


class _Handler(BaseHTTPRequestHandler):
    def _answer(self, status: int, body: str | bytes, kind: str) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(data)

    def do_OPTIONS(self) -> None:
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Access-Control-Allow-Methods", "*")
        self.end_headers()

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/page.html":
            self._answer(200, "<!doctype html><title>rules page</title><p>rules</p>", "text/html")
        elif path == "/echo":
            # The request headers as the server got them, names in lower case.
            headers = {name.lower(): value for name, value in self.headers.items()}
            self._answer(200, json.dumps(headers), "application/json")
        elif path.endswith(".png"):
            self._answer(200, PNG, "image/png")
        else:
            self._answer(200, f"real {path}", "text/plain")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[str, str]]:
    """The same server as two sites: http://127.0.0.1:<port> and http://localhost:<port>."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    yield f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    httpd.shutdown()
    httpd.server_close()


def rules(daemon: Daemon, **params: Any) -> dict[str, Any]:
    return ok(daemon, "browser_network_rules", **params)


def add(daemon: Daemon, **params: Any) -> dict[str, Any]:
    rule: dict[str, Any] = rules(daemon, action="add", **params)["rule"]
    return rule


def in_page(daemon: Daemon, tab: int, script: str) -> Any:
    return ok(daemon, "execute_javascript", script=script, tab_id=tab)


FETCH = """
const r = await fetch(%s, %s).catch((e) => ({failed: String(e)}));
if (r.failed) return r;
return {status: r.status, url: r.url, mock: r.headers.get("x-mock"), text: await r.text()};
"""


def fetch(daemon: Daemon, tab: int, url: str, init: dict[str, Any] | None = None) -> Any:
    return in_page(daemon, tab, FETCH % (json.dumps(url), json.dumps(init or {})))


IMAGE = """
const img = new Image();
const loaded = new Promise((done) => {
  img.onload = () => done("load");
  img.onerror = () => done("error");
});
img.src = %s;
return await loaded;
"""


def marks(daemon: Daemon, tab: int, last: str) -> dict[str, list[dict[str, Any]]]:
    """Each request's url (and type, for an image), with what the rules did to it, once the
    request to `last` is in the log."""

    def logged() -> dict[str, list[dict[str, Any]]] | None:
        found = ok(daemon, "browser_network_requests", tab_id=tab, include_static=True, limit=200)
        urls = {
            r["url"] + (" image" if r["type"] == "image" else ""): r.get("rules", [])
            for r in found["requests"]
        }
        return urls if last in urls else None

    found: dict[str, list[dict[str, Any]]] = wait_for(logged, 10, f"{last} in the log")
    return found


@contextmanager
def ai_tab(daemon: Daemon, url: str) -> Iterator[int]:
    """A tab the AI opens at `url` (loaded), closed after the block, with the rules cleared."""
    tab: int = ok(daemon, "browser_tabs", action="new", url=url)["id"]
    try:
        wait_for(lambda: in_page(daemon, tab, "document.readyState") == "complete", 15, url)
        yield tab
    finally:
        call(daemon, "browser_network_rules", action="clear")
        call(daemon, "browser_tabs", action="close", tab_id=tab)


def their_fetch(browser: webdriver.Chrome, page: str, url: str) -> str:
    """The text of a fetch of `url` from `page` in a tab the person opened (not the AI), or why
    it failed."""
    mine = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        browser.get(page)
        text: str = browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"fetch({json.dumps(url)}).then((r) => r.text()).then(done, (e) => done(String(e)));"
        )
        return text
    finally:
        browser.close()
        browser.switch_to.window(mine)


@pytest.fixture(scope="module")
def managed_tab(managed: Daemon, sites: tuple[str, str]) -> Iterator[int]:
    with ai_tab(managed, f"{sites[0]}/page.html") as tab:
        yield tab


def test_block_redirect_and_headers_in_the_managed_browser(
    managed: Daemon, managed_tab: int, sites: tuple[str, str]
) -> None:
    a, b = sites
    tab = managed_tab
    block = add(managed, kind="block", pattern="**/blocked/**")
    assert (block["route"], rules(managed)["scope"]) == ("dnr", {"all_tabs": True})
    image = add(managed, kind="block", pattern=f"{a}/pics/*.png", types=["image"])
    moved = add(managed, kind="redirect", pattern="**/old/*", redirect_to=f"{b}/new/place")
    header = add(
        managed,
        kind="headers",
        pattern="**/echo",
        set_headers={"X-Tabpilot": "on"},
        remove_headers=["X-Secret"],
    )

    # Blocked, across sites, as the page sees it: the fetch fails, the image does not load.
    assert "TypeError" in fetch(managed, tab, f"{b}/blocked/data")["failed"]
    assert in_page(managed, tab, IMAGE % json.dumps(f"{a}/pics/cat.png")) == "error"
    # The image rule takes images only: a fetch of the same url goes through.
    assert fetch(managed, tab, f"{a}/pics/cat.png")["status"] == 200
    # Redirected to the other site.
    moved_to = fetch(managed, tab, f"{a}/old/place")
    assert (moved_to["url"], moved_to["text"]) == (f"{b}/new/place", "real /new/place")
    # The server sees the header set, and not the one removed.
    seen = json.loads(fetch(managed, tab, f"{a}/echo", {"headers": {"X-Secret": "s3"}})["text"])
    assert seen.get("x-tabpilot") == "on" and "x-secret" not in seen, seen
    untouched = json.loads(
        fetch(managed, tab, f"{a}/echo?no", {"headers": {"X-Secret": "s3"}})["text"]
    )
    assert "x-tabpilot" not in untouched and untouched["x-secret"] == "s3"

    log = marks(managed, tab, f"{a}/echo?no")
    assert log[f"{b}/blocked/data"] == [{"id": block["id"], "did": "blocked"}]
    assert log[f"{a}/pics/cat.png image"] == [{"id": image["id"], "did": "blocked"}]
    assert log[f"{a}/pics/cat.png"] == []
    assert log[f"{a}/old/place"] == [{"id": moved["id"], "did": "redirected"}]
    assert log[f"{a}/echo"] == [{"id": header["id"], "did": "headers"}]
    assert log[f"{a}/echo?no"] == [] and log[f"{b}/new/place"] == []

    # list, remove, clear.
    listed = rules(managed)["rules"]
    assert [r["id"] for r in listed] == [block["id"], image["id"], moved["id"], header["id"]]
    assert rules(managed, action="remove", id=block["id"])["removed"] == [block["id"]]
    assert fetch(managed, tab, f"{b}/blocked/data")["status"] == 200
    cleared = rules(managed, action="clear")
    assert (cleared["removed"], cleared["rules"]) == ([image["id"], moved["id"], header["id"]], [])
    assert fetch(managed, tab, f"{a}/old/place")["text"] == "real /old/place"


def test_a_mock_answers_with_its_status_headers_and_body(
    managed: Daemon, managed_tab: int, sites: tuple[str, str]
) -> None:
    a, b = sites
    tab = managed_tab
    mock = add(
        managed,
        kind="mock",
        pattern="**/api/user*",
        status=201,
        headers={"Content-Type": "application/json", "X-Mock": "yes"},
        body='{"name": "Ada"}',
    )
    assert mock["route"] == "debugger" and mock["body_size"] == len('{"name": "Ada"}')
    same = fetch(managed, tab, f"{a}/api/user")
    assert (same["status"], same["mock"], same["text"]) == (201, "yes", '{"name": "Ada"}')
    # From the other site: the page may read it, as it could the mocked server's.
    other = fetch(managed, tab, f"{b}/api/user?id=1")
    assert (other["status"], other["text"]) == (201, '{"name": "Ada"}')
    assert fetch(managed, tab, f"{a}/api/other")["text"] == "real /api/other"

    log = marks(managed, tab, f"{a}/api/other")
    assert log[f"{a}/api/user"] == [{"id": mock["id"], "did": "mocked"}]
    assert log[f"{b}/api/user?id=1"] == [{"id": mock["id"], "did": "mocked"}]
    assert log[f"{a}/api/other"] == []
    rules(managed, action="clear")
    assert fetch(managed, tab, f"{a}/api/user")["text"] == "real /api/user"


def test_bad_rules_are_refused_and_change_nothing(managed: Daemon, managed_tab: int) -> None:
    kept = add(managed, kind="block", pattern="**/kept")
    error = refused(
        managed,
        "browser_network_rules",
        400,
        "invalid_rule",
        action="add",
        kind="block",
        pattern="ads.example.com",
    )
    assert "starts with http" in error["message"]
    refused(
        managed,
        "browser_network_rules",
        400,
        "invalid_rule",
        action="add",
        kind="block",
        pattern="**/a b",
    )
    refused(
        managed,
        "browser_network_rules",
        400,
        "invalid_request",
        action="add",
        kind="block",
        pattern="**/x",
        types=["pictures"],
    )
    error = refused(
        managed,
        "browser_network_rules",
        400,
        "invalid_rule",
        action="add",
        kind="redirect",
        pattern="**/x",
        redirect_to="javascript:alert(1)",
    )
    assert "http or https" in error["message"]
    error = refused(
        managed, "browser_network_rules", 404, "rule_not_found", action="remove", id=9999
    )
    assert str(kept["id"]) in error["message"]
    assert [r["id"] for r in rules(managed)["rules"]] == [kept["id"]]
    rules(managed, action="clear")


def test_a_persons_chrome_blocks_in_the_ais_tab_only_and_refuses_a_mock(
    browser: webdriver.Chrome, daemon: Daemon, sites: tuple[str, str]
) -> None:
    a, b = sites
    with ai_tab(daemon, f"{a}/page.html") as tab:
        block = add(daemon, kind="block", pattern="**/blocked/**")
        assert block["route"] == "dnr"
        assert rules(daemon)["scope"] == {"all_tabs": False, "tabs": 1}
        assert "TypeError" in fetch(daemon, tab, f"{b}/blocked/data")["failed"]
        log = marks(daemon, tab, f"{b}/blocked/data")
        assert log[f"{b}/blocked/data"] == [{"id": block["id"], "did": "blocked"}]
        # A tab the person opened: its requests are untouched.
        assert their_fetch(browser, f"{a}/page.html", f"{b}/blocked/data") == "real /blocked/data"

        # A tab the AI opens later gets the rule; closed, it leaves the rule's scope.
        later: int = ok(daemon, "browser_tabs", action="new", url=f"{a}/page.html")["id"]
        wait_for(lambda: in_page(daemon, later, "document.readyState") == "complete", 15, "it")
        assert "TypeError" in fetch(daemon, later, f"{b}/blocked/data")["failed"]
        assert rules(daemon)["scope"] == {"all_tabs": False, "tabs": 2}
        ok(daemon, "browser_tabs", action="close", tab_id=later)
        assert rules(daemon)["scope"] == {"all_tabs": False, "tabs": 1}

        # A mock needs the debugger, whose switch is off: refused, and nothing added.
        error = refused(
            daemon,
            "browser_network_rules",
            403,
            "debugger_disabled",
            action="add",
            kind="mock",
            pattern="**/api/*",
            body="{}",
        )
        assert "debugger" in error["message"]
        assert [r["id"] for r in rules(daemon)["rules"]] == [block["id"]]


def test_the_rules_on_the_cli_mcp_and_the_python_client(managed: Daemon, managed_tab: int) -> None:
    rule = ["add", "--kind", "headers", "--pattern", "**/echo", "--set-headers", '{"X-Cli": "1"}']
    cli = subprocess.run(
        [sys.executable, "-m", "tabpilot", "rules", *rule, "--json", "--port", str(managed.port)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    added = json.loads(cli.stdout)["result"]["rule"]
    assert added["set_headers"] == {"X-Cli": "1"}, cli.stderr

    async def mcp() -> str:
        async with open_mcp("http", managed.port, caps="network") as client:
            answer = await client.call_tool(
                "browser_network_rules", {"action": "add", "kind": "block", "pattern": "**/ads/**"}
            )
        assert not answer.is_error, answer
        return text_of(answer)

    # /mcp loads the MCP SDK on its first request: not within the client's own 5 s when the
    # machine is busy.
    httpx.get(f"{managed.url}/mcp", timeout=60)
    text = asyncio.run(mcp())
    assert text.startswith(f"Added rule {added['id'] + 1} in every tab"), text
    assert f"#{added['id'] + 1} block **/ads/** (declarativeNetRequest)" in text
    with tabpilot.Client(managed.port) as client:
        listed = client.network_rules("list")
        assert [r["kind"] for r in listed["rules"]] == ["headers", "block"]
        assert client.network_rules("clear")["rules"] == []


def test_with_the_debugger_switch_on_a_mock_answers_in_the_ais_tab_only(
    browser: webdriver.Chrome, daemon: Daemon, sites: tuple[str, str]
) -> None:
    a, b = sites
    set_popup_switch(browser, "debugger-toggle", True)
    try:
        with ai_tab(daemon, f"{a}/page.html") as tab:
            mock = add(daemon, kind="mock", pattern="**/api/user", status=200, body="mocked")
            assert rules(daemon)["scope"] == {"all_tabs": False, "tabs": 1, "intercepting": 1}
            assert fetch(daemon, tab, f"{b}/api/user")["text"] == "mocked"
            assert marks(daemon, tab, f"{b}/api/user")[f"{b}/api/user"] == [
                {"id": mock["id"], "did": "mocked"}
            ]
            assert their_fetch(browser, f"{a}/page.html", f"{b}/api/user") == "real /api/user"
            # The switch turned off: the mock stays listed, answers nothing, and says so.
            set_popup_switch(browser, "debugger-toggle", False)
            wait_for(
                lambda: rules(daemon)["scope"].get("intercepting") == 0, 10, "the mocks to stop"
            )
            assert fetch(daemon, tab, f"{b}/api/user")["text"] == "real /api/user"
            assert [r["id"] for r in rules(daemon)["rules"]] == [mock["id"]]
    finally:
        set_popup_switch(browser, "debugger-toggle", False)
