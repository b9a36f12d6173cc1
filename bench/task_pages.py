"""The fixture pages of the task suite (bench/tasks.py), beside the product page of bench/pages.py.

Each page holds one answer that a task must find, made from fixed data so that every run and every
server sees the same bytes:

- `LOGIN`: a sign-in form that posts to `/login`; the server answers a page greeting the user by
  name when the password is right, and a page saying it is wrong otherwise;
- `ARTICLE`: a long article (two dozen sections of prose) with a table of `TABLE_ROWS` rows of
  figures in its middle;
- `ERRORS`: a settings page that logs as it loads, and whose "Save draft" button logs an error;
- `FAILING`: a dashboard that fetches its widgets as it loads, and whose "Refresh prices" button
  fetches three more, one of which the server answers with a 503.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from bench.pages import Page

LOGIN, WELCOME = "/login.html", "/login"
ARTICLE, ERRORS, FAILING = "/article.html", "/errors.html", "/dashboard.html"

#: The account the login task signs in with, and the greeting its page shows.
USER, PASSWORD, FULL_NAME = "ada", "analytical-engine-1843", "Ada Lovelace"
GREETING = f"Welcome back, {FULL_NAME}!"

TABLE_ROWS = 50
#: The row the table task reads, by the name in its first cell.
TABLE_ROW = 37

#: What the "Save draft" button logs.
ERROR_MESSAGE = "Draft not saved: storage quota exceeded (507) for draft 4471"

#: The request the "Refresh prices" button makes that fails, among the ones that do not.
FAILED_PATH = "/api/reviews?product=4471"
OK_PATHS = ("/api/prices?currency=EUR", "/api/stock?warehouse=north")
#: The widgets the dashboard fetches as it loads, each answered 200.
WIDGETS = 24

_HEAD = '<!doctype html><html lang=en><head><meta charset=utf-8><link rel="icon" href="data:,">'


def login_html() -> str:
    return (
        f"{_HEAD}<title>Sign in</title></head><body>"
        '<header><a href="/">Home goods</a></header><main><h1>Sign in</h1>'
        '<form method="post" action="/login">'
        '<p><label>User name <input name="user" autocomplete="username"></label></p>'
        '<p><label>Password <input name="password" type="password" '
        'autocomplete="current-password"></label></p>'
        '<p><label><input name="remember" type="checkbox"> Keep me signed in</label></p>'
        '<p><button type="submit">Sign in</button> <a href="/forgot">Forgot password?</a></p>'
        "</form></main><footer><p>© Home goods</p></footer></body></html>"
    )


def login_answer(body: bytes) -> Page:
    """What POST /login answers: a greeting for the right password, a refusal otherwise."""
    form = parse_qs(body.decode("utf-8", "replace"))
    user, password = form.get("user", [""])[0], form.get("password", [""])[0]
    if user == USER and password == PASSWORD:
        main = f'<h1>{GREETING}</h1><p>You have 3 orders on their way.</p><a href="/">Shop</a>'
        title = "Your account"
    else:
        main = '<h1>Sign in</h1><p role="alert">Wrong user name or password.</p>'
        title = "Sign in"
    return Page(f"{_HEAD}<title>{title}</title></head><body><main>{main}</main></body></html>")


def city(index: int) -> str:
    """The name in the first cell of row `index` (1-based)."""
    first = ("North", "South", "East", "West", "Upper", "Lower", "New", "Old")
    second = ("haven", "bridge", "field", "ford", "wick", "stead", "moor")
    return f"{first[index % len(first)]}{second[index % len(second)]} {index}"


def table_row(index: int) -> tuple[str, str, str, str]:
    """Row `index` (1-based): the city, its population, its area in km², its founding year."""
    return (
        city(index),
        f"{(index * 7919) % 90000 + 10000:,}",
        f"{(index * 31) % 400 + 12}.{index % 10}",
        str(1100 + (index * 53) % 800),
    )


def _prose(section: int) -> str:
    sentences = (
        "The towns of the valley grew along the river, each at a ford or a bridge.",
        "Their markets drew traders from the hills, who came down with wool and left with salt.",
        "Records of the period are thin, and most of what is known comes from parish rolls.",
        "Later surveys counted houses rather than people, which makes comparisons uncertain.",
    )
    return "".join(
        f"<p>{' '.join(sentences[(section + k) % 4] for k in range(4))}</p>" for _ in range(3)
    )


def article_html() -> str:
    """Twenty-four sections of prose, the table after the twelfth."""
    rows = "".join(
        "<tr>" + "".join(f"<td>{cell}</td>" for cell in table_row(i)) + "</tr>"
        for i in range(1, TABLE_ROWS + 1)
    )
    table = (
        "<table><caption>Towns of the valley</caption><thead><tr><th>Town</th>"
        "<th>Population</th><th>Area (km²)</th><th>Founded</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    sections = "".join(
        f"<section><h2>Part {s + 1}</h2>{_prose(s)}{table if s == 11 else ''}</section>"
        for s in range(24)
    )
    return (
        f"{_HEAD}<title>A history of the valley towns</title></head><body>"
        '<header><a href="/">Atlas</a></header>'
        f"<article><h1>A history of the valley towns</h1>{sections}</article>"
        "<footer><p>© Atlas</p></footer></body></html>"
    )


def errors_html() -> str:
    """Logs a few lines as it loads; "Save draft" logs `ERROR_MESSAGE` as an error."""
    return (
        f"{_HEAD}<title>Draft settings</title></head><body><main><h1>Draft settings</h1>"
        '<p><label>Title <input value="Spring catalogue"></label></p>'
        '<p><button type="button" id="save">Save draft</button> '
        '<button type="button">Preview</button></p></main><script>'
        "for (let i = 1; i <= 12; i++) console.log('settings loaded: section', i);"
        "console.warn('autosave is off');"
        "document.getElementById('save').addEventListener('click', () => {"
        f"console.log('saving draft 4471'); console.error({ERROR_MESSAGE!r}); }});"
        "</script></body></html>"
    )


def dashboard_html() -> str:
    """Fetches `WIDGETS` widgets as it loads; "Refresh prices" fetches `OK_PATHS` and
    `FAILED_PATH`, and then says it is done."""
    fetches = ", ".join(f"fetch({path!r})" for path in (*OK_PATHS, FAILED_PATH))
    return (
        f"{_HEAD}<title>Dashboard</title></head><body><main><h1>Dashboard</h1>"
        '<p><button type="button" id="refresh">Refresh prices</button></p>'
        '<p id="status">Loading widgets</p></main><script>'
        f"Promise.all(Array.from({{length: {WIDGETS}}}, (_, i) => fetch('/api/widget?id=' + i)"
        ".then((r) => r.text()))).then(() => { document.getElementById('status').textContent = "
        "'Widgets loaded'; });"
        "document.getElementById('refresh').addEventListener('click', async () => {"
        f"await Promise.all([{fetches}].map((p) => p.then((r) => r.text())));"
        "document.getElementById('status').textContent = 'Prices refreshed'; });"
        "</script></body></html>"
    )


def api_answer(path: str) -> Page:
    """What the dashboard's requests get: JSON, or a 503 for `FAILED_PATH`."""
    if path == FAILED_PATH:
        return Page('{"error": "reviews service unavailable"}', _JSON, status=503)
    return Page('{"ok": true}', _JSON)


_JSON = {"Content-Type": "application/json"}


def task_pages() -> dict[str, Page]:
    return {
        LOGIN: Page(login_html()),
        ARTICLE: Page(article_html()),
        ERRORS: Page(errors_html()),
        FAILING: Page(dashboard_html()),
    }


def answer(path: str, body: bytes | None) -> Page | None:
    """The pages made per request: the login's answer (POST), the dashboard's API."""
    if path.split("?", 1)[0] == WELCOME and body is not None:
        return login_answer(body)
    if path.startswith("/api/"):
        return api_answer(path)
    return None
