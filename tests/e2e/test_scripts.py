"""What a script answers in the page world, in the real Chromium with the extension: completion
values, `await`, errors, strings, relative imports, Trusted Types and strict CSP, a page that
tampers with prototypes and brand checks, and dialogs during a command (docs/protocol.md §4, §5)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.harness import Daemon, serving, wait_for
from tests.e2e.test_execute import Matches


def _open(browser: webdriver.Chrome, daemon: Daemon, url: str) -> int:
    """Load `url` in the active tab; its tabpilot tab id once the daemon lists it."""
    browser.get(url)

    def find() -> int | None:
        tabs = daemon.get("/tabs").json()["result"]
        return next((tab["id"] for tab in tabs if tab["url"] == url and tab["active"]), None)

    tab_id: int = wait_for(find, 10, f"{url} in /tabs")
    return tab_id


def _run(daemon: Daemon, tab_id: int, script: str, **params: Any) -> dict[str, Any]:
    response = daemon.execute(script, tab_id=tab_id, **params)
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize(
    ("script", "result"),
    [
        ("1 + 1;", 2),
        ("document.title;", "tabpilot test page"),
        ("let x = 1; x", 1),
        ("const el = document.getElementById('test');\nel.textContent", "Content"),
        ("if (document.title) { 'titled' } else { 'untitled' }", "titled"),
        ("return await (Promise.resolve(6))", 6),
        ("const t = await Promise.resolve('s'); return t + '!'", "s!"),
        ("2 + 2", 4),
    ],
)
def test_scripts_answer_like_the_console(
    daemon: Daemon, page: dict[str, Any], script: str, result: Any
) -> None:
    body = _run(daemon, page["id"], script)
    assert body["success"] is True, body
    assert body["result"] == result


def test_var_of_a_completion_value_script_stays_off_window(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    assert _run(daemon, page["id"], "var tabpilotVar = 41; tabpilotVar + 1")["result"] == 42
    assert _run(daemon, page["id"], "typeof window.tabpilotVar")["result"] == "undefined"


def test_await_with_await_promise_off_says_to_turn_it_on(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    body = _run(daemon, page["id"], "return await (Promise.resolve(6))", await_promise=False)
    assert body["error"]["code"] == "syntax_error"
    assert "await_promise" in body["error"]["message"]


def test_an_error_without_a_message_is_not_shown_as_json(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    body = _run(daemon, page["id"], "throw new Error()")
    assert body["error"]["code"] == "execution_error"
    # The page world sends "" (extension-tests/executor.test.js); the daemon may put its own
    # sentence in place of an empty message, but never the "{}" of an Error made into JSON.
    assert body["error"]["message"] != "{}"
    assert body["error"]["stack"].startswith("Error\n")


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("throw Object.assign(new Error('disk full'), {code: 'E_FULL'})", "disk full"),
        ("throw new AggregateError([new Error('a')], 'several')", "several"),
        ("throw new Error('bad \\uD800 half')", "bad \ufffd half"),
    ],
)
def test_thrown_errors_keep_their_message(
    daemon: Daemon, page: dict[str, Any], script: str, message: str
) -> None:
    body = _run(daemon, page["id"], script)
    assert body["error"]["code"] == "execution_error"
    assert body["error"]["message"] == message


def test_lone_surrogates_come_back_as_replacement_characters(
    daemon: Daemon, page: dict[str, Any]
) -> None:
    response = daemon.execute("({['k\\uDC00']: 'v\\uD800', list: ['\\uDBFF']})", tab_id=page["id"])
    assert response.status_code == 200, response.text
    assert response.json()["result"] == {"k\ufffd": "v\ufffd", "list": ["\ufffd"]}


@pytest.fixture(scope="module")
def modules() -> Iterator[str]:
    """A site with a page and an ES module beside it, served with a JavaScript content type."""
    files = {
        "/app/page.html": ("text/html", "<!doctype html><title>modules</title><p>modules</p>"),
        "/app/mod.js": ("text/javascript", "export const value = 'from the page folder';"),
        "/mod.js": ("text/javascript", "export const value = 'from the site root';"),
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            kind, body = files.get(self.path, ("text/plain", "missing"))
            data = body.encode()
            self.send_response(200 if self.path in files else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serving(Handler) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.mark.parametrize(
    "script",
    [
        "const m = await import('./mod.js'); return m.value",
        "(await import('./mod.js')).value",
        "import('./mod.js').then((m) => m.value)",
    ],
)
def test_a_relative_import_resolves_against_the_page(
    browser: webdriver.Chrome, daemon: Daemon, modules: str, script: str
) -> None:
    tab_id = _open(browser, daemon, f"{modules}/app/page.html")
    body = _run(daemon, tab_id, script)
    assert body["success"] is True, body
    assert body["result"] == "from the page folder"


@pytest.mark.parametrize("path", ["/tt.html", "/tt-unsafe-eval.html"])
def test_trusted_types_pages_that_allow_eval_run_scripts(
    browser: webdriver.Chrome, daemon: Daemon, pages: str, path: str
) -> None:
    tab_id = _open(browser, daemon, pages + path)
    for script, result in [
        ("1 + 1", 2),
        ("let x = document.title; x", browser.title),
        ("return document.querySelector('p').textContent", "tt"),
        ("await new Promise((r) => setTimeout(r, 5)); return 'awaited'", "awaited"),
        ("throw new Error('from tt')", None),
    ]:
        body = _run(daemon, tab_id, script)
        if result is None:
            assert body["error"]["code"] == "execution_error"
            assert body["error"]["message"] == "from tt"
            assert "<script>:1:" in body["error"]["stack"]
        else:
            assert body["success"] is True, body
            assert body["result"] == result


def test_a_pages_default_trusted_types_policy_never_sees_a_script(
    browser: webdriver.Chrome, daemon: Daemon, pages: str
) -> None:
    tab_id = _open(browser, daemon, pages + "/tt-default.html")
    secret = "SECRET-" + str(time.time_ns())
    scripts = [f"'{secret}'.length", f"let s = '{secret}'; s.length", f"return '{secret}'.length"]
    for script in scripts:
        assert _run(daemon, tab_id, script)["result"] == len(secret)
    assert secret not in browser.execute_script("return JSON.stringify(window.__defaultSaw)")


@pytest.mark.parametrize(
    ("path", "names", "not_named"),
    [
        ("/csp.html", "script-src 'self'", "Trusted Types"),
        ("/tt-no-eval.html", "script-src 'self'", "require-trusted-types-for"),
        ("/tt-allowlist.html", "trusted-types", "unsafe-eval"),
    ],
)
def test_csp_blocked_names_the_blocking_directive(
    browser: webdriver.Chrome, daemon: Daemon, pages: str, path: str, names: str, not_named: str
) -> None:
    tab_id = _open(browser, daemon, pages + path)
    body = _run(daemon, tab_id, "1 + 1")
    assert body["error"]["code"] == "csp_blocked", body
    assert names in body["error"]["message"]
    assert not_named not in body["error"]["message"]


def test_a_strict_page_files_one_violation_report_not_one_per_command(
    browser: webdriver.Chrome, daemon: Daemon, pages: str
) -> None:
    tab_id = _open(browser, daemon, pages + "/csp.html")
    # Through ChromeDriver, which the page's CSP does not govern.
    browser.execute_script(
        "window.__reports = [];"
        "document.addEventListener('securitypolicyviolation', (e) => __reports.push(e.blockedURI));"
    )
    for _ in range(3):
        assert _run(daemon, tab_id, "1 + 1")["error"]["code"] == "csp_blocked"
    wait_for(lambda: browser.execute_script("return window.__reports.length") >= 1, 5, "a report")
    # Reports are dispatched as tasks: one more command makes sure any late one has arrived.
    _run(daemon, tab_id, "1 + 1")
    assert browser.execute_script("return window.__reports") == ["eval"]


def test_a_tampering_page_neither_sees_nor_forges_an_awaited_result(
    browser: webdriver.Chrome, daemon: Daemon, pages: str
) -> None:
    tab_id = _open(browser, daemon, pages + "/tampered.html")
    for script, expected in [
        ("const t = await Promise.resolve('s3cr3t'); return {token: t}", {"token": "s3cr3t"}),
        ("await 0; return ['s3cr3t']", ["s3cr3t"]),
        (
            "await null\nif (true) {\n  return {token: 's3cr3t', n: 1}\n}",
            {"token": "s3cr3t", "n": 1},
        ),
        ("Promise.resolve(1).then(() => 's3cr3t')", "s3cr3t"),
    ]:
        body = _run(daemon, tab_id, script)
        assert body["success"] is True, body
        assert body["result"] == expected
    seen = _run(daemon, tab_id, "JSON.stringify(window.__seen)")["result"]
    assert "s3cr3t" not in seen
    assert "FORGED" not in seen


def test_a_tampering_page_cannot_blind_the_serializer(
    browser: webdriver.Chrome, daemon: Daemon, pages: str
) -> None:
    tab_id = _open(browser, daemon, pages + "/tampered.html")
    body = _run(
        daemon,
        tab_id,
        "[{a: 1}, {[Symbol.toStringTag]: 'Promise', b: 2}, {[Symbol.toStringTag]: 'Error', c: 3},"
        " document.getElementById('x'), window, new TypeError('t').name]",
    )
    # The element's box is read through the built-ins as they were, too.
    node = Matches(r"\[P#x @ \(\d+,\d+\) \d+x\d+\]")
    assert body["result"] == [{"a": 1}, {"b": 2}, {"c": 3}, node, "[Window]", "TypeError"]
    assert _run(daemon, tab_id, "({plain: true})")["result_type"] == "object"


@pytest.mark.parametrize(
    ("script", "result"),
    [
        ("alert('hello'); 'after the alert'", "after the alert"),
        ("confirm('Leave this page?')", False),
        ("prompt('Your name?', 'Ada')", None),
        ("await new Promise((r) => setTimeout(r, 10)); return confirm('later?')", False),
    ],
)
def test_dialogs_during_a_command_answer_at_once(
    daemon: Daemon, page: dict[str, Any], script: str, result: Any
) -> None:
    started = time.monotonic()
    body = _run(daemon, page["id"], script, timeout_ms=3000)
    assert body["success"] is True, body
    assert body["result"] == result
    assert time.monotonic() - started < 2
    assert _run(daemon, page["id"], "'still usable'")["result"] == "still usable"
