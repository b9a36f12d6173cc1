"""tabpilot.claude in the real browser: every member of Claude's browser toolset, run as the tool
runner runs it (a hand-built ``tool_use`` block through the SDK's ``tool_result()``, so the SDK's
own pipeline, policies and checks apply), against the managed Chromium of ``tabpilot serve
--browser``; what each did is read back from the page.

One Browser for the module, in tabs of its own that it closes at the end; the pages are served
here, from 127.0.0.1 (and the same server as ``localhost``, which the url policy refuses).
"""

from __future__ import annotations

import asyncio
import base64
import io
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from anthropic.tools import BetaLocalFilePolicy, BetaURLContext, ToolError
from anthropic.types.beta import BetaToolUseBlock
from PIL import Image
from selenium import webdriver

from tabpilot.claude import AsyncBrowser, Browser
from tests.e2e.harness import Daemon, serving, serving_pages, set_pilot, wait_for

PAGE = """<!doctype html><title>Claude page</title>
<style>body { margin: 0; height: 3000px } #box { position: absolute; left: 40px; top: 60px;
width: 120px; height: 40px } #far { position: absolute; top: 2500px; left: 10px }</style>
<button id="box">Box</button>
<input id="fullname" aria-label="Full name"> <input id="agree" type="checkbox" aria-label="I agree">
<select id="color" aria-label="Color"><option>Red</option><option value="b">Blue</option></select>
<button id="save" onclick="document.title = confirm('Save all?') ? 'saved' : 'kept'">Save</button>
<a id="popup" href="/other.html" target="_blank">Open other</a>
<a id="report" href="/report.txt" download="report.txt">Download report</a>
<a id="away" href="AWAY">Leave</a> <a id="awaytab" href="AWAY" target="_blank">Leave in a tab</a>
<input id="file" type="file" aria-label="Attachment">
<button id="far">Far button</button>
<script>
window.events = [];
const note = (e) => events.push([e.type, e.target.id || e.target.tagName, e.detail || 0,
  e.button, e.key || "", e.repeat, e.ctrlKey || e.shiftKey, e.clientX, e.clientY]);
for (const type of ["click", "dblclick", "contextmenu", "auxclick", "mousedown", "mouseup",
  "keydown", "wheel", "mouseover"]) document.addEventListener(type, note, true);
addEventListener("mousemove", (e) => { window.moved = [e.clientX, e.clientY]; });
console.log("claude page ready");
fetch("/data.json");
</script>"""

OTHER = "<!doctype html><title>Other page</title><p>The other page</p>"

ids = itertools.count(1)


def use(name: str, **given: Any) -> BetaToolUseBlock:
    """A tool_use block as the API sends one for a member of the browser toolset."""
    return BetaToolUseBlock(
        id=f"toolu_{next(ids):04d}", type="tool_use", name=name, input=given, toolset_name="browser"
    )


def refuse_localhost(context: BetaURLContext, url: str) -> None:
    """The app's url policy: localhost is another site, off limits."""
    if "//localhost" in url or url.startswith("localhost"):
        raise ToolError(f"{url} is off limits")


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    pages = {"/other.html": OTHER, "/report.txt": "a report", "/data.json": "{}"}
    with serving_pages(pages) as base:
        pages["/claude.html"] = PAGE.replace("AWAY", base.replace("127.0.0.1", "localhost"))
        yield base


@pytest.fixture(scope="module")
def claude(managed: Daemon) -> Iterator[Browser]:
    driver = Browser(
        port=managed.port,
        url_policy=refuse_localhost,
        configs={
            name: {"enabled": True}
            for name in ("javascript_exec", "file_upload", "read_console", "read_network")
        },
        confirm=lambda context: True,
        file_policy=BetaLocalFilePolicy(upload_roots=[managed.state_dir / "uploads"]),
    )
    first = run(driver, "new_tab")
    # The tabs open before stay: other modules use them.
    before = {tab["tab_id"] for tab in state(first)["tabs"] if not tab["active"]}
    yield driver
    for tab in state(run(driver, "list_tabs"))["tabs"]:
        if tab["tab_id"] not in before:
            driver.client.tabs("close", tab_id=int(tab["tab_id"]))
    driver.close()


