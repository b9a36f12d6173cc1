"""browser_network_requests in the real Chromium with the real extension, in the managed browser
and in a human's Chrome (the `browser` fixture), against a small server of this module's own:
GET and POST, a 404 and a 500, a redirect, a cached answer, a large body."""

from __future__ import annotations

import base64
import itertools
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.e2e.harness import Daemon, free_port, wait_for
from tests.e2e.log_pages import log_tab, ok, tool

BROWSERS = ("managed", "browser")
#: A port nothing listens on (connection refused), and a host that never resolves.
REFUSED = free_port()
BIG = "x" * 100_000
#: A real image (one transparent pixel): Chrome cancels the load of one it cannot decode.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)

APP = f"""<!doctype html><title>network app</title>
<link rel="stylesheet" href="/static/style.css"><img src="/static/pic.png">
<script>
const xhr = (method, url, body) => new Promise((resolve) => {{
  const request = new XMLHttpRequest();
  request.open(method, url);
  request.onloadend = resolve;
  request.send(body);
}});
window.done = (async () => {{
  await fetch("/api/items").then((r) => r.json());
  await xhr("POST", "/api/save", JSON.stringify({{name: "cart"}}));
  await fetch("/api/save", {{method: "POST", body: "via fetch"}}).then((r) => r.text());
  await xhr("GET", "/api/items?via=xhr");
  await fetch("/api/missing");
  await fetch("/api/broken");
  await fetch("/api/redirect");
  const cached = "/api/cached?" + Math.random();  // a first fetch never from a cache
  await fetch(cached).then((r) => r.text());
  await fetch(cached).then((r) => r.text());
  await fetch("/api/big").then((r) => r.text());
  // One url twice in a row, answered differently: each request has its own body.
  window.nexts = [await fetch("/api/next").then((r) => r.text())];
  window.nexts.push(await fetch("/api/next").then((r) => r.text()));
  await fetch("http://127.0.0.1:{REFUSED}/refused").catch(() => null);
  await fetch("http://nowhere.invalid/dns").catch(() => null);
  await fetch("/api/last");
  return true;
}})();
</script><p>app</p>"""


#: /api/next's answers: a new one each time (itertools.count is safe across the server's threads).
_ANSWERS = itertools.count(1)
#: Each load of the app page asks for its static files under urls of its own. Chromium shares a
#: renderer process between tabs of one site once it has many, and a second load in that process
#: takes the stylesheet and the image from Blink's memory cache, which no network log sees.
_LOADS = itertools.count(1)


class _Handler(BaseHTTPRequestHandler):
    def _answer(self, status: int, body: str | bytes, kind: str, **headers: str) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/app.html":
            load = next(_LOADS)
            page = APP.replace(".css", f".css?load={load}").replace(".png", f".png?load={load}")
            self._answer(200, page, "text/html")
        elif path == "/blank.html":
            self._answer(200, "<!doctype html><title>blank</title>", "text/html")
        elif path in ("/api/items", "/api/last", "/api/ping"):
            self._answer(200, json.dumps({"items": [1, 2, 3]}), "application/json")
        elif path == "/api/broken":
            self._answer(500, "broken", "text/plain")
        elif path == "/api/redirect":
            self._answer(302, "", "text/plain", Location="/api/items?redirected")
        elif path == "/api/cached":
            self._answer(200, "cached body", "text/plain", Cache_Control="max-age=600")
        elif path == "/api/big":
            self._answer(200, BIG, "text/plain")
        elif path == "/api/next":
            self._answer(200, f"answer {next(_ANSWERS)}", "text/plain")
        elif path == "/static/style.css":
            self._answer(200, "p { color: red }", "text/css")
        elif path == "/static/pic.png":
            self._answer(200, PNG, "image/png")
        else:
            self._answer(404, "no such thing", "text/plain")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        received = self.rfile.read(length).decode()
        self._answer(200, json.dumps({"saved": received}), "application/json")

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # a burst of requests is queued, not refused


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def network(daemon: Daemon, tab: int, **params: Any) -> dict[str, Any]:
    result: dict[str, Any] = ok(daemon, "browser_network_requests", tab_id=tab, **params)
    return result


