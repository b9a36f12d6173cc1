"""Helpers for the end-to-end tests of the tools that act on a page: call a tool over HTTP, read
refs out of a snapshot, run a check in the page, look at the tab groups from an extension page."""

from __future__ import annotations

import json
import re
from typing import Any

from selenium import webdriver

from tests.e2e.harness import POPUP_URL, Daemon

# `- button "Add to cart" [ref=e12]`, with attributes such as [checked] in between.
_REF_LINE = re.compile(r'^\s*- (\w+)(?: "((?:[^"\\]|\\.)*)")?.*?\[ref=(e\d+)\]', re.MULTILINE)


def call(daemon: Daemon, tool: str, timeout: float = 60, **params: Any) -> dict[str, Any]:
    """POST /<tool> with params as the body; the envelope, whatever the status."""
    response = daemon.post_json(f"/{tool}", params, timeout)
    body: dict[str, Any] = response.json()
    body["status"] = response.status_code
    return body


def ok(daemon: Daemon, tool: str, **params: Any) -> dict[str, Any]:
    """The result of a call that must succeed."""
    body = call(daemon, tool, **params)
    assert body["status"] == 200 and body["success"], body
    result: dict[str, Any] = body["result"]
    return result


def refused(daemon: Daemon, tool: str, status: int, code: str, **params: Any) -> dict[str, Any]:
    """The error of a call that must fail with this HTTP status and code."""
    body = call(daemon, tool, **params)
    assert (body["status"], body["success"], body["error"]["code"]) == (status, False, code), body
    error: dict[str, Any] = body["error"]
    return error


def open_page(daemon: Daemon, tab: int, url: str) -> None:
    """Load url in the tab through browser_navigate."""
    result = ok(daemon, "browser_navigate", url=url, tab_id=tab)
    assert result["url"] == url, result


def refs(daemon: Daemon, tab: int) -> dict[str, str]:
    """Each `role "name"` of a snapshot of the tab, with its ref (the first, where names repeat)."""
    text = ok(daemon, "browser_snapshot", tab_id=tab)["snapshot"]
    found: dict[str, str] = {}
    for role, name, ref in _REF_LINE.findall(text):
        key = f'{role} "{name}"' if name else role
        found.setdefault(key, ref)
    return found


def ref(daemon: Daemon, tab: int, what: str) -> str:
    """The ref of the element a snapshot calls `what` (`button "Sign up"`)."""
    found = refs(daemon, tab)
    assert what in found, f"{what} not in the snapshot's refs: {sorted(found)}"
    return found[what]


def js(daemon: Daemon, tab: int, script: str) -> Any:
    """What a script returns in the tab's page."""
    body = daemon.execute(script, tab_id=tab).json()
    assert body["success"], body
    return body["result"]


def in_extension(driver: webdriver.Chrome, script: str, *args: Any) -> Any:
    """Run an async script in an extension page (`done` is its last argument), then go back."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(POPUP_URL)
        return driver.execute_async_script(
            f"const done = arguments[arguments.length - 1]; const args = {json.dumps(args)};"
            f"(async () => {{ {script} }})().then(done, (e) => done('error: ' + e.message));"
        )
    finally:
        driver.close()
        driver.switch_to.window(previous)


def tabpilot_group(driver: webdriver.Chrome) -> list[int]:
    """The ids of the tabs in the tab group titled "tabpilot" (none if there is no such group)."""
    ids: list[int] = in_extension(
        driver,
        "const groups = await chrome.tabGroups.query({ title: 'tabpilot' });"
        "const tabs = await Promise.all(groups.map((g) => chrome.tabs.query({ groupId: g.id })));"
        "return tabs.flat().map((t) => t.id);",
    )
    return ids
