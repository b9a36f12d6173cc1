"""The form tool, browser_fill_form: many fields of a page filled in one call, then its submit
clicked (docs/protocol.md, "Filling a form").

Each field is filled as browser_act fills one (the extension's content/form.js uses act.js's
typing, checking and option picking), all in one message to the page. A field that fails does
not stop the others: the call succeeds and its answer names each failure with its code. The
submit is clicked only when every field was filled; the answer says when it was not, and why.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar

from pydantic import Field

from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, Ref, TimeoutMs, plural, result_of
from tabpilot.tools.page import FOLLOW_DESCRIPTION, followed
from tabpilot.tools.tabs import opened_ids
from tabpilot.tools.tool import ClientFace, CliFace, Tool, describe, timeout_ms

#: Fields one call may fill at most.
MAX_FIELDS = 100
#: Options one field may name at most.
MAX_OPTIONS = 100

Option = Annotated[str, Field(max_length=10_000)]


class FormField(Params):
    """One field and what to put in it."""

    #: How the CLI's --field shows and explains it (:meth:`from_cli`).
    cli_metavar: ClassVar[str] = "REF=VALUE"
    cli_help: ClassVar[str] = (
        'A field and its value: e3=alice, e5=true, e7=\'["Red","Blue"]\' (after the =, JSON '
        "true, false, a string or a list, else the text as it is). Repeat for each field."
    )

    ref: Ref
    value: Annotated[str, Field(max_length=1_000_000)] | bool | list[Option]

    @classmethod
    def from_cli(cls, text: str) -> dict[str, Any]:
        """``e3=alice``, ``e5=true``, ``e7='["Red","Blue"]'``: a field as the CLI's --field
        writes it. After the `=`, JSON true, false, a string or a list of strings, else the text
        as it is."""
        ref, sep, raw = text.partition("=")
        if not sep or not ref:
            raise ValueError(f"--field takes REF=VALUE, such as e3=alice, not {text!r}")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        if not isinstance(value, str | bool | list):
            value = raw
        return {"ref": ref, "value": value}


class FillFormParams(Params):
    """Fill many fields of a form in one call, then click its submit."""

    example: ClassVar[str] = '{"fields": [{"ref": "e3", "value": "Ada"}], "submit": "e9"}'

    fields: list[FormField] = Field(min_length=1, max_length=MAX_FIELDS)
    submit: Ref | None = Field(default=None)
    follow: bool = Field(default=False, description=FOLLOW_DESCRIPTION)
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(default=10_000, description="Give up after this many ms.")


def _shown(field: dict[str, Any]) -> str:
    """What a field holds now, as its line says it: never a password's text."""
    if "chars" in field:
        return f"({plural(int(field['chars']), 'character')})"
    value = field.get("value")
    if isinstance(value, bool):
        return "checked" if value else "unchecked"
    if isinstance(value, list):
        return ", ".join(json.dumps(v, ensure_ascii=False) for v in value) or "nothing selected"
    return json.dumps(value, ensure_ascii=False)


def fill_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_fill_form: a line per field, what it holds now or why not; then the submit and what
    it set going (a navigation, new tabs, dialogs), as browser_act says it."""
    fill = result_of(envelope)
    if "fields" not in fill:  # the page navigated before it answered
        return str(fill.get("description") or "Filled the form") + followed(fill, envelope)
    fields = fill.get("fields") or []
    failed = [f for f in fields if not f.get("ok")]
    head = f"Filled {len(fields) - len(failed)} of {plural(len(fields), 'field')}"
    if failed:
        head += f"; {len(failed)} failed: {', '.join(str(f.get('ref')) for f in failed)}"
    lines = [head]
    for field in fields:
        where = " ".join(str(p) for p in (field.get("ref"), field.get("element")) if p)
        if field.get("ok"):
            lines.append(f"{where}: {_shown(field)}")
        else:
            error = field.get("error") or {}
            lines.append(f"{where}: {error.get('code')}: {error.get('message')}")
    submit = fill.get("submit")
    if submit:
        if submit.get("clicked"):
            lines.append(str(submit.get("description") or f"Clicked {submit.get('ref')}"))
        elif submit.get("error"):
            error = submit["error"]
            lines.append(f"Submit {submit.get('ref')}: {error.get('code')}: {error.get('message')}")
        else:
            lines.append(f"Did not click submit {submit.get('ref')}: {submit.get('reason')}")
    lines[-1] += followed(fill, envelope)
    return "\n".join(lines)


FILL_FORM = Tool(
    name="browser_fill_form",
    params=FillFormParams,
    title="Fill a form's fields, then submit it",
    description=describe(
        """
        Fill fields by snapshot ref in one call (lists take option labels), then click `submit`
        if all worked. E.g. {"fields": [{"ref": "e3", "value": "Ada"}, {"ref": "e4", "value":
        true}]}
        """
    ),
    timeout_s=timeout_ms,
    text=fill_text,
    read_only=False,
    client=ClientFace(
        "fill_form",
        doc=(
            "Fill the form fields ``[{ref, value}]``, then click ``submit``: ``{fields: [{ref, ok, "
            "element, value | chars, error}], submit, navigated, url, opened}``."
        ),
        positional=("fields",),
    ),
    cli=CliFace("fill"),
    tab_ids=opened_ids,
)

TOOLS = (FILL_FORM,)
