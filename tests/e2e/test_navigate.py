"""browser_navigate in the real browser: loading a page with its status, back, forward and reload,
and each way a page can fail to load."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tests.e2e.acting import js, ok, open_page, ref, refused
from tests.e2e.harness import Daemon, free_port


@pytest.fixture
def tab(page: dict[str, Any]) -> int:
    tab_id: int = page["id"]
    return tab_id


def test_goto_answers_the_url_title_and_status(daemon: Daemon, pages: str, tab: int) -> None:
    url = f"{pages}/act/form.html"
    body = ok(daemon, "browser_navigate", url=url, tab_id=tab)
    assert body == {"url": url, "title": "sign up", "status": 200}
    assert js(daemon, tab, "document.readyState") == "complete"


def test_back_forward_and_reload(daemon: Daemon, pages: str, tab: int) -> None:
    first, second = f"{pages}/act/links.html", f"{pages}/act/landed.html"
    open_page(daemon, tab, first)
    # Left by a click on the DOM route, which has no user gesture: back must not skip the page.
    ok(daemon, "browser_act", tab_id=tab, kind="click", ref=ref(daemon, tab, 'link "Next page"'))
    back = ok(daemon, "browser_navigate", action="back", tab_id=tab)
    assert (back["url"], back["title"]) == (first, "links")
    forward = ok(daemon, "browser_navigate", action="forward", tab_id=tab)
    assert (forward["url"], forward["title"]) == (second, "landed")
    js(daemon, tab, "window.before = 1")
    reloaded = ok(daemon, "browser_navigate", action="reload", tab_id=tab)
    assert reloaded == {"url": second, "title": "landed", "status": 200}
    assert js(daemon, tab, "window.before ?? 'gone'") == "gone"


def test_back_with_no_page_before_is_refused(daemon: Daemon, pages: str) -> None:
    fresh = ok(daemon, "browser_tabs", action="new", url=f"{pages}/act/landed.html")["id"]
    try:
        error = refused(
            daemon, "browser_navigate", 400, "invalid_request", action="back", tab_id=fresh
        )
        assert "cannot go back" in error["message"]
    finally:
        ok(daemon, "browser_tabs", action="close", tab_id=fresh)


def test_an_http_error_status_fails_but_the_page_is_there(
    daemon: Daemon, pages: str, tab: int
) -> None:
    url = f"{pages}/act/missing.html"
    error = refused(daemon, "browser_navigate", 502, "navigation_failed", url=url, tab_id=tab)
    assert error["data"] == {"reason": "http_status", "url": url, "status": 404}
    assert "browser_read" in error["message"]
    assert js(daemon, tab, "document.title") == "not here"


@pytest.mark.parametrize(
    ("url", "reason", "net_error"),
    [
        ("http://nonexistent.invalid/", "dns", "net::ERR_NAME_NOT_RESOLVED"),
        (f"http://127.0.0.1:{free_port()}/", "connection_refused", "net::ERR_CONNECTION_REFUSED"),
    ],
)
def test_a_page_that_cannot_load_says_why(
    daemon: Daemon, tab: int, url: str, reason: str, net_error: str
) -> None:
    error = refused(daemon, "browser_navigate", 502, "navigation_failed", url=url, tab_id=tab)
    assert error["data"] == {"reason": reason, "url": url, "net_error": net_error}


@pytest.mark.parametrize("url", ["file:///etc/passwd", "javascript:alert(1)", "chrome://settings"])
def test_only_web_urls_are_opened(daemon: Daemon, pages: str, tab: int, url: str) -> None:
    open_page(daemon, tab, f"{pages}/act/landed.html")
    error = refused(daemon, "browser_navigate", 400, "invalid_request", url=url, tab_id=tab)
    assert url.split(":")[0] in error["message"]
    assert js(daemon, tab, "location.pathname") == "/act/landed.html"


def test_a_page_that_does_not_finish_loading_times_out(
    daemon: Daemon, pages: str, tab: int
) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # connections are taken and never answered
        url = f"{pages}/act/slow.html#http://127.0.0.1:{silent.getsockname()[1]}/image.png"
        error = refused(
            daemon, "browser_navigate", 502, "navigation_failed", url=url, tab_id=tab,
            timeout_ms=1500,
        )  # fmt: skip
    assert error["data"] == {"reason": "timeout", "url": url}
    assert "within 1500 ms" in error["message"]


def test_a_navigation_that_ends_without_a_page_is_aborted(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/act/landed.html")
    url = f"{pages}/act/nothing.html"
    error = refused(daemon, "browser_navigate", 502, "navigation_failed", url=url, tab_id=tab)
    assert error["data"] == {"reason": "aborted", "url": url, "net_error": "net::ERR_ABORTED"}
    assert js(daemon, tab, "location.pathname") == "/act/landed.html"
