"""Each member of ``browser_toolset_20260801`` as steps of tabpilot's tools (docs/claude.md has
the table). A member takes the session and the SDK's parsed input, and returns what the SDK
renders: a string the model reads after the SDK's acknowledgment (``Clicked.``), a text, a
navigation, a screenshot, or tab entries.

Refs are tabpilot's snapshot refs (``e12``): read_page and find give them, and every member that
takes a ref target passes it to the tool. Coordinates are CSS pixels of the viewport, which is
what ``screenshot`` returns at scale 1 (one image pixel per CSS pixel), so a point read off a
screenshot is the point browser_mouse acts at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from anthropic.tools import BetaBrowserNavigateResult, BetaScreenshotResult
from anthropic.types.beta import BetaBrowserStateTabEntryParam

from tabpilot.claude import find as finding
from tabpilot.claude.errors import refuse
from tabpilot.claude.keys import key_sequence, modifier_list
from tabpilot.claude.state import Session, Steps, params, tab_entry, tab_number

#: read_page's and get_page_text's bound: the toolset's 50,000 characters.
MAX_TEXT = 50_000
#: A wheel notch, in CSS pixels (Chrome's).
NOTCH_PX = 100
#: scroll's notches when the model gives none (the toolset's default).
DEFAULT_NOTCHES = 3
#: tabpilot holds a key at most this long (browser_act's hold_ms).
MAX_HOLD_S = 10.0
#: The most key presses one key call makes.
MAX_PRESSES = 100
#: zoom enlarges its region to about this many pixels on its long side, at scale 1 to 8.
ZOOM_LONG_SIDE = 1024
#: Screenshot JPEG quality: legible small text at a fraction of PNG's bytes.
JPEG_QUALITY = 75

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


def navigate(s: Session, input: Any) -> Steps[BetaBrowserNavigateResult]:
    tab = yield from s.tab(input.tab_id)
    url = input.url.strip()
    if url in ("back", "forward", "reload"):
        given = {"action": url}
    else:
        # The toolset lets the model leave out the scheme, meaning https.
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url):
            url = f"https://{url}"
        given = {"url": url}
    result = yield from s.call("browser_navigate", {**given, "tab_id": tab})
    return BetaBrowserNavigateResult(
        url=str(result.get("url") or ""), status=result.get("status"), title=result.get("title")
    )


def list_tabs(s: Session, input: Any) -> Steps[list[BetaBrowserStateTabEntryParam]]:
    tabs = yield from s.open_tabs()
    return s.entries(tabs)


def new_tab(s: Session, input: Any) -> Steps[BetaBrowserStateTabEntryParam]:
    # Without a url browser_tabs opens the daemon's landing page, tabpilot's blank page.
    tab = yield from s.call("browser_tabs", {"action": "new"})
    ident = int(tab["id"])
    s.active = ident
    s.opened.add(ident)
    s.watched[ident] = str(tab.get("url") or "")
    return tab_entry(tab, True)


def switch_tab(s: Session, input: Any) -> Steps[BetaBrowserStateTabEntryParam]:
    ident = tab_number(input.tab_id)
    tab = yield from s.call("browser_tabs", {"action": "select", "tab_id": ident})
    s.active = ident
    s.watched.setdefault(ident, s.seen.get(ident))
    return tab_entry(tab, True)


def close_tab(s: Session, input: Any) -> Steps[None]:
    ident = tab_number(input.tab_id)
    yield from s.call("browser_tabs", {"action": "close", "tab_id": ident})
    s.watched.pop(ident, None)
    if s.active == ident:
        s.active = None  # the report takes the tab the browser shows in its place
    return None


def read_page(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call(
        "browser_snapshot",
        params(
            ref=input.ref,
            interactive_only=True if input.filter == "interactive" else None,
            max_chars=MAX_TEXT,
            tab_id=tab,
        ),
    )
    snapshot = str(result.get("snapshot") or "")
    if input.depth is not None:
        snapshot = within_depth(snapshot, input.depth)
    page = s.last_tab
    head = f'Page "{page.get("title") or ""}" {page.get("url") or ""}; refs such as [ref=e12]'
    return f"{head}\n{snapshot}"


def within_depth(snapshot: str, depth: int) -> str:
    """The snapshot's lines at most ``depth`` levels down (two spaces a level); the lines left
    out are counted."""
    kept, cut = [], 0
    for line in snapshot.split("\n"):
        level = (len(line) - len(line.lstrip(" "))) // 2
        if level <= depth:
            kept.append(line)
        else:
            cut += 1
    if cut:
        kept.append(f"[{cut} deeper lines left out: depth={depth}]")
    return "\n".join(kept)


def get_page_text(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call("browser_read", {"limit": MAX_TEXT, "tab_id": tab})
    text = str(result.get("text") or "")
    if result.get("more"):
        text += f"\n[the first {len(text):,} of {result.get('total'):,} characters]"
    return text


def find(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    query = finding.parse_query(input.query)
    found: list[list[dict[str, Any]]] = []
    regex = finding.words_regex((*query.words, *query.role_words))
    if regex is not None:
        result = yield from s.call(
            "browser_find", {"regex": regex, "limit": finding.FIND_LIMIT, "tab_id": tab}
        )
        found.append(result.get("matches") or [])
    for role in query.roles:
        result = yield from s.call(
            "browser_find", {"role": role, "limit": finding.FIND_LIMIT, "tab_id": tab}
        )
        found.append(result.get("matches") or [])
    return finding.answer(input.query, query, finding.rank(query, found))


def form_value(value: Any) -> str | bool:
    """The toolset's value as browser_fill_form takes it: a checkbox's boolean, else text."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def form_input(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    field = {"ref": input.target.ref, "value": form_value(input.value)}
    result = yield from s.call("browser_fill_form", {"fields": [field], "tab_id": tab})
    done = (result.get("fields") or [{}])[0]
    if not done.get("ok"):
        raise refuse(str(done.get("error") or f"{input.target.ref} was not set."))
    return f"{done.get('element') or input.target.ref} is {json.dumps(done.get('value'))}"


