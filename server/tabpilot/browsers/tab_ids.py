"""Tab ids that carry their context, so that no id names two tabs on one daemon.

Each browser numbers its own tabs, with no regard for the others, so two contexts can hand out
the same id. Chrome's ids are positive 32-bit integers. The daemon gives each context a slot: the
default context's is 0, each other context's the next number. A tab's id on every face is
``slot * TAB_SPAN + <Chrome's id>`` with ``TAB_SPAN = 2**31``: the default context's tabs keep
Chrome's own ids (1884229019), the first other context's read 2**31 more (4031712667). Every id
stays an integer, well within JSON's exact range. The bridge of a context turns ids into Chrome's
on the way to its extension and back on the way out (:func:`inward`, :func:`outward`), and a call
with a ``tab_id`` goes to the context that tab belongs to (:func:`slot_of`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tabpilot.errors import TabpilotError
from tabpilot.protocol import ResultFrame, TabInfo
from tabpilot.tools import TOOLS
from tabpilot.tools.fields import shifted

#: Above every id Chrome gives a tab (a positive int32).
TAB_SPAN = 2**31

# "tab 7", "Tab 7", "tab_id 7", "tab with id 7": how the extension's messages name a tab.
_IN_TEXT = re.compile(r"\b([Tt]ab(?:_id)?[ =]|[Tt]ab with id )(\d+)\b")


def slot_of(tab_id: int) -> int:
    """The slot of the context a tab id belongs to."""
    return tab_id // TAB_SPAN


def inward(params: dict[str, Any], base: int) -> dict[str, Any]:
    """``params`` with its ``tab_id`` as the context's browser knows it."""
    tab_id = params.get("tab_id")
    if not base or not isinstance(tab_id, int) or isinstance(tab_id, bool):
        return params
    return {**params, "tab_id": tab_id - base}


def outward(command: str, frame: ResultFrame, base: int) -> ResultFrame:
    """An ok ``frame`` with every tab id its browser gave made daemon-wide: its tab and its
    result's tabs (a tool's own ``tab_ids``, or the daemon's own commands' below). A failure's
    are made so by :func:`outward_error`."""
    if not base:
        return frame
    update: dict[str, Any] = {}
    if frame.tab is not None:
        update["tab"] = TabInfo(id=frame.tab.id + base, url=frame.tab.url, title=frame.tab.title)
    tool = TOOLS.get(command)
    rewrite = tool.tab_ids if tool is not None else _OWN.get(command)
    if rewrite is not None:
        update["result"] = rewrite(frame.result, base)
    if frame.opened:  # the tabs a script opened
        update["opened"] = [shifted(tab, "id", base) for tab in frame.opened]
    return frame.model_copy(update=update)


def _listed(result: Any, base: int) -> Any:
    """list_tabs: each tab's id."""
    return [shifted(tab, "id", base) for tab in result] if isinstance(result, list) else result


def _exported(result: Any, base: int) -> Any:
    """storage_export: the tab of each page saved or skipped."""
    if not isinstance(result, dict):
        return result
    pages = {key: result.get(key) for key in ("pages", "skipped")}
    return {
        **result,
        **{
            key: [shifted(page, "tab_id", base) for page in value]
            for key, value in pages.items()
            if isinstance(value, list)
        },
    }


#: The daemon's own commands whose results name tabs.
_OWN: dict[str, Callable[[Any, int], Any]] = {"list_tabs": _listed, "storage_export": _exported}


def outward_error(error: TabpilotError, base: int) -> TabpilotError:
    """``error`` with the tab ids its message names made daemon-wide (in place)."""
    error.message = _IN_TEXT.sub(lambda m: f"{m[1]}{int(m[2]) + base}", error.message)
    error.args = (error.message,)
    return error
