"""Fixture pages for the tools that read a page: snapshot, read, execute_javascript with a ref.

Each entry is served by the e2e page server (conftest.py) at its path: (headers, body).
"""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.harness import Daemon, open_url, wait_for

#: How many products /tools/products.html lists, and how many elements /tools/big.html has.
PRODUCT_COUNT = 300
BIG_ITEMS = 2000  # five elements each: 10,000 elements

_NAMES = (
    "Aurora Desk Lamp",
    "Birch Side Table",
    "Cobalt Coffee Mug",
    "Drift Wool Throw",
    "Ember Candle Set",
    "Fjord Water Bottle",
    "Granite Bookends",
    "Harbor Rain Jacket",
)


def product_name(index: int) -> str:
    """The name of product `index` (1-based) on /tools/products.html."""
    return f"{_NAMES[index % len(_NAMES)]} {index}"


def _products() -> str:
    items = "".join(
        f'<li class="product"><article><h3>{product_name(i)}</h3>'
        f'<p class="price">${i * 1.25 + 3:.2f}</p>'
        f'<button type="button" class="add" data-id="{i}">Add to cart</button> '
        f'<a href="/products/{i}">Details</a></article></li>'
        for i in range(1, PRODUCT_COUNT + 1)
    )
    return f"""<!doctype html><title>Acme Store</title>
<header><h1>Acme Store</h1><nav aria-label="Main">
<a href="/">Home</a> <a href="/shop">Shop</a> <a href="/deals">Deals</a>
<a href="/about">About</a> <a href="/contact">Contact</a></nav></header>
<main><h2>Products</h2><p>{PRODUCT_COUNT} products, free shipping over $50.</p>
<ul class="products">{items}</ul></main>
<footer><p>&copy; 2026 Acme Store</p>
<a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>
<script>
document.querySelector(".products").addEventListener("click", (event) => {{
  const button = event.target.closest("button.add");
  if (button) button.textContent = "Added";
}});
</script>"""


def _big() -> str:
    rows = "".join(
        f'<div class="row"><span>Row {i}</span><a href="#r{i}">open {i}</a>'
        f"<p>Text of row {i}</p><em>{i % 7}</em></div>"
        for i in range(BIG_ITEMS)
    )
    return f"<!doctype html><title>big page</title><main>{rows}</main>"


FORM = """<!doctype html><title>Sign up</title>
<h1>Sign up</h1>
<form action="/signed-up" aria-label="Sign up">
  <label for="email">Email</label> <input id="email" type="email" value="ada@example.com">
  <label>Password <input type="password" value="s3cret"></label>
  <label for="colour">Colour</label>
  <select id="colour">
    <option>Red</option><option selected>Blue</option><option>Green</option>
  </select>
  <label><input type="checkbox" id="agree" checked> Agree to the terms</label>
  <label><input type="checkbox" id="news"> Send me news</label>
  <label for="bio">About you</label> <textarea id="bio">Hello there</textarea>
  <input type="hidden" name="token" value="hidden-token">
  <button type="submit">Create account</button>
  <button type="button" disabled>Disabled action</button>
</form>
<div style="display: none"><button>Display none button</button></div>
<div style="visibility: hidden"><button>Invisible button</button></div>
<div aria-hidden="true"><button>Aria hidden button</button></div>
<div hidden><button>Hidden attribute button</button></div>
<p id="note">Fields marked with a star are required.</p>
"""

SHADOW = """<!doctype html><title>shadow</title>
<h1>Shadow DOM</h1>
<div id="open-host"></div>
<div id="closed-host"></div>
<script>
const open = document.getElementById("open-host").attachShadow({ mode: "open" });
open.innerHTML = '<p>Inside the open root</p><button id="in-open">Open shadow button</button>'
  + '<label>Shadow field <input id="shadow-field" value="typed"></label>';
const closed = document.getElementById("closed-host").attachShadow({ mode: "closed" });
closed.innerHTML = '<button id="in-closed">Closed shadow button</button>';
</script>
"""

# The cross-origin frame is the same page server under the other loopback name, built from the
# page's own address, since the server's port is known only when it runs.
FRAMES = """<!doctype html><title>frames</title>
<h1>Frames</h1>
<iframe id="same" title="Same origin frame" src="/tools/frame-inner.html"></iframe>
<iframe id="other" title="Other origin frame"></iframe>
<script>
const other = location.hostname === "127.0.0.1" ? "localhost" : "127.0.0.1";
document.getElementById("other").src = `http://${other}:${location.port}/tools/frame-inner.html`;
</script>
"""

FRAME_INNER = """<!doctype html><title>inner</title>
<p>Inside the frame</p><button id="inner-button">Inner button</button>
"""

