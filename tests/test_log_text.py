"""The log tools' text (tabpilot.tools.logs) and params (tabpilot.tools.logs)."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.errors import InvalidRequest
from tabpilot.tools.logs import (
    LINE_CHARS,
    TEXT_BUDGET,
    ConsoleParams,
    NetworkParams,
    console_text,
    network_text,
    one_line,
    request_line,
    where,
)


def envelope(messages: list[dict[str, Any]], **counts: Any) -> dict[str, Any]:
    result = {
        "messages": messages,
        "level": "info",
        "all_pages": False,
        "matched": len(messages),
        "total": len(messages),
        "shown": len(messages),
        "evicted": 0,
        "last_seq": messages[-1]["seq"] if messages else 0,
        "page": {"id": 1, "url": "http://localhost/app"},
        "pages": [{"id": 1, "url": "http://localhost/app"}],
        **counts,
    }
    return {"success": True, "result": result}


def message(seq: int, text: str, page: int = 1, **fields: Any) -> dict[str, Any]:
    return {"seq": seq, "page": page, "type": "log", "level": "info", "text": text, **fields}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("short", "short"),
        ("two\nlines", "two …"),
        ("trailing\n", "trailing"),
        ("x" * 300, "x" * (LINE_CHARS - 1) + "…"),
    ],
)
def test_one_line_keeps_the_first_line_cut(text: str, expected: str) -> None:
    assert one_line(text) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"url": "http://a/js/app.js?v=3", "line": 12}, " (app.js:12)"),
        ({"url": "http://a/"}, " (a)"),
        ({}, ""),
    ],
)
def test_where_names_the_file_and_line(fields: dict[str, Any], expected: str) -> None:
    assert where(fields) == expected


def test_the_header_states_the_counts_and_what_comes_next() -> None:
    text = console_text(
        envelope(
            [message(1500, "last one", url="http://localhost/app.js", line=3)],
            matched=1000,
            total=1000,
            evicted=500,
            cleared=1000,
        )
    )
    assert text == (
        "the newest 1 of 1000 messages at info+ on page 1 "
        "(1000 in all; 500 evicted; log cleared (1000 entries)); newer: since=1500\n"
        "#1500 info: last one (app.js:3)"
    )


def test_an_empty_log_says_so() -> None:
    assert console_text(envelope([])) == (
        "0 messages at info+ on page 1 (0 in all); newer: since=0"
    )


def test_a_full_ring_answers_under_4000_characters_leaving_out_the_oldest() -> None:
    messages = [message(i, f"message {i} " + "x" * 500) for i in range(1, 1001)]
    text = console_text(envelope(messages))
    assert len(text) < 4000
    lines = text.split("\n")
    assert "the oldest" in lines[0] and "left out for length" in lines[0]
    assert lines[-1].startswith("#1000 info: message 1000 ")
    assert len(lines[-1]) <= LINE_CHARS + len("#1000 info: ")
    assert sum(len(line) + 1 for line in lines[1:]) <= TEXT_BUDGET


def test_entries_of_several_pages_are_grouped_under_their_page() -> None:
    messages = [message(1, "on the first", page=1), message(2, "on the second", page=2)]
    pages = [{"id": 1, "url": "http://localhost/one"}, {"id": 2, "url": "http://localhost/two"}]
    text = console_text(envelope(messages, all_pages=True, pages=pages))
    assert text.split("\n")[1:] == [
        "-- page 1 (http://localhost/one)",
        "#1 info: on the first",
        "-- page 2 (http://localhost/two)",
        "#2 info: on the second",
    ]
    assert "on every page" in text.split("\n")[0]


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"level": "verbose"}, "`level`"),
        ({"limit": 1001}, "`limit`"),
        ({"limit": -1}, "`limit`"),
        ({"since": -1}, "`since`"),
        ({"clear": "yes"}, "`clear`"),
        ({"tab": 3}, "`tab` is not a field"),
    ],
)
def test_bad_params_are_refused_naming_the_field(params: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        ConsoleParams.parse(params)
    assert says in str(refused.value)


def test_the_defaults() -> None:
    assert ConsoleParams.parse({}).model_dump() == {
        "tab_id": None,
        "since": 0,
        "limit": 50,
        "all_pages": False,
        "clear": False,
        "level": "info",
    }


def request(seq: int, **fields: Any) -> dict[str, Any]:
    base = {"seq": seq, "page": 1, "method": "GET", "type": "xhr", "url": "http://a/api/x"}
    return {**base, "status": 200, "duration": 5, "size": None, "from_cache": False, **fields}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, "#1 GET 200 xhr http://a/api/x (5 ms)"),
        (
            {"size": 1234, "from_cache": True},
            "#1 GET 200 xhr http://a/api/x (5 ms, 1.2 kB, from cache)",
        ),
        ({"status": None, "duration": None}, "#1 GET pending xhr http://a/api/x"),
        (
            {"status": None, "failed": "net::ERR_CONNECTION_REFUSED", "size": 12},
            "#1 GET failed xhr http://a/api/x (5 ms, 12 B, net::ERR_CONNECTION_REFUSED)",
        ),
        (
            {"status": 302, "redirect_to": "http://a/b"},
            "#1 GET 302 xhr http://a/api/x (5 ms, to http://a/b)",
        ),
        (
            {
                "status": None,
                "failed": "net::ERR_BLOCKED_BY_CLIENT",
                "rules": [{"id": 2, "did": "blocked"}],
            },
            "#1 GET failed xhr http://a/api/x (5 ms, net::ERR_BLOCKED_BY_CLIENT, rule 2 blocked)",
        ),
    ],
)
def test_a_request_line(fields: dict[str, Any], expected: str) -> None:
    assert request_line(request(1, **fields)) == expected


def test_one_request_with_its_body_or_why_none() -> None:
    body = {"text": "x" * 10, "size": 70000, "truncated": True, "cap": 65536, "source": "fetch"}
    text = network_text({"success": True, "result": {"request": request(3), "body": body}})
    assert text == (
        "#3 GET 200 xhr http://a/api/x (5 ms)\n"
        "Body (fetch, 70000 characters; cut at 65536 characters):\nxxxxxxxxxx"
    )
    none = {"text": None, "cap": 65536, "note": "Only fetch and XHR responses have their body kept"}
    text = network_text({"success": True, "result": {"request": request(3), "body": none}})
    assert text.endswith("\nNo body: Only fetch and XHR responses have their body kept")


def test_a_full_network_ring_answers_under_4000_characters() -> None:
    requests = [request(i, url=f"http://a/api/{'y' * 300}/{i}") for i in range(1, 1001)]
    result = {**envelope([])["result"], "requests": requests, "matched": 1000, "shown": 1000}
    text = network_text({"success": True, "result": {**result, "last_seq": 1000, "hidden": 7}})
    assert len(text) < 4000 and "7 static hidden" in text.split("\n")[0]
    assert text.split("\n")[-1].startswith("#1000 GET 200 xhr http://a/api/yyy")


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"status": "teapot"}, "`status`"),
        ({"status": "6xx"}, "`status`"),
        ({"type": "gif"}, "`type`"),
        ({"include_body": 0}, "`include_body`"),
        ({"url": "x" * 3000}, "`url`"),
    ],
)
def test_bad_network_params_are_refused(params: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        NetworkParams.parse(params)
    assert says in str(refused.value)


def test_good_network_params() -> None:
    for status in ("failed", "2xx", "404"):
        assert NetworkParams.parse({"status": status}).status == status
    assert NetworkParams.parse({"type": "xhr", "include_body": 3}).include_body == 3
