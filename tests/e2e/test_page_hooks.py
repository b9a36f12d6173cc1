"""The page-world hooks (extension/page/page-log.js, inject.js, files.js) in a person's Chrome
(the `browser` fixture): an endless chunked stream the page reads costs the tab no more memory
than the browser's own fetch does, an event stream is never read, a long body is read no further
than the cap, the wrapped built-ins look native and nothing of tabpilot's is on `window` (though a
site that dispatches tabpilot's event names gets an answer), and a page loaded while AI Web Pilot
was on keeps no log while it is off.

Served by this module's own server, which counts what it could write to each stream: a reader
that took more than the page did would let it write on without end."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.harness import Daemon, set_pilot, wait_for
from tests.e2e.log_pages import console, log_tab, ok

MB = 1024 * 1024
#: How much of the endless stream the page reads in the memory test.
STREAMED_MB = 256
#: A body longer than the page world's read cap (4 MiB), sent without a Content-Length.
LONG_MB = 6

PAGE = """<!doctype html><title>hooks</title><script>
// Reads `mb` MiB of /endless with the page's fetch (tabpilot's hook), or in a worker (the
// browser's own fetch: no page-world script runs in a worker), dropping each chunk; then stops.
const READ = `async (url, bytes) => {
  const response = await fetch(url);
  const reader = response.body.getReader();
  let read = 0;
  while (read < bytes) {
    const { value, done } = await reader.read();
    if (done) break;
    read += value.byteLength;
  }
  await reader.cancel();
  return read;
}`;
window.readEndless = async (mb, where) => {
  const url = location.origin + "/endless?" + Math.random();
  if (where === "page") return eval(READ)(url, mb * 1048576);
  const code = `const read = ${READ};
    onmessage = async (e) => postMessage(await read(e.data.url, e.data.bytes));`;
  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  const read = await new Promise((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.postMessage({ url, bytes: mb * 1048576 });
  });
  worker.terminate();
  return read;
};
</script><p>hooks</p>"""


class _Streams:
    """What the server wrote to each stream, by the id in its url."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.written: dict[str, int] = {}

    def add(self, key: str, count: int) -> None:
        with self.lock:
            self.written[key] = self.written.get(key, 0) + count

    def of(self, key: str) -> int:
        with self.lock:
            return self.written.get(key, 0)