def run(driver: Browser, name: str, **given: Any) -> dict[str, Any]:
    """One member call as the tool runner makes it: the tool_result block."""
    result: dict[str, Any] = dict(driver.tool_result(use(name, **given)))
    assert result["toolset_name"] == "browser"
    return result


def ok(driver: Browser, name: str, **given: Any) -> dict[str, Any]:
    result = run(driver, name, **given)
    assert not result.get("is_error"), result["content"]
    return result


def texts(result: dict[str, Any]) -> list[str]:
    content = result["content"]
    return (
        [content]
        if isinstance(content, str)
        else [b["text"] for b in content if b["type"] == "text"]
    )


def state(result: dict[str, Any]) -> dict[str, Any]:
    """The browser_state block, checked against the API's rules: unique tab ids, one active."""
    blocks = [b for b in result["content"] if b["type"] == "browser_state"]
    assert len(blocks) == 1, result["content"]
    block: dict[str, Any] = blocks[0]
    tab_ids = [tab["tab_id"] for tab in block["tabs"]]
    assert len(set(tab_ids)) == len(tab_ids)
    assert [tab["active"] for tab in block["tabs"]].count(True) == 1
    return block


def active(result: dict[str, Any]) -> dict[str, Any]:
    tab: dict[str, Any] = next(t for t in state(result)["tabs"] if t["active"])
    return tab


def js(driver: Browser, result: dict[str, Any], script: str) -> Any:
    """What the page of the result's active tab says, read with execute_javascript."""
    return driver.client.execute(script, tab_id=int(active(result)["tab_id"]))


def fresh(driver: Browser, site: str) -> dict[str, Any]:
    result = ok(driver, "navigate", url=f"{site}/claude.html")
    assert texts(result) == [f"Navigated to {site}/claude.html \u2014 Claude page (HTTP 200)"]
    return result


def events(driver: Browser, result: dict[str, Any]) -> list[list[Any]]:
    found: list[list[Any]] = js(driver, result, "window.events.splice(0)")
    return found


def ref_of(driver: Browser, role_and_name: str) -> str:
    """The ref read_page gives the element: `button "Box"` → `e1`."""
    page = texts(ok(driver, "read_page"))[0]
    line = next(line for line in page.split("\n") if role_and_name in line)
    return line.split("[ref=")[1].split("]")[0]


def test_read_page_gives_refs_that_the_clicks_and_form_input_take(
    claude: Browser, site: str
) -> None:
    fresh(claude, site)
    page = texts(ok(claude, "read_page", filter="interactive"))[0]
    assert page.startswith(f'Page "Claude page" {site}/claude.html')
    assert 'button "Box" [ref=' in page and 'textbox "Full name" [ref=' in page
    box = ref_of(claude, 'button "Box"')
    result = ok(claude, "left_click", target={"type": "ref", "ref": box})
    assert texts(result)[:2] == ["Clicked.", f'Clicked button "Box" ({box})']
    assert [e[:3] for e in events(claude, result) if e[0] == "click"] == [["click", "box", 1]]

    for name, value in (('textbox "Full name"', "Ada Lovelace"), ('checkbox "I agree"', True)):
        ok(claude, "form_input", target={"type": "ref", "ref": ref_of(claude, name)}, value=value)
    ok(claude, "form_input", target={"type": "ref", "ref": ref_of(claude, "Color")}, value="Blue")
    assert js(claude, result, "[fullname.value, agree.checked, color.value]") == [
        "Ada Lovelace",
        True,
        "b",
    ]
    assert "\u2026" not in texts(ok(claude, "read_page", depth=0))[0].split("\n")[1]


