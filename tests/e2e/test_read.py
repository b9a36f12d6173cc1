"""browser_read in the real Chromium with the real extension, through the daemon's HTTP route."""

from __future__ import annotations

from typing import Any

from selenium import webdriver

from tests.e2e.harness import Daemon
from tests.e2e.tool_pages import call, frames_snapshot, open_tool_page, submit_button_ref


def read(daemon: Daemon, **params: Any) -> dict[str, Any]:
    body = call(daemon, "/browser_read", 200, **params)
    assert body["success"] is True, body
    result: dict[str, Any] = body["result"]
    return result


def test_reads_the_visible_text_in_pages(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/article.html")
    first = read(daemon, limit=100)
    assert first["text"].startswith("The long read\n\nParagraph 1: the quick brown fox")
    assert len(first["text"]) == 100 and first["offset"] == 0 and first["more"] is True
    total = first["total"]
    pages = [first["text"]]
    offset = 100
    while True:
        page = read(daemon, offset=offset, limit=1000)
        assert page["offset"] == offset and page["total"] == total
        pages.append(page["text"])
        offset += len(page["text"])
        if not page["more"]:
            break
    whole = read(daemon, limit=1_000_000)
    assert whole["more"] is False and whole["text"] == "".join(pages)
    assert len(whole["text"]) == total
    assert "Paragraph 40: the quick brown fox jumps over the lazy dog." in whole["text"]
    assert "Invisible paragraph" not in whole["text"]
    past = read(daemon, offset=total + 5)
    assert past == {"text": "", "offset": total + 5, "total": total, "more": False}


def test_reads_one_element_by_ref(daemon: Daemon, browser: webdriver.Chrome, pages: str) -> None:
    ref = submit_button_ref(daemon, pages)
    assert read(daemon, ref=ref) == {
        "text": "Create account",
        "offset": 0,
        "total": 14,
        "more": False,
    }


def test_bad_paging_is_refused(daemon: Daemon, browser: webdriver.Chrome, pages: str) -> None:
    open_tool_page(daemon, pages, "/tools/article.html")
    for params in ({"offset": -1}, {"limit": 0}):
        body = call(daemon, "/browser_read", 400, **params)
        assert body["error"]["code"] == "invalid_request"


def test_reads_into_shadow_roots_and_same_origin_frames(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/shadow.html")
    text = read(daemon)["text"]
    for part in (
        "Shadow DOM",
        "Inside the open root",
        "Open shadow button",
        "Closed shadow button",
    ):
        assert part in text, text
    open_tool_page(daemon, pages, "/tools/frames.html")
    frames_snapshot(daemon)  # the frame has loaded
    assert read(daemon)["text"] == "Frames\n\nInside the frame\n\nInner button"
