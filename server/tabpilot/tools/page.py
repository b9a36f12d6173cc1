"""The params of the page tools (docs/protocol.md, "Page tools"): the HTTP bodies, the /ws/calls
params, the MCP tools' arguments and the command params sent to the extension, all one model.

Each model is strict and refuses unknown fields, like every :class:`tabpilot.tools.fields.Params`.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, Strict, field_validator, model_validator

from tabpilot.tools.fields import MAX_REF_CHARS, Params, TimeoutMs, web_url

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
        description="For `goto`: the http(s) url.",
    )
    action: Literal["goto", "back", "forward", "reload"] = Field(
        default="goto",
        description="`goto` loads `url`.",
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

    ref: Ref | None = Field(default=None, description="Only this element's subtree.")
    interactive_only: bool = Field(default=False, description="Only elements one can act on.")
    max_chars: int | None = Field(
        default=20_000,
        ge=200,
        le=1_000_000,
        description="Cut past this many characters.",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)


class ActParams(Params):
    """One action on the page, as a person would do it: click, type, press, scroll..."""

    example: ClassVar[str] = '{"kind": "click", "ref": "e12"}'

    kind: Literal["click", "type", "press", "scroll", "hover", "select", "check", "uncheck"] = (
        Field()
    )
    ref: Ref | None = Field(
        default=None,
        description="type, press: the focused element if none.",
    )
    text: str | None = Field(
        default=None,
        max_length=1_000_000,
        description="type: the text; select: an option.",
    )
    key: str | None = Field(
        default=None,
        max_length=64,
        description='press: a key, "Enter", "Control+a"...',
    )
    direction: Literal["up", "down", "left", "right"] | None = Field(
        default=None, description="scroll: default down."
    )
    amount: int | None = Field(default=None, ge=1, description="scroll: pixels.")
    submit: bool = Field(default=False, description="type: press Enter after.")
    values: list[str] | None = Field(default=None, description="select: several options.")
    trusted: bool | None = Field(
        default=None,
        description="Trusted input through chrome.debugger.",
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

    ref: Ref | None = Field(default=None, description="Only this element's text.")
    offset: int = Field(default=0, ge=0, description="The first character.")
    limit: int = Field(default=10_000, ge=1, le=1_000_000, description="Characters at most.")
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)


class CloseParams(Params):
    """Close what the AI opened; takes no fields."""

    example: ClassVar[str] = "{}"
