"""The params of the page tools (docs/protocol.md, "Page tools"): the HTTP bodies, the /ws/calls
params, the MCP tools' arguments and the command params sent to the extension, all one model.

Each model is strict and refuses unknown fields, like every :class:`tabpilot.tools.fields.Params`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from tabpilot.tools.fields import (
    TAB_ID_DESCRIPTION,
    Params,
    Ref,
    TimeoutMs,
    plural,
    result_of,
)
from tabpilot.tools.files import downloads_note
from tabpilot.tools.script import dialogs_note
from tabpilot.tools.tabs import opened_ids, opened_note
from tabpilot.tools.tool import ClientFace, CliFace, GuardRule, Tool, describe, timeout_ms

ACT_KINDS = ("click", "type", "press", "scroll", "hover", "select", "check", "uncheck", "drag")
#: ``follow``'s description: browser_act's and browser_fill_form's.
FOLLOW_DESCRIPTION = "A tab it opens becomes the active tab."
#: The kinds of act that need an element.
KINDS_NEEDING_REF = ("click", "hover", "select", "check", "uncheck", "drag")


class SnapshotParams(Params):
    """The page as an accessibility tree, with a ref for each element an action may target."""

    example: ClassVar[str] = '{"interactive_only": true}'

    ref: Ref | None = Field(default=None, description="Only this element's subtree.")
    interactive_only: bool = Field(default=False, description="Only elements one can act on.")
    # Leaves out what the person cannot see (marked [not visible] otherwise); its name says it all.
    visible_only: bool = Field(default=False)
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

    kind: Literal[
        "click", "type", "press", "scroll", "hover", "select", "check", "uncheck", "drag"
    ] = Field()
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
    # The pointer's fields: their names say what they do, to keep tools/list small.
    to_ref: Ref | None = Field(default=None, description="drag: onto it.")
    to_x: float | None = Field(default=None)
    to_y: float | None = Field(default=None)
    button: Literal["left", "right", "middle"] | None = Field(default=None)
    count: int | None = Field(default=None, ge=1, le=3)
    modifiers: list[Literal["Alt", "Control", "Meta", "Shift"]] | None = Field(default=None)
    hold_ms: int | None = Field(default=None, ge=0, le=10_000)
    trusted: bool | None = Field(
        default=None,
        description="Trusted input through chrome.debugger.",
    )
    follow: bool = Field(default=False, description=FOLLOW_DESCRIPTION)
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
        if self.kind == "drag" and self.to_ref is None and (self.to_x is None or self.to_y is None):
            raise ValueError("`drag` needs `to_ref`, or `to_x` and `to_y`")
        return self


class ReadParams(Params):
    """The text of the page, or of one element, a slice at a time (unseen text marked)."""

    example: ClassVar[str] = '{"offset": 10000}'

    ref: Ref | None = Field(default=None, description="Only this element's text.")
    offset: int = Field(default=0, ge=0, description="The first character.")
    limit: int = Field(default=10_000, ge=1, le=1_000_000, description="Characters at most.")
    visible_only: bool = Field(default=False)
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)


#: A snapshot or a read walks the DOM once; no page takes longer, even a huge one.
PAGE_WALK_TIMEOUT_S = 30.0


def snapshot_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_snapshot: a header line naming the page and its refs, then the snapshot."""
    snap = result_of(envelope)
    tab = envelope.get("tab") or {}
    refs = snap.get("refs", 0)
    header = f'Page "{tab.get("title") or ""}" {tab.get("url") or ""}, {refs} ref'
    header += "" if refs == 1 else "s"
    return f"{header}\n{snap.get('snapshot', '')}"


