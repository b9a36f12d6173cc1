"""browser_fill_form in the real browser: every kind of field of a plain form, a React 18 app and a
Vue 3 app on the real libraries, the failures of single fields, the submit and its navigation, and
the managed browser."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.acting import call, js, ok, open_page, refs, refused
from tests.e2e.harness import Daemon


@pytest.fixture
def tab(page: dict[str, Any]) -> int:
    """The active tab, showing the test page."""
    tab_id: int = page["id"]
    return tab_id


def fill(daemon: Daemon, tab: int, fields: dict[str, Any], **params: Any) -> dict[str, Any]:
    """browser_fill_form with {ref: value}; its result."""
    listed = [{"ref": ref, "value": value} for ref, value in fields.items()]
    return ok(daemon, "browser_fill_form", tab_id=tab, fields=listed, **params)


def by_ref(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {field["ref"]: field for field in result["fields"]}


def test_every_kind_of_field_then_the_submit_navigates(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/form/plain.html")
    found = refs(daemon, tab)
    r = {
        "name": found['textbox "Name"'],
        "email": found['textbox "Email"'],
        "password": found['textbox "Password"'],
        "age": found['spinbutton "Age"'],
        "birthday": found['textbox "Birthday"'],
        "alarm": found['textbox "Alarm"'],
        "volume": found['slider "Volume"'],
        "colour": found['textbox "Colour"'],
        "notes": found['textbox "Notes"'],
        "size": found['combobox "Size"'],
        "days": found['listbox "Days"'],
        "terms": found['checkbox "Terms"'],
        "pro": found['radio "Pro"'],
        "dark": found['switch "Dark mode"'],
        "promo": found['checkbox "Promotions"'],
        "bio": found['textbox "Bio"'],
        "toppings": found['listbox "Toppings"'],
        "fruit": found['combobox "Fruit"'],
    }
    values: dict[str, Any] = {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "password": "s3cret!!",
        "age": "36",
        "birthday": "2026-11-27",
        "alarm": "07:30",
        "volume": "7",
        "colour": "#3366ff",
        "notes": "line one\nline two",
        "size": "Large",
        "days": ["Mon", "wed"],
        "terms": True,
        "pro": True,
        "dark": True,
        "promo": True,
        "bio": "Mathematician",
        "toppings": ["Olives", "Basil"],
        "fruit": "Banana",
    }
    send = found['button "Send"']
    result = fill(daemon, tab, {r[k]: v for k, v in values.items()}, submit=send)
    fields = by_ref(result)
    assert all(f["ok"] for f in fields.values()), result
    assert fields[r["name"]] == {
        "ref": r["name"],
        "ok": True,
        "element": 'textbox "Name"',
        "value": "Ada Lovelace",
    }
    # A password's text is never echoed: only its length.
    assert fields[r["password"]]["chars"] == 8 and "value" not in fields[r["password"]]
    read_back = {k: fields[r[k]].get("value") for k in values if k != "password"}
    assert read_back == {
        **{k: v for k, v in values.items() if k != "password"},
        "size": ["Large"],
        "days": ["Mon", "Wed"],
        "fruit": ["Banana"],
    }
    assert result["submit"] == {
        "ref": send,
        "clicked": True,
        "description": f'Clicked button "Send" ({send})',
    }
    assert result["navigated"] is True and result["url"].startswith(f"{pages}/form/done.html?")
    received = js(daemon, tab, "[...new URLSearchParams(location.search)]")
    assert received == [
        ["name", "Ada Lovelace"],
        ["email", "ada@example.com"],
        ["password", "s3cret!!"],
        ["age", "36"],
        ["birthday", "2026-11-27"],
        ["alarm", "07:30"],
        ["volume", "7"],
        ["colour", "#3366ff"],
        ["notes", "line one\r\nline two"],
        ["size", "l"],
        ["days", "Mon"],
        ["days", "Wed"],
        ["terms", "on"],
        ["plan", "pro"],
        ["fixed", "fixed"],
        ["photo", ""],
        ["extra", "Banana"],
    ]


def test_the_aria_widgets_hold_what_was_set(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/form/plain.html")
    found = refs(daemon, tab)
    fields = {
        found['switch "Dark mode"']: True,
        found['checkbox "Promotions"']: True,
        found['textbox "Bio"']: "Poet",
        found['listbox "Toppings"']: ["Cheese"],
        found['combobox "Fruit"']: "cherry",
    }
    fill(daemon, tab, fields)
    assert js(daemon, tab, "extras()") == {
        "dark": "true",
        "promo": "true",
        "bio": "Poet",
        "toppings": ["Cheese"],
        "fruit": "Cherry",
    }
    # Set again to what they hold: nothing toggles back.
    again = fill(daemon, tab, {found['switch "Dark mode"']: True})
    assert again["fields"][0]["value"] is True
    assert js(daemon, tab, "extras().dark") == "true"


def test_a_failing_field_stops_nothing_but_the_submit(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/form/plain.html")
    found = refs(daemon, tab)
    name, email = found['textbox "Name"'], found['textbox "Email"']
    notes, terms = found['textbox "Notes"'], found['checkbox "Terms"']
    size, send, locked = found['combobox "Size"'], found['button "Send"'], found['textbox "Locked"']
    js(daemon, tab, "document.querySelector('[name=notes]').remove(); 0")
    listed = [
        {"ref": name, "value": True},  # a boolean for a text box
        {"ref": email, "value": "ada@example.com"},
        {"ref": size, "value": "Huge"},  # not among the options
        {"ref": terms, "value": "yes"},  # a string for a checkbox
        {"ref": notes, "value": "gone"},  # removed from the page
        {"ref": "e9999", "value": "x"},  # never given out
        {"ref": found['button "Nothing"'], "value": "x"},  # not a field
        {"ref": locked, "value": "x"},  # disabled
        {"ref": found['textbox "Fixed"'], "value": "x"},  # read-only
        {"ref": found['textbox "Birthday"'], "value": "27/11/2026"},  # not a date
        {"ref": found['combobox "Fruit"'], "value": "Durian"},  # no such option
    ]
    result = ok(daemon, "browser_fill_form", tab_id=tab, fields=listed, submit=send)
    codes = [f["error"]["code"] if not f["ok"] else "ok" for f in result["fields"]]
    assert codes == [
        "invalid_request",
        "ok",
        "invalid_request",
        "invalid_request",
        "stale_ref",
        "ref_not_found",
        "element_not_interactable",
        "element_not_interactable",
        "element_not_interactable",
        "invalid_request",
        "invalid_request",
    ], result
    messages = [f.get("error", {}).get("message", "") for f in result["fields"]]
    assert messages[0] == f'textbox "Name" ({name}) takes a string, not the boolean true.'
    assert 'has no option "Huge"; its options are "Small" (value "s")' in messages[2]
    assert messages[7] == f'textbox "Locked" ({locked}) is disabled.'
    assert "it takes a date such as 2026-11-27" in messages[9]
    assert 'combobox "Fruit"' in messages[10] and '"Apple", "Banana", "Cherry"' in messages[10]
    assert result["submit"] == {"ref": send, "clicked": False, "reason": "10 of 11 fields failed"}
    assert result["navigated"] is False
    # The field that could be filled was; the page was not sent.
    assert js(daemon, tab, "[document.querySelector('[name=email]').value, location.pathname]") == [
        "ada@example.com",
        "/form/plain.html",
    ]


def test_params_that_are_wrong_as_a_whole_never_reach_the_browser(daemon: Daemon) -> None:
    for fields in ([], "e1=x", [{"ref": "e1"}], [{"ref": "e1", "value": 3}]):
        refused(daemon, "browser_fill_form", 400, "invalid_request", fields=fields)
    many = [{"ref": f"e{i}", "value": "x"} for i in range(101)]
    error = refused(daemon, "browser_fill_form", 400, "invalid_request", fields=many)
    assert "`fields`" in error["message"]


def test_a_react_signup_form_gets_every_value_into_its_state(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/form/react.html")
    found = refs(daemon, tab)
    fields = {
        found['textbox "Name"']: "Grace Hopper",
        found['textbox "Email"']: "grace@example.com",
        found['textbox "Password"']: "cobol1959",
        found['spinbutton "Age"']: "85",
        found['textbox "Birthday"']: "1906-12-09",
        found['textbox "Bio"']: "Admiral",
        found['combobox "Role"']: "Product manager",
        found['checkbox "Newsletter"']: True,
        found['radio "Team"']: True,
        found['combobox "Country"']: "Peru",
    }
    result = fill(daemon, tab, fields, submit=found['button "Create account"'])
    assert all(f["ok"] for f in result["fields"]), result
    assert result["fields"][-1]["value"] == ["Peru"]
    assert result["submit"]["clicked"] is True and result["navigated"] is False
    preview = json.loads(js(daemon, tab, "document.getElementById('preview').textContent"))
    assert preview == {
        "name": "Grace Hopper",
        "email": "grace@example.com",
        "password": "cobol1959",
        "age": "85",
        "birthday": "1906-12-09",
        "bio": "Admiral",
        "role": "pm",
        "newsletter": True,
        "plan": "team",
        "country": "Peru",
    }


def test_a_vue_form_bound_with_v_model_gets_every_value(
    daemon: Daemon, pages: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/form/vue.html")
    found = refs(daemon, tab)
    fields = {
        found['textbox "Display name"']: "Katherine",
        found['spinbutton "Items per page"']: "25",
        found['textbox "Start date"']: "2026-12-01",
        found['textbox "Signature"']: "K. J.",
        found['combobox "Theme"']: "Dark",
        found['listbox "Languages"']: ["French", "Swahili"],
        found['checkbox "Alerts"']: True,
        found['radio "Weekly"']: True,
        found['switch "Beta"']: True,
    }
    result = fill(daemon, tab, fields)
    assert all(f["ok"] for f in result["fields"]), result
    preview = json.loads(js(daemon, tab, "document.getElementById('preview').textContent"))
    assert preview == {
        "name": "Katherine",
        "perPage": 25,
        "start": "2026-12-01",
        "signature": "K. J.",
        "theme": "dark",
        "languages": ["French", "Swahili"],
        "alerts": True,
        "digest": "weekly",
        "beta": True,
    }


def test_the_answer_a_model_reads(daemon: Daemon, pages: str, tab: int) -> None:
    open_page(daemon, tab, f"{pages}/form/plain.html")
    found = refs(daemon, tab)
    name, password = found['textbox "Name"'], found['textbox "Password"']
    terms, size, send = found['checkbox "Terms"'], found['combobox "Size"'], found['button "Send"']
    listed = [
        {"ref": name, "value": "Ada"},
        {"ref": password, "value": "hunter22"},
        {"ref": terms, "value": True},
        {"ref": size, "value": "Tiny"},
    ]
    body = call(daemon, "browser_fill_form", tab_id=tab, fields=listed, submit=send)
    from tabpilot.tools.form import fill_text

    assert fill_text(body).split("\n") == [
        f"Filled 3 of 4 fields; 1 failed: {size}",
        f'{name} textbox "Name": "Ada"',
        f'{password} textbox "Password": (8 characters)',
        f'{terms} checkbox "Terms": checked',
        f'{size} combobox "Size": invalid_request: combobox "Size" ({size}) has no option "Tiny"; '
        'its options are "Small" (value "s"), "Medium" (value "m"), "Large" (value "l").',
        f"Did not click submit {send}: 1 of 4 fields failed",
    ]
    assert "hunter22" not in json.dumps(body)


def test_the_managed_browser_fills_and_submits(managed: Daemon, pages: str) -> None:
    opened = ok(managed, "browser_tabs", action="new", url=f"{pages}/form/plain.html")
    tab = opened["id"]
    found = refs(managed, tab)
    result = fill(
        managed,
        tab,
        {found['textbox "Name"']: "Managed", found['checkbox "Terms"']: True},
        submit=found['button "Send"'],
    )
    assert result["submit"]["clicked"] and result["navigated"], result
    received = js(managed, tab, "document.getElementById('received').textContent").split("\n")
    assert "name=Managed" in received and "terms=on" in received
