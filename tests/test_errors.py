"""The error table: one code, one status, one message that says what to do next."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabpilot import errors
from tabpilot.errors import (
    ExecutionError,
    ExtensionError,
    PromiseRejected,
    ScriptFailed,
    TabNotFound,
    TabpilotError,
    error_classes,
    error_for_code,
    from_extension,
)

TABLE = {
    "invalid_request": 400,
    "unknown_device": 400,
    "invalid_rule": 400,
    "unauthorized": 401,
    "forbidden_host": 403,
    "forbidden_origin": 403,
    "pilot_disabled": 403,
    "site_blocked": 403,
    "debugger_disabled": 403,
    "ref_not_found": 404,
    "request_not_found": 404,
    "rule_not_found": 404,
    "tab_not_found": 404,
    "no_target_tab": 404,
    "not_found": 404,
    "method_not_allowed": 405,
    "human_timeout": 408,
    "tab_not_scriptable": 409,
    "csp_blocked": 409,
    "dialog_open": 409,
    "tab_discarded": 409,
    "tab_navigated": 409,
    "element_not_interactable": 409,
    "rule_limit": 409,
    "human_turn": 409,
    "no_human": 409,
    "tab_closed": 410,
    "stale_ref": 410,
    "confirm_token_unknown": 404,
    "confirm_token_mismatch": 409,
    "confirm_token_expired": 410,
    "confirm_token_used": 410,
    "script_too_large": 413,
    "point_outside_viewport": 422,
    "clip_outside_viewport": 422,
    "regex_too_slow": 422,
    "invalid_regex": 400,
    "queue_full": 429,
    "internal_error": 500,
    "extension_error": 502,
    "extension_disconnected": 502,
    "unknown_command": 502,
    "tab_crashed": 502,
    "navigation_failed": 502,
    "result_too_large": 502,
    "extension_not_connected": 503,
    "tab_unresponsive": 503,
    "execution_timeout": 504,
    "wait_timeout": 504,
    "execution_error": 200,
    "syntax_error": 200,
    "promise_rejected": 200,
    "invalid_function": 400,
    "function_not_found": 404,
    "too_many_functions": 409,
    "context_not_found": 404,
    "storage_state_not_found": 404,
    "context_exists": 409,
    "context_limit": 409,
    "context_not_closable": 409,
    "export_disabled": 403,
    "no_valid_page": 409,
    "browser_unavailable": 503,
    "upload_path_outside": 403,
    "file_not_found": 404,
    "not_a_file_input": 409,
    "file_too_large": 413,
}


def test_the_table_has_exactly_the_api_codes() -> None:
    assert {cls.code: cls.status for cls in error_classes()} == TABLE


@pytest.mark.parametrize(("code", "status"), TABLE.items())
def test_each_code_has_its_status_and_a_helpful_message(code: str, status: int) -> None:
    cls = error_for_code(code)
    assert cls is not None
    error = cls()  # type: ignore[call-arg]
    assert (error.code, error.status) == (code, status)
    assert isinstance(error, TabpilotError)
    assert len(error.message) > 20 and cls.meaning


def test_script_errors_come_with_http_200() -> None:
    for code in ("execution_error", "syntax_error", "promise_rejected"):
        cls = error_for_code(code)
        assert cls is not None and issubclass(cls, ScriptFailed)


def test_not_connected_message_says_what_to_do() -> None:
    message = errors.ExtensionNotConnected().message
    assert "tabpilot serve --browser" in message


def test_root_takes_code_message_status_stack() -> None:
    error = TabpilotError("browser_unavailable", "no chromium", 503, stack="s")
    assert (error.code, error.message, error.status, error.stack) == (
        "browser_unavailable",
        "no chromium",
        503,
        "s",
    )
    assert str(error) == "no chromium"


def test_script_errors_from_the_extension_keep_their_message_and_stack() -> None:
    error = from_extension("execution_error", "test error", "Error: test error\n at x")
    assert isinstance(error, ExecutionError)
    assert (error.message, error.stack, error.status) == (
        "test error",
        "Error: test error\n at x",
        200,
    )
    assert isinstance(from_extension("promise_rejected", "fail"), PromiseRejected)


def test_other_codes_keep_the_extensions_message_verbatim() -> None:
    message = "No tab with id 99; GET /tabs lists the open tabs."
    error = from_extension("tab_not_found", message)
    assert isinstance(error, TabNotFound)
    assert error.status == 404
    assert error.message == message


def test_a_code_without_a_message_gets_the_default_next_step() -> None:
    error = from_extension("tab_not_found")
    assert error.message == TabNotFound.default_message


@pytest.mark.parametrize("code", ["brand_new_code", "", "forbidden"])
def test_unknown_codes_from_the_extension_are_502(code: str) -> None:
    error = from_extension(code, "what")
    assert isinstance(error, ExtensionError)
    assert (error.code, error.status) == ("extension_error", 502)
    assert repr(code) in error.message


def test_the_error_table_matches_the_codes() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    rows = re.findall(r"^\| (\d{3}) \| `([a-z_]+)` \|", page, flags=re.MULTILINE)
    documented = {(code, int(status)) for status, code in rows}
    assert documented == {(cls.code, cls.status) for cls in error_classes()}


def test_the_docstring_tree_names_every_code_with_its_class_and_status() -> None:
    tree = errors.__doc__ or ""
    drawn = re.findall(r"[├└]── (\w+) +(\d{3}) ([a-z_]+)", tree)
    assert sorted(drawn) == sorted(
        (cls.__name__, str(cls.status), cls.code) for cls in error_classes()
    )
    # Each leaf sits under its branch: the 4xx under RequestRefused, and so on.
    branches = tree.split("├── BridgeFailure")
    refused = {cls.code for cls in error_classes() if issubclass(cls, errors.RequestRefused)}
    assert set(re.findall(r"\d{3} ([a-z_]+)", branches[0])) == refused
    assert "DaemonUnreachable" in tree


def test_the_table_does_not_depend_on_what_was_imported_first() -> None:
    # A fresh interpreter that imports the errors alone knows every code, browser_unavailable too.
    import subprocess
    import sys

    script = "from tabpilot.errors import error_classes; print(len(error_classes()))"
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == str(len(TABLE))
