"""Fixture pages for browser_take_screenshot: coloured blocks at known CSS positions.

Each entry is served by the e2e page server (conftest.py) at its path: (headers, body).
"""

from __future__ import annotations

#: Blocks of /shot/blocks.html: name -> (left, top, width, height, colour), CSS pixels of the page.
BLOCKS: dict[str, tuple[int, int, int, int, tuple[int, int, int]]] = {
    "red": (20, 20, 200, 100, (255, 0, 0)),
    "green": (300, 60, 160, 160, (0, 200, 0)),
    "blue": (40, 260, 120, 80, (0, 0, 255)),
    # Below the fold of any viewport the tests run in: scrolled into view for its capture.
    "yellow": (100, 2000, 240, 120, (255, 220, 0)),
}

#: The block inside /shot/frame.html's frame, in the frame's own CSS pixels.
FRAMED = (40, 30, 90, 70, (0, 120, 255))

#: /shot/tall.html: a sticky header, then bands of colour, each BAND px tall.
HEADER = 40
HEADER_COLOUR = (255, 0, 255)
BAND = 300
BAND_COLOURS = [(255, 0, 0), (0, 160, 0), (0, 0, 255), (255, 160, 0), (0, 200, 200), (120, 0, 160)]


def _block(name: str) -> str:
    left, top, width, height, (r, g, b) = BLOCKS[name]
    return (
        f'<button aria-label="{name} block" style="position:absolute;left:{left}px;top:{top}px;'
        f"width:{width}px;height:{height}px;background:rgb({r},{g},{b});border:0;padding:0;"
        f'margin:0;outline:none"></button>'
    )


def _bands() -> str:
    return "".join(
        f'<div style="height:{BAND}px;background:rgb({r},{g},{b})"></div>'
        for r, g, b in BAND_COLOURS
    )


_STYLE = "<style>html,body{margin:0;padding:0;background:#fff}</style>"

SHOT_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/shot/blocks.html": (
        {},
        f"<!doctype html><title>blocks</title>{_STYLE}"
        f'<div style="position:relative;height:2200px">{"".join(map(_block, BLOCKS))}</div>',
    ),
    "/shot/tall.html": (
        {},
        f"<!doctype html><title>tall</title>{_STYLE}"
        f'<header style="position:sticky;top:0;height:{HEADER}px;'
        f'background:rgb{HEADER_COLOUR};z-index:1"></header>{_bands()}',
    ),
    # A block inside a same-origin frame that sits 150 px down and 60 px right, with a border.
    "/shot/frame.html": (
        {},
        f"<!doctype html><title>frame</title>{_STYLE}"
        '<iframe src="/shot/inner.html" style="position:absolute;left:60px;top:150px;'
        'width:300px;height:200px;border:5px solid #000"></iframe>',
    ),
    "/shot/inner.html": (
        {},
        f"<!doctype html><title>inner</title>{_STYLE}"
        '<button aria-label="framed block" style="position:absolute;left:40px;top:30px;'
        f"width:{FRAMED[2]}px;height:{FRAMED[3]}px;background:rgb{FRAMED[4]};border:0;padding:0"
        '"></button>',
    ),
    # An element taller than the cap, at the top of a page that holds nothing else.
    "/shot/long.html": (
        {},
        f"<!doctype html><title>long</title>{_STYLE}"
        '<button aria-label="long block" style="display:block;width:120px;height:20000px;'
        'background:linear-gradient(#fff,#000);border:0;padding:0;margin:0"></button>',
    ),
    # Wider than the cap: 20,000 px, and one viewport tall.
    "/shot/wide.html": (
        {},
        f"<!doctype html><title>wide</title>{_STYLE}"
        '<div style="width:20000px;height:300px;'
        'background:linear-gradient(90deg,#fff,#000)"></div>',
    ),
    # Ten viewports tall and more, for the cap: 20,000 px.
    "/shot/huge.html": (
        {},
        f"<!doctype html><title>huge</title>{_STYLE}"
        '<div style="height:20000px;background:linear-gradient(#fff,#000)"></div>',
    ),
}
