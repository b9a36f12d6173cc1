"""browser_fill_form's daemon side (tabpilot.tools.form): the params model, the CLI's --field
reading and the text a model reads."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.errors import InvalidRequest
from tabpilot.mcp.schema import input_schema
from tabpilot.tools.form import MAX_FIELDS, FillFormParams, FormField, fill_text


def test_fields_of_each_kind_are_taken() -> None:
    params = FillFormParams.parse(
        {
            "fields": [
                {"ref": "e1", "value": "Ada"},
                {"ref": "e2", "value": True},
                {"ref": "e3", "value": ["Red", "Blue"]},
            ],
            "submit": "e9",
        }
    )
    assert [f.value for f in params.fields] == ["Ada", True, ["Red", "Blue"]]
    assert (params.submit, params.timeout_ms) == ("e9", 10_000)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "`fields` is required"),
        ({"fields": []}, "`fields`: List should have at least 1 item"),
        ({"fields": "e1=x"}, "`fields`: Input should be a valid list"),
        ({"fields": [{"ref": "e1"}]}, "`fields.0.value` is required"),
        ({"fields": [{"value": "x"}]}, "`fields.0.ref` is required"),
        ({"fields": [{"ref": "e1", "value": 3}]}, "`fields.0.value"),
        ({"fields": [{"ref": "e1", "value": [1]}]}, "`fields.0.value"),
        ({"fields": [{"ref": "e1", "value": "x", "kind": "type"}]}, "`fields.0.kind` is not"),
        ({"fields": [{"ref": "e1", "value": "x"}], "submit": 5}, "`submit`"),
    ],
)
def test_params_wrong_as_a_whole_are_refused(body: dict[str, Any], says: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        FillFormParams.parse(body)
    assert says in caught.value.message


def test_too_many_fields_are_refused() -> None:
    fields = [{"ref": f"e{i}", "value": "x"} for i in range(MAX_FIELDS + 1)]
    with pytest.raises(InvalidRequest) as caught:
        FillFormParams.parse({"fields": fields})
    assert f"List should have at most {MAX_FIELDS} items" in caught.value.message
    assert len(FillFormParams.parse({"fields": fields[:MAX_FIELDS]}).fields) == MAX_FIELDS


@pytest.mark.parametrize(
    ("word", "field"),
    [
        ("e3=alice", {"ref": "e3", "value": "alice"}),
        ("e3=a=b", {"ref": "e3", "value": "a=b"}),
        ("e3=", {"ref": "e3", "value": ""}),
        ("e5=true", {"ref": "e5", "value": True}),
        ("e5=false", {"ref": "e5", "value": False}),
        ('e3="true"', {"ref": "e3", "value": "true"}),
        ("e4=42", {"ref": "e4", "value": "42"}),
        ('e7=["Red","Blue"]', {"ref": "e7", "value": ["Red", "Blue"]}),
        ("e8=2026-11-27", {"ref": "e8", "value": "2026-11-27"}),
    ],
)
def test_the_cli_reads_a_field_as_ref_equals_value(word: str, field: dict[str, Any]) -> None:
    assert FormField.from_cli(word) == field


def test_the_cli_refuses_a_field_without_a_ref() -> None:
    for word in ("alice", "=alice"):
        with pytest.raises(ValueError, match="REF=VALUE"):
            FormField.from_cli(word)


def test_the_mcp_schema_writes_the_field_in_place() -> None:
    schema = input_schema(FillFormParams)
    assert "$defs" not in str(schema)
    assert schema["properties"]["fields"]["items"] == {
        "type": "object",
        "properties": {
            "ref": {"type": "string"},
            # str | bool | list[str], as a list of types: shorter than anyOf.
            "value": {"type": ["string", "boolean", "array"], "items": {"type": "string"}},
        },
        "required": ["ref", "value"],
    }


def envelope(result: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"success": True, "result": result, **extra}


def test_the_text_has_a_line_per_field_then_the_submit_and_what_followed() -> None:
    result = {
        "fields": [
            {"ref": "e1", "ok": True, "element": 'textbox "Email"', "value": "a@b.c"},
            {"ref": "e2", "ok": True, "element": 'textbox "Password"', "chars": 8},
            {"ref": "e3", "ok": True, "element": 'checkbox "Terms"', "value": True},
            {"ref": "e4", "ok": True, "element": 'radio "Free"', "value": False},
            {"ref": "e5", "ok": True, "element": 'listbox "Days"', "value": ["Mon", "Wed"]},
            {"ref": "e6", "ok": True, "element": 'listbox "Tags"', "value": []},
        ],
        "submit": {"ref": "e9", "clicked": True, "description": 'Clicked button "Go" (e9)'},
        "route": "dom",
        "navigated": True,
        "url": "https://a.test/done",
        "opened": [],
    }
    assert fill_text(envelope(result)).split("\n") == [
        "Filled 6 of 6 fields",
        'e1 textbox "Email": "a@b.c"',
        'e2 textbox "Password": (8 characters)',
        'e3 checkbox "Terms": checked',
        'e4 radio "Free": unchecked',
        'e5 listbox "Days": "Mon", "Wed"',
        'e6 listbox "Tags": nothing selected',
        'Clicked button "Go" (e9); the page navigated to https://a.test/done',
    ]


def test_the_text_names_each_failure_and_why_the_submit_was_not_clicked() -> None:
    result = {
        "fields": [
            {"ref": "e1", "ok": True, "element": 'textbox "Name"', "value": "Ada"},
            {"ref": "e7", "ok": False, "error": {"code": "stale_ref", "message": "Gone."}},
            {
                "ref": "e8",
                "ok": False,
                "element": 'button "Go"',
                "error": {"code": "element_not_interactable", "message": "Not a field."},
            },
        ],
        "submit": {"ref": "e9", "clicked": False, "reason": "2 of 3 fields failed"},
        "navigated": False,
        "url": "https://a.test/",
        "opened": [],
    }
    assert fill_text(envelope(result)).split("\n") == [
        "Filled 1 of 3 fields; 2 failed: e7, e8",
        'e1 textbox "Name": "Ada"',
        "e7: stale_ref: Gone.",
        'e8 button "Go": element_not_interactable: Not a field.',
        "Did not click submit e9: 2 of 3 fields failed",
    ]


def test_the_text_says_when_the_submit_itself_failed_and_the_dialogs() -> None:
    result = {
        "fields": [{"ref": "e1", "ok": True, "element": 'textbox "Name"', "value": "1 field"}],
        "submit": {
            "ref": "e9",
            "clicked": False,
            "error": {"code": "element_not_interactable", "message": "Covered."},
        },
        "navigated": False,
        "url": "https://a.test/",
        "opened": [{"id": 4, "url": "https://a.test/new"}],
    }
    text = fill_text(envelope(result)).split("\n")
    assert text[0] == "Filled 1 of 1 field"
    assert text[-1] == (
        "Submit e9: element_not_interactable: Covered.; opened tab 4 (https://a.test/new)"
    )


def test_the_text_of_a_page_that_navigated_before_it_answered() -> None:
    result = {"description": "Filled the form; the page navigated before it answered"}
    assert fill_text(envelope(result)) == result["description"]
