"""The pages of the rows and tasks about frames and tabs (bench/frames.py, bench/tasks.py), served
from two sites: the pages an agent loads from `http://127.0.0.1:<port>`, what they embed or open
from `http://localhost:<port2>`. Two sites, not just two origins, so that Chromium puts each frame
in a process of its own (an out-of-process iframe), as a payment provider's frame would be.

- `FRAMES`: a checkout whose payment form and order list are cross-origin iframes; the form posts
  what it was given to the page (`postMessage`), which records it (`window.payments`) and shows a
  confirmation;
- `OPENER`: an order page whose link opens a carrier's tracking page in a new tab; the tracking
  number is on that page only.

Each control in the frames has a name of its own (`FRAME_CONTROLS`), so that a row finds its ref
in any server's snapshot by name alone. Built from fixed data, like bench/pages.py.
"""

from __future__ import annotations

from bench.pages import Page

#: On the first site (the pages an agent loads).
FRAMES, OPENER = "/checkout.html", "/order.html"
#: On the second site (what those pages embed or open).
FORM_FRAME, LIST_FRAME, TRACKING = "/pay-frame.html", "/orders-frame.html", "/tracking.html"

_HEAD = '<!doctype html><html lang=en><head><meta charset=utf-8><link rel="icon" href="data:,">'

#: The payment form's fields: name -> (label, control).
PAY_FIELDS = {
    "holder": ("Card holder", '<input name="holder" autocomplete="off">'),
    "number": ("Card number", '<input name="number" inputmode="numeric" autocomplete="off">'),
    "expiry": ("Expiry (MM/YY)", '<input name="expiry" autocomplete="off">'),
    "code": ("Security code", '<input name="code" inputmode="numeric" autocomplete="off">'),
    "country": ("Billing country", '<select name="country">{options}</select>'),
    "save": ("Save this card", '<input name="save" type="checkbox">'),
}
COUNTRIES = ("France", "Norway", "Portugal", "Japan")
PAY_BUTTON = "Pay €42.00"
#: What the frame task fills, as the page reports it (the checkbox a boolean).
PAYMENT = {
    "holder": "Ada Lovelace",
    "number": "4242 4242 4242 4242",
    "expiry": "12/29",
    "code": "737",
    "country": "Portugal",
    "save": True,
}
#: The order list's orders: each a line and a button of its own.
ORDERS = (
    (4471, "Copper kettle"),
    (4472, "Linen throw blanket"),
    (4473, "Oak side table"),
    (4474, "Wool cushion"),
    (4475, "Glass mug set"),
    (4476, "Walnut desk lamp"),
)
ALL_ORDERS = "All orders"

#: The role of each field's control in a snapshot (a text box otherwise).
ROLES = {"country": "combobox", "save": "checkbox"}

#: Every control inside the two frames, as (role, name): what the frames row counts refs for.
FRAME_CONTROLS = (
    *((ROLES.get(field, "textbox"), label) for field, (label, _) in PAY_FIELDS.items()),
    ("button", PAY_BUTTON),
    *(("button", f"Track order {number}") for number, _ in ORDERS),
    ("link", ALL_ORDERS),
)


def confirmation(values: dict[str, object]) -> str:
    """What the checkout shows once its frame has posted a payment."""
    return f"Payment accepted: {values['holder']}, card ending {str(values['number'])[-4:]}"


