"""The wire models of docs/protocol.md §1."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from tabpilot.protocol import (
    DAEMON_FRAME,
    PROTOCOL_VERSION,
    CommandFrame,
    DaemonHello,
    ExtensionHello,
    KeepaliveFrame,
    PilotFrame,
    ResultFrame,
    parse_extension_frame,
)
from tabpilot.tools.script import ExecuteParams


def test_protocol_version_is_1() -> None:
    assert PROTOCOL_VERSION == 1


@pytest.mark.parametrize(
    ("frame", "cls"),
    [
        (
            {
                "type": "hello",
                "protocol_version": 1,
                "extension_version": "1.0",
                "pilot_enabled": True,
            },
            ExtensionHello,
        ),
        (
            {"type": "result", "id": "a", "ok": True, "result": 4, "result_type": "number"},
            ResultFrame,
        ),
        (
            {"type": "result", "id": "a", "ok": False, "error": {"code": "execution_error"}},
            ResultFrame,
        ),
        ({"type": "pilot", "enabled": False}, PilotFrame),
        ({"type": "keepalive"}, KeepaliveFrame),
    ],
)
def test_extension_frames_parse_to_their_model(frame: dict[str, Any], cls: type) -> None:
    parsed = parse_extension_frame(json.dumps(frame))
    assert type(parsed) is cls
    assert parsed.type == frame["type"]


def test_result_carries_tab_and_error() -> None:
    frame = parse_extension_frame(
        '{"type":"result","id":"x","ok":false,"tab":{"id":3,"url":"u","title":"t"},'
        '"error":{"code":"promise_rejected","message":"fail","stack":"at x"}}'
    )
    assert isinstance(frame, ResultFrame)
    assert frame.tab is not None and frame.tab.id == 3
    assert frame.error is not None
    assert (frame.error.code, frame.error.message, frame.error.stack) == (
        "promise_rejected",
        "fail",
        "at x",
    )


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"no_type": 1}',
        '{"type": "mystery"}',
        '{"type": "result", "id": "a", "ok": false}',  # a failure must say why
        '{"type": "result", "ok": true}',
        '{"type": "pilot"}',
        '{"type": "hello", "protocol_version": 1}',
    ],
)
def test_malformed_or_unknown_frames_are_validation_errors(text: str) -> None:
    with pytest.raises(ValidationError):
        parse_extension_frame(text)


def test_daemon_frames_serialize_with_their_type() -> None:
    hello = json.loads(DaemonHello(daemon_version="0.1.0").model_dump_json())
    assert hello == {
        "type": "hello",
        "protocol_version": 1,
        "daemon_version": "0.1.0",
        "site_rules": None,
    }
    command = CommandFrame(id="r1", command="list_tabs")
    assert json.loads(command.model_dump_json()) == {
        "type": "command",
        "id": "r1",
        "command": "list_tabs",
        "params": {},
    }
    assert isinstance(DAEMON_FRAME.validate_json(command.model_dump_json()), CommandFrame)
    assert json.loads(KeepaliveFrame().model_dump_json()) == {"type": "keepalive"}


def test_execute_params_defaults() -> None:
    params = ExecuteParams(script="2 + 2")
    assert params.model_dump() == {
        "script": "2 + 2",
        "timeout_ms": 5000,
        "await_promise": True,
        "tab_id": None,
        "dialog": "dismiss",
        "prompt_text": None,
        "ref": None,
    }


@pytest.mark.parametrize("timeout_ms", [1, 120_000])
def test_execute_params_timeout_bounds_are_inclusive(timeout_ms: int) -> None:
    assert ExecuteParams(script="1", timeout_ms=timeout_ms).timeout_ms == timeout_ms


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"script": ""},
        {"script": 5},
        {"script": "1", "timeout_ms": 0},
        {"script": "1", "timeout_ms": 120_001},
        {"script": "1", "timeout_ms": "100"},
        {"script": "1", "timeout_ms": 1.5},
        {"script": "1", "await_promise": "yes"},
        {"script": "1", "tab_id": "3"},
        {"script": "1", "timeout": 100},  # a typo is refused, not ignored
    ],
)
def test_execute_params_refuse_bad_bodies(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ExecuteParams.model_validate_json(json.dumps(body))
