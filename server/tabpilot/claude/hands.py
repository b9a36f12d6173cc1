"""The members of ``browser_toolset_20260801`` that are a person's hands: clicks by ref
(browser_act) or at a viewport point (browser_mouse), hover, drag, the mouse's buttons and wheel,
typing and keys. Coordinates are CSS pixels of the viewport, the pixels of ``screenshot``
(:mod:`tabpilot.claude.sight`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabpilot.claude.errors import refuse
from tabpilot.claude.keys import key_sequence, modifier_list
from tabpilot.claude.state import Session, Steps, params

#: A wheel notch, in CSS pixels (Chrome's).
NOTCH_PX = 100
#: scroll's notches when the model gives none (the toolset's default).
DEFAULT_NOTCHES = 3
#: tabpilot holds a key at most this long (browser_act's hold_ms).
MAX_HOLD_S = 10.0
#: The most key presses one key call makes.
MAX_PRESSES = 100


#: The toolset's click members: the button and the count.
CLICKS = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "middle_click": ("middle", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}


#: browser_mouse's action for a click by the button and count.
MOUSE_CLICKS = {
    ("left", 1): "click",
    ("right", 1): "right_click",
    ("middle", 1): "middle_click",
    ("left", 2): "double_click",
    ("left", 3): "triple_click",
}


#: scroll's direction as a wheel turn, per notch.
WHEEL = {
    "up": (0, -NOTCH_PX),
    "down": (0, NOTCH_PX),
    "left": (-NOTCH_PX, 0),
    "right": (NOTCH_PX, 0),
}


def said(result: Any) -> str | None:
    """The answer's own line (``Clicked button "Buy" (e3); the page navigated to …``)."""
    if not isinstance(result, dict):
        return None
    line = str(result.get("description") or "")
    if result.get("navigated") and result.get("url"):
        line += f"; the page navigated to {result['url']}"
    return line or None


def act(s: Session, tab: int, kind: str, **given: Any) -> Steps[str | None]:
    """One browser_act, its line."""
    result = yield from s.call(
        "browser_act", params(kind=kind, tab_id=tab, trusted=s.trusted, **given)
    )
    return said(result)


def mouse(s: Session, tab: int, action: str, point: Any, **given: Any) -> Steps[str | None]:
    """One browser_mouse at a coordinate target, its line."""
    result = yield from s.call(
        "browser_mouse",
        params(action=action, x=point.x, y=point.y, tab_id=tab, trusted=s.trusted, **given),
    )
    return said(result)


def clicker(button: str, count: int) -> Callable[[Session, Any], Steps[str | None]]:
    """A click member: by ref through browser_act, at a point through browser_mouse."""

    def click(s: Session, input: Any) -> Steps[str | None]:
        tab = yield from s.tab(input.tab_id)
        modifiers = modifier_list(input.modifiers)
        target = input.target
        if target.type == "ref":
            line = yield from act(
                s,
                tab,
                "click",
                ref=target.ref,
                button=None if button == "left" else button,
                count=None if count == 1 else count,
                modifiers=modifiers,
            )
            return line
        line = yield from mouse(s, tab, MOUSE_CLICKS[button, count], target, modifiers=modifiers)
        return line

    return click


def hover(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    if input.target.type == "ref":
        line = yield from act(s, tab, "hover", ref=input.target.ref)
    else:
        line = yield from mouse(s, tab, "move", input.target)
    return line


def left_click_drag(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    line = yield from mouse(s, tab, "drag", input.from_, to_x=input.target.x, to_y=input.target.y)
    return line


def pointer(action: str) -> Callable[[Session, Any], Steps[str | None]]:
    """A member that is one browser_mouse action at its target: down, up, move."""

    def member(s: Session, input: Any) -> Steps[str | None]:
        tab = yield from s.tab(input.tab_id)
        line = yield from mouse(s, tab, action, input.target)
        return line

    return member


def scroll(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    notches = input.scroll_amount or DEFAULT_NOTCHES
    dx, dy = WHEEL[input.scroll_direction]
    line = yield from mouse(
        s, tab, "wheel", input.target, delta_x=dx * notches or None, delta_y=dy * notches or None
    )
    return line


def type_text(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    line = yield from act(s, tab, "type", text=input.text)
    return line


def key(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    chords = key_sequence(input.text) * max(1, input.repeat or 1)
    if len(chords) > MAX_PRESSES:
        raise refuse(f"At most {MAX_PRESSES} key presses a call; split it.")
    line = None
    for chord in chords:
        line = yield from act(s, tab, "press", key=chord)
    return line if len(chords) == 1 else f"{len(chords)} presses, the last: {line}"


def hold_key(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    chords = key_sequence(input.text)
    if len(chords) != 1:
        raise refuse('hold_key holds one key or chord, such as "shift" or "ctrl+a".')
    if not 0 <= input.duration <= MAX_HOLD_S:
        raise refuse(f"tabpilot holds a key for at most {MAX_HOLD_S:g} s.")
    line = yield from act(s, tab, "press", key=chords[0], hold_ms=round(input.duration * 1000))
    return line