def test_clicks_at_a_screenshots_pixels_land_on_what_it_shows(claude: Browser, site: str) -> None:
    result = fresh(claude, site)
    shot = ok(claude, "screenshot")
    picture = next(b for b in shot["content"] if b["type"] == "image")
    image = Image.open(io.BytesIO(base64.b64decode(picture["source"]["data"])))
    # Scale 1: an image pixel is a CSS pixel of the viewport.
    assert list(image.size) == js(claude, result, "[innerWidth, innerHeight]")
    # The box is at (40, 60), 120x40: its middle, read as a point of the image.
    for member, kind, button, detail in (
        ("left_click", "click", 0, 1),
        ("right_click", "contextmenu", 2, 1),
        ("middle_click", "auxclick", 1, 1),
        ("double_click", "dblclick", 0, 2),
        ("triple_click", "click", 0, 3),
    ):
        ok(claude, member, target={"type": "coordinate", "x": 100, "y": 80})
        seen = [e for e in events(claude, result) if e[0] == kind]
        assert seen[-1][1:4] == ["box", detail, button], (member, seen)
        assert seen[-1][7:] == [100, 80]
    ok(claude, "left_click", target={"type": "coordinate", "x": 100, "y": 80}, modifiers="shift")
    assert [e[6] for e in events(claude, result) if e[0] == "click"] == [True]
    # The same members by ref.
    box = {"type": "ref", "ref": ref_of(claude, 'button "Box"')}
    for member, kind, button, detail in (
        ("right_click", "contextmenu", 2, 1),
        ("double_click", "dblclick", 0, 2),
        ("triple_click", "click", 0, 3),
    ):
        ok(claude, member, target=box)
        seen = [e for e in events(claude, result) if e[0] == kind]
        assert seen[-1][1:4] == ["box", detail, button], (member, seen)
    events(claude, result)
    ok(claude, "hover", target=box)
    assert ["mouseover", "box"] in [e[:2] for e in events(claude, result)]

    # On a screen of two device pixels a CSS pixel, the image still has one pixel a CSS pixel.
    tab = int(active(result)["tab_id"])
    claude.client.emulate(device_scale_factor=2, tab_id=tab)
    try:
        assert js(claude, result, "devicePixelRatio") == 2
        shot = ok(claude, "screenshot")
        picture = next(b for b in shot["content"] if b["type"] == "image")
        image = Image.open(io.BytesIO(base64.b64decode(picture["source"]["data"])))
        assert list(image.size) == js(claude, result, "[innerWidth, innerHeight]")
    finally:
        claude.client.emulate(reset=True, tab_id=tab)

    zoomed = ok(claude, "zoom", region=[40, 60, 160, 100])
    picture = next(b for b in zoomed["content"] if b["type"] == "image")
    width, height = Image.open(io.BytesIO(base64.b64decode(picture["source"]["data"]))).size
    assert width > 120 * 4 and abs(width / height - 3) < 0.1  # enlarged, same shape


def test_the_mouse_moves_presses_drags_and_scrolls(claude: Browser, site: str) -> None:
    result = fresh(claude, site)
    ok(claude, "hover", target={"type": "coordinate", "x": 50, "y": 70})
    assert js(claude, result, "window.moved") == [50, 70]
    ok(claude, "mouse_move", target={"type": "coordinate", "x": 61, "y": 71})
    assert js(claude, result, "window.moved") == [61, 71]
    ok(claude, "left_mouse_down", target={"type": "coordinate", "x": 60, "y": 70})
    ok(claude, "left_mouse_up", target={"type": "coordinate", "x": 150, "y": 90})
    seen = [e for e in events(claude, result) if e[0] in ("mousedown", "mouseup")]
    assert [(e[0], e[7], e[8]) for e in seen] == [("mousedown", 60, 70), ("mouseup", 150, 90)]
    ok(
        claude,
        "left_click_drag",
        **{"from": {"type": "coordinate", "x": 45, "y": 65}},
        target={"type": "coordinate", "x": 300, "y": 200},
    )
    seen = [e for e in events(claude, result) if e[0] in ("mousedown", "mouseup")]
    assert [(e[0], e[7], e[8]) for e in seen] == [("mousedown", 45, 65), ("mouseup", 300, 200)]

    scrolled = ok(
        claude,
        "scroll",
        target={"type": "coordinate", "x": 300, "y": 300},
        scroll_direction="down",
        scroll_amount=2,
    )
    assert texts(scrolled)[0] == "Scrolled down."
    assert js(claude, result, "scrollY") == 200
    ok(claude, "scroll_to", target={"type": "ref", "ref": ref_of(claude, "Far button")})
    top = js(claude, result, "far.getBoundingClientRect().top")
    assert 0 <= top <= js(claude, result, "innerHeight")