def act_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_act: what was done, then what followed (a navigation, new tabs, downloads,
    dialogs)."""
    act = result_of(envelope)
    return str(act.get("description") or "Done") + followed(act, envelope)


def followed(act: dict[str, Any], envelope: dict[str, Any]) -> str:
    """What an action set going, as its answer's tail: `; the page navigated to …`, the tabs it
    opened, the dialogs answered (browser_act, browser_fill_form)."""
    text = ""
    if act.get("closed"):
        text += f"; the tab closed itself on {act.get('url')}"
    elif act.get("navigated"):
        text += f"; the page navigated to {act.get('url')}"
    text += "".join(opened_note(tab) for tab in act.get("opened") or [])
    text += downloads_note(act.get("downloads"))
    dialogs = envelope.get("dialogs") or act.get("dialogs")
    return text + dialogs_note(dialogs)


def read_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_read: the text, then where it sits in the whole and how to get the rest."""
    read = result_of(envelope)
    text = str(read.get("text", ""))
    offset = int(read.get("offset") or 0)
    total = read.get("total")
    end = offset + len(text)
    if not text and isinstance(total, int) and offset >= total > 0:
        return (
            f"[nothing at offset {offset}: past the end, the text is {total} chars; "
            f"browser_read offset={max(0, total - 1000)} reads its last part]"
        )
    # Frames of other origins hold text of their own, read by a read of the iframe's ref.
    unread = read.get("unread_frames")
    if isinstance(unread, int) and unread > 0:
        frames = plural(unread, "frame")
        text += f"\n[{frames} of other origins not read: browser_read its iframe's ref]"
    if read.get("more"):
        return f"{text}\n[chars {offset}-{end} of {total}; more: browser_read offset={end}]"
    if offset:
        return f"{text}\n[chars {offset}-{end} of {total}]"
    return text


SNAPSHOT = Tool(
    name="browser_snapshot",
    params=SnapshotParams,
    title="See the page's structure",
    description=describe(
        """
        The page as an accessibility tree with refs to act on. `interactive_only`: controls
        only. E.g. {} → Page "Shop" https://a.test/, 9 refs⏎- main [ref=e8]:⏎  - button "Buy"
        [ref=e12]
        """
    ),
    timeout_s=PAGE_WALK_TIMEOUT_S,
    text=snapshot_text,
    read_only=True,
    client=ClientFace(
        "snapshot",
        doc="The page's accessibility tree with refs: ``{snapshot, refs, chars, truncated}``.",
    ),
    cli=CliFace("snapshot"),
    guard=GuardRule(
        limit=24_000,
        advice=(
            "Scope it: browser_snapshot with `ref` (one element's subtree) or `interactive_only`."
        ),
        cut_first=("snapshot",),
    ),
)


ACT = Tool(
    name="browser_act",
    params=ActParams,
    title="Click, type, press, scroll or select in the page",
    description=describe(
        """
        Act on an element by its snapshot ref as a person would, or say why not. E.g.
        {"kind": "click", "ref": "e12"} → Clicked button "Buy" (e12). Snapshot again: refs
        go stale.
        """
    ),
    timeout_s=timeout_ms,
    text=act_text,
    read_only=False,
    client=ClientFace(
        "act",
        doc=(
            "One action on the element ``ref``: ``{description, route, navigated, url, opened}``."
        ),
        positional=("kind", "ref"),
    ),
    cli=CliFace("act", positional=("kind", "ref")),
    tab_ids=opened_ids,
)


READ = Tool(
    name="browser_read",
    params=ReadParams,
    title="Read the page's text",
    description=describe(
        """
        The page's text (unseen text marked), or a ref's, in slices. E.g. {"limit": 30} → the
        text⏎[chars 0-30 of 99; more: browser_read offset=30]
        """
    ),
    timeout_s=PAGE_WALK_TIMEOUT_S,
    text=read_text,
    read_only=True,
    client=ClientFace(
        "read",
        doc="A slice of the page's text, unseen text marked: ``{text, offset, total, more}``.",
    ),
    cli=CliFace("read"),
    guard=GuardRule(
        limit=12_000,
        advice=("Read less at once: browser_read with `ref` (one element) or a smaller `limit`."),
        cut_first=("text",),
    ),
)

TOOLS = (
    SNAPSHOT,
    ACT,
    READ,
)