STREAMS = _Streams()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # chunked answers

    def _plain(self, body: str, kind: str = "text/html") -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _chunked(self, kind: str, key: str, chunks: Iterator[bytes]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        try:
            for chunk in chunks:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                STREAMS.add(key, len(chunk))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader went away
        self.close_connection = True

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path == "/hooks.html":
            self._plain(PAGE)
        elif path == "/endless":
            # 1 MiB chunks until the client goes (at most 2 GiB, so a broken test ends).
            self._chunked("application/octet-stream", query, (b"x" * MB for _ in range(2048)))
        elif path == "/events":
            # Three events, then the end.
            self._chunked("text/event-stream", query, (b"data: %d\n\n" % i for i in range(3)))
        elif path == "/events/endless":
            # Events of 256 KiB as fast as the reader takes them (at most 512 MiB).
            event = b"data: " + b"x" * (256 * 1024) + b"\n\n"
            self._chunked("text/event-stream; charset=utf-8", query, (event for _ in range(2048)))
        elif path == "/long":
            self._chunked("text/plain", query, (b"y" * (256 * 1024) for _ in range(LONG_MB * 4)))
        elif path == "/data":
            self._plain('{"from": "data"}', "application/json")
        else:
            self.send_error(404)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _renderers_rss(driver: webdriver.Chrome) -> int:
    """Bytes resident in this Chromium's renderer processes (its pages and their workers), read
    from /proc: the descendants of its ChromeDriver with --type=renderer."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    total = 0
    todo = [driver.service.process.pid]
    while todo:
        for pid in children.get(todo.pop(), []):
            todo.append(pid)
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    if b"--type=renderer" not in cmdline.read():
                        continue
                with open(f"/proc/{pid}/status") as status:
                    rss = next(line for line in status if line.startswith("VmRSS:"))
            except (OSError, StopIteration):
                continue
            total += int(rss.split()[1]) * 1024
    return total


def _settled_rss(driver: webdriver.Chrome) -> int:
    """The renderers' resident bytes once the current tab's garbage is collected and a moment has
    passed for buffers to be let go."""
    driver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
    time.sleep(1.0)
    return _renderers_rss(driver)


def _peak_growth(driver: webdriver.Chrome, work: Callable[[], Any]) -> int:
    """How far the renderers' resident bytes rose above where they were while `work` ran, sampled
    every 50 ms."""
    start = _settled_rss(driver)
    peak = start
    running = threading.Event()
    running.set()

    def sample() -> None:
        nonlocal peak
        while running.is_set():
            peak = max(peak, _renderers_rss(driver))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        work()
    finally:
        running.clear()
        sampler.join()
    return max(peak, _renderers_rss(driver)) - start


def _body(daemon: Daemon, tab: int, url_part: str) -> dict[str, Any]:
    """The body entry browser_network_requests gives for the tab's one request whose url holds
    `url_part`, once that request has ended."""

    def ended() -> dict[str, Any] | None:
        found = [
            r
            for r in ok(daemon, "browser_network_requests", tab_id=tab, limit=1000)["requests"]
            if url_part in r["url"] and r["duration"] is not None
        ]
        return found[-1] if found else None

    request = wait_for(ended, 10, f"the request to {url_part} to end")
    answer = ok(daemon, "browser_network_requests", tab_id=tab, include_body=request["seq"])
    body: dict[str, Any] = answer["body"]
    return body


def test_an_endless_stream_the_page_reads_costs_no_more_memory_than_the_browsers_own_fetch(
    request: pytest.FixtureRequest, browser: webdriver.Chrome, server: str
) -> None:
    # The comparison: the same page, in the same renderer process, reads the same endless chunked
    # stream as far, once through a worker's fetch (no tabpilot there: the browser's own) and once
    # through its own fetch, which tabpilot wraps; how far the renderers' memory rises while each
    # runs is the measure, and the hook's part is the difference. A hook that read a copy of the
    # stream (or let a clone buffer it) would hold up to all of it: STREAMED_MB more.
    url = f"{server}/hooks.html"
    home = browser.current_window_handle
    with log_tab(request, "browser", url) as (daemon, tab):
        _switch_to(browser, url)  # HeapProfiler.collectGarbage goes to the current tab
        try:

            def reading(where: str) -> Callable[[], Any]:
                script = f"await window.readEndless({STREAMED_MB}, {where!r})"
                run = {"tab_id": tab, "timeout_ms": 60_000}
                return lambda: ok(daemon, "execute_javascript", script=script, **run)

            own = _peak_growth(browser, reading("worker"))
            hooked = _peak_growth(browser, reading("page"))
            assert hooked < own + 24 * MB, (hooked // MB, own // MB)
            # A copy held would be all of the stream; the browser's own fetch alone rose 86 MB in
            # a run on a loaded machine, so the bound is half the stream, not a quarter.
            assert hooked < STREAMED_MB * MB // 2, (hooked // MB, own // MB)
        finally:
            browser.switch_to.window(home)


def test_an_event_stream_is_never_read_and_a_long_body_only_to_the_cap(
    request: pytest.FixtureRequest, browser: webdriver.Chrome, server: str
) -> None:
    with log_tab(request, "browser", f"{server}/hooks.html") as (daemon, tab):
        # The page reads the first event of an endless event stream, then nothing more: all the
        # server can write is what the connection buffers hold. A copy read beside the page (or
        # a clone drained into memory) would take the stream on to its end.
        ok(
            daemon,
            "execute_javascript",
            script="window.held = (await fetch('/events/endless?held')).body.getReader();"
            "await window.held.read(); return true",
            tab_id=tab,
        )
        time.sleep(3)
        assert STREAMS.of("held") < 48 * MB, STREAMS.of("held") // MB
        ok(daemon, "execute_javascript", script="await window.held.cancel()", tab_id=tab)

        # A short event stream, read to its end by the page as a stream, and once whole.
        ok(
            daemon,
            "execute_javascript",
            script="const reader = (await fetch('/events?streamed')).body.getReader();"
            "while (!(await reader.read()).done); return true",
            tab_id=tab,
        )
        streamed = _body(daemon, tab, "/events?streamed")
        assert streamed["text"] is None and "event stream" in streamed["note"], streamed
        whole_text = "(await fetch('/events?whole')).text()"
        assert ok(daemon, "execute_javascript", script=whole_text, tab_id=tab)
        whole = _body(daemon, tab, "/events?whole")
        assert whole["text"] is None and "event stream" in whole["note"], whole

        # 6 MiB with no Content-Length, which the page takes whole: its copy is read to 4 MiB.
        size = ok(
            daemon,
            "execute_javascript",
            script="(await (await fetch('/long?cut')).arrayBuffer()).byteLength",
            tab_id=tab,
        )
        assert size == LONG_MB * MB
        cut = _body(daemon, tab, "/long?cut")
        assert cut["text"] == "y" * 65536 and cut["truncated"] is True and cut["size"] is None
        assert "first 4194304 bytes" in cut["note"], cut


#: Each wrapped built-in's source text, and every name on window with "tabpilot" in it.
DISGUISE = """
const props = (target) =>
  Object.getOwnPropertyNames(target).filter((name) => /tabpilot/i.test(name));
return {
  texts: [
    fetch.toString(),
    Function.prototype.toString.call(fetch),
    XMLHttpRequest.prototype.open.toString(),
    XMLHttpRequest.prototype.send.toString(),
    console.log.toString(),
    Function.prototype.toString.call(console.error),
    alert.toString(),
    confirm.toString(),
    prompt.toString(),
    Response.prototype.json.toString(),
    Object.getOwnPropertyDescriptor(Response.prototype, "body").get.toString(),
    Function.prototype.toString.toString(),
  ],
  lengths: [fetch.length, XMLHttpRequest.prototype.open.length, alert.length],
  keys: Object.keys(window).filter((name) => /tabpilot/i.test(name)),
  names: props(window).concat(props(document)),
};
"""


#: What DISGUISE finds, in its order.
NATIVE_TEXTS = [
    "function fetch() { [native code] }",
    "function fetch() { [native code] }",
    "function open() { [native code] }",
    "function send() { [native code] }",
    "function log() { [native code] }",
    "function error() { [native code] }",
    "function alert() { [native code] }",
    "function confirm() { [native code] }",
    "function prompt() { [native code] }",
    "function json() { [native code] }",
    "function get body() { [native code] }",
    "function toString() { [native code] }",
]


def test_wrapped_built_ins_look_native_and_window_has_no_tabpilot_name(
    request: pytest.FixtureRequest, browser: webdriver.Chrome, server: str
) -> None:
    with log_tab(request, "browser", f"{server}/hooks.html") as (daemon, tab):
        # Sent through the channel the hooks are part of: tabpilot's own page world is loaded.
        seen = ok(daemon, "execute_javascript", script=DISGUISE, tab_id=tab)
        assert seen["texts"] == NATIVE_TEXTS
        assert seen["lengths"] == [1, 2, 0]
        assert seen["keys"] == [] and seen["names"] == []


#: What a site learns by asking, with the events tabpilot's page-world copies find each other by
#: (docs/protocol.md, "Injected twice"): which of them fill in the box it hands them.
ASK = """
const answers = {};
for (const name of ["tabpilot:page-log", "tabpilot:inject", "tabpilot:files"]) {
  const box = {};
  document.dispatchEvent(new CustomEvent(name, { detail: box }));
  answers[name] = Object.keys(box);
}
return answers;
"""
#: The channel is paired by then, so inject.js says nothing; the other two answer.
ANSWERS = {"tabpilot:page-log": ["hook"], "tabpilot:inject": [], "tabpilot:files": ["here"]}


def test_a_site_can_still_tell_the_page_world_is_there_by_its_events(
    request: pytest.FixtureRequest, browser: webdriver.Chrome, server: str
) -> None:
    with log_tab(request, "browser", f"{server}/hooks.html") as (daemon, tab):
        assert ok(daemon, "execute_javascript", script=ASK, tab_id=tab) == ANSWERS


#: A fetch whose init counts how often its method is read: once by the browser's own fetch, once
#: more by tabpilot's hook when it keeps the log. Then a console message.
PROBE = """
window.touched = 0;
const init = { get method() { window.touched += 1; return "GET"; } };
const text = await fetch("/data?" + arguments[0], init).then((r) => r.text());
console.log("probe " + arguments[0]);
return [window.touched, text];
"""


def _switch_to(driver: webdriver.Chrome, url: str) -> None:
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        if driver.current_url == url:
            return
    raise AssertionError(f"no window shows {url}")


def test_a_page_loaded_while_the_pilot_was_on_keeps_no_log_while_it_is_off(
    request: pytest.FixtureRequest, browser: webdriver.Chrome, daemon: Daemon, server: str
) -> None:
    url = f"{server}/hooks.html"
    home = browser.current_window_handle
    with log_tab(request, "browser", url) as (_, tab):
        _switch_to(browser, url)
        # Selenium runs the probe as a page script would: no tabpilot command is needed for it.
        probe = "const done = arguments[arguments.length - 1];" + (
            f"(async () => {{ {PROBE} }})().then(done, (e) => done(String(e)))"
        )
        # Chromium's own fetch reads the init's method once; the hook once more.
        hooked, text = browser.execute_async_script(probe, "on-before")
        assert [hooked, text] == [2, '{"from": "data"}']
        set_pilot(browser, daemon, False)
        try:
            _switch_to(browser, url)
            # The hooks are still in the page, and do nothing: the init is read by fetch alone.
            wait_for(
                lambda: browser.execute_async_script(probe, "while-off") == [hooked - 1, text],
                10,
                "the hooks to stand still",
            )
            # Still there, they look as they did, and answer a site that asks as they did.
            disguised = browser.execute_script(DISGUISE)
            assert disguised["keys"] == [] and disguised["names"] == []
            assert disguised["texts"] == NATIVE_TEXTS
            assert browser.execute_script(ASK) == ANSWERS
        finally:
            set_pilot(browser, daemon, True)
        _switch_to(browser, url)
        wait_for(
            lambda: browser.execute_async_script(probe, "on-again")[0] == hooked,
            10,
            "the hooks to keep the log again",
        )
        browser.switch_to.window(home)

        messages = [m["text"] for m in console(daemon, tab, limit=1000)["messages"]]
        assert "probe on-before" in messages and "probe on-again" in messages
        assert not [m for m in messages if "while-off" in m]
        requests = ok(daemon, "browser_network_requests", tab_id=tab, limit=1000)["requests"]
        assert not [r for r in requests if "while-off" in r["url"]]
        again = _body(daemon, tab, "/data?on-again")
        assert again["text"] == '{"from": "data"}'
