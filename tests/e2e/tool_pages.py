"""Fixture pages for the tools that read a page: snapshot, read, execute_javascript with a ref.

Each entry is served by the e2e page server (conftest.py) at its path: (headers, body).
"""

from __future__ import annotations

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

TOOL_PAGES: dict[str, tuple[dict[str, str], str]] = {
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
        '<!doctype html><title>strict</title><button id="b">Strict button</button>',
    ),
}
