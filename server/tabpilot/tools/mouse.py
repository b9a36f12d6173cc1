"""browser_mouse: the mouse at a point of the viewport, for an agent that works from screenshots
(extension/worker/tools/mouse.js, extension/content/mouse.js). Listed in MCP under the capability
``vision``, as Playwright MCP's coordinate tools are."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, TimeoutMs, result_of
from tabpilot.tools.script import dialogs_note
from tabpilot.tools.tool import ClientFace, CliFace, McpFace, Tool, describe, timeout_ms


class MouseParams(Params):
    """The mouse at a point: click, press, move, turn the wheel or drag there."""

    example: ClassVar[str] = '{"action": "click", "x": 412, "y": 230}'

    action: Literal[
        "click",
        "double_click",
        "triple_click",
        "right_click",
        "middle_click",
        "down",
        "up",
        "move",
        "wheel",
        "drag",
    ] = Field()
    x: float = Field(description="Viewport CSS px, as a screenshot at scale 1.")
    y: float = Field()
    to_x: float | None = Field(default=None, description="drag: the drop point.")
    to_y: float | None = Field(default=None)
    delta_x: float | None = Field(default=None, description="wheel: px.")
    delta_y: float | None = Field(default=None, description="wheel: px, down > 0.")
    modifiers: list[Literal["Alt", "Control", "Meta", "Shift"]] | None = Field(
        default=None, max_length=4
    )
    button: Literal["left", "right", "middle"] | None = Field(
        default=None, description="down, up: default left."
    )
    trusted: bool | None = Field(default=None, description="Trusted input through chrome.debugger.")
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(default=10_000, description="Give up after this many ms.")

    @model_validator(mode="after")
    def _needs(self) -> MouseParams:
        if self.action == "drag" and (self.to_x is None or self.to_y is None):
            raise ValueError("`drag` needs `to_x` and `to_y`, the drop point")
        if self.action == "wheel" and not (self.delta_x or self.delta_y):
            raise ValueError("`wheel` needs `delta_x` or `delta_y`")
        return self


def mouse_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_mouse: what was done at the point, on what, and by which route."""
    done = result_of(envelope)
    route = done.get("route")
    text = str(done.get("description") or "Done")
    text += f" ({'trusted' if route == 'debugger' else 'DOM events'})"
    return text + dialogs_note(envelope.get("dialogs") or done.get("dialogs"))


MOUSE = Tool(
    name="browser_mouse",
    params=MouseParams,
    title="Use the mouse at a point of the page",
    description=describe(
        """
        The mouse at a point of a viewport screenshot, as a person uses it; says what was
        there. Prefer browser_act with refs. E.g. {"action": "click", "x": 412, "y": 230} →
        Clicked at (412, 230) on button "Save" (e7)
        """
    ),
    timeout_s=timeout_ms,
    text=mouse_text,
    read_only=False,
    client=ClientFace(
        "mouse",
        doc="The mouse at a point of the viewport: ``{description, route}``.",
        positional=("action", "x", "y"),
    ),
    cli=CliFace("mouse", positional=("action", "x", "y")),
    mcp=McpFace(cap="vision"),
)

TOOLS = (MOUSE,)
