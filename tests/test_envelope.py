"""The one JSON envelope."""

from __future__ import annotations

import json

from tabpilot.envelope import (
    FailureEnvelope,
    SuccessEnvelope,
    failure_body,
    success_body,
)
from tabpilot.errors import ExecutionError, ExtensionNotConnected
from tabpilot.http.render import render_error, render_success
from tabpilot.protocol import TabInfo


def test_success_has_every_key_even_when_empty() -> None:
    body = success_body("r1", None)
    assert body == {
        "success": True,
        "request_id": "r1",
        "result": None,
        "result_type": None,
        "tab": None,
        "duration_ms": 0.0,
    }
    SuccessEnvelope.model_validate(body)


def test_success_with_tab() -> None:
    body = success_body(
        "r1", [1, 2], result_type="array", tab=TabInfo(id=1, url="u", title="t"), duration_ms=1.5
    )
    assert body["tab"] == {"id": 1, "url": "u", "title": "t"}
    assert (body["result_type"], body["duration_ms"]) == ("array", 1.5)


def test_failure_has_stack_only_when_there_is_one() -> None:
    assert failure_body("r2", ExtensionNotConnected()) == {
        "success": False,
        "request_id": "r2",
        "error": {
            "code": "extension_not_connected",
            "message": ExtensionNotConnected.default_message,
        },
    }
    body = failure_body("r3", ExecutionError("boom", stack="Error: boom"))
    assert body["error"] == {"code": "execution_error", "message": "boom", "stack": "Error: boom"}
    FailureEnvelope.model_validate(body)


def test_render_sets_status_and_request_id_header() -> None:
    response = render_error("r4", ExtensionNotConnected())
    assert response.status_code == 503
    assert response.headers["x-request-id"] == "r4"
    assert response.media_type == "application/json"
    assert json.loads(response.body)["request_id"] == "r4"
    assert render_error("r5", ExecutionError("x")).status_code == 200


def test_render_is_compact_utf8() -> None:
    response = render_success("r6", {"text": "héllo ✓"})
    assert response.status_code == 200
    assert "héllo ✓".encode() in bytes(response.body)
    assert b'{"success":true,"request_id":"r6"' in bytes(response.body)
