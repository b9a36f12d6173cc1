"""Scripts run in the real page through the real daemon and extension."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.harness import Daemon


class Matches(str):
    """Equal to any string the pattern matches whole: an element's box depends on the layout."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and re.fullmatch(self, other) is not None

    __hash__ = str.__hash__


#: The test page's div, with where it is and its size: `[DIV#test @ (8,8) 784x18]`.
BOXED_TEST_DIV = Matches(r"\[DIV#test @ \(\d+,\d+\) \d+x\d+\]")

RESULTS = [
    ("2 + 2", 4, "number"),
    ("'hello' + ' world'", "hello world", "string"),
    ("({name: 'test', value: 42})", {"name": "test", "value": 42}, "object"),
    ("[1, 2, 3].map(x => x * 2)", [2, 4, 6], "array"),
    ("document.getElementById('test').textContent", "Content", "string"),
    ("typeof WebAssembly", "object", "string"),
    ("undefined", None, "undefined"),
    ("null", None, "null"),
    ("Promise.resolve(42)", 42, "number"),
    ("(() => 42)()", 42, "number"),
    ("let total = 0; for (let i = 1; i <= 4; i++) total += i; return total", 10, "number"),
    ("const x = await new Promise(r => setTimeout(() => r(21), 10)); return x * 2", 42, "number"),
    ("(async () => { await 1; return 5 })()", 5, "number"),
    (
        "const a = {name: 'loop'}; a.self = a; return a",
        {"name": "loop", "self": "[Circular]"},
        "object",
    ),
    ("document.getElementById('test')", BOXED_TEST_DIV, "node"),
    ("document.querySelectorAll('div')", [BOXED_TEST_DIV], "array"),
    ("document.body.children", [BOXED_TEST_DIV], "array"),
    ("localStorage", {"length": 0}, "object"),
    ("document", "[#document]", "node"),
    ("window", "[Window]", "window"),
    ("NaN", "NaN", "number"),
    ("-0", "-0", "number"),
    ("2n ** 70n", "1180591620717411303424n", "bigint"),
    ("new Map([['a', 1]])", [["a", 1]], "map"),
    ("new Set([1, 2])", [1, 2], "set"),
    ("new Date(0)", "1970-01-01T00:00:00.000Z", "date"),
    ("/ab+c/gi", "/ab+c/gi", "regexp"),
    ("function named() {}; return named", "[Function: named]", "function"),
]


@pytest.mark.parametrize(("script", "expected", "result_type"), RESULTS)
def test_result(
    daemon: Daemon, page: dict[str, Any], script: str, expected: Any, result_type: str
) -> None:
    response = daemon.execute(script)
    body = response.json()
    assert response.status_code == 200, body
    assert body["success"] is True, body
    assert body["result"] == expected
    assert body["result_type"] == result_type


def test_envelope_names_the_request_and_the_tab(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute("window.location.href")
    body = response.json()
    assert body["result"] == page["url"]
    assert body["request_id"] == response.headers["x-request-id"]
    assert body["tab"] == {"id": page["id"], "url": page["url"], "title": "tabpilot test page"}
    assert isinstance(body["duration_ms"], int | float) and body["duration_ms"] >= 0


def test_large_array_is_cut_with_a_note(daemon: Daemon, page: dict[str, Any]) -> None:
    body = daemon.execute("Array.from({length: 150}, (_, i) => i)").json()
    assert body["result"][:100] == list(range(100))
    assert body["result"][100] == "... 50 more items"
    assert len(body["result"]) == 101


def test_thrown_error(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute("throw new Error('test error')")
    body = response.json()
    assert response.status_code == 200
    assert body["success"] is False
    assert body["error"]["code"] == "execution_error"
    assert body["error"]["message"] == "test error"
    assert "test error" in body["error"]["stack"]


def test_returned_error_reads_like_a_thrown_one(daemon: Daemon, page: dict[str, Any]) -> None:
    body = daemon.execute("return new Error('returned')").json()
    assert body["result_type"] == "error"
    assert body["result"]["error"] == "returned"
    assert body["result"]["stack"].splitlines() == ["Error: returned", "    at eval (<script>:1:8)"]


def test_thrown_error_stack_names_the_script_line(daemon: Daemon, page: dict[str, Any]) -> None:
    body = daemon.execute("const a = 1;\nthrow new Error('on line 2')").json()
    assert body["error"]["stack"].splitlines() == ["Error: on line 2", "    at eval (<script>:2:7)"]


def test_rejected_promise(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute("Promise.reject(new Error('fail'))")
    body = response.json()
    assert response.status_code == 200
    assert body["error"]["code"] == "promise_rejected"
    assert body["error"]["message"] == "fail"
    assert "fail" in body["error"]["stack"]


def test_syntax_error(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute("2 +")
    assert response.status_code == 200
    assert response.json()["error"]["code"] == "syntax_error"


def test_promise_not_awaited_is_described(daemon: Daemon, page: dict[str, Any]) -> None:
    body = daemon.execute("Promise.resolve(42)", await_promise=False).json()
    assert body["success"] is True
    assert body["result"] == "[object Promise]"
    assert body["result_type"] == "promise"


def test_empty_script_is_an_invalid_request(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute("")
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False
    assert body["error"]["code"] == "invalid_request"


def test_explicit_tab_id(daemon: Daemon, page: dict[str, Any]) -> None:
    body = daemon.execute("document.title", tab_id=page["id"]).json()
    assert body["result"] == "tabpilot test page"
    assert body["tab"]["id"] == page["id"]


def test_unknown_tab(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute("1", tab_id=987654321)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "tab_not_found"


def test_tabs_lists_the_page(daemon: Daemon, page: dict[str, Any]) -> None:
    tabs = daemon.get("/tabs").json()["result"]
    mine = next(tab for tab in tabs if tab["id"] == page["id"])
    assert mine["title"] == "tabpilot test page"
    assert mine["active"] is True
    assert isinstance(mine["window_id"], int)


def test_strict_csp_page_gives_a_clear_error(daemon: Daemon, browser: Any, pages: str) -> None:
    browser.get(f"{pages}/csp.html")
    response = daemon.execute("1 + 1")
    body = response.json()
    assert response.status_code == 409, body
    assert body["error"]["code"] == "csp_blocked"
    assert "Content-Security-Policy" in body["error"]["message"]


def test_page_that_cannot_run_scripts(daemon: Daemon, browser: Any) -> None:
    browser.get("about:blank")
    response = daemon.execute("1 + 1")
    body = response.json()
    assert response.status_code == 409, body
    assert body["error"]["code"] == "tab_not_scriptable"
    assert "about:blank" in body["error"]["message"]


def test_status_in_one_glance(daemon: Daemon, page: dict[str, Any]) -> None:
    status = daemon.status()
    assert status["extension"]["connected"] is True
    assert status["extension"]["version"] == "0.1.0"
    assert status["extension"]["id"] == "mmgjobhjaeaocmcbdnjglfiobpnpkdpf"
    assert status["extension"]["pilot_enabled"] is True
    assert status["in_flight"] == 0
