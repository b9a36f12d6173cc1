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
from typing import Any

from tabpilot.errors import TabpilotError
from tabpilot.protocol import ResultFrame, TabInfo

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
    result's tabs (by command). A failure's are made so by :func:`outward_error`."""
    if not base:
        return frame
    update: dict[str, Any] = {}
    if frame.tab is not None:
        update["tab"] = TabInfo(id=frame.tab.id + base, url=frame.tab.url, title=frame.tab.title)
    update["result"] = _result(command, frame.result, base)
    return frame.model_copy(update=update)


def _result(command: str, result: Any, base: int) -> Any:
    if command in ("list_tabs", "browser_tabs") and isinstance(result, list):
        return [_tab(tab, base) for tab in result]
    if command == "browser_tabs" and isinstance(result, dict):
        out = _tab(result, base)
        if isinstance(out.get("closed"), int):
            out["closed"] += base
        if isinstance(out.get("opened"), dict):
            out["opened"] = _tab(out["opened"], base)
        return out
    if command == "storage_export" and isinstance(result, dict):
        pages = {key: result.get(key) for key in ("pages", "skipped")}
        return {
            **result,
            **{
                key: [_field(page, "tab_id", base) for page in value]
                for key, value in pages.items()
                if isinstance(value, list)
            },
        }
    if command == "browser_close" and isinstance(result, dict):
        closed = result.get("closed_tabs")
        if isinstance(closed, list):
            return {**result, "closed_tabs": [_id(t, base) for t in closed]}
    return result


def _tab(tab: Any, base: int) -> Any:
    return _field(tab, "id", base)


def _field(entry: Any, key: str, base: int) -> Any:
    if isinstance(entry, dict) and isinstance(entry.get(key), int):
        return {**entry, key: entry[key] + base}
    return entry


def _id(value: Any, base: int) -> Any:
    return value + base if isinstance(value, int) and not isinstance(value, bool) else value


def outward_error(error: TabpilotError, base: int) -> TabpilotError:
    """``error`` with the tab ids its message names made daemon-wide (in place)."""
    error.message = _IN_TEXT.sub(lambda m: f"{m[1]}{int(m[2]) + base}", error.message)
    error.args = (error.message,)
    return error
