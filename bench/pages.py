"""The fixture pages every browser server is measured on, and the local server that serves them.

`PRODUCTS` is a shop's listing as agents meet it: a header with a search box and navigation, 300
products (a name heading, a price, an "Add to cart" button, a details link), a footer. `NODES` is a
long feed of exactly `NODE_COUNT` elements in its body. Both are built from fixed data, so every
run and every server sees the same bytes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PRODUCT_COUNT = 300
NODE_COUNT = 10_000
ADD_TO_CART = "Add to cart"

_ADJECTIVES = ("Walnut", "Linen", "Copper", "Ceramic", "Oak", "Wool", "Steel", "Bamboo", "Glass")
_THINGS = ("desk lamp", "throw blanket", "kettle", "mug set", "side table", "cushion", "clock")
_NAV = ("Home", "New in", "Living room", "Kitchen", "Bedroom", "Lighting", "Sale", "Help")
_FOOTER = ("About us", "Delivery", "Returns", "Contact", "Privacy", "Terms")


@dataclass(frozen=True)
class Page:
    html: str
    headers: Mapping[str, str] = field(default_factory=dict)
    status: int = 200


def product_name(index: int) -> str:
    adjective = _ADJECTIVES[index % len(_ADJECTIVES)]
    thing = _THINGS[(index // len(_ADJECTIVES)) % len(_THINGS)]
    return f"{adjective} {thing} no. {index + 1}"


def _links(names: tuple[str, ...], prefix: str) -> str:
    return "".join(
        f'<li><a href="/{prefix}/{n.lower().replace(" ", "-")}">{n}</a></li>' for n in names
    )


def products_html(count: int = PRODUCT_COUNT) -> str:
    items = "".join(
        f'<li class="product"><h2>{product_name(i)}</h2>'
        f'<p class="price">${(i * 37) % 190 + 9}.{(i * 13) % 100:02d}</p>'
        f'<button type="button" class="add">{ADD_TO_CART}</button> '
        f'<a href="/product/{i + 1}">Details</a></li>'
        for i in range(count)
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Home goods</title>"
        '<link rel="icon" href="data:,">'
        "<style>.product{display:inline-block;width:14em;margin:.5em}</style></head><body>"
        '<header><a href="/">Home goods</a>'
        '<form role="search" action="/search"><input name="q" aria-label="Search products">'
        "<button>Search</button></form>"
        f"<nav><ul>{_links(_NAV, 'shop')}</ul></nav>"
        '<p>Cart: <span id="cart">0</span> items</p></header>'
        f'<main><h1>Products</h1><ul class="products">{items}</ul></main>'
        f"<footer><ul>{_links(_FOOTER, 'info')}</ul><p>© Home goods</p></footer>"
        # One listener for every button: a click adds to the cart and changes nothing else, so the
        # page stays the same size from the first click to the last.
        "<script>document.querySelector('.products').addEventListener('click', e => {"
        "if (e.target.matches('button.add')) {"
        "const c = document.getElementById('cart'); c.textContent = +c.textContent + 1; }});"
        "</script></body></html>"
    )


def nodes_html(count: int = NODE_COUNT) -> str:
    """A feed of posts, five elements each (article, heading, paragraph, link, button), padded with
    spans to exactly `count` elements inside the body."""
    posts, extra = divmod(count - 2, 5)  # the feed's <main> and the one <h1>
    body = "".join(
        f"<article><h3>Post {i + 1}</h3><p>Note number {i + 1} of the feed.</p>"
        f'<a href="/post/{i + 1}">Read</a><button type="button">Like</button></article>'
        for i in range(posts)
    )
    body += "<span>.</span>" * extra
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Feed</title>"
        '<link rel="icon" href="data:,"></head>'
        f"<body><main><h1>Feed</h1>{body}</main></body></html>"
    )


#: /tall.html: ten viewports of 720 CSS px, for the full-page screenshot.
TALL_VIEWPORTS, VIEWPORT_HEIGHT = 10, 720


def tall_html(viewports: int = TALL_VIEWPORTS) -> str:
    """An article of `viewports` sections, each one viewport tall, with a sticky header."""
    sections = "".join(
        f'<section style="height:{VIEWPORT_HEIGHT}px;background:hsl({i * 36},60%,85%)">'
        f"<h2>Chapter {i + 1}</h2><p>{' '.join(['Words of the chapter.'] * 40)}</p></section>"
        for i in range(viewports)
    )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Long read</title>"
        '<link rel="icon" href="data:,"><style>body{margin:0}header{position:sticky;top:0;'
        "background:#223;color:#fff;padding:8px}section{box-sizing:border-box;padding:1em}"
        f"</style></head><body><header>Long read</header>{sections}</body></html>"
    )


#: Console messages and requests the log page makes as it loads: a full ring of each and more.
LOG_COUNT = 1500


def logs_html(count: int = LOG_COUNT) -> str:
    """A page that logs `count` console messages and makes `count` requests (a tenth of them 404s)
    as it loads, as a chatty app does, then sets `window.logsDone`."""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>Chatty app</title>"
        '<link rel="icon" href="data:,"></head><body><p>chatty</p><script>'
        f"(async () => {{ for (let i = 0; i < {count}; i++) "
        "console[i % 10 ? 'log' : 'warn']('cart updated: item', i, {sku: 'A' + i, qty: i % 5});"
        f"for (let i = 0; i < {count}; i += 50) await Promise.all(Array.from({{length: 50}}, "
        "(_, j) => fetch((i + j) % 10 ? '/products.html?' + (i + j) : '/missing/' + (i + j))"
        ".then((r) => r.text())));"
        "window.logsDone = true; })();</script></body></html>"
    )


def fixture_pages() -> dict[str, Page]:
    return {
        "/products.html": Page(products_html()),
        "/nodes.html": Page(nodes_html()),
        "/tall.html": Page(tall_html()),
        "/logs.html": Page(logs_html()),
    }


class _Handler(BaseHTTPRequestHandler):
    pages: Mapping[str, Page] = {}
    #: For a path not in `pages`: the page that answers it (given the path with its query, and a
    #: POST's body, None for a GET), or None for a 404.
    answer: Callable[[str, bytes | None], Page | None] = staticmethod(lambda path, body: None)

    def do_GET(self) -> None:
        self._send(self.pages.get(self.path.split("?", 1)[0]) or self.answer(self.path, None))

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._send(self.answer(self.path, body))

    def _send(self, page: Page | None) -> None:
        data = (page.html if page else "<!doctype html><title>Not found</title>").encode()
        headers = {"Content-Type": "text/html; charset=utf-8", **(page.headers if page else {})}
        self.send_response(page.status if page else 404)
        headers["Content-Length"] = str(len(data))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(
    pages: Mapping[str, Page], answer: Callable[[str, bytes | None], Page | None] | None = None
) -> Iterator[str]:
    """Serve `pages` (path -> Page) on 127.0.0.1 until the block ends, and what `answer` gives
    for any other path (see `_Handler.answer`); yields the base URL."""
    fields: dict[str, Any] = {"pages": dict(pages)}
    if answer is not None:
        fields["answer"] = staticmethod(answer)
    handler = type("Pages", (_Handler,), fields)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
