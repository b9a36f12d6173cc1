"""The function registry in the real Chromium with the real extension, in the managed browser and
in a human's Chrome (the `browser` fixture): define once, call after navigating to another page of
another origin (127.0.0.1 and localhost serve the same pages), on an element, on a strict page."""

from __future__ import annotations

import json
from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.harness import Daemon, set_popup_switch
from tests.e2e.log_pages import log_daemon, log_tab, ok
from tests.e2e.tool_pages import ref_of

BROWSERS = ("managed", "browser")

#: A function of the page's own world: its title and origin, and what it was called with.
PAGE_INFO = """
// Where the call ran, and with what.
function pageInfo(prefix, options) {
  return {
    text: prefix + document.title,
    origin: location.origin,
    twice: options.n * 2,
    keys: Object.keys(options),
  };
};
"""
#: Resolves later, or rejects.
LATER = """async function later(ms) {
  await new Promise((resolve) => setTimeout(resolve, Math.abs(ms)));
  if (ms < 0) throw new Error(`no ${-ms}`);
  return `after ${ms}`;
}"""


def post(daemon: Daemon, tool: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    """The envelope a registry tool answers `body` with; its HTTP status must be `status`."""
    response = daemon.post_json(f"/{tool}", body)
    envelope: dict[str, Any] = response.json()
    assert response.status_code == status, envelope
    return envelope


def call(daemon: Daemon, name: str, tab: int, *args: Any, **params: Any) -> dict[str, Any]:
    """The envelope of eval_call_function (success or not: HTTP 200 either way)."""
    body = {"name": name, "args_json": json.dumps(list(args)), "tab_id": tab, **params}
    return post(daemon, "eval_call_function", body)


def define(daemon: Daemon, name: str, source: str) -> None:
    envelope = post(daemon, "eval_define_function", {"name": name, "source": source})
    assert envelope["result"]["name"] == name


def remove(daemon: Daemon, name: str) -> None:
    envelope = post(daemon, "eval_remove_function", {"name": name})
    assert envelope["result"] == {"name": name, "removed": True}


@pytest.mark.parametrize("which", BROWSERS)
def test_defined_once_then_called_after_navigating_to_another_origin(
    request: pytest.FixtureRequest, which: str, pages: str
) -> None:
    other_origin = pages.replace("127.0.0.1", "localhost")
    with log_tab(request, which, f"{pages}/index.html") as (daemon, tab):
        define(daemon, "pageInfo", PAGE_INFO)
        define(daemon, "later", LATER)
        first = call(daemon, "pageInfo", tab, "on ", {"n": 21, "__proto__": 1})
        assert first["result"] == {
            "text": "on tabpilot test page",
            "origin": pages,
            "twice": 42,
            "keys": ["n", "__proto__"],  # own keys, as JSON.parse would make them
        }
        assert (first["result_type"], first["route"], first["tab"]["id"]) == ("object", "page", tab)

        ok(daemon, "browser_navigate", url=f"{other_origin}/other.html", tab_id=tab)
        again = call(daemon, "pageInfo", tab, "then ", {"n": 1})
        assert again["result"]["text"] == "then other tab"
        assert again["result"]["origin"] == other_origin
        assert call(daemon, "later", tab, 5)["result"] == "after 5"
        rejected = call(daemon, "later", tab, -5)
        assert rejected["success"] is False
        assert (rejected["error"]["code"], rejected["error"]["message"]) == (
            "execution_error",
            "no 5",
        )
        # Nothing of the functions is left in the page between calls.
        left = ok(
            daemon,
            "execute_javascript",
            tab_id=tab,
            script="[typeof pageInfo, typeof later, "
            "Object.getOwnPropertyNames(window).filter((k) => /pageInfo|later/.test(k)), "
            "document.documentElement.outerHTML.includes('Where the call ran')]",
        )
        assert left == ["undefined", "undefined", [], False]

        listed = ok(daemon, "eval_list_functions")["functions"]
        mine = [f for f in listed if f["name"] in ("pageInfo", "later")]
        assert mine == [
            {"name": "pageInfo", "first_line": "function pageInfo(prefix, options) {"},
            {"name": "later", "first_line": "async function later(ms) {"},
        ]
        for name in ("pageInfo", "later"):
            remove(daemon, name)
        gone = post(daemon, "eval_call_function", {"name": "pageInfo", "tab_id": tab}, 404)
        assert gone["error"]["code"] == "function_not_found"


@pytest.mark.parametrize("which", BROWSERS)
def test_a_syntax_error_says_where_and_an_unknown_name_is_404(
    request: pytest.FixtureRequest, which: str
) -> None:
    # The check runs in the service worker: no tab is needed, nor is one named.
    daemon = log_daemon(request, which)
    source = "function (rows) {\n  return rows.map((r) => r.price +);\n}"
    bad = post(daemon, "eval_define_function", {"name": "broken", "source": source}, 400)
    assert bad["error"]["code"] == "invalid_function"
    assert bad["error"]["message"].startswith("SyntaxError at line 2, column 35: ")
    assert bad["error"]["data"] == {"line": 2, "column": 35}
    not_one = post(daemon, "eval_define_function", {"name": "x", "source": "document.title"}, 400)
    assert "not a function" in not_one["error"]["message"]
    unknown = post(daemon, "eval_call_function", {"name": "broken"}, 404)
    assert unknown["error"]["code"] == "function_not_found"
    assert "broken" not in [f["name"] for f in ok(daemon, "eval_list_functions")["functions"]]


def test_a_ref_is_the_first_argument_and_a_strict_page_takes_the_routes_of_a_script(
    managed: Daemon, daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    label = "(el, suffix) => el.textContent + suffix"
    for which, running in (("managed", managed), ("browser", daemon)):
        tab = ok(running, "browser_tabs", action="new", url=f"{pages}/tools/strict.html")["id"]
        try:
            define(running, "label", label)
            text = ok(running, "browser_snapshot", tab_id=tab)["snapshot"]
            button = ref_of(text, '- button "Strict button"')
            if which == "managed":  # the debugger is the managed browser's to use
                answer = call(running, "label", tab, "!", ref=button)
                assert (answer["result"], answer["route"]) == ("Strict button!", "debugger")
                continue
            # A person's Chrome refuses it as it refuses any script, until a switch allows it.
            refused = running.post_json(
                "/eval_call_function", {"name": "label", "ref": button, "tab_id": tab}
            )
            script = running.execute("1", tab_id=tab)
            assert refused.status_code == script.status_code == 409
            assert refused.json()["error"]["code"] == "csp_blocked"
            assert refused.json()["error"]["message"] == script.json()["error"]["message"]
            set_popup_switch(browser, "debugger-toggle", True)
            try:
                answer = call(running, "label", tab, "?", ref=button)
                assert (answer["result"], answer["route"]) == ("Strict button?", "debugger")
            finally:
                set_popup_switch(browser, "debugger-toggle", False)
        finally:
            remove(running, "label")
            ok(running, "browser_tabs", action="close", tab_id=tab)