def app_done(daemon: Daemon, tab: int) -> dict[str, Any]:
    """The network log once the app page made all its requests."""
    ok(daemon, "execute_javascript", script="await window.done", tab_id=tab)

    seen: list[dict[str, Any]] = []

    def finished() -> dict[str, Any] | None:
        result = network(daemon, tab, include_static=True, limit=1000)
        seen[:] = result["requests"]
        last = [r for r in result["requests"] if r["url"].endswith("/api/last")]
        # The stylesheet and the image load beside the app's own requests, and on a loaded
        # machine may end after them.
        static = [r for r in result["requests"] if "/static/" in r["url"] and r["status"] == 200]
        return result if last and last[0]["status"] == 200 and len(static) >= 2 else None

    # Sixteen requests one after another, each logged from webRequest's events: on a machine
    # whose load is four times its cores (a whole CI run beside other browsers) 10 s was short.
    try:
        found: dict[str, Any] = wait_for(finished, 30, "the app's requests")
    except AssertionError as timeout:
        # What the log held at the end, to tell a request never logged from one never answered.
        last = [(r["url"], r["status"], r["failed"]) for r in seen]
        raise AssertionError(f"{timeout}; the log held {last}") from None
    return found


def one(requests: list[dict[str, Any]], method: str, url_end: str) -> dict[str, Any]:
    found = [r for r in requests if r["method"] == method and r["url"].endswith(url_end)]
    assert found, (method, url_end, [r["url"] for r in requests])
    return found[-1]


@pytest.mark.parametrize("which", BROWSERS)
def test_every_kind_of_request_from_before_the_first_call(
    request: pytest.FixtureRequest, which: str, server: str
) -> None:
    with log_tab(request, which, f"{server}/app.html") as (daemon, tab):
        # A snapshot makes the page import tabpilot's accessible-name modules: not its requests.
        assert daemon.post_json("/browser_snapshot", {"tab_id": tab}).json()["success"]
        everything = app_done(daemon, tab)["requests"]
        assert not [r for r in everything if r["url"].startswith("chrome-extension:")]
        page = one(everything, "GET", "/app.html")
        assert (page["type"], page["status"], page["failed"]) == ("document", 200, None)
        items = one(everything, "GET", "/api/items")
        assert (items["type"], items["status"], items["from_cache"]) == ("xhr", 200, False)
        assert items["duration"] >= 0 and items["size"] == len('{"items": [1, 2, 3]}')
        assert one(everything, "GET", "/api/items?via=xhr")["status"] == 200
        saves = [r for r in everything if r["method"] == "POST" and r["url"].endswith("/save")]
        assert [r["status"] for r in saves] == [200, 200]
        assert one(everything, "GET", "/api/missing")["status"] == 404
        assert one(everything, "GET", "/api/broken")["status"] == 500
        hop = one(everything, "GET", "/api/redirect")
        assert hop["status"] == 302 and hop["redirect_to"] == f"{server}/api/items?redirected"
        assert one(everything, "GET", "/api/items?redirected")["status"] == 200
        cached = [r for r in everything if "/api/cached?" in r["url"]]
        assert [r["from_cache"] for r in cached] == [False, True]
        refused = one(everything, "GET", "/refused")
        assert refused["failed"] == "net::ERR_CONNECTION_REFUSED" and refused["status"] is None
        assert one(everything, "GET", "/dns")["failed"] == "net::ERR_NAME_NOT_RESOLVED"

        # The default hides successful static resources, and counts them.
        default = network(daemon, tab, limit=1000)
        # (Chrome's favicon.ico request is a failed image: shown.)
        shown = {r["type"] for r in default["requests"] if not r["url"].endswith("favicon.ico")}
        assert shown <= {"document", "xhr"}
        mine = [r for r in default["requests"] if not r["url"].endswith("favicon.ico")]
        assert default["hidden"] == 2
        assert len(mine) == len([r for r in everything if "favicon" not in r["url"]]) - 2

        # Filters: status, url, type.
        # "failed": no answer, or an HTTP error.
        failed = network(daemon, tab, status="failed")["requests"]
        ends = sorted(r["url"].rsplit("/", 1)[1] for r in failed if "favicon" not in r["url"])
        assert ends == ["broken", "dns", "missing", "refused"]
        client_errors = network(daemon, tab, status="4xx")["requests"]
        assert [r["url"] for r in client_errors if not r["url"].endswith("favicon.ico")] == [
            f"{server}/api/missing"
        ]
        assert [r["status"] for r in network(daemon, tab, status="500")["requests"]] == [500]
        assert len(network(daemon, tab, url="/api/cached")["requests"]) == 2
        assert len(network(daemon, tab, url=f"{server}/api/*ed")["requests"]) == 1  # whole url
        assert len(network(daemon, tab, url="*/api/cach*")["requests"]) == 2
        assert network(daemon, tab, url="api/cach*")["requests"] == []  # anchored at the start
        images = network(daemon, tab, type="image")
        assert any(r["url"].startswith(f"{server}/static/pic.png?") for r in images["requests"])


