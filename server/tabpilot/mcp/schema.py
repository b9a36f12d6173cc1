"""What ``tools/list`` says of each MCP tool, kept lean: a model reads it on every turn.

The params models stay the one definition of each tool's parameters, and stay strict: a wrong
argument is judged by them and answered with the usual ``Invalid arguments: …``. So the input
schema a model reads keeps only what it needs to write a call: each field's type, its allowed
values and its description. Titles, defaults (a description says the ones that matter), length
and range bounds (the error names them when crossed), ``null`` alternatives (leaving a field out
is how one says "none") and the descriptions of the fields every tool shares (``tab_id``,
``timeout_ms``: the server's instructions say them once) or whose name says it all (``limit``,
``clear``, ``name``…) are left out.

Only the tools whose answer is a script's value declare an output schema (:func:`output_schema`):
every other tool's text is its whole answer, and it has no structured content
(:mod:`tabpilot.mcp.server`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

__all__ = ["TOKEN_SCHEMA", "TOOLS_LIST_BUDGET", "input_schema", "output_schema"]

#: The most characters the whole ``tools/list`` may take, as compact JSON: half of Playwright
#: MCP's (20,286 for @playwright/mcp 0.0.83; ``make bench`` measures both in the same run).
TOOLS_LIST_BUDGET = 20_286 // 2


def output_schema(*cut: str) -> dict[str, Any]:
    """The structured content of a script's answer: ``result``, the value as JSON (left out for
    ``undefined``); the guard's fields ``cut`` when it cut the value to a preview; or, with
    ``isError``, ``error`` (its ``code``, and what its message leaves out). Named only, none
    required: the descriptions and the server's instructions say what each holds."""
    return {
        "type": "object",
        "properties": {name: {} for name in ("result", *cut, "error")},
    }


#: The guard's parameter (tabpilot.guard): a cut answer's token, sent alone for the rest. The
#: instructions and the cut answer's last line say how to use it.
TOKEN_SCHEMA: dict[str, Any] = {"type": "string"}

#: Fields every tool that has them means the same way; described once, in the instructions. And
#: fields whose name and type say what they do: the other faces (OpenAPI, --help) describe them.
SHARED_FIELDS = frozenset({"tab_id", "timeout_ms", "follow"})
SELF_EVIDENT = frozenset(
    {
        "limit",
        "offset",
        "all_pages",
        "clear",
        "full_page",
        "interactive_only",
        "await_promise",
        "name",
    }
)

#: Keys of a field's JSON schema that a model writing a call does not need.
_DROPPED = frozenset(
    {
        "title",
        "examples",
        "maxLength",
        "minLength",
        "maximum",
        "minimum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "maxItems",
        "minItems",
        "pattern",
        "additionalProperties",
        "default",
    }
)


def input_schema(model: type[BaseModel], *, token: bool = False) -> dict[str, Any]:
    """The lean input schema of a params model (see the module's docstring); with ``token``, the
    large-output guard's ``confirm_token`` too."""
    full = model.model_json_schema()
    defs = full.get("$defs", {})
    properties = {
        name: _lean(field, shared=name in SHARED_FIELDS | SELF_EVIDENT, defs=defs)
        for name, field in full.get("properties", {}).items()
    }
    if token:
        properties["confirm_token"] = TOKEN_SCHEMA
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if full.get("required"):
        schema["required"] = full["required"]
    return schema


def _lean(field: dict[str, Any], *, shared: bool, defs: dict[str, Any]) -> dict[str, Any]:
    options = [option for option in field.get("anyOf", ()) if option.get("type") != "null"]
    merged = dict(field)
    if len(options) == 1:
        merged.pop("anyOf")
        merged.update(options[0])
    # A nested model (browser_fill_form's fields, browser_take_screenshot's optional clip) is
    # written in place: a client reads no $defs.
    ref = merged.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        # Its docstring is for the other faces; the tool's description says what a field holds.
        inner = {k: v for k, v in defs[ref.removeprefix("#/$defs/")].items() if k != "description"}
        merged = {**inner, **{k: v for k, v in merged.items() if k != "$ref"}}
    lean = {key: value for key, value in merged.items() if key not in _DROPPED}
    if "enum" in lean:
        lean.pop("type", None)
    if shared:
        lean.pop("description", None)
    if isinstance(lean.get("items"), dict):
        lean["items"] = _lean(lean["items"], shared=False, defs=defs)
    if isinstance(lean.get("properties"), dict):
        lean["properties"] = {
            name: _lean(inner, shared=False, defs=defs)
            for name, inner in lean["properties"].items()
        }
    if isinstance(lean.get("anyOf"), list):
        options = [_lean(option, shared=False, defs=defs) for option in lean.pop("anyOf")]
        # One value of several plain types (a form field's str, bool or list of str): a list of
        # types says it in fewer characters.
        if all(set(option) <= {"type", "items"} for option in options):
            lean["type"] = [option["type"] for option in options]
            for option in options:
                if "items" in option:
                    lean["items"] = option["items"]
        else:
            lean["anyOf"] = options
    return lean
