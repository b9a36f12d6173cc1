"""browser_tabs: list, open, select or close the browser's tabs."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from tabpilot.tools.fields import Params, result_of, shifted, web_url
from tabpilot.tools.tool import ClientFace, CliFace, GuardRule, Tool, describe

#: browser_tabs is a quick chrome.tabs call (bridge.LIST_TABS_TIMEOUT_S)…
TABS_TIMEOUT_S = 5.0
#: …but `new` answers once its page has loaded, as browser_navigate waits (its default 30 s),
#: with time to open the tab and put it in the AI's group first.
NEW_TAB_TIMEOUT_S = 32.0


def tabs_timeout(params: Any) -> float:
    return NEW_TAB_TIMEOUT_S if params.action == "new" else TABS_TIMEOUT_S


class TabsParams(Params):
    """List, open, select or close tabs: the body of ``POST /browser_tabs``."""

    example: ClassVar[str] = '{"action": "new", "url": "https://example.com/"}'

    action: Literal["list", "new", "select", "close"] = Field(
        default="list",
        description="`new` opens `url` in a new active tab, once it has loaded.",
    )
    url: str | None = Field(default=None, max_length=8192, description="For `new`: an http(s) url.")
    tab_id: int | None = Field(
        default=None,
        description="For `select` and `close`: the tab. `close` without it closes the active tab "
        "if the AI opened it.",
    )

    @field_validator("url")
    @classmethod
    def _web_url(cls, url: str | None) -> str | None:
        return web_url(url, "a new tab opens")

    @model_validator(mode="after")
    def _needs_what_it_acts_on(self) -> TabsParams:
        # `close` without a tab_id is the extension's to judge: it closes the active tab only
        # if the AI opened it.
        if self.action == "select" and self.tab_id is None:
            raise ValueError("`select` needs `tab_id`; the `list` action lists the tabs")
        if self.url is not None and self.action != "new":
            raise ValueError("`url` goes with the `new` action only")
        return self


def tabs_text(envelope: dict[str, Any]) -> str:
    """A list of tabs, one per line: `id (active) (from opener): title url`; a tab an
    action opened that closed since: `id closed (from opener): title url, ended on url`."""
    tabs = envelope.get("result") or []
    if not tabs:
        return "No tabs are open."
    lines = []
    for tab in tabs:
        mark = " (active)" if tab.get("active") else ""
        mark += " closed" if tab.get("closed") else ""
        mark += f" (from {tab['opener']})" if tab.get("opener") is not None else ""
        line = f"{tab.get('id')}{mark}: {tab.get('title') or '(untitled)'} {tab.get('url')}"
        if tab.get("closed"):
            line += f", ended on {tab.get('ended_url') or tab.get('url')}"
        lines.append(line)
    return "\n".join(lines)


def browser_tabs_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_tabs: the list, the tab opened or selected, or the tab closed."""
    result = envelope.get("result")
    if isinstance(result, list):
        return tabs_text(envelope)
    if isinstance(result, dict) and "closed" in result:
        opened = result.get("opened")
        extra = f"; opened {opened.get('id')}: {opened.get('url')}" if opened else ""
        return f"Closed tab {result['closed']}{extra}."
    tab = result_of(envelope)
    return f"{tab.get('id')} (active): {tab.get('title') or '(untitled)'} {tab.get('url')}"


def opened_note(tab: dict[str, Any]) -> str:
    """`; opened tab 1234: "Checkout"`, with the url while it has no title; said of a popup
    window, of a tab that closed itself (where it ended) and of the tab followed."""
    where = " in a popup window" if tab.get("popup") else ""
    text = f"; opened tab {tab.get('id')}{where}"
    if tab.get("closed"):
        return text + f", which closed itself on {tab.get('ended_url') or tab.get('url')}"
    text += f": {json.dumps(tab['title'], ensure_ascii=False)}" if tab.get("title") else ""
    text += f" ({tab.get('url')})" if not tab.get("title") and tab.get("url") else ""
    return text + (", now the active tab" if tab.get("followed") else "")


def opened_ids(result: Any, base: int) -> Any:
    """The ids of the tabs an action opened, daemon-wide (browser_act, browser_fill_form)."""
    if isinstance(result, dict) and isinstance(result.get("opened"), list):
        return {**result, "opened": [shifted(tab, "id", base) for tab in result["opened"]]}
    return result


def tabs_ids(result: Any, base: int) -> Any:
    """The ids of a list of tabs, of a tab opened or selected, or of a tab closed, daemon-wide."""
    if isinstance(result, list):
        return [shifted(shifted(tab, "id", base), "opener", base) for tab in result]
    if not isinstance(result, dict):
        return result
    out = shifted(result, "id", base)
    if isinstance(out.get("closed"), int):
        out["closed"] += base
    if isinstance(out.get("opened"), dict):
        out["opened"] = shifted(out["opened"], "id", base)
    return out


TABS = Tool(
    name="browser_tabs",
    params=TabsParams,
    title="Open, select or close the browser's tabs",
    description=describe(
        """
        List, open (`new`), select or close tabs; the tools act in the active tab by
        default. E.g. {"action": "list"} → 7 (active): A https://a.test/
        """
    ),
    timeout_s=tabs_timeout,
    text=browser_tabs_text,
    read_only=False,
    client=ClientFace(
        "tabs",
        doc="List the tabs, or open, select or close one.",
        positional=("action",),
    ),
    cli=CliFace("tabs", hand_written=True),
    tab_ids=tabs_ids,
    guard=GuardRule(limit=8_000, advice="Pass a tab's id as `tab_id` to the other tools."),
)

TOOLS = (TABS,)