@pytest.mark.parametrize("which", BROWSERS)
def test_response_bodies_of_fetch_and_xhr_capped(
    request: pytest.FixtureRequest, which: str, server: str
) -> None:
    with log_tab(request, which, f"{server}/app.html") as (daemon, tab):
        everything = app_done(daemon, tab)["requests"]
        items = network(daemon, tab, include_body=one(everything, "GET", "/api/items")["seq"])
        assert items["body"]["text"] == '{"items": [1, 2, 3]}'
        assert items["body"]["source"] == "fetch" and items["body"]["truncated"] is False
        saved = [r for r in everything if r["method"] == "POST" and r["url"].endswith("/save")]
        posted = network(daemon, tab, include_body=saved[0]["seq"])["body"]
        assert posted["source"] == "xhr" and json.loads(posted["text"]) == {
            "saved": '{"name":"cart"}'
        }
        big = network(daemon, tab, include_body=one(everything, "GET", "/api/big")["seq"])
        assert big["body"]["truncated"] is True and big["body"]["cap"] == 65536
        assert big["body"]["size"] == 100_000 and len(big["body"]["text"]) == 65536
        nexts = [r for r in everything if r["url"].endswith("/api/next")]
        read = ok(daemon, "execute_javascript", script="window.nexts", tab_id=tab)
        assert len(set(read)) == 2
        assert [network(daemon, tab, include_body=r["seq"])["body"]["text"] for r in nexts] == read
        document = network(daemon, tab, include_body=one(everything, "GET", "/app.html")["seq"])
        assert document["body"]["text"] is None and "fetch and XHR" in document["body"]["note"]
        missing = tool(daemon, "browser_network_requests", 404, tab_id=tab, include_body=999_999)
        assert missing["error"]["code"] == "request_not_found"
        assert "browser_network_requests" in missing["error"]["message"]


@pytest.mark.parametrize("which", BROWSERS)
def test_a_ring_of_1000_and_a_new_page(
    request: pytest.FixtureRequest, which: str, server: str
) -> None:
    with log_tab(request, which, f"{server}/blank.html") as (daemon, tab):
        ok(
            daemon,
            "execute_javascript",
            # Refused at once: 1,500 requests, none of them waits for a server.
            script="for (let i = 0; i < 1500; i += 100) await Promise.all(Array.from("
            f"{{length: 100}}, (_, j) => fetch('http://127.0.0.1:{REFUSED}/ping?' + (i + j))"
            ".catch(() => 0)))",
            tab_id=tab,
            timeout_ms=60_000,
        )

        def full() -> dict[str, Any] | None:
            result = network(daemon, tab, url="/ping?", limit=1000)
            done = all(r["failed"] for r in result["requests"])
            return result if done and result["evicted"] >= 500 else None

        ring = wait_for(full, 20, "1,500 requests")
        # The page's own requests came first: the ring keeps the last 1,000 pings.
        urls = [r["url"] for r in ring["requests"]]
        first = f"http://127.0.0.1:{REFUSED}/ping?500"
        assert len(urls) == 1000 and urls[0] == first and ring["evicted"] >= 500
        latest = network(daemon, tab)
        assert latest["shown"] == 50 and latest["matched"] == 1000

        ok(daemon, "browser_navigate", url=f"{server}/app.html", tab_id=tab)
        app_done(daemon, tab)
        fresh = network(daemon, tab, status="failed", since=latest["last_seq"])
        failed = {r["url"].rsplit("/", 1)[1] for r in fresh["requests"]}
        assert {"refused", "dns"} <= failed, fresh["requests"]
        assert {r["page"] for r in fresh["requests"]} == {fresh["page"]["id"]}
        page = network(daemon, tab, type="document")["requests"]
        assert [r["url"] for r in page] == [f"{server}/app.html"]
        assert page[0]["page"] == fresh["page"]["id"] > latest["page"]["id"]


def test_bad_filters_get_a_clear_error(daemon: Daemon, browser: Any) -> None:
    for params, says in (
        ({"status": "teapot"}, "`status`"),
        ({"type": "gif"}, "`type`"),
        ({"include_body": 0}, "`include_body`"),
    ):
        body = tool(daemon, "browser_network_requests", 400, **params)
        assert body["error"]["code"] == "invalid_request" and says in body["error"]["message"]
