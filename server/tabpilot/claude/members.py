"""Each member of ``browser_toolset_20260801`` as steps of tabpilot's tools (docs/claude.md has
the table). A member takes the session and the SDK's parsed input, and returns what the SDK
renders: a string the model reads after the SDK's acknowledgment (``Clicked.``), a text, a
navigation, a screenshot, or tab entries. The members live by concern: the page
(:mod:`tabpilot.claude.page`), the hands (:mod:`tabpilot.claude.hands`) and the eyes
(:mod:`tabpilot.claude.sight`).

Refs are tabpilot's snapshot refs (``e12``): read_page and find give them, and every member that
takes a ref target passes it to the tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabpilot.claude.hands import (
    CLICKS,
    clicker,
    hold_key,
    hover,
    key,
    left_click_drag,
    pointer,
    scroll,
    type_text,
)
from tabpilot.claude.page import (
    close_tab,
    file_upload,
    find,
    form_input,
    get_page_text,
    javascript_exec,
    list_tabs,
    navigate,
    new_tab,
    read_console,
    read_network,
    read_page,
    scroll_to,
    switch_tab,
    wait,
)
from tabpilot.claude.sight import screenshot, zoom
from tabpilot.claude.state import Session, Steps

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