def test_typing_keys_and_a_held_key(claude: Browser, site: str) -> None:
    result = fresh(claude, site)
    ok(claude, "left_click", target={"type": "ref", "ref": ref_of(claude, "Full name")})
    ok(claude, "type", text="Grace")
    assert js(claude, result, "fullname.value") == "Grace"
    pressed = ok(claude, "key", text="BackSpace", repeat=2)
    assert texts(pressed)[0] == "Pressed BackSpace."
    assert js(claude, result, "fullname.value") == "Gra"
    ok(claude, "key", text="ctrl+a Delete")
    assert js(claude, result, "fullname.value") == ""
    events(claude, result)
    started = time.monotonic()
    held = ok(claude, "hold_key", text="z", duration=0.7)
    assert texts(held)[0] == "Held z for 0.7s."
    assert time.monotonic() - started >= 0.7
    downs = [e for e in events(claude, result) if e[0] == "keydown"]
    # Held as a keyboard holds a key: it repeats after 500 ms, typing again each time.
    assert downs[0][4] == "z" and not downs[0][5] and any(e[5] for e in downs)
    assert js(claude, result, "fullname.value") == "z" * len(downs)
    refused = run(claude, "hold_key", text="a", duration=12)
    assert refused["is_error"] and "at most 10 s" in texts(refused)[0]


def test_wait_text_find_and_scripts(claude: Browser, site: str) -> None:
    fresh(claude, site)
    started = time.monotonic()
    assert texts(ok(claude, "wait", duration=0.5))[0] == "Waited 0.5s."
    assert time.monotonic() - started >= 0.5
    text = texts(ok(claude, "get_page_text"))[0]
    assert "Far button" in text and "Box" in text
    found = texts(ok(claude, "find", query="the full name field"))[0]
    lines = found.split("\n")
    assert lines[0].startswith('2 matches for "the full name field"'), found
    assert lines[1].startswith('- textbox "Full name" [ref=')
    found = texts(ok(claude, "find", query="download button"))[0].split("\n")
    assert found[1].startswith('- link "Download report"')  # the name, though not the role
    assert texts(ok(claude, "javascript_exec", text="document.title + '!'"))[0] == "Claude page!"
    assert texts(ok(claude, "javascript_exec", text="[1, {a: 2}]"))[0] == '[1, {"a": 2}]'
    wait_for(lambda: "claude page ready" in texts(run(claude, "read_console"))[0], 5, "log")
    assert texts(ok(claude, "read_console"))[0] == "No console messages since the last read."
    network = texts(ok(claude, "read_network"))[0]
    assert f"GET {site}/claude.html 200 document" in network
    assert f"GET {site}/data.json 200" in network


def test_tabs_opened_closed_and_switched(claude: Browser, site: str) -> None:
    home = active(fresh(claude, site))
    opened = ok(claude, "new_tab")
    new = active(opened)
    assert new["tab_id"] != home["tab_id"]
    assert {"type": "tab_opened", "tab_id": new["tab_id"]} in state(opened)["state_changes"]
    listed = state(ok(claude, "list_tabs"))["tabs"]
    assert [t["tab_id"] for t in listed if t["active"]] == [new["tab_id"]]
    switched = ok(claude, "switch_tab", tab_id=home["tab_id"])
    assert active(switched)["tab_id"] == home["tab_id"]
    closed = ok(claude, "close_tab", tab_id=new["tab_id"])
    assert new["tab_id"] not in [t["tab_id"] for t in state(closed)["tabs"]]
    assert active(closed)["tab_id"] == home["tab_id"]
    missing = run(claude, "switch_tab", tab_id="12345")
    assert missing["is_error"] and "not open" in texts(missing)[0]

    # A tab the page opens: reported, not followed.
    clicked = ok(claude, "left_click", target={"type": "ref", "ref": ref_of(claude, "Open other")})
    popup = [c for c in state(clicked).get("state_changes", []) if c["type"] == "tab_opened"]
    assert len(popup) == 1
    tabs = {t["tab_id"]: t for t in state(clicked)["tabs"]}
    assert tabs[popup[0]["tab_id"]]["url"] == f"{site}/other.html"
    assert active(clicked)["tab_id"] == home["tab_id"]
    ok(claude, "close_tab", tab_id=popup[0]["tab_id"])


