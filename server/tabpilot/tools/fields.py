"""Request bodies and command params: strict pydantic models, each refusing a bad body with one
readable sentence (:meth:`Params.parse`).

The bodies of ``POST /execute_javascript``, ``/browser_tabs`` and ``/ping`` live here; the page
tools' in :mod:`tabpilot.tools.page`, :mod:`tabpilot.tools.logs` and
:mod:`tabpilot.tools.screenshot`. The wire frames that carry them are in :mod:`tabpilot.protocol`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    field_validator,
    model_validator,
)

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
            parts.append(f"`{where}` is not a field (the fields are {', '.join(fields)})")
        elif kind == "value_error" and not where:  # a model's own rule, across fields
            parts.append(str(err.get("msg", "invalid")).removeprefix("Value error, "))
        elif not where:
            parts.append("the body must be a JSON object sent with Content-Type: application/json")
        else:
            message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            parts.append(f"`{where}`: {message}")
    return "; ".join(parts) or "bad body"


class ExecuteParams(Params):
    """Run ``script`` in a tab: the body of ``POST /execute_javascript`` and the command params."""

    example: ClassVar[str] = '{"script": "2 + 2", "timeout_ms": 5000}'

    script: str = Field(
        min_length=1,
        description="An expression, or statements with `return`.",
    )
    timeout_ms: TimeoutMs = Field(default=5000, description="Give up after this many milliseconds.")
    await_promise: bool = Field(default=True, description="Await a returned promise.")
    tab_id: int | None = Field(
        default=None, description="Target tab; null: the active tab of the last focused window."
    )
    dialog: Literal["accept", "dismiss"] = Field(
        default="dismiss",
        description="Answer to alert, confirm, prompt.",
    )
    prompt_text: str | None = Field(
        default=None,
        max_length=10_000,
        description="What an accepted prompt answers.",
    )
    ref: str | None = Field(
        default=None,
        max_length=MAX_REF_CHARS,
        description="Snapshot ref: `script` is then `(el) => ...`.",
    )


def web_url(url: str | None, what: str) -> str | None:
    """``url`` if it is http or https; else a ValueError naming its scheme."""
    if url is not None and not url.lower().startswith(("http://", "https://")):
        scheme = url.split(":", 1)[0] if ":" in url else url
        raise ValueError(f"{what} http or https urls only, not {scheme[:20]!r}")
    return url


class TabsParams(Params):
    """List, open, select or close tabs: the body of ``POST /browser_tabs``."""

    example: ClassVar[str] = '{"action": "new", "url": "https://example.com/"}'

    action: Literal["list", "new", "select", "close"] = Field(
        default="list",
        description="`new` opens `url` in a new active tab.",
    )
    url: str | None = Field(default=None, max_length=8192, description="For `new`: an http(s) url.")
    tab_id: int | None = Field(
        default=None,
        description="For `select` and `close`: the tab. `close` without it closes the active tab "
        "if the AI opened it.",
    )

    @field_validator("url")
    @classmethod
    def _web_url(cls, url: str | None) -> str | None:
        return web_url(url, "a new tab opens")

    @model_validator(mode="after")
    def _needs_what_it_acts_on(self) -> TabsParams:
        # `close` without a tab_id is the extension's to judge: it closes the active tab only
        # if the AI opened it.
        if self.action == "select" and self.tab_id is None:
            raise ValueError("`select` needs `tab_id`; the `list` action lists the tabs")
        if self.url is not None and self.action != "new":
            raise ValueError("`url` goes with the `new` action only")
        return self


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
