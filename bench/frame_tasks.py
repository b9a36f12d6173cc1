"""Whole tasks across frames and tabs, each done by a fixed script per server (as bench/tasks.py's):

- `frame_form`: fill and submit the payment form inside the checkout's cross-origin iframe, then
  read the confirmation the checkout itself shows (checked afterwards in the page: the values
  the checkout received from its frame);
- `new_tab`: click a link that opens the carrier's tracking page in a new tab, then read the
  tracking number, which only that page shows.

tabpilot's scripts act in a frame by the refs its snapshot gives the frame's controls, and follow
the tab a click opens with `browser_act`'s `follow`; the peers' scripts do what their tools lead
an agent to: Playwright MCP selects the new tab with `browser_tabs`, chrome-devtools-mcp shows it
in the click's answer. Each script closes the tab its run opened afterwards (`tidy_new_tab`, by
calls not counted), so that every run starts from the same tabs.
"""

from __future__ import annotations

import re
from typing import Any

from bench import frame_pages as fp
from bench.frames import named_ref
from bench.tasks import (
    DevtoolsScript,
    PlaywrightScript,
    Script,
    TabpilotScript,
    from_json,
    look_again,
)

#: Task key -> what the row says the task is.
TASKS = {
    "frame_form": "fill and submit a payment form inside a cross-origin iframe (another site), "
    "then read the confirmation the page around it shows",
    "new_tab": "click a link that opens a new tab, then read the tracking number on the page it "
    "opened",
}


def need_ref(text: str, role: str, name: str) -> str:
    """The ref of the `role` called `name` in a snapshot; raises if it has none."""
    ref = named_ref(text, role, name)
    if ref is None:
        raise LookupError(f"no {role} {name!r} with a ref in the snapshot")
    return ref


