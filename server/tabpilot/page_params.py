"""The params of the page tools (docs/protocol.md, "Page tools"): the HTTP bodies, the /ws/calls
params, the MCP tools' arguments and the command params sent to the extension, all one model.

Each model is strict and refuses unknown fields, like every :class:`tabpilot.params.Params`.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, Strict, field_validator, model_validator

from tabpilot.params import MAX_REF_CHARS, Params, TimeoutMs, web_url

TAB_ID_DESCRIPTION = "The tab; null: the active tab of the last focused window."

#: An element ref, as browser_snapshot hands them out: `e12`.
Ref = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_REF_CHARS)]

ACT_KINDS = ("click", "type", "press", "scroll", "hover", "select", "check", "uncheck")
#: The kinds of act that need an element.
KINDS_NEEDING_REF = ("click", "hover", "select", "check", "uncheck")


class NavigateParams(Params):
    """Load a url in a tab, or go back, forward, or reload."""

    example: ClassVar[str] = '{"url": "https://example.com/"}'

    url: str | None = Field(
        default=None,
        max_length=8192,
        description='For action "goto": the http or https url to load.',
    )
    action: Literal["goto", "back", "forward", "reload"] = Field(
        default="goto",
        description="`goto` the url (the default), or go `back`, `forward`, or `reload`.",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(
        default=30_000, description="Give up waiting for the page to load after this many ms."
    )

    @field_validator("url")
    @classmethod
    def _web_url(cls, url: str | None) -> str | None:
        return web_url(url, "browser_navigate loads")

    @model_validator(mode="after")
    def _url_with_goto_only(self) -> NavigateParams:
        if self.action == "goto" and self.url is None:
            raise ValueError('`goto` needs `url`; or send `action`: "back", "forward" or "reload"')
        if self.action != "goto" and self.url is not None:
            raise ValueError(f"`{self.action}` takes no `url`; `url` goes with `goto`")
        return self


class SnapshotParams(Params):
    """The page as an accessibility tree, with a ref for each element an action may target."""

    example: ClassVar[str] = '{"interactive_only": true}'

    ref: Ref | None = Field(
        default=None, description="Only this element's subtree (a ref from an earlier snapshot)."
    )
    interactive_only: bool = Field(
        default=False, description="Only elements one can act on (links, buttons, fields...)."
    )
    max_chars: int | None = Field(
        default=20_000,
        ge=200,
        le=1_000_000,
        description="Cut the text past this many characters; its last line says what was left out.",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)


class ActParams(Params):
    """One action on the page, as a person would do it: click, type, press, scroll..."""

    example: ClassVar[str] = '{"kind": "click", "ref": "e12"}'

    kind: Literal["click", "type", "press", "scroll", "hover", "select", "check", "uncheck"] = (
        Field(description="What to do: " + ", ".join(ACT_KINDS) + ".")
    )
    ref: Ref | None = Field(
        default=None,
        description="The element, a ref from browser_snapshot. Needed by "
        + ", ".join(KINDS_NEEDING_REF)
        + "; for type and press, the focused element by default.",
    )
    text: str | None = Field(
        default=None,
        max_length=1_000_000,
        description="For type: the text to type. For select: one option's value or label.",
    )
    key: str | None = Field(
        default=None,
        max_length=64,
        description='For press: a key such as "Enter", "Tab", "ArrowDown", "a", "Control+a".',
    )
    direction: Literal["up", "down", "left", "right"] | None = Field(
        default=None, description="For scroll: the direction (default down)."
    )
    amount: int | None = Field(
        default=None, ge=1, description="For scroll: pixels (default: one viewport)."
    )
    submit: bool = Field(default=False, description="For type: press Enter after typing.")
    values: list[str] | None = Field(
        default=None, description="For select: the options to select, by value or label."
    )
    trusted: bool | None = Field(
        default=None,
        description="true: send trusted input through chrome.debugger (always allowed in the "
        "managed browser, in the user's Chrome only with its debugger switch on); null: the DOM "
        "route first.",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(default=10_000, description="Give up after this many ms.")

    @model_validator(mode="after")
    def _needs(self) -> ActParams:
        if self.kind in KINDS_NEEDING_REF and self.ref is None:
            raise ValueError(f"`{self.kind}` needs `ref`; take a browser_snapshot to get one")
        if self.kind == "type" and self.text is None:
            raise ValueError("`type` needs `text`")
        if self.kind == "press" and self.key is None:
            raise ValueError('`press` needs `key`, such as "Enter"')
        if self.kind == "select" and self.text is None and not self.values:
            raise ValueError("`select` needs `values` (or `text` for one option)")
        return self


class ReadParams(Params):
    """The visible text of the page, or of one element, a slice at a time."""

    example: ClassVar[str] = '{"offset": 10000}'

    ref: Ref | None = Field(
        default=None, description="Only this element's text (a ref from browser_snapshot)."
    )
    offset: int = Field(default=0, ge=0, description="The first character to return.")
    limit: int = Field(
        default=10_000, ge=1, le=1_000_000, description="How many characters at most."
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)


class CloseParams(Params):
    """Close what the AI opened; takes no fields."""

    example: ClassVar[str] = "{}"