def form_frame_html() -> str:
    """The payment form; its submit posts the values to the page that embeds it."""
    options = "".join(f"<option>{c}</option>" for c in COUNTRIES)
    rows = []
    for field, (label, control) in PAY_FIELDS.items():
        control = control.format(options=options)
        if field == "save":
            rows.append(f"<p><label>{control} {label}</label></p>")
        else:
            rows.append(f"<p><label>{label} {control}</label></p>")
    return (
        f"{_HEAD}<title>Secure payment</title></head><body><h2>Card details</h2>"
        f'<form id="pay">{"".join(rows)}<button type="submit">{PAY_BUTTON}</button></form>'
        '<p id="sent"></p><script>'
        "const form = document.getElementById('pay');"
        "form.addEventListener('submit', (e) => { e.preventDefault(); const f = form.elements;"
        "const values = {"
        + ", ".join(f"{k}: f.namedItem('{k}').value" for k in PAY_FIELDS if k != "save")
        + ", save: f.namedItem('save').checked};"
        "parent.postMessage({type: 'payment', values}, '*');"
        "document.getElementById('sent').textContent = 'Sent to the shop'; });"
        "</script></body></html>"
    )


def list_frame_html() -> str:
    items = "".join(
        f'<li>Order {number}: {thing} <button type="button">Track order {number}</button></li>'
        for number, thing in ORDERS
    )
    return (
        f"{_HEAD}<title>Recent orders</title></head><body><h2>Recent orders</h2>"
        f'<ul>{items}</ul><p><a href="/orders">{ALL_ORDERS}</a></p></body></html>'
    )


#: Marks a frame loaded, for the rows that wait for both before they measure.
_LOADED = "onload=\"this.dataset.loaded = '1'\""


def frames_html(other: str) -> str:
    """The checkout: its own few lines, the two frames from `other` (the second site's base), and
    a status line the payment's confirmation appears on."""
    return (
        f'{_HEAD}<title>Checkout</title></head><body><header><a href="/">Home goods</a></header>'
        "<main><h1>Checkout</h1><p>Total: €42.00 for 2 items</p>"
        f'<iframe title="Payment" src="{other}{FORM_FRAME}" {_LOADED} width="420" height="380">'
        f'</iframe><iframe title="Recent orders" src="{other}{LIST_FRAME}" {_LOADED} '
        'width="420" height="300"></iframe>'
        '<p id="status" role="status">Waiting for payment</p></main><script>'
        "window.payments = [];"
        "window.addEventListener('message', (e) => { if (e.data?.type !== 'payment') return;"
        "const v = e.data.values; window.payments.push(v);"
        "document.getElementById('status').textContent = "
        "`Payment accepted: ${v.holder}, card ending ${v.number.slice(-4)}`; });"
        "</script></body></html>"
    )


#: The checkout's record of the payments its frame posted, as JSON.
PAYMENTS_JS = "JSON.stringify(window.payments || null)"

#: The tracking number the tab task reads; only the tracking page shows it.
TRACKING_NUMBER = "JD0146 0000 3828"
TRACK_LINK = "Track your parcel"


def opener_html(other: str) -> str:
    return (
        f"{_HEAD}<title>Order 4471</title></head><body><main><h1>Order 4471</h1>"
        "<p>Copper kettle, shipped on 24 November.</p>"
        f'<p><a href="{other}{TRACKING}?order=4471" target="_blank">{TRACK_LINK}</a></p>'
        "</main></body></html>"
    )


def tracking_html() -> str:
    return (
        f"{_HEAD}<title>Parcel tracking</title></head><body><main><h1>Parcel tracking</h1>"
        f"<p>Tracking number: {TRACKING_NUMBER}</p><p>Status: out for delivery</p>"
        "</main></body></html>"
    )


def second_site() -> dict[str, Page]:
    """The pages of the second site: the frames and the page the link opens."""
    return {
        FORM_FRAME: Page(form_frame_html()),
        LIST_FRAME: Page(list_frame_html()),
        TRACKING: Page(tracking_html()),
    }


def first_site(other: str) -> dict[str, Page]:
    """The pages an agent loads, embedding or linking the second site at `other`."""
    return {FRAMES: Page(frames_html(other)), OPENER: Page(opener_html(other))}


def other_site(base: str) -> str:
    """The second site's base from its server's (`pages.serve` listens on 127.0.0.1): the same
    port, named `localhost`, which Chromium treats as another site than 127.0.0.1."""
    return base.replace("://127.0.0.1:", "://localhost:")
