"""browser_take_screenshot in the real browser: the colours of the fixture pages' blocks must be
where the layout puts them, in the viewport, in an element's capture and in a full-page capture,
in the managed browser (the debugger's route) and in a person's Chrome (captureVisibleTab, and the
scroll-and-stitch route for a whole page).
"""

from __future__ import annotations

import asyncio
import base64
import io
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PIL import Image
from selenium import webdriver

from tabpilot import Client, ClientError
from tests.e2e.harness import Daemon, set_pilot
from tests.e2e.shot_pages import BAND, BAND_COLOURS, BLOCKS, FRAMED, HEADER, HEADER_COLOUR
from tests.mcp_support import open_mcp

Colour = tuple[int, int, int]

#: How far a JPEG's colour may stray from the page's.
JPEG_SLACK = 48


@pytest.fixture(params=["managed", "browser"])
def where(request: pytest.FixtureRequest, pages: str) -> Iterator[tuple[Daemon, int]]:
    """A daemon and a tab of its browser, on the blocks page: the managed browser's, or a person's
    Chrome (the `browser` fixture). The tab is closed afterwards."""
    if request.param == "managed":
        daemon: Daemon = request.getfixturevalue("managed")
    else:
        request.getfixturevalue("browser")
        daemon = request.getfixturevalue("daemon")
    opened = call(daemon, "browser_tabs", {"action": "new", "url": f"{pages}/shot/blocks.html"})
    tab = opened["id"]
    try:
        yield daemon, tab
    finally:
        daemon.post_json("/browser_tabs", {"action": "close", "tab_id": tab})


def call(daemon: Daemon, name: str, params: dict[str, Any]) -> Any:
    body = daemon.post_json(f"/{name}", params, timeout=60).json()
    assert body["success"], body
    return body["result"]


def shoot(daemon: Daemon, **params: Any) -> tuple[dict[str, Any], Image.Image]:
    shot = call(daemon, "browser_take_screenshot", params)
    data = base64.b64decode(shot["data"])
    assert shot["bytes"] == len(data)
    image = Image.open(io.BytesIO(data))
    assert image.format == {"image/png": "PNG", "image/jpeg": "JPEG"}[shot["mime_type"]]
    assert image.size == (shot["width"], shot["height"])
    return shot, image.convert("RGB")


def near(pixel: Any, colour: Colour, slack: int = JPEG_SLACK) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(pixel, colour, strict=True))


def view(daemon: Daemon, tab: int) -> dict[str, float]:
    metrics = "({w: document.documentElement.clientWidth, h: innerHeight, dpr: devicePixelRatio})"
    result: dict[str, float] = call(
        daemon, "execute_javascript", {"script": metrics, "tab_id": tab}
    )
    return result


def ref_of(daemon: Daemon, tab: int, label: str) -> str:
    outline = call(daemon, "browser_snapshot", {"tab_id": tab})["snapshot"]
    match = re.search(rf'"{label}" \[ref=(e\d+)\]', outline)
    assert match, outline
    return match.group(1)