def test_a_download_and_a_dismissed_dialog_are_in_the_state(claude: Browser, site: str) -> None:
    result = fresh(claude, site)
    clicked = ok(claude, "left_click", target={"type": "ref", "ref": ref_of(claude, "Download")})
    changes = state(clicked).get("state_changes", [])
    if not any(c["type"] == "download_completed" for c in changes):  # it finished after the act
        changes = state(ok(claude, "wait", duration=1)).get("state_changes", [])
    done = [c for c in changes if c["type"] == "download_completed"]
    assert len(done) == 1 and done[0]["url"] == site and done[0]["size_bytes"] == 8
    assert "path" not in done[0]  # the file policy does not show download paths

    saved = ok(claude, "left_click", target={"type": "ref", "ref": ref_of(claude, "Save")})
    assert 'A confirm dialog "Save all?" was dismissed.' in texts(saved)
    assert js(claude, result, "document.title") == "kept"


def test_the_url_policy_refuses_navigate_and_a_pages_own_navigation(
    claude: Browser, site: str
) -> None:
    fresh(claude, site)
    elsewhere = site.replace("127.0.0.1", "localhost")
    refused = run(claude, "navigate", url=f"{elsewhere}/other.html")
    assert refused["is_error"] and texts(refused) == [f"{elsewhere}/other.html is off limits"]
    clicked = ok(claude, "left_click", target={"type": "ref", "ref": ref_of(claude, "Leave")})
    assert "A navigation was refused." in texts(clicked)
    assert active(clicked)["url"] == f"{site}/claude.html"  # sent back where it was
    assert js(claude, clicked, "location.href") == f"{site}/claude.html"

    # A tab the page opens on a refused site is closed, and not reported as opened.
    before = {t["tab_id"] for t in state(clicked)["tabs"]}
    link = ref_of(claude, "Leave in a tab")
    popped = ok(claude, "left_click", target={"type": "ref", "ref": link})
    assert "A navigation was refused." in texts(popped)
    assert {t["tab_id"] for t in state(popped)["tabs"]} == before
    assert not [c for c in state(popped).get("state_changes", []) if c["type"] == "tab_opened"]


def test_navigate_goes_back_forward_and_reloads(claude: Browser, site: str) -> None:
    fresh(claude, site)
    ok(claude, "navigate", url=f"{site}/other.html")
    assert texts(ok(claude, "navigate", url="Back"))[0].startswith(
        f"Navigated to {site}/claude.html"
    )
    went = ok(claude, "navigate", url="forward")
    assert texts(went)[0] == f"Navigated to {site}/other.html \u2014 Other page (HTTP 200)"
    js(claude, went, "window.mark = 1")
    reloaded = ok(claude, "navigate", url="reload")
    assert js(claude, reloaded, "window.mark === undefined")


def test_file_upload_from_the_uploads_folder(claude: Browser, site: str, managed: Daemon) -> None:
    result = fresh(claude, site)
    uploads = managed.state_dir / "uploads"
    uploads.mkdir(exist_ok=True)
    (uploads / "cv.txt").write_text("my cv")
    attach = ref_of(claude, "Attachment")
    ok(
        claude,
        "file_upload",
        target={"type": "ref", "ref": attach},
        paths=[str(uploads / "cv.txt")],
    )
    assert js(claude, result, "file.files[0].name + ':' + file.files[0].size") == "cv.txt:5"
    outside = run(
        claude, "file_upload", target={"type": "ref", "ref": attach}, paths=["/etc/hosts"]
    )
    assert outside["is_error"]
    assert texts(outside)[0] == "file_upload path is outside the configured upload roots"


