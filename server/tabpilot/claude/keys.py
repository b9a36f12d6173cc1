"""Key names as the toolset writes them (``ctrl+a``, ``Return``, ``BackSpace Delete``, X11's
names) as browser_act's ``press`` reads them (``Control+a``, ``Enter``, ``Backspace``)."""

from __future__ import annotations

from tabpilot.claude.errors import refuse

#: Modifier names, lower case, to browser_act's.
MODIFIERS = {
    "ctrl": "Control",
    "control": "Control",
    "shift": "Shift",
    "alt": "Alt",
    "option": "Alt",
    "opt": "Alt",
    "cmd": "Meta",
    "command": "Meta",
    "meta": "Meta",
    "super": "Meta",
    "win": "Meta",
}

#: X11 and other common key names, lower case, to the DOM's.
KEYS = {
    "return": "Enter",
    "enter": "Enter",
    "kp_enter": "Enter",
    "backspace": "Backspace",
    "tab": "Tab",
    "escape": "Escape",
    "esc": "Escape",
    "delete": "Delete",
    "del": "Delete",
    "space": " ",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight",
    "home": "Home",
    "end": "End",
    "page_up": "PageUp",
    "pageup": "PageUp",
    "prior": "PageUp",
    "page_down": "PageDown",
    "pagedown": "PageDown",
    "next": "PageDown",
    "insert": "Insert",
    "plus": "+",
    "minus": "-",
}


def key_name(chord: str) -> str:
    """One chord, ``ctrl+shift+Tab`` → ``Control+Shift+Tab``; a lone modifier is its own key."""
    parts = chord.split("+") if chord != "+" else ["+"]
    if chord.endswith("++"):
        parts = [*chord[:-2].split("+"), "+"]
    *mods, last = parts
    names = []
    for mod in mods:
        name = MODIFIERS.get(mod.strip().lower())
        if name is None:
            raise refuse(
                f"Unknown modifier {mod!r} in {chord!r}; the modifiers are ctrl, shift, alt and "
                "cmd (meta)."
            )
        names.append(name)
    lowered = last.lower()
    if lowered in MODIFIERS:
        key = MODIFIERS[lowered]
    elif lowered in KEYS:
        key = KEYS[lowered]
    elif len(lowered) >= 2 and lowered[0] == "f" and lowered[1:].isdigit():
        key = lowered.upper()
    else:
        key = last
    return "+".join([*names, key])


def key_sequence(text: str) -> list[str]:
    """``"BackSpace BackSpace ctrl+a"`` → the chords pressed one after the other."""
    chords = [key_name(part) for part in text.split()]
    if not chords:
        raise refuse('No key given: name one, such as "Return", "Tab" or "ctrl+a".')
    return chords


def modifier_list(chord: str | None) -> list[str] | None:
    """``"ctrl+shift"`` → ``["Control", "Shift"]``, for a click's modifiers."""
    if not chord:
        return None
    names = []
    for part in chord.split("+"):
        name = MODIFIERS.get(part.strip().lower())
        if name is None:
            raise refuse(
                f"Unknown modifier {part!r}; the modifiers are ctrl, shift, alt and cmd (meta)."
            )
        if name not in names:
            names.append(name)
    return names