EDITABLE = """<!doctype html><title>editable</title>
<h1>Notes</h1>
<div id="editor" contenteditable="true" aria-label="Note">Edit me</div>
<div id="custom" role="button" tabindex="0">Custom action</div>
<div id="clicky" onclick="this.textContent = 'clicked'">Click handler</div>
<span id="pointer" style="cursor: pointer">Pointer <b>target</b></span>
<details><summary>More options</summary><p>Hidden until opened</p></details>
"""

ARTICLE = (
    "<!doctype html><title>article</title><article><h1>The long read</h1>"
    + "".join(
        f"<p>Paragraph {i}: the quick brown fox jumps over the lazy dog.</p>" for i in range(1, 41)
    )
    + '<p style="display: none">Invisible paragraph</p>'
    + '<div id="aside"><p>Aside text</p></div></article>'
)

TABLE = (
    "<!doctype html><title>orders</title><table><caption>Orders</caption>"
    "<thead><tr><th>Order</th><th>Customer</th><th>Total</th><th></th></tr></thead><tbody>"
    + "".join(
        f"<tr><td>#{1000 + i}</td><td>Customer {i}</td><td>${i * 3}.00</td>"
        f"<td><button>Refund</button></td></tr>"
        for i in range(1, 51)
    )
    + "</tbody></table>"
)

TOOL_PAGES: dict[str, tuple[dict[str, str], str]] = {
    "/tools/table.html": ({}, TABLE),
    "/tools/form.html": ({}, FORM),
    "/tools/products.html": ({}, _products()),
    "/tools/big.html": ({}, _big()),
    "/tools/shadow.html": ({}, SHADOW),
    "/tools/frames.html": ({}, FRAMES),
    "/tools/frame-inner.html": ({}, FRAME_INNER),
    "/tools/editable.html": ({}, EDITABLE),
    "/tools/article.html": ({}, ARTICLE),
    # A page whose policy forbids code from strings, for execute_javascript with a ref.
    "/tools/strict.html": (
        {"Content-Security-Policy": "script-src 'self'"},
        '<!doctype html><title>strict</title><button id="b">Strict button</button>'
        '<div><template shadowrootmode="open"><button id="deep">Shadow strict button</button>'
        '</template></div><iframe title="Strict frame" src="/tools/frame-inner.html"></iframe>',
    ),
}


def ref_of(snapshot: str, line_start: str) -> str:
    """The ref on the first snapshot line that starts (after its indent) with `line_start`, such as
    '- button "Create account"'."""
    for line in snapshot.splitlines():
        if line.lstrip().startswith(line_start):
            match = _REF.search(line)
            if match:
                return match.group(1)
    raise AssertionError(f"no line starting {line_start!r} with a ref in:\n{snapshot}")


def collapsed_rows(snapshot: str, header_part: str) -> tuple[str, list[list[str]]]:
    """The template line of the collapsed run whose header holds `header_part`, and its rows split
    into fields."""
    lines = snapshot.splitlines()
    for index, line in enumerate(lines):
        if header_part in line and "\u00d7" in line:
            indent = len(line) - len(line.lstrip()) + 2
            rows = []
            for row in lines[index + 1 :]:
                if len(row) - len(row.lstrip()) != indent or row.lstrip().startswith("- "):
                    break
                rows.append([field.replace("\\|", "|") for field in _FIELD.split(row.strip())])
            return line, rows
    raise AssertionError(f"no collapsed run with {header_part!r} in:\n{snapshot}")


_REF = re.compile(r"\[ref=(e\d+)\]")
_FIELD = re.compile(r"(?<!\\)\|")


def open_tool_page(daemon: Daemon, pages: str, path: str) -> str:
    """Open the fixture page at `path` in the active tab; returns its url."""
    url = f"{pages}{path}"
    open_url(daemon, url)
    return url


def call(daemon: Daemon, route: str, status: int, **params: Any) -> dict[str, Any]:
    """POST `params` to a tool's route; the answer must have `status`."""
    response = daemon.post_json(route, params)
    body: dict[str, Any] = response.json()
    assert response.status_code == status, body
    return body


def snapshot(daemon: Daemon, **params: Any) -> dict[str, Any]:
    """A successful browser_snapshot's result."""
    body = call(daemon, "/browser_snapshot", 200, **params)
    assert body["success"] is True, body
    result: dict[str, Any] = body["result"]
    return result


def frames_snapshot(daemon: Daemon) -> str:
    """The snapshot of /tools/frames.html (open already) once its same-origin frame has loaded."""

    def loaded() -> str | None:
        text: str = snapshot(daemon)["snapshot"]
        return text if "Inner button" in text else None

    found: str = wait_for(loaded, 10, "the same-origin frame to load")
    return found


def submit_button_ref(daemon: Daemon, pages: str) -> str:
    """Open /tools/form.html and take a snapshot; the ref of its "Create account" button."""
    open_tool_page(daemon, pages, "/tools/form.html")
    return ref_of(snapshot(daemon)["snapshot"], '- button "Create account"')
