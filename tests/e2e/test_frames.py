"""Frames in the real browser: the snapshot includes each cross-origin frame's content with refs and
its origin, and every ref-taking tool acts in the frame that gave the ref out, and only there;
nested, sandboxed and failing frames; a person's Chrome and the managed browser."""

from __future__ import annotations

import base64
import io
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from tabpilot.tools.page import read_text
from tests.e2e.acting import call, js, ok, open_page, refused
from tests.e2e.harness import Daemon, set_popup_switch


@pytest.fixture
def tab(page: dict[str, Any]) -> int:
    tab_id: int = page["id"]
    return tab_id


def snap(daemon: Daemon, tab: int, **params: Any) -> str:
    text: str = ok(daemon, "browser_snapshot", tab_id=tab, **params)["snapshot"]
    return text


def under(text: str, heading: str) -> dict[str, str]:
    """The refs of the frame whose heading is `heading`: `role "name"` -> ref."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if f'heading "{heading}"' in line)
    indent = len(lines[start]) - len(lines[start].lstrip())
    found: dict[str, str] = {}
    for line in lines[start:]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        m = re.search(r'- (\w+)(?: "([^"]*)")?.*?\[ref=(e\d+)\]', line)
        if m:
            found.setdefault(f'{m[1]} "{m[2]}"' if m[2] else m[1], m[3])
    return found


def test_snapshot_shows_frames_with_refs_and_origin(
    daemon: Daemon, pages: str, second_origin: str, tab: int
) -> None:
    other = second_origin
    open_page(daemon, tab, f"{pages}/frames/two.html?o={other}")
    text = snap(daemon, tab)
    assert '- iframe "Frame A" [ref=' in text
    assert f"[origin={other}]:" in text
    a, b = under(text, "Frame a"), under(text, "Frame b")
    assert a['textbox "Name"'] != b['textbox "Name"']
    assert a['button "Hit"'] and b['button "Hit"']


def frame_text(browser: Any, path: list[int], element_id: str) -> str:
    """What an element of the frame at `path` (frame indexes from the top) shows (Selenium)."""
    browser.switch_to.default_content()
    try:
        for index in path:
            browser.switch_to.frame(index)
        text: str = browser.find_element("id", element_id).text
        return text
    finally:
        browser.switch_to.default_content()


def test_fill_form_fills_fields_in_several_frames_then_submits_in_its_own(
    daemon: Daemon, browser: Any, pages: str, second_origin: str, tab: int
) -> None:
    """A form split across frames (a payment provider's card fields each in an iframe): each
    frame's fields go to that frame, and the submit is clicked once all of them were filled."""
    open_page(daemon, tab, f"{pages}/frames/two.html?o={second_origin}")
    text = snap(daemon, tab)
    a, b, top = under(text, "Frame a"), under(text, "Frame b"), under(text, "Host page")
    missing = "e999999"
    refused = ok(
        daemon,
        "browser_fill_form",
        tab_id=tab,
        fields=[
            {"ref": a['textbox "Name"'], "value": "Ada"},
            {"ref": missing, "value": "x"},
            {"ref": b['textbox "Name"'], "value": "Grace"},
        ],
        submit=b['button "Send"'],
    )
    assert [f["ok"] for f in refused["fields"]] == [True, False, True], refused
    assert refused["fields"][1]["error"]["code"] == "ref_not_found"
    assert refused["submit"] == {
        "ref": b['button "Send"'],
        "clicked": False,
        "reason": "1 of 3 fields failed",
    }
    assert frame_text(browser, [1], "out") == "idle"
    filled = ok(
        daemon,
        "browser_fill_form",
        tab_id=tab,
        fields=[
            {"ref": a['textbox "Name"'], "value": "Ada"},
            {"ref": top['textbox "Name"'], "value": "Top"},
            {"ref": b['textbox "Name"'], "value": "Grace"},
        ],
        submit=b['button "Send"'],
    )
    assert [f["ok"] for f in filled["fields"]] == [True, True, True], filled
    assert [f["ref"] for f in filled["fields"]] == [
        a['textbox "Name"'],
        top['textbox "Name"'],
        b['textbox "Name"'],
    ]
    assert filled["submit"]["clicked"] is True, filled
    assert frame_text(browser, [1], "out") == "sent Grace"
    assert frame_text(browser, [0], "out") == "idle"
    values = "(el) => el.value"
    assert (
        ok(daemon, "execute_javascript", tab_id=tab, ref=a['textbox "Name"'], script=values)
        == "Ada"
    )
    assert (
        ok(daemon, "execute_javascript", tab_id=tab, ref=top['textbox "Name"'], script=values)
        == "Top"
    )


def test_act_clicks_and_types_in_the_frame_its_ref_came_from(
    daemon: Daemon, browser: Any, pages: str, second_origin: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/frames/two.html?o={second_origin}")
    text = snap(daemon, tab)
    a, b = under(text, "Frame a"), under(text, "Frame b")
    clicked = ok(daemon, "browser_act", tab_id=tab, kind="click", ref=b['button "Hit"'])
    assert clicked["description"].startswith('Clicked button "Hit"'), clicked
    assert clicked["url"] == f"{pages}/frames/two.html?o={second_origin}"
    assert frame_text(browser, [1], "out") == "hit untrusted"
    assert frame_text(browser, [0], "out") == "idle"
    ok(
        daemon,
        "browser_act",
        tab_id=tab,
        kind="type",
        ref=a['textbox "Name"'],
        text="Ada",
        submit=True,
    )
    assert frame_text(browser, [0], "out") == "sent Ada"
    assert frame_text(browser, [1], "out") == "hit untrusted"
    assert js(daemon, tab, "document.getElementById('name').value") == ""


def test_fill_form_read_execute_and_wait_for_in_a_frame(
    daemon: Daemon, browser: Any, pages: str, second_origin: str, tab: int
) -> None:
    other = second_origin
    open_page(daemon, tab, f"{pages}/frames/two.html?o={other}")
    b = under(snap(daemon, tab), "Frame b")
    filled = ok(
        daemon,
        "browser_fill_form",
        tab_id=tab,
        fields=[{"ref": b['textbox "Name"'], "value": "Grace"}],
        submit=b['button "Send"'],
    )
    assert filled["fields"][0]["ok"] is True, filled
    assert frame_text(browser, [1], "out") == "sent Grace"
    assert frame_text(browser, [0], "out") == "idle"
    read = ok(daemon, "browser_read", tab_id=tab, ref=b['button "Hit"'])
    assert read["text"] == "Hit"
    # A read of the page reads the top document and says what it left out; of an iframe's ref, the
    # frame's own document.
    whole = call(daemon, "browser_read", tab_id=tab)
    assert whole["result"]["unread_frames"] == 2
    note = "[2 frames of other origins not read: browser_read its iframe's ref]"
    assert read_text(whole).endswith(note)
    frame_b = ok(
        daemon,
        "browser_read",
        tab_id=tab,
        ref=under(snap(daemon, tab), "Host page")['iframe "Frame B"'],
    )
    assert frame_b["text"].startswith("Frame b\n") and "sent Grace" in frame_b["text"], frame_b
    ran = ok(
        daemon,
        "execute_javascript",
        tab_id=tab,
        ref=b['button "Hit"'],
        script="(el) => [location.origin, location.search, el.id]",
    )
    assert ran == [other, "?b", "hit"]
    ok(daemon, "browser_act", tab_id=tab, kind="click", ref=b['button "Later"'])
    text = snap(daemon, tab)
    assert "Arrived late" not in text
    waited = ok(daemon, "browser_wait_for", tab_id=tab, text="Arrived late", timeout_ms=5000)
    assert (waited["condition"], waited["already"]) == ("text", False), waited
    assert "Arrived late" in snap(daemon, tab)


def test_a_ref_never_acts_in_another_frame(
    daemon: Daemon, browser: Any, pages: str, second_origin: str, tab: int
) -> None:
    other = second_origin
    open_page(daemon, tab, f"{pages}/frames/two.html?o={other}")
    a = under(snap(daemon, tab), "Frame a")
    # Frame A goes elsewhere; frame B, with the same ids, stays: A's refs are stale, B untouched.
    js(daemon, tab, f"document.querySelector('iframe').src = '{other}/frames/form.html?a2'")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if "Frame a2" in snap(daemon, tab):
            break
        time.sleep(0.1)
    error = refused(
        daemon, "browser_act", 410, "stale_ref", tab_id=tab, kind="click", ref=a['button "Hit"']
    )
    assert "frame" in error["message"], error
    assert frame_text(browser, [1], "out") == "idle"
    assert frame_text(browser, [0], "out") == "idle"
    # A frame that is removed: its refs are stale too.
    b = under(snap(daemon, tab), "Frame b")
    js(daemon, tab, "document.querySelectorAll('iframe')[1].remove()")
    refused(daemon, "browser_read", 410, "stale_ref", tab_id=tab, ref=b['button "Hit"'])


def test_nested_sandboxed_and_failing_frames(
    daemon: Daemon, browser: Any, pages: str, second_origin: str, other_pages: int, tab: int
) -> None:
    other = second_origin
    open_page(daemon, tab, f"{pages}/frames/nested.html?o={other}")
    text = snap(daemon, tab)
    assert '- iframe "Middle" [ref=' in text and f"[origin={other}]:" in text
    assert '  - iframe "Inner" [ref=' in text and f"[origin={pages}]:" in text
    inner = under(text, "Frame inner")
    ok(daemon, "browser_act", tab_id=tab, kind="click", ref=inner['button "Hit"'])
    assert frame_text(browser, [0, 0], "out") == "hit untrusted"

    open_page(daemon, tab, f"{pages}/frames/sandboxed.html?o={other}")
    text = snap(daemon, tab)
    scripts = under(text, "Frame s")
    ok(daemon, "browser_act", tab_id=tab, kind="click", ref=scripts['button "Hit"'])
    assert frame_text(browser, [0], "out") == "hit untrusted"
    # Content scripts run in a frame sandboxed without scripts too: it is read, no script runs.
    quiet = under(text, "Frame")
    assert ok(daemon, "browser_read", tab_id=tab, ref=quiet['button "Send"'])["text"] == "Send"
    error = refused(
        daemon,
        "execute_javascript",
        409,
        "csp_blocked",
        tab_id=tab,
        ref=quiet['button "Send"'],
        script="(el) => el.id",
    )
    assert "sandboxed without allow-scripts" in error["message"], error

    open_page(daemon, tab, f"{pages}/frames/broken.html")
    text = snap(daemon, tab)
    assert "[unreachable: its page failed to load" in text

    # The same site on another port: another origin, in the same process.
    same_site = f"http://127.0.0.1:{other_pages}"
    open_page(daemon, tab, f"{pages}/frames/two.html?o={same_site}")
    text = snap(daemon, tab)
    assert f"[origin={same_site}]:" in text
    ok(
        daemon,
        "browser_act",
        tab_id=tab,
        kind="type",
        ref=under(text, "Frame b")['textbox "Name"'],
        text="x",
        submit=True,
    )
    assert frame_text(browser, [1], "out") == "sent x"


BLUE = (30, 144, 255)


def shot_of(daemon: Daemon, tab: int, ref: str) -> tuple[dict[str, Any], Any]:
    shot = ok(daemon, "browser_take_screenshot", tab_id=tab, ref=ref, format="png")
    image = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")
    return shot, image


def all_blue(image: Any) -> bool:
    w, h = image.size
    points = [(w // 2, h // 2), (2, 2), (w - 3, h - 3), (w - 3, 2), (2, h - 3)]
    near = [max(abs(a - b) for a, b in zip(image.getpixel(p), BLUE, strict=True)) for p in points]
    return max(near) < 24


def test_element_screenshot_of_an_element_in_a_frame_below_the_fold(
    daemon: Daemon, pages: str, second_origin: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/frames/tall.html?o={second_origin}")
    hit = under(snap(daemon, tab), "Frame low")['button "Hit"']
    shot, image = shot_of(daemon, tab, hit)
    assert shot["route"] == "capture_visible_tab"
    assert (
        abs(image.size[0] / shot["scale"] - 120) <= 2
        and abs(image.size[1] / shot["scale"] - 50) <= 2
    ), image.size
    assert all_blue(image)


@pytest.fixture(scope="module")
def managed_tab(managed: Daemon, pages: str) -> Iterator[int]:
    opened = ok(managed, "browser_tabs", action="new", url=f"{pages}/frames/form.html")
    try:
        yield opened["id"]
    finally:
        call(managed, "browser_tabs", action="close", tab_id=opened["id"])


def test_the_managed_browser_acts_in_frames_with_trusted_input(
    managed: Daemon, pages: str, second_origin: str, managed_tab: int
) -> None:
    tab = managed_tab
    other = second_origin
    open_page(managed, tab, f"{pages}/frames/tall.html?o={other}")
    text = snap(managed, tab)
    assert f"[origin={other}]:" in text
    low = under(text, "Frame low")
    frame_js = "(el) => document.getElementById('out').textContent"
    clicked = ok(
        managed, "browser_act", tab_id=tab, kind="click", ref=low['button "Hit"'], trusted=True
    )
    assert clicked["route"] == "debugger", clicked
    assert (
        ok(managed, "execute_javascript", tab_id=tab, ref=low['button "Hit"'], script=frame_js)
        == "hit trusted"
    )
    ok(
        managed,
        "browser_act",
        tab_id=tab,
        kind="type",
        ref=low['textbox "Name"'],
        text="Lin",
        submit=True,
        trusted=True,
    )
    assert (
        ok(managed, "execute_javascript", tab_id=tab, ref=low['button "Hit"'], script=frame_js)
        == "sent Lin"
    )
    assert js(managed, tab, "document.getElementById('name').value") == ""
    shot, image = shot_of(managed, tab, low['button "Hit"'])
    assert shot["route"] == "debugger"
    assert all_blue(image)


def _stop_worker(browser: Any, daemon: Daemon) -> None:
    """Stops the extension's service worker, as Chrome does when it idles: its memory is lost."""
    targets = browser.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]
    worker = next(
        t
        for t in targets
        if t["type"] == "service_worker" and t["url"].startswith("chrome-extension://")
    )
    browser.execute_cdp_cmd("Target.closeTarget", {"targetId": worker["targetId"]})
    time.sleep(0.5)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        body = call(daemon, "browser_tabs", action="list")
        if body.get("success"):
            return
        time.sleep(0.2)
    raise AssertionError("the worker did not come back")


def test_after_a_worker_restart_a_frame_ref_finds_its_frame(
    daemon: Daemon, browser: Any, pages: str, second_origin: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/frames/two.html?o={second_origin}")
    text = snap(daemon, tab)
    b = under(text, "Frame b")
    _stop_worker(browser, daemon)
    ok(daemon, "browser_act", tab_id=tab, kind="click", ref=b['button "Hit"'])
    assert frame_text(browser, [1], "out") == "hit untrusted"
    assert frame_text(browser, [0], "out") == "idle"


def test_with_the_debugger_switch_a_persons_chrome_clicks_into_a_cross_site_frame(
    daemon: Daemon, browser: Any, pages: str, second_origin: str, tab: int
) -> None:
    open_page(daemon, tab, f"{pages}/frames/two.html?o={second_origin}")
    b = under(snap(daemon, tab), "Frame b")
    set_popup_switch(browser, "debugger-toggle", True)
    try:
        clicked = ok(
            daemon, "browser_act", tab_id=tab, kind="click", ref=b['button "Hit"'], trusted=True
        )
    finally:
        set_popup_switch(browser, "debugger-toggle", False)
    assert clicked["route"] == "debugger", clicked
    assert frame_text(browser, [1], "out") == "hit trusted"
    assert frame_text(browser, [0], "out") == "idle"