def test_the_viewport_shows_each_block_where_the_layout_puts_it(
    where: tuple[Daemon, int],
) -> None:
    daemon, tab = where
    page = view(daemon, tab)
    shot, image = shoot(daemon, tab_id=tab, format="png", max_size=0)
    assert shot["captured"] == "the viewport" and shot["scale"] == 1
    assert shot["width"] >= page["w"] * page["dpr"]
    k = page["dpr"]
    for name, (left, top, width, height, colour) in BLOCKS.items():
        if top + height > page["h"]:
            continue  # below the fold
        centre = image.getpixel(((left + width // 2) * k, (top + height // 2) * k))
        assert centre == colour, (name, centre)
        # Just outside its top-left corner: the page's white.
        assert image.getpixel(((left - 3) * k, (top - 3) * k)) == (255, 255, 255), name


def test_jpeg_is_the_default_and_scaling_states_its_scale(where: tuple[Daemon, int]) -> None:
    daemon, tab = where
    page = view(daemon, tab)
    shot, image = shoot(daemon, tab_id=tab, max_size=300)
    assert shot["mime_type"] == "image/jpeg"
    assert max(shot["width"], shot["height"]) == 300
    k = shot["scale"] * page["dpr"]
    assert shot["scale"] < 1
    assert abs(shot["width"] - page["w"] * k) <= 20  # the width may hold a scrollbar
    left, top, width, height, colour = BLOCKS["green"]
    assert near(image.getpixel(((left + width / 2) * k, (top + height / 2) * k)), colour)
    png, exact = shoot(daemon, tab_id=tab, format="png", max_size=300)
    assert (png["width"], png["height"]) == (shot["width"], shot["height"])
    assert exact.getpixel(((left + width / 2) * k, (top + height / 2) * k)) == colour


@pytest.mark.parametrize("name", ["green", "yellow"])
def test_an_element_is_cropped_to_its_box(where: tuple[Daemon, int], name: str) -> None:
    daemon, tab = where
    ref = ref_of(daemon, tab, f"{name} block")
    page = view(daemon, tab)
    shot, image = shoot(daemon, tab_id=tab, ref=ref, format="png")
    _, _, width, height, colour = BLOCKS[name]
    assert shot["captured"] == f'element {ref} (button "{name} block")'
    assert abs(shot["width"] - width * page["dpr"]) <= 1
    assert abs(shot["height"] - height * page["dpr"]) <= 1
    # Every pixel of the crop is the block's: no white edge, nothing of its neighbours.
    assert image.getcolors() == [(shot["width"] * shot["height"], colour)]


def test_an_element_in_a_same_origin_frame_is_cropped_to_its_box(
    where: tuple[Daemon, int], pages: str
) -> None:
    daemon, tab = where
    call(daemon, "browser_navigate", {"url": f"{pages}/shot/frame.html", "tab_id": tab})
    ref = ref_of(daemon, tab, "framed block")
    dpr = view(daemon, tab)["dpr"]
    shot, image = shoot(daemon, tab_id=tab, ref=ref, format="png")
    _, _, width, height, colour = FRAMED
    assert (shot["width"], shot["height"]) == (round(width * dpr), round(height * dpr))
    assert image.getcolors() == [(shot["width"] * shot["height"], colour)]


def test_the_full_page_has_each_band_and_the_sticky_header_once(
    where: tuple[Daemon, int], pages: str
) -> None:
    daemon, tab = where
    call(daemon, "browser_navigate", {"url": f"{pages}/shot/tall.html", "tab_id": tab})
    # Scrolled down first: the capture starts at the top all the same, and scrolls back.
    call(daemon, "execute_javascript", {"script": "scrollTo(0, 700); scrollY", "tab_id": tab})
    shot, image = shoot(daemon, tab_id=tab, full_page=True, format="png")
    total = HEADER + BAND * len(BAND_COLOURS)
    assert shot["captured"] == "the full page"
    k = shot["height"] / total
    assert abs(k - shot["scale"] * view(daemon, tab)["dpr"]) < 0.01
    for i, colour in enumerate(BAND_COLOURS):
        centre = image.getpixel((10, (HEADER + BAND * i + BAND / 2) * k))
        assert near(centre, colour, 8), (i, centre)
    header_rows = [y for y in range(shot["height"]) if image.getpixel((10, y)) == HEADER_COLOUR]
    assert header_rows == list(range(len(header_rows)))  # once, at the top
    assert abs(len(header_rows) - HEADER * k) <= 2
    assert call(daemon, "execute_javascript", {"script": "scrollY", "tab_id": tab}) == 700


def test_a_stale_ref_answers_stale_ref(where: tuple[Daemon, int]) -> None:
    daemon, tab = where
    ref = ref_of(daemon, tab, "green block")
    call(daemon, "browser_navigate", {"action": "reload", "tab_id": tab})
    response = daemon.post_json("/browser_take_screenshot", {"tab_id": tab, "ref": ref})
    assert response.status_code == 410
    assert response.json()["error"]["code"] == "stale_ref"
    both = daemon.post_json("/browser_take_screenshot", {"ref": ref, "full_page": True})
    assert both.status_code == 400 and both.json()["error"]["code"] == "invalid_request"


def test_http_answers_raw_bytes_to_accept_and_mcp_an_image_block(
    where: tuple[Daemon, int],
) -> None:
    daemon, tab = where
    raw = httpx.post(
        f"{daemon.url}/browser_take_screenshot",
        json={"tab_id": tab},
        headers={"Accept": "image/png"},
        timeout=60,
    )
    assert raw.status_code == 200 and raw.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(raw.content))
    assert image.format == "PNG"
    assert image.size == (int(raw.headers["x-image-width"]), int(raw.headers["x-image-height"]))

    async def mcp() -> Any:
        async with open_mcp("http", daemon.port) as client:
            return await client.call_tool("browser_take_screenshot", {"tab_id": tab})

    answer = asyncio.run(mcp())
    assert not answer.is_error
    text, picture = answer.content
    assert text.type == "text" and text.text.startswith("Screenshot of the viewport: ")
    assert picture.type == "image" and picture.mime_type == "image/jpeg"
    assert Image.open(io.BytesIO(base64.b64decode(picture.data))).format == "JPEG"
    assert answer.structured_content is None  # the image is sent once, the line is all else

    with Client(daemon.port) as client:
        assert client.screenshot(tab_id=tab, format="png").startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize("browser_kind", ["managed", "browser"])
def test_a_background_tab_is_captured_and_the_active_tab_kept(
    request: pytest.FixtureRequest, browser_kind: str, pages: str
) -> None:
    if browser_kind == "managed":
        daemon: Daemon = request.getfixturevalue("managed")
    else:
        request.getfixturevalue("browser")
        daemon = request.getfixturevalue("daemon")
    front = call(daemon, "browser_tabs", {"action": "new", "url": f"{pages}/index.html"})["id"]
    back = call(daemon, "browser_tabs", {"action": "new", "url": f"{pages}/shot/blocks.html"})
    call(daemon, "browser_tabs", {"action": "select", "tab_id": front})
    try:
        _, image = shoot(daemon, tab_id=back["id"], format="png", max_size=0)
        left, top, width, height, colour = BLOCKS["red"]
        dpr = view(daemon, back["id"])["dpr"]
        assert image.getpixel(((left + width // 2) * dpr, (top + height // 2) * dpr)) == colour
        active = [t["id"] for t in daemon.get("/tabs").json()["result"] if t["active"]]
        assert active == [front]
    finally:
        for tab in (front, back["id"]):
            daemon.post_json("/browser_tabs", {"action": "close", "tab_id": tab})


def test_the_pilot_off_refuses_a_screenshot(
    browser: webdriver.Chrome, daemon: Daemon, page: dict[str, Any]
) -> None:
    set_pilot(browser, daemon, False)
    try:
        with Client(daemon.port) as client, pytest.raises(ClientError) as refused:
            client.screenshot()
        assert refused.value.code == "pilot_disabled"
    finally:
        set_pilot(browser, daemon, True)


def test_a_page_past_the_cap_is_captured_to_it_with_a_note(managed: Daemon, pages: str) -> None:
    tab = call(managed, "browser_tabs", {"action": "new", "url": f"{pages}/shot/huge.html"})["id"]
    try:
        shot, image = shoot(managed, tab_id=tab, full_page=True)
        assert shot["captured"] == "the top 16384 px of the page"
        assert "20000 px tall; only its top 16384 px" in shot["note"]
        assert max(shot["width"], shot["height"]) == 1568
        # The gradient runs white to black over 20,000 px: the last row is 16384/20000 down. Each
        # row in between shows its own place: the capture's parts are where they belong.
        rows = [shot["height"] * i // 16 for i in range(16)] + [shot["height"] - 1]
        for row in rows:
            grey = image.getpixel((5, row))[0]
            expected = 255 * (1 - (row + 0.5) / shot["height"] * 16384 / 20000)
            assert abs(grey - expected) < 20, (row, grey, round(expected))
    finally:
        managed.post_json("/browser_tabs", {"action": "close", "tab_id": tab})
