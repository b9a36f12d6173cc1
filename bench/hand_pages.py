"""The pages of the rows and tasks that use a page's hands (bench/hands.py, bench/peer_hands.py,
bench/tasks.py): a form of ten fields, a page that shows a text when a slow request answers, a file
input that hashes what it receives, a list reordered by native drag and drop, and a search whose
results arrive late.

Each page records what happened in `window` (the form's values, when the text appeared, the file
received, the list's order, the result opened), so that a row or a task checks the page itself
afterwards, by calls that are not counted. Built from fixed data, like bench/pages.py.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from bench.pages import Page

FORM, WAIT, UPLOAD, BOARD, SEARCH = (
    "/form.html",
    "/wait.html",
    "/upload.html",
    "/board.html",
    "/search.html",
)
#: `GET /api/after?ms=N` answers after N ms: the slow request a page waits on.
AFTER = "/api/after"
#: The longest an `AFTER` request may ask to wait.
AFTER_MAX_MS = 5000

_HEAD = '<!doctype html><html lang=en><head><meta charset=utf-8><link rel="icon" href="data:,">'


# The form: ten fields, each a different control.

#: Field -> its label (the accessible name each server's snapshot gives it) and its control.
FIELDS = {
    "name": ("Full name", '<input name="name" autocomplete="off">'),
    "email": ("Email", '<input name="email" type="email">'),
    "password": ("Password", '<input name="password" type="password">'),
    "quantity": ("Quantity", '<input name="quantity" type="number" min="1" max="99">'),
    "date": ("Delivery date", '<input name="date" type="date">'),
    "time": ("Delivery time", '<input name="time" type="time">'),
    "notes": ("Notes for the courier", '<textarea name="notes"></textarea>'),
    "country": ("Country", '<select name="country">{options}</select>'),
    "newsletter": ("Send me the newsletter", '<input name="newsletter" type="checkbox">'),
    "shipping": ("Shipping", ""),  # two radios, one label each: `RADIOS`
}
COUNTRIES = ("France", "Norway", "Portugal", "Japan", "Chile", "Canada")
#: The shipping radios' labels, by value.
RADIOS = {"standard": "Standard shipping", "express": "Express shipping"}

#: The two sets of values the form rows fill in turn (so that every fill changes every field),
#: as the page reports them: strings, the checkbox a boolean, the radio its value.
VALUES = (
    {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "password": "analytical-engine-1843",
        "quantity": "3",
        "date": "2026-12-24",
        "time": "09:30",
        "notes": "Leave it at the door.",
        "country": "Portugal",
        "newsletter": True,
        "shipping": "express",
    },
    {
        "name": "Grace Hopper",
        "email": "grace@example.org",
        "password": "cobol-1959",
        "quantity": "12",
        "date": "2027-01-15",
        "time": "17:45",
        "notes": "Ring twice, please.",
        "country": "Norway",
        "newsletter": False,
        "shipping": "standard",
    },
)


def field_label(field: str, values: dict[str, object]) -> str:
    """The label of the control a set of values fills for `field`: the radio it picks."""
    return RADIOS[str(values[field])] if field == "shipping" else FIELDS[field][0]


def form_html() -> str:
    options = "".join(f"<option>{c}</option>" for c in COUNTRIES)
    rows = []
    for field, (label, control) in FIELDS.items():
        if field == "shipping":
            radios = "".join(
                f'<label><input type="radio" name="shipping" value="{value}"> {text}</label> '
                for value, text in RADIOS.items()
            )
            rows.append(f"<fieldset><legend>{label}</legend>{radios}</fieldset>")
        elif field == "newsletter":
            rows.append(f"<p><label>{control} {label}</label></p>")
        else:
            rows.append(f"<p><label>{label} {control.format(options=options)}</label></p>")
    return (
        f"{_HEAD}<title>Delivery details</title></head><body><main><h1>Delivery details</h1>"
        f'<form id="order">{"".join(rows)}<p><button type="submit">Place order</button></p>'
        '</form><p id="status" role="status"></p></main><script>'
        "const form = document.getElementById('order');"
        "form.addEventListener('submit', (e) => { e.preventDefault(); "
        "document.getElementById('status').textContent = 'Order placed'; });"
        # What the form holds now, as the rows compare it with the values they filled.
        "window.formState = () => { const f = form.elements; return {"
        + ", ".join(
            f"{field}: f.namedItem('{field}').value"
            for field in FIELDS
            if field not in ("newsletter", "shipping")
        )
        + ", newsletter: f.namedItem('newsletter').checked, "
        "shipping: (form.querySelector('[name=shipping]:checked') || {}).value || '' }; };"
        "</script></body></html>"
    )


# The text that appears when a slow request answers.


#: How long after it is armed the wait page shows its text, at first: the rows double it for a
#: server whose call that arms it returns later than that (bench/peer_hands.py).
WAIT_DELAY_MS = 150
#: The longest they make it.
WAIT_DELAY_MAX_MS = 4800


def wait_label(index: int) -> str:
    """The text the wait rows make appear on their `index`th call: no label is part of another."""
    return f"Order #{index:05d} shipped"


def wait_html() -> str:
    """`window.arm(label, ms)` clears the results, then `ms` later shows `label` and records when,
    on the wall clock (`window.shownAt`, ms since the epoch, as performance.timeOrigin +
    performance.now(), and as Date.now()). A timer, not a request: Playwright MCP's evaluation
    waits for the requests a script starts, and would return after the text appeared."""
    return (
        f"{_HEAD}<title>Orders</title></head><body><main><h1>Orders</h1>"
        '<p id="status">Waiting for the warehouse</p><div id="results"></div></main><script>'
        "window.arm = (label, ms) => { const results = document.getElementById('results');"
        "results.textContent = ''; window.shownAt = null; setTimeout(() => {"
        "const p = document.createElement('p'); p.textContent = label; results.append(p);"
        "window.shownAt = performance.timeOrigin + performance.now();"
        "window.shownAtDate = Date.now(); }, ms); return true; };"
        "</script></body></html>"
    )


def arm_js(label: str, ms: int) -> str:
    return f"window.arm({json.dumps(label)}, {int(ms)})"


#: What the wait rows read after each call: when the text appeared, on each clock.
SHOWN_JS = "JSON.stringify([window.shownAt, window.shownAtDate])"


# The file input.

#: The file the upload task attaches, and its size.
RECEIPT, RECEIPT_BYTES = "receipt-2211.pdf", 120 * 1024
#: The two files the upload row sends in turn, 5 MB each.
BIG_FILES, BIG_BYTES = ("bench-5mb-a.bin", "bench-5mb-b.bin"), 5 * 1024 * 1024


def file_bytes(name: str, size: int) -> bytes:
    """Fixed bytes for a file name: every run and every server sends the same."""
    return random.Random(name).randbytes(size)


def write_file(folder: Path, name: str, size: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(file_bytes(name, size))
    return path


def confirmation(name: str, data: bytes) -> str:
    """What the upload page shows once it has received and hashed a file."""
    return f"Received {name}: {len(data):,} bytes, SHA-256 {hashlib.sha256(data).hexdigest()[:16]}"


def upload_html() -> str:
    """A labelled file input; on each change the page hashes the file and shows `confirmation`,
    counting the files received (`window.uploads`) and keeping the last (`window.received`)."""
    return (
        f"{_HEAD}<title>Expenses</title></head><body><main><h1>New expense</h1>"
        '<p><label>Receipt <input type="file" id="file"></label></p>'
        '<p id="status" role="status">No receipt yet</p></main><script>'
        "window.uploads = 0;"
        "document.getElementById('file').addEventListener('change', async (e) => {"
        "const file = e.target.files[0]; if (!file) return;"
        "const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());"
        "const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0'))"
        ".join('');"
        "window.received = {name: file.name, size: file.size, type: file.type, sha256: hex};"
        "window.uploads += 1;"
        "document.getElementById('status').textContent = `Received ${file.name}: "
        "${file.size.toLocaleString('en')} bytes, SHA-256 ${hex.slice(0, 16)}`; });"
        "</script></body></html>"
    )


#: The upload page's count of files received and the last one, as JSON.
RECEIVED_JS = "JSON.stringify([window.uploads, window.received || null])"


# The list reordered by drag and drop.

CARDS = ("Write the report", "Review the budget", "Call the supplier", "Plan the launch",
         "Book the venue")  # fmt: skip


def board_html() -> str:
    """Cards in a list, each `draggable`, reordered by native HTML5 drag and drop: a card dropped
    on another goes before it. `window.drops` counts the drops, `window.order()` lists the
    cards."""
    cards = "".join(f'<li draggable="true">{card}</li>' for card in CARDS)
    return (
        f"{_HEAD}<title>Sprint board</title><style>#cards li{{padding:8px;margin:4px;"
        "border:1px solid #888;list-style:none;cursor:grab;width:16em}</style></head><body>"
        f'<main><h1>Sprint board</h1><ul id="cards">{cards}</ul>'
        '<p id="status" role="status"></p></main><script>'
        "const list = document.getElementById('cards'); let dragged = null; window.drops = 0;"
        "list.addEventListener('dragstart', (e) => { dragged = e.target.closest('li');"
        "e.dataTransfer.effectAllowed = 'move';"
        "e.dataTransfer.setData('text/plain', dragged.textContent); });"
        "list.addEventListener('dragover', (e) => { if (e.target.closest('li')) "
        "e.preventDefault(); });"
        "list.addEventListener('drop', (e) => { const target = e.target.closest('li');"
        "e.preventDefault(); if (!dragged || !target || target === dragged) return;"
        "list.insertBefore(dragged, target); window.drops += 1;"
        "document.getElementById('status').textContent = "
        "`Moved ${dragged.textContent} before ${target.textContent}`; dragged = null; });"
        "list.addEventListener('dragend', () => { dragged = null; });"
        "window.order = () => [...list.children].map((li) => li.textContent);"
        "</script></body></html>"
    )


#: The board's drops and its order, as JSON.
ORDER_JS = "JSON.stringify([window.drops, window.order()])"


# The search whose results arrive late.

#: How late the search's results arrive.
SEARCH_DELAY_MS = 1200
SEARCH_RESULTS = ("Copper kettle no. 12", "Oak kettle no. 27", "Steel kettle no. 40",
                  "Glass kettle no. 58", "Walnut kettle no. 63")  # fmt: skip
#: The result the wait task opens.
RESULT = SEARCH_RESULTS[3]


def search_html() -> str:
    """A search box and a button; the results arrive `SEARCH_DELAY_MS` after the click, as links.
    Opening one records it (`window.opened`) and says so."""
    return (
        f"{_HEAD}<title>Find an order</title></head><body><main><h1>Find an order</h1>"
        '<form id="search" role="search"><label>Search orders <input name="q" value="kettle">'
        '</label> <button type="submit">Search</button></form>'
        '<p id="status" role="status"></p><ul id="results"></ul></main><script>'
        f"const names = {json.dumps(SEARCH_RESULTS)};"
        "const status = document.getElementById('status');"
        "const results = document.getElementById('results');"
        "document.getElementById('search').addEventListener('submit', async (e) => {"
        "e.preventDefault(); status.textContent = 'Searching…'; results.textContent = '';"
        f"await (await fetch('{AFTER}?ms={SEARCH_DELAY_MS}')).text();"
        "status.textContent = `${names.length} results`;"
        'results.innerHTML = names.map((n, i) => `<li><a href="#r${i}">${n}</a></li>`)'
        ".join(''); });"
        "results.addEventListener('click', (e) => { const a = e.target.closest('a');"
        "if (!a) return; e.preventDefault(); window.opened = a.textContent;"
        "status.textContent = `Opened ${a.textContent}`; });"
        "</script></body></html>"
    )


def hand_pages() -> dict[str, Page]:
    return {
        FORM: Page(form_html()),
        WAIT: Page(wait_html()),
        UPLOAD: Page(upload_html()),
        BOARD: Page(board_html()),
        SEARCH: Page(search_html()),
    }


def answer(path: str, body: bytes | None) -> Page | None:
    """`AFTER`'s answer, once its time has passed; None for any other path."""
    url = urlsplit(path)
    if url.path != AFTER:
        return None
    try:
        ms = int(parse_qs(url.query).get("ms", ["0"])[0])
    except ValueError:
        ms = 0
    time.sleep(min(max(ms, 0), AFTER_MAX_MS) / 1000)
    return Page('{"ok": true}', {"Content-Type": "application/json", "Cache-Control": "no-store"})