def test_async_browser_drives_the_same_members(managed: Daemon, site: str) -> None:
    async def drive() -> list[Any]:
        async with AsyncBrowser(port=managed.port, url_policy=refuse_localhost) as driver:
            opened = dict(await driver.tool_result(use("new_tab")))
            try:
                went = dict(await driver.tool_result(use("navigate", url=f"{site}/claude.html")))
                box = dict(await driver.tool_result(use("find", query="box button")))
                ref = texts(box)[0].split("[ref=")[1].split("]")[0]
                click = dict(
                    await driver.tool_result(use("left_click", target={"type": "ref", "ref": ref}))
                )
                clicks = await driver.client.execute(
                    "events.filter((e) => e[0] === 'click').length",
                    tab_id=int(active(opened)["tab_id"]),
                )
                return [texts(went)[0], texts(click)[1], clicks]
            finally:
                await driver.client.tabs("close", tab_id=int(active(opened)["tab_id"]))

    went, clicked, clicks = asyncio.run(drive())
    assert went == f"Navigated to {site}/claude.html \u2014 Claude page (HTTP 200)"
    assert clicked.startswith('Clicked button "Box"') and clicks == 1


def test_every_member_is_served(claude: Browser) -> None:
    from anthropic.types.beta import BETA_BROWSER_MEMBER_NAME_VALUES

    # Nothing is left disabled: the tools[] entry sends no configs but the app's own.
    assert claude.configs == {
        name: {"enabled": True}
        for name in ("javascript_exec", "file_upload", "read_console", "read_network")
    }
    assert len(BETA_BROWSER_MEMBER_NAME_VALUES) == 31


EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "claude_agent.py"


def message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    """A Messages API answer, as much of one as the SDK reads."""
    return {
        "id": f"msg_{next(ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": "claude-stub",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


@contextmanager
def stub_api(site: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A local stand-in for the Messages API: it asks for navigate, then get_page_text, then
    ends the turn quoting what the page text answered; yields its url and the requests."""
    requests: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            requests.append(body)
            turn = len(requests)
            if turn == 1:
                call = {"name": "navigate", "input": {"url": f"{site}/other.html"}}
            elif turn == 2:
                call = {"name": "get_page_text", "input": {}}
            if turn <= 2:
                block = {"type": "tool_use", "id": f"toolu_{turn}", "toolset_name": "browser"}
                answer = message([{**block, **call}], "tool_use")
            else:
                result = body["messages"][-1]["content"][0]
                said = next(b["text"] for b in result["content"] if b["type"] == "text")
                answer = message([{"type": "text", "text": f"The page says: {said}"}], "end_turn")
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with serving(Handler) as port:
        yield f"http://127.0.0.1:{port}", requests


def test_the_docs_example_runs_an_agent_against_a_stub_of_the_api(
    managed: Daemon, site: str
) -> None:
    with stub_api(site) as (url, requests):
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": "sk-ant-stub",
            "ANTHROPIC_BASE_URL": url,
            "TABPILOT_PORT": str(managed.port),
            "TABPILOT_STATE_DIR": str(managed.state_dir),
        }
        done = subprocess.run(
            [sys.executable, str(EXAMPLE), "What does the other page say?"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The page says: The other page"
    assert requests[0]["tools"] == [{"type": "browser_toolset_20260801"}]
    assert requests[0]["messages"][0]["content"] == "What does the other page say?"
    navigated = requests[1]["messages"][-1]["content"][0]
    assert navigated["toolset_name"] == "browser" and not navigated.get("is_error")
    assert navigated["content"][0]["text"].startswith(f"Navigated to {site}/other.html")
    assert [b["type"] for b in navigated["content"]] == ["text", "browser_state"]


def test_in_a_persons_chrome_it_acts_only_while_the_pilot_is_on(
    browser: webdriver.Chrome, daemon: Daemon, site: str
) -> None:
    with Browser(port=daemon.port) as driver:
        result = fresh(driver, site)
        box = ref_of(driver, 'button "Box"')
        clicked = ok(driver, "left_click", target={"type": "ref", "ref": box})
        assert texts(clicked)[1] == f'Clicked button "Box" ({box})'
        assert [e[0] for e in events(driver, result) if e[0] == "click"] == ["click"]
        set_pilot(browser, daemon, False)
        try:
            off = run(driver, "left_click", target={"type": "ref", "ref": box})
            assert off["is_error"] and texts(off)[0].startswith("pilot_disabled: ")
        finally:
            set_pilot(browser, daemon, True)
        assert [e[0] for e in events(driver, result) if e[0] == "click"] == []
