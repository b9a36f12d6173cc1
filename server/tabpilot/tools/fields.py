"""Request bodies and command params: strict pydantic models, each refusing a bad body with one
readable sentence (:meth:`Params.parse`).

The bodies of ``POST /execute_javascript``, ``/browser_tabs`` and ``/ping`` live here; the page
tools' in :mod:`tabpilot.tools.page`, :mod:`tabpilot.tools.logs` and
:mod:`tabpilot.tools.screenshot`. The wire frames that carry them are in :mod:`tabpilot.protocol`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, ValidationError

from tabpilot.errors import InvalidRequest
from tabpilot.protocol import json_invalid
from tabpilot.unicode import loads_lone_surrogates

#: Longest timeout_ms a command may ask for: two minutes.
MAX_TIMEOUT_MS = 120_000

#: Longest element ref (`e12`) a command may carry.
MAX_REF_CHARS = 64


def _whole_number(value: Any) -> Any:
    # JSON has one number type: Python's json and JavaScript's JSON.stringify write 5000.0 or
    # 5e3 for a float that holds 5000, which means the same as 5000.
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{value!r} is not a whole number of milliseconds; send e.g. 5000")
        return int(value)
    return value


#: A command's timeout in milliseconds: a whole number, written as 5000 or as 5000.0. Still
#: strict otherwise (true, "5000" and 5000.5 are refused), in every model that uses it.
TimeoutMs = Annotated[int, Strict(), Field(ge=1, le=MAX_TIMEOUT_MS), BeforeValidator(_whole_number)]


class Params(BaseModel):
    """A request body; :meth:`parse` turns any way it is wrong into one readable sentence."""

    # Strict, and unknown fields refused: a typo such as ``timeout`` for ``timeout_ms`` should
    # be a 400 the caller sees, not a silently ignored field.
    model_config = ConfigDict(strict=True, extra="forbid")

    #: A good body, shown in the error message of a bad one.
    example: ClassVar[str] = "{}"

    @classmethod
    def parse(cls, data: str | bytes | dict[str, Any]) -> Self:
        """``data`` (JSON text or a decoded object) as this model; raises InvalidRequest."""
        try:
            if isinstance(data, dict):
                return cls.model_validate(data)
            return cls.model_validate_json(data)
        except ValidationError as exc:
            error = exc
        if not isinstance(data, dict) and json_invalid(error):
            # A script may hold a lone surrogate: pydantic's parser refuses its escape, which the
            # callers' socket (Python's json) takes. Read it the same way here.
            try:
                value = loads_lone_surrogates(data)
            except ValueError:
                value = None
            if isinstance(value, dict):
                return cls.parse(value)
        raise InvalidRequest(describe_invalid(error.errors(), cls))


def describe_invalid(errors: Sequence[Any], model: type[Params]) -> str:
    """One readable sentence for what FastAPI would answer as a bare 422."""
    return (
        f"Invalid request: {invalid_reasons(errors, model.model_fields)}. "
        f"Send JSON such as {model.example}; see /docs."
    )


def not_a_field(name: str, fields: list[str]) -> str:
    """ "`tabId` is not a field; did you mean `tab_id`? (the fields are …)": the nearest name by
    spelling, where case, ``_`` and ``-`` do not count (``tabId``, ``tab-id``, ``TAB_ID``)."""
    if "." in name:  # inside a list or an object: the top-level fields are not its fields
        return f"`{name}` is not a field"
    squash = {field.replace("_", "").lower(): field for field in fields}
    near = squash.get(name.replace("_", "").replace("-", "").lower())
    if near is None:
        close = difflib.get_close_matches(name, fields, n=1, cutoff=0.6)
        near = close[0] if close else None
    guess = f"; did you mean `{near}`?" if near else ""
    return f"`{name}` is not a field{guess} (the fields are {', '.join(fields)})"


def invalid_reasons(errors: Sequence[Any], fields: Iterable[str]) -> str:
    """What is wrong with a JSON object, from pydantic's ``errors()``: "`script` is required"."""
    parts: list[str] = []
    for err in errors:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        kind = err.get("type", "")
        if kind == "json_invalid":
            parts.append("the body is not valid JSON")
        elif kind == "missing" and not where:
            parts.append("the body is missing")
        elif kind == "missing":
            parts.append(f"`{where}` is required")
        elif kind == "string_unicode":
            parts.append(
                f"`{where}` holds a lone surrogate (half of a UTF-16 pair), which has no UTF-8 "
                "form; in a script, write it as a JavaScript escape such as \\ud800"
            )
        elif kind == "extra_forbidden":
            parts.append(not_a_field(where, list(fields)))
        elif kind == "value_error" and not where:  # a model's own rule, across fields
            parts.append(str(err.get("msg", "invalid")).removeprefix("Value error, "))
        elif not where:
            parts.append("the body must be a JSON object sent with Content-Type: application/json")
        else:
            message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            parts.append(f"`{where}`: {message}")
    return "; ".join(parts) or "bad body"


def web_url(url: str | None, what: str) -> str | None:
    """``url`` if it is http or https; else a ValueError naming its scheme."""
    if url is not None and not url.lower().startswith(("http://", "https://")):
        scheme = url.split(":", 1)[0] if ":" in url else url
        raise ValueError(f"{what} http or https urls only, not {scheme[:20]!r}")
    return url


class PingParams(Params):
    """Time the chain up to one hop without running anything: the body of ``POST /ping``."""

    example: ClassVar[str] = '{"to": "page"}'

    to: Literal["worker", "content", "page"] = Field(
        default="worker",
        description="Who answers: the extension's service `worker`, the tab's `content` script, "
        "or the tab's `page` world.",
    )
    tab_id: int | None = Field(
        default=None, description="Target tab; null: the active tab of the last focused window."
    )


TAB_ID_DESCRIPTION = "The tab; null: the active tab of the last focused window."

#: An element ref, as browser_snapshot hands them out: `e12`.
Ref = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_REF_CHARS)]


def shifted(entry: Any, key: str, base: int) -> Any:
    """``entry`` with its tab id at ``key`` moved up by ``base``: a context's tab ids made
    daemon-wide (:mod:`tabpilot.browsers.tab_ids`)."""
    if isinstance(entry, dict) and isinstance(entry.get(key), int):
        return {**entry, key: entry[key] + base}
    return entry


def shifted_id(value: Any, base: int) -> Any:
    """A tab id moved up by ``base``; anything else as it is."""
    return value + base if isinstance(value, int) and not isinstance(value, bool) else value


def result_of(envelope: dict[str, Any]) -> dict[str, Any]:
    """A success envelope's result when it is an object, else an empty one: what a text
    formatter reads its fields from."""
    result = envelope.get("result")
    return result if isinstance(result, dict) else {}


def plural(count: int, word: str) -> str:
    """`1 tab`, `2 tabs`."""
    return f"{count} {word}{'' if count == 1 else 's'}"