def file_upload(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    if input.document_ids:
        raise refuse(
            "tabpilot uploads files from its uploads folder only (TABPILOT_UPLOAD_DIR), not "
            "staged documents: give paths."
        )
    result = yield from s.call(
        "browser_upload", {"ref": input.target.ref, "paths": list(input.paths or []), "tab_id": tab}
    )
    return said(result)


#: scroll_to's script: the element to the middle of the viewport, as a person would scroll it.
SCROLL_INTO_VIEW = (
    "(el) => { el.scrollIntoView({block: 'center', inline: 'nearest'}); return true; }"
)


def scroll_to(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    yield from s.call(
        "execute_javascript", {"script": SCROLL_INTO_VIEW, "ref": input.target.ref, "tab_id": tab}
    )
    return None


def viewport(s: Session, tab: int) -> Steps[int | None]:
    """The viewport's long side in CSS pixels, None if the page would not say."""
    envelope = yield from s.attempt(
        "execute_javascript", {"script": "Math.max(innerWidth, innerHeight)", "tab_id": tab}
    )
    value = envelope.get("result") if envelope.get("success") else None
    return int(value) if isinstance(value, int | float) and value > 0 else None


def image(result: dict[str, Any]) -> BetaScreenshotResult:
    data = str(result.get("data") or "")
    if result.get("mime_type") == "image/png":
        return BetaScreenshotResult(data=data, media_type="image/png")
    return BetaScreenshotResult(data=data, media_type="image/jpeg")


def screenshot(s: Session, input: Any) -> Steps[BetaScreenshotResult]:
    tab = yield from s.tab(input.tab_id)
    # At scale 1 an image pixel is a CSS pixel: capping the long side at the viewport's undoes a
    # device pixel ratio above 1, so that coordinates read off the image are the viewport's.
    long_side = yield from viewport(s, tab)
    result = yield from s.call(
        "browser_take_screenshot",
        {"format": "jpeg", "quality": JPEG_QUALITY, "max_size": long_side or 0, "tab_id": tab},
    )
    return image(result)


def zoom(s: Session, input: Any) -> Steps[BetaScreenshotResult]:
    tab = yield from s.tab(input.tab_id)
    region = list(input.region)
    if len(region) != 4 or region[2] <= region[0] or region[3] <= region[1]:
        raise refuse("region is [x0, y0, x1, y1] in viewport pixels, with x1 > x0 and y1 > y0.")
    x0, y0, x1, y1 = region
    width, height = x1 - x0, y1 - y0
    scale = max(1.0, min(8.0, ZOOM_LONG_SIDE / max(width, height)))
    result = yield from s.call(
        "browser_take_screenshot",
        {
            "clip": {"x": x0, "y": y0, "width": width, "height": height},
            "scale": round(scale, 3),
            "format": "jpeg",
            "quality": JPEG_QUALITY,
            "tab_id": tab,
        },
    )
    return image(result)


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


def wait(s: Session, input: Any) -> Steps[str | None]:
    tab = yield from s.tab(input.tab_id)
    ms = round(max(0.0, min(30.0, input.duration)) * 1000)
    yield from s.call("browser_wait_for", {"time": ms, "timeout_ms": ms + 5000, "tab_id": tab})
    return None


def javascript_exec(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call("execute_javascript", {"script": input.text, "tab_id": tab})
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def read_console(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call(
        "browser_console_messages",
        {"since": s.console_since.get(tab, 0), "level": "debug", "limit": 1000, "tab_id": tab},
    )
    s.console_since[tab] = int(result.get("last_seq") or 0)
    lines = []
    for message in result.get("messages") or []:
        where = f" ({message['url']}:{message.get('line')})" if message.get("url") else ""
        lines.append(f"[{message.get('level')}] {message.get('text')}{where}")
    return "\n".join(lines) or "No console messages since the last read."


def read_network(s: Session, input: Any) -> Steps[str]:
    tab = yield from s.tab(input.tab_id)
    result = yield from s.call(
        "browser_network_requests",
        {
            "since": s.network_since.get(tab, 0),
            "include_static": True,
            "limit": 1000,
            "tab_id": tab,
        },
    )
    s.network_since[tab] = int(result.get("last_seq") or 0)
    lines = []
    for request in result.get("requests") or []:
        status = request.get("status") or request.get("failed") or "pending"
        timing = f" {request['duration']} ms" if request.get("duration") is not None else ""
        lines.append(
            f"{request.get('method')} {request.get('url')} {status} {request.get('type')}{timing}"
        )
    return "\n".join(lines) or "No requests since the last read."


#: Every member the driver serves, by its toolset name.
MEMBERS: dict[str, Callable[[Session, Any], Steps[Any]]] = {
    "navigate": navigate,
    "list_tabs": list_tabs,
    "new_tab": new_tab,
    "switch_tab": switch_tab,
    "close_tab": close_tab,
    "read_page": read_page,
    "get_page_text": get_page_text,
    "read_console": read_console,
    "read_network": read_network,
    "find": find,
    "form_input": form_input,
    "file_upload": file_upload,
    "scroll_to": scroll_to,
    "screenshot": screenshot,
    "zoom": zoom,
    **{name: clicker(*how) for name, how in CLICKS.items()},
    "hover": hover,
    "left_click_drag": left_click_drag,
    "left_mouse_down": pointer("down"),
    "left_mouse_up": pointer("up"),
    "mouse_move": pointer("move"),
    "scroll": scroll,
    "type": type_text,
    "key": key,
    "hold_key": hold_key,
    "wait": wait,
    "javascript_exec": javascript_exec,
}
