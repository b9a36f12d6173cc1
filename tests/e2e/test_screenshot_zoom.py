"""browser_take_screenshot's zoom in the real browser: a `clip` of the viewport and a `scale`,
checked by the image's size in pixels and by the colours of the blocks page where the clip puts
them, in the managed browser (the debugger draws the region anew at the zoom) and in a person's
Chrome (captureVisibleTab's pixels, cropped and enlarged on a canvas); the refusals; and the caps
at 16,384 px of an element and of a page.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from tests.e2e.harness import Daemon
from tests.e2e.shot_pages import BLOCKS
from tests.e2e.test_screenshot import call, near, ref_of, shoot, view, where

__all__ = ["where"]  # the fixture: a daemon and a tab on the blocks page, in either browser

WHITE = (255, 255, 255)


def size_ok(shot: dict[str, Any], width: float, height: float) -> bool:
    return abs(shot["width"] - width) <= 1 and abs(shot["height"] - height) <= 1


def refused(daemon: Daemon, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = daemon.post_json("/browser_take_screenshot", params, timeout=60)
    body = response.json()
    assert not body["success"], body
    return response.status_code, body["error"]


def test_a_clip_inside_a_block_at_scale_2_is_that_block_twice_as_large(
    where: tuple[Daemon, int],
) -> None:
    daemon, tab = where
    dpr = view(daemon, tab)["dpr"]
    left, top, _, _, colour = BLOCKS["green"]
    clip = {"x": left + 20, "y": top + 20, "width": 60, "height": 40}
    shot, image = shoot(daemon, tab_id=tab, clip=clip, scale=2, format="png", max_size=0)
    assert shot["clip"] == clip
    assert shot["captured"] == f"the viewport region x={left + 20} y={top + 20} 60x40"
    assert shot["scale"] == 2
    assert size_ok(shot, 60 * 2 * dpr, 40 * 2 * dpr), shot
    assert image.getcolors() == [(shot["width"] * shot["height"], colour)]


def test_a_clip_across_an_edge_shows_each_side_where_it_is(where: tuple[Daemon, int]) -> None:
    daemon, tab = where
    dpr = view(daemon, tab)["dpr"]
    # The red block spans x 20-220, y 20-120: the clip holds its right end and the white past it.
    clip = {"x": 120, "y": 0, "width": 200, "height": 60}
    shot, image = shoot(daemon, tab_id=tab, clip=clip, scale=3, format="jpeg", max_size=0)
    assert shot["mime_type"] == "image/jpeg"
    assert size_ok(shot, 200 * 3 * dpr, 60 * 3 * dpr), shot
    k = 3 * dpr  # image pixels per CSS pixel of the clip
    red = BLOCKS["red"][4]
    assert near(image.getpixel((50 * k, 40 * k)), red)  # inside the block
    assert near(image.getpixel((150 * k, 40 * k)), WHITE)  # right of it
    assert near(image.getpixel((50 * k, 10 * k)), WHITE)  # above it
    assert near(image.getpixel((95 * k, 25 * k)), red)
    assert near(image.getpixel((105 * k, 25 * k)), WHITE)


def test_scale_alone_zooms_the_viewport_and_max_size_still_caps_it(
    where: tuple[Daemon, int],
) -> None:
    daemon, tab = where
    page = view(daemon, tab)
    shot, image = shoot(daemon, tab_id=tab, scale=2, format="png", max_size=0)
    assert shot["captured"] == "the viewport" and shot["scale"] == 2
    assert size_ok(shot, page["w"] * 2 * page["dpr"], page["h"] * 2 * page["dpr"]), (shot, page)
    left, top, width, height, colour = BLOCKS["blue"]
    k = 2 * page["dpr"]
    assert image.getpixel(((left + width / 2) * k, (top + height / 2) * k)) == colour
    capped, _ = shoot(daemon, tab_id=tab, scale=4, max_size=800)
    assert max(capped["width"], capped["height"]) == 800
    assert capped["scale"] < 4


def test_an_element_zoomed_is_its_box_at_the_scale(where: tuple[Daemon, int]) -> None:
    daemon, tab = where
    ref = ref_of(daemon, tab, "blue block")
    dpr = view(daemon, tab)["dpr"]
    _, _, width, height, colour = BLOCKS["blue"]
    shot, image = shoot(daemon, tab_id=tab, ref=ref, scale=2, format="png", max_size=0)
    assert shot["scale"] == 2
    assert size_ok(shot, width * 2 * dpr, height * 2 * dpr), shot
    assert image.getcolors() == [(shot["width"] * shot["height"], colour)]


def test_a_clip_past_the_edge_is_cut_to_the_viewport_and_says_so(
    where: tuple[Daemon, int],
) -> None:
    daemon, tab = where
    page = view(daemon, tab)
    clip = {"x": page["w"] - 50, "y": 10, "width": 200, "height": 30}
    shot, _ = shoot(daemon, tab_id=tab, clip=clip, format="png", max_size=0)
    assert shot["clip"] == {"x": page["w"] - 50, "y": 10, "width": 50, "height": 30}
    assert "reached past the viewport" in shot["note"]
    assert size_ok(shot, 50 * page["dpr"], 30 * page["dpr"]), shot


def test_bad_clips_and_scales_are_refused_and_the_tab_still_answers(
    where: tuple[Daemon, int],
) -> None:
    daemon, tab = where
    page = view(daemon, tab)
    outside = {"x": page["w"] + 10, "y": 0, "width": 50, "height": 50}
    status, error = refused(daemon, {"tab_id": tab, "clip": outside})
    assert (status, error["code"]) == (422, "clip_outside_viewport")
    assert error["data"] == {"width": page["w"], "height": page["h"]}
    assert "scroll the region into view" in error["message"]
    above = {"x": 0, "y": -80, "width": 50, "height": 50}
    assert refused(daemon, {"tab_id": tab, "clip": above})[1]["code"] == "clip_outside_viewport"
    clip = {"x": 0, "y": 0, "width": 50, "height": 50}
    ref = ref_of(daemon, tab, "red block")
    for bad, words in [
        ({"clip": clip, "ref": ref}, "does not go with `ref`"),
        ({"clip": clip, "full_page": True}, "does not go with `full_page`"),
        ({"clip": {**clip, "width": 0}}, "greater than 0"),
        ({"clip": {**clip, "height": -3}}, "greater than 0"),
        ({"clip": {"x": 0, "y": 0, "width": 5}}, "height"),
        ({"scale": 20}, "less than or equal to 8"),
        ({"scale": 0.5}, "greater than or equal to 1"),
    ]:
        status, error = refused(daemon, {"tab_id": tab, **bad})
        assert (status, error["code"]) == (400, "invalid_request"), bad
        assert words in error["message"], (bad, error["message"])
    shot, _ = shoot(daemon, tab_id=tab, clip=clip)
    assert shot["clip"] == clip


def test_an_element_taller_than_the_cap_at_full_size_is_cut_with_a_note(
    where: tuple[Daemon, int], pages: str
) -> None:
    daemon, tab = where
    call(daemon, "browser_navigate", {"url": f"{pages}/shot/long.html", "tab_id": tab})
    ref = ref_of(daemon, tab, "long block")
    dpr = view(daemon, tab)["dpr"]
    shot, image = shoot(daemon, tab_id=tab, ref=ref, max_size=0, format="png")
    assert shot["width"] == round(120 * dpr)
    assert shot["height"] <= 16_384
    if shot["route"] == "capture_visible_tab":
        assert "only its part in view" in shot["note"]
        return
    assert shot["captured"] == f'element {ref} (button "long block"), the top 16384 px'
    assert shot["height"] == 16_384
    assert "The element is 20000 px tall; only its top 16384 px were captured" in shot["note"]
    # A gradient from white to black over 20,000 px: its last row is 16384/20000 down.
    grey = image.getpixel((60, shot["height"] - 1))[0]
    assert abs(grey - 255 * (1 - 16_384 / 20_000)) < 12, grey


def test_a_page_wider_than_the_cap_says_it_was_cut_in_width(managed: Daemon, pages: str) -> None:
    tab = call(managed, "browser_tabs", {"action": "new", "url": f"{pages}/shot/wide.html"})["id"]
    try:
        shot, image = shoot(managed, tab_id=tab, full_page=True, format="png")
        assert shot["captured"] == "the left 16384 px of the page"
        assert "The page is 20000 px wide; only its left 16384 px were captured" in shot["note"]
        assert "tall" not in shot["note"]
        assert shot["width"] == 1568
        # The gradient runs white to black over 20,000 px: the right edge is 16384/20000 along.
        assert isinstance(image, Image.Image)
        grey = image.getpixel((shot["width"] - 1, 5))[0]
        assert abs(grey - 255 * (1 - 16_384 / 20_000)) < 12, grey
    finally:
        managed.post_json("/browser_tabs", {"action": "close", "tab_id": tab})
