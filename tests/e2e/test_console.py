"""browser_console_messages in the real Chromium with the real extension, in the managed browser
and in a human's Chrome (the `browser` fixture), on the pages of log_pages.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.log_pages import console, console_until, log_tab, ok, tool

BROWSERS = ("managed", "browser")


def texts(result: dict[str, Any]) -> list[str]:
    return [m["text"] for m in result["messages"]]


@pytest.mark.parametrize("which", BROWSERS)
def test_every_level_errors_rejections_and_csp_from_before_the_first_call(
    request: pytest.FixtureRequest, which: str, pages: str
) -> None:
    with log_tab(request, which, f"{pages}/logs/console.html") as (daemon, tab):
        everything = console_until(daemon, tab, "loaded, all done", level="debug")
        by_text = {m["text"].split("\n")[0]: m for m in everything["messages"]}
        plain = by_text['plain cart has 3 items {"b":2}']
        assert (plain["level"], plain["type"]) == ("info", "log")
        assert plain["url"] == f"{pages}/logs/console.html" and plain["line"] == 2
        assert by_text["an info"]["level"] == "info"
        assert by_text["a warning"]["level"] == "warning"
        assert by_text["a debug"]["level"] == "debug"
        logged = next(m for m in everything["messages"] if m["text"].startswith("an error"))
        assert logged["level"] == "error" and "Error: logged error" in logged["text"]
        timer = next(m for m in everything["messages"] if "timer boom" in m["text"])
        assert (timer["type"], timer["level"]) == ("exception", "error")
        assert "Uncaught Error: timer boom" in timer["text"] and "console.html" in timer["stack"]
        rejected = next(m for m in everything["messages"] if "rejected boom" in m["text"])
        assert rejected["type"] == "rejection"
        assert rejected["text"].startswith("Uncaught (in promise) Error: rejected boom")
        assert "console.html" in rejected["stack"]
        csp = next(m for m in everything["messages"] if m["type"] == "csp")
        assert "img-src" in csp["text"] and "blocked.png" in csp["text"]
        seqs = [m["seq"] for m in everything["messages"]]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        assert all(isinstance(m["time"], (int, float)) for m in everything["messages"])

        # Levels are cumulative: each level and those more severe.
        levels = {
            level: {m["level"] for m in console(daemon, tab, level=level)["messages"]}
            for level in ("error", "warning", "info", "debug")
        }
        assert levels == {
            "error": {"error"},
            "warning": {"error", "warning"},
            "info": {"error", "warning", "info"},
            "debug": {"error", "warning", "info", "debug"},
        }
        errors = console(daemon, tab, level="error")
        assert errors["matched"] == 4 and errors["total"] == len(everything["messages"])


@pytest.mark.parametrize("which", BROWSERS)
def test_a_ring_of_1000_since_limit_and_clear(
    request: pytest.FixtureRequest, which: str, pages: str
) -> None:
    with log_tab(request, which, f"{pages}/logs/blank.html") as (daemon, tab):
        ok(
            daemon,
            "execute_javascript",
            script="for (let i = 1; i <= 1500; i++) console.log('burst', i)",
            tab_id=tab,
        )
        latest = console(daemon, tab)
        assert latest["shown"] == 50 and latest["matched"] == 1000 and latest["evicted"] == 500
        assert texts(latest)[-1] == "burst 1500" and texts(latest)[0] == "burst 1451"
        whole = console(daemon, tab, limit=1000)
        assert texts(whole)[0] == "burst 501" and len(whole["messages"]) == 1000

        ok(daemon, "execute_javascript", script="console.warn('one more')", tab_id=tab)
        new = console(daemon, tab, since=latest["last_seq"])
        assert texts(new) == ["one more"] and new["matched"] == 1
        assert new["last_seq"] == latest["last_seq"] + 1

        cleared = console(daemon, tab, since=latest["last_seq"], clear=True)
        assert cleared["cleared"] == 1000 and texts(cleared) == ["one more"]
        empty = console(daemon, tab)
        assert empty["messages"] == [] and empty["total"] == 0 and empty["evicted"] == 0
        ok(daemon, "execute_javascript", script="console.log('after the clear')", tab_id=tab)
        after = console(daemon, tab, since=latest["last_seq"])
        assert texts(after) == ["after the clear"] and after["messages"][0]["seq"] > new["last_seq"]


@pytest.mark.parametrize("which", BROWSERS)
def test_a_navigation_starts_a_new_page(
    request: pytest.FixtureRequest, which: str, pages: str
) -> None:
    with log_tab(request, which, f"{pages}/logs/console.html") as (daemon, tab):
        first = console_until(daemon, tab, "loaded, all done")
        ok(daemon, "browser_navigate", url=f"{pages}/logs/second.html", tab_id=tab)
        now = console(daemon, tab)
        assert texts(now) == ["second page says hi"]
        assert now["page"]["id"] > first["page"]["id"]
        assert now["page"]["url"] == f"{pages}/logs/second.html"
        both = console(daemon, tab, all_pages=True)
        assert texts(both)[-1] == "second page says hi" and "loaded, all done" in texts(both)
        assert {first["page"]["id"], now["page"]["id"]} <= {p["id"] for p in both["pages"]}
        done = [m for m in both["messages"] if m["text"] == "loaded, all done"][-1]
        assert done["page"] == first["page"]["id"]


@pytest.mark.parametrize("which", BROWSERS)
def test_a_page_that_replaces_console_cannot_erase_or_read_the_log(
    request: pytest.FixtureRequest, which: str, pages: str
) -> None:
    with log_tab(request, which, f"{pages}/logs/replaced.html") as (daemon, tab):
        result = console_until(daemon, tab, "reach:")
        assert texts(result) == [
            "before replacing",
            "[app] after replacing",
            "[app] through the page's console",
            "reach: undefined undefined",
        ]
        assert result["messages"][2]["level"] == "error"
        # The page's own scripts see no log of other tabs nor of their own.
        seen = ok(
            daemon,
            "execute_javascript",
            script="Object.keys(window).filter((k) => k.startsWith('__tabpilot'))",
            tab_id=tab,
        )
        assert seen == []


def test_bad_input_gets_a_clear_error(daemon: Any, browser: Any) -> None:
    body = tool(daemon, "browser_console_messages", 400, level="verbose")
    assert body["error"]["code"] == "invalid_request" and "'error'" in body["error"]["message"]
    body = tool(daemon, "browser_console_messages", 400, limit=1001)
    assert body["error"]["code"] == "invalid_request"
    body = tool(daemon, "browser_console_messages", 404, tab_id=999_999)
    assert body["error"]["code"] == "tab_not_found"
