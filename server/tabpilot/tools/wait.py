"""browser_wait_for: wait until one condition holds in a tab, then say which and after how long.

The conditions (exactly one per call): ``text`` appears or ``text_gone`` (a case-insensitive
substring of the page's text, as browser_read reads it), an element (``ref`` or CSS
``selector``) reaching a ``state``, the tab's ``url`` matching a glob, ``network_idle`` (no
request for :data:`NETWORK_IDLE_MS`), ``dom_stable`` (no DOM change for that many ms) and a plain
``time``. The extension watches for each with events (a MutationObserver in the page, webRequest
and webNavigation in the worker), and re-sends a page condition to the new document when the tab
navigates meanwhile (docs/protocol.md, "browser_wait_for"). A timeout is ``wait_timeout``, whose
message says what was still false.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, Strict, field_validator, model_validator

from tabpilot.tools.fields import (
    TAB_ID_DESCRIPTION,
    Params,
    Ref,
    TimeoutMs,
    _whole_number,
    result_of,
)
from tabpilot.tools.tool import ClientFace, CliFace, Tool, describe

#: Longest plain `time` wait: a longer pause is better spent waiting for what it stands for.
MAX_TIME_MS = 30_000
#: The quiet that makes the network idle, as Playwright's "networkidle".
NETWORK_IDLE_MS = 500
#: The longest text, selector or url glob a condition may carry.
MAX_CONDITION_CHARS = 2048
#: The states an element may be waited into; `visible` unless told.
STATES = ("visible", "hidden", "enabled", "attached", "detached")
#: The conditions, in the order a message names them.
CONDITIONS = ("text", "text_gone", "ref", "selector", "url", "network_idle", "dom_stable", "time")
#: Time the extension may take past timeout_ms to say what was still false (it asks the page).
REPORT_SLACK_S = 2.0

#: A number of milliseconds: a whole number, written as 500 or as 500.0 (JSON has one number type).
Milliseconds = Annotated[int, Strict(), Field(ge=0, le=MAX_TIME_MS), BeforeValidator(_whole_number)]
#: A quiet time: a DOM that did not change for no time at all says nothing.
QuietMs = Annotated[int, Strict(), Field(ge=50, le=MAX_TIME_MS), BeforeValidator(_whole_number)]
Condition = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_CONDITION_CHARS)]


def glob_error(glob: str) -> str | None:
    """Why ``glob`` is not a url glob (unbalanced or nested braces), or None when it is one.

    The extension reads the same syntax (worker/tools/wait.js, ``globMatcher``): ``**`` any
    characters, ``*`` any but ``/``, ``{a,b}`` either; everything else, ``?`` included, literal.
    """
    depth = 0
    for char in glob:
        if char == "{":
            depth += 1
            if depth > 1:
                return "braces do not nest in a url glob"
        elif char == "}":
            depth -= 1
            if depth < 0:
                return "a `}` closes no `{`"
    return "a `{` is not closed" if depth else None


def _given(value: Any) -> bool:
    # `time: 0` is a condition; `network_idle: false` is none (0 == False, so compare identities).
    return value is not None and value is not False


class WaitParams(Params):
    """Wait until one condition holds in the tab."""

    example: ClassVar[str] = '{"text": "Saved"}'

    # The tool's description says what each condition means once; the fields stay bare, as a
    # model reads them on every turn.
    text: Condition | None = None
    text_gone: Condition | None = None
    ref: Ref | None = None
    selector: Condition | None = None
    state: Literal["visible", "hidden", "enabled", "attached", "detached"] | None = None
    url: Condition | None = None
    network_idle: bool = False
    dom_stable: QuietMs | None = None
    time: Milliseconds | None = None
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(default=10_000, description="Give up after this many ms.")

    @field_validator("url")
    @classmethod
    def _glob(cls, url: str | None) -> str | None:
        why = None if url is None else glob_error(url)
        if why:
            raise ValueError(f"{why}; a glob has `**` (anything), `*` (anything but /), {{a,b}}")
        return url

    @model_validator(mode="after")
    def _one_condition(self) -> WaitParams:
        given = [name for name in CONDITIONS if _given(getattr(self, name))]
        if not given and self.state is not None:
            raise ValueError("`state` goes with `ref` or `selector`: name the element")
        if not given:
            raise ValueError(f"give one condition: {', '.join(CONDITIONS)}")
        if len(given) > 1:
            raise ValueError(
                f"one condition per call, not {' and '.join(given)}; make one call for each"
            )
        if self.state is not None and given[0] not in ("ref", "selector"):
            raise ValueError(f"`state` ({', '.join(STATES)}) goes with `ref` or `selector`")
        if self.dom_stable is not None and self.dom_stable >= self.timeout_ms:
            raise ValueError("`dom_stable` (the quiet ms) must be less than `timeout_ms`")
        return self

    @property
    def condition(self) -> str:
        """The one condition given."""
        return next(name for name in CONDITIONS if _given(getattr(self, name)))


def wait_timeout_s(params: Any) -> float:
    """The daemon's wait: past the extension's own timeout, which answers wait_timeout (or the
    end of a plain `time`), by the time the extension takes to say what was still false."""
    longest = max(int(params.timeout_ms), int(params.time or 0))
    return longest / 1000 + REPORT_SLACK_S


def wait_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_wait_for: `text "Saved" appeared after 412 ms`, then a navigation meanwhile."""
    met = result_of(envelope)
    elapsed = met.get("elapsed_ms")
    text = str(met.get("description") or "Done")
    if met.get("condition") == "time":
        text = f"Waited {elapsed} ms"
    elif not met.get("already"):
        text += f" after {elapsed} ms"
    else:
        text += f" ({elapsed} ms)"
    if met.get("navigated"):
        text += f"; the page navigated to {met.get('url')}"
    return text


WAIT_FOR = Tool(
    name="browser_wait_for",
    params=WaitParams,
    title="Wait until something is true in the page",
    description=describe(
        f"""
        Wait for one condition: text appears or text_gone (page text, any case); ref or CSS
        selector in state (default visible); url glob (** any, * no /); network_idle
        ({NETWORK_IDLE_MS} ms); dom_stable (quiet ms); time (ms, max {MAX_TIME_MS}). Survives
        navigation. E.g. {{"text": "Saved"}} → text "Saved" appeared after 412 ms
        """
    ),
    timeout_s=wait_timeout_s,
    text=wait_text,
    read_only=True,
    client=ClientFace(
        "wait_for",
        doc=(
            "Waits for one condition: ``{condition, description, elapsed_ms, already, "
            "navigated, url}``; raises wait_timeout naming what was still false."
        ),
    ),
    cli=CliFace("wait"),
)

TOOLS = (WAIT_FOR,)