def _value(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _fields() -> list[tuple[str, str, object]]:
    """The payment form's fields as (role, label, value to fill)."""
    return [
        (fp.ROLES.get(field, "textbox"), label, fp.PAYMENT[field])
        for field, (label, _) in fp.PAY_FIELDS.items()
    ]


def paid(text: str) -> str | None:
    """The checkout's confirmation, wherever an answer shows it."""
    match = re.search(r"Payment accepted: [^,\n\"]+, card ending \d{4}", text)
    return match.group(0) if match else None


def tracking_number(text: str) -> str | None:
    """The tracking page's number, wherever an answer shows it."""
    match = re.search(r"Tracking number: ([A-Z]{2}[\d ]*\d)", text)
    return match.group(1) if match else None


#: A tab's line in each server's list of tabs, with its handle (tabpilot's tab id, Playwright
#: MCP's index, chrome-devtools-mcp's page id) and its url: `1825600480 (active): Title http://…`,
#: `- 1: (current) [Title](http://…)`, `2: Title (http://…) [selected]`.
_TAB_LINE = re.compile(r"^(?:- )?(\d+)(?: \(active\))?: .*?\(?(https?://[^\s)]+)\)?(?: \[\w+\])?$")


def tabs_showing(text: str, path: str) -> list[int]:
    """The handles of the tabs a list of tabs shows on `path`, in the list's order."""
    out = []
    for line in text.splitlines():
        match = _TAB_LINE.match(line.strip())
        if match and path in match.group(2):
            out.append(int(match.group(1)))
    return out


class TabpilotFrames(TabpilotScript):
    def frame_form(self) -> str:
        self.go(fp.FRAMES)
        snap = self.a.call("browser_snapshot", {"interactive_only": True})
        fields = [{"ref": need_ref(snap, role, label), "value": v} for role, label, v in _fields()]
        submit = need_ref(snap, "button", fp.PAY_BUTTON)
        self.a.call("browser_fill_form", {"fields": fields, "submit": submit})
        return look_again(lambda: self.a.call("browser_read", {}), paid)

    def new_tab(self) -> str:
        self.go(fp.OPENER)
        snap = self.a.call("browser_snapshot", {"interactive_only": True})
        ref = need_ref(snap, "link", fp.TRACK_LINK)
        self.a.call("browser_act", {"kind": "click", "ref": ref, "follow": True})
        return look_again(lambda: self.a.call("browser_read", {}), tracking_number)

    def tidy_new_tab(self) -> None:
        for tab in tabs_showing(self.a.session.call("browser_tabs", {}), fp.TRACKING):
            self.a.session.call("browser_tabs", {"action": "close", "tab_id": tab})


class PlaywrightFrames(PlaywrightScript):
    def frame_form(self) -> str:
        self.go(fp.FRAMES)
        snap = self.a.call("browser_snapshot", {})
        fields = [
            {"name": label, "type": role, "target": need_ref(snap, role, label), "value": _value(v)}
            for role, label, v in _fields()
        ]
        self.a.call("browser_fill_form", {"fields": fields})
        answer = self.click(f"{fp.PAY_BUTTON} button", need_ref(snap, "button", fp.PAY_BUTTON))
        return paid(answer) or look_again(lambda: self.a.call("browser_snapshot", {}), paid)

    def new_tab(self) -> str:
        self.go(fp.OPENER)
        snap = self.a.call("browser_snapshot", {})
        answer = self.click(f"{fp.TRACK_LINK} link", need_ref(snap, "link", fp.TRACK_LINK))
        opened = tabs_showing(answer, fp.TRACKING) or tabs_showing(
            self.a.call("browser_tabs", {"action": "list"}), fp.TRACKING
        )
        if not opened:
            raise LookupError("no tab shows the tracking page")
        self.a.call("browser_tabs", {"action": "select", "index": opened[-1]})
        return look_again(lambda: self.a.call("browser_snapshot", {}), tracking_number)

    def tidy_new_tab(self) -> None:
        listed = self.a.session.call("browser_tabs", {"action": "list"})
        for index in reversed(tabs_showing(listed, fp.TRACKING)):
            self.a.session.call("browser_tabs", {"action": "close", "index": index})
        self.a.session.call("browser_tabs", {"action": "select", "index": 0})


class DevtoolsFrames(DevtoolsScript):
    def frame_form(self) -> str:
        self.go(fp.FRAMES)
        snap = self.snapshot()
        elements = [
            {"uid": need_ref(snap, role, label), "value": _value(v)} for role, label, v in _fields()
        ]
        self.a.call("fill_form", self.args(elements=elements))
        uid = need_ref(snap, "button", fp.PAY_BUTTON)
        answer = self.a.call("click", self.args(uid=uid, includeSnapshot=True))
        return paid(answer) or look_again(self.snapshot, paid)

    def new_tab(self) -> str:
        self.go(fp.OPENER)
        uid = need_ref(self.snapshot(), "link", fp.TRACK_LINK)
        answer = self.a.call("click", self.args(uid=uid))
        found = tracking_number(answer)  # its answer shows the page the click opened
        if found is not None:
            return found
        opened = tabs_showing(answer, fp.TRACKING) or tabs_showing(
            self.a.call("list_pages", {}), fp.TRACKING
        )
        if not opened:
            raise LookupError("no page shows the tracking page")

        def read() -> str:
            return self.a.call("take_snapshot", {"pageId": opened[-1]})

        return look_again(read, tracking_number)

    def tidy_new_tab(self) -> None:
        for page in tabs_showing(self.a.session.call("list_pages", {}), fp.TRACKING):
            self.a.session.call("close_page", {"pageId": page})
        self.a.session.call("select_page", {"pageId": self.a.page, "bringToFront": True})


SCRIPTS: dict[str, type[Script]] = {
    "tabpilot": TabpilotFrames,
    "Playwright MCP": PlaywrightFrames,
    "chrome-devtools-mcp": DevtoolsFrames,
}


def _paid_check(answer: str, script: Any) -> tuple[bool, str]:
    payments = from_json(script.check(fp.PAYMENTS_JS))
    expected = fp.confirmation(fp.PAYMENT)
    if answer != expected:
        return False, f"answered {answer[:200]!r}; the page received {payments}"[:300]
    if payments != [fp.PAYMENT]:
        return False, f"the page received {payments}"[:300]
    return True, ""


def _tracked_check(answer: str, script: Any) -> tuple[bool, str]:
    ok = answer == fp.TRACKING_NUMBER
    return ok, "" if ok else f"answered {answer[:200]!r}"


#: Each task's check, by task.
CHECKS = {"frame_form": _paid_check, "new_tab": _tracked_check}
