"""Lone surrogates in the real browser: a JavaScript string may hold half of a UTF-16 pair, which
UTF-8 cannot carry. Whatever the page returns, throws or titles itself, the answer is valid UTF-8
JSON, each lone surrogate as U+FFFD (docs/protocol.md, "Safe serialization")."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.e2e.harness import Daemon

#: How a lone surrogate may come back: U+FFFD, or spelled out as the escape's text, if the
#: extension writes it so; never as the surrogate itself, which no UTF-8 can carry.
FORMS = ("\ufffd", "\\ud800", "\\uD800")


def _strict_json(response: httpx.Response) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(response.content.decode("utf-8"))  # strict UTF-8
    return body


def _one_of_forms(text: str, before: str, after: str) -> None:
    assert any(text == f"{before}{form}{after}" for form in FORMS), text


def test_a_result_with_a_lone_surrogate(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute('"a\\ud800b"')
    body = _strict_json(response)
    assert response.status_code == 200, body
    assert body["success"] is True
    _one_of_forms(body["result"], "a", "b")
    # Nested, and beside a pair that stays the character it spells.
    nested = _strict_json(daemon.execute('({k: ["x\\ud800", "\\ud83d\\ude00"]})'))["result"]
    _one_of_forms(nested["k"][0], "x", "")
    assert nested["k"][1] == "\U0001f600"


def test_an_error_message_with_a_lone_surrogate(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute('throw new Error("bad \\ud800 input")')
    body = _strict_json(response)
    assert response.status_code == 200, body
    assert body["success"] is False
    assert body["error"]["code"] == "execution_error"
    _one_of_forms(body["error"]["message"], "bad ", " input")


def test_a_title_with_a_lone_surrogate(daemon: Daemon, page: dict[str, Any]) -> None:
    response = daemon.execute('document.title = "t\\ud800"; return document.title.length')
    body = _strict_json(response)
    assert response.status_code == 200, body
    assert body["result"] == 2
    tabs = _strict_json(daemon.get("/tabs"))["result"]
    (tab,) = [tab for tab in tabs if tab["id"] == page["id"]]
    _one_of_forms(tab["title"], "t", "")
