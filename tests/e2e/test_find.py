"""browser_find in the real Chromium with the real extension, in a person's Chrome and in the
managed browser; and the snapshot it searches, which reads as the page does (words apart, each
row's text whole, identical controls told apart).

The pages are served here, from 127.0.0.1, for this module only: the 300-product page of the
bench (bench/pages.py) and a shop whose products are a name, a price and an "Add to cart" button.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from bench.pages import products_html
from selenium import webdriver

from tabpilot.tools.find import find_text
from tests.e2e.harness import Daemon, open_url, serving_pages
from tests.e2e.test_snapshot import renumbered
from tests.e2e.test_tool_faces import FACES
from tests.e2e.tool_pages import collapsed_rows

COUNT = 300


def _price(i: int) -> str:
    return f"${(i * 37) % 300}.{(i * 13) % 100:02d}"


# Names and prices in divs, as shops write them; a click on a button marks its product.
ITEMS = (
    "<!doctype html><title>Items</title><main><h1>Products</h1><ul>"
    + "".join(
        f'<li><div class="name">Item {i}</div><div>{_price(i)}</div>'
        '<button type="button">Add to cart</button></li>'
        for i in range(1, COUNT + 1)
    )
    + "</ul></main><script>document.querySelector('ul').addEventListener('click', (e) => {"
    "const li = e.target.closest('li'); if (e.target.matches('button')) li.dataset.added = 'yes';"
    "});</script>"
)

INLINE = (
    "<!doctype html><title>Todos</title><footer><p><strong>3</strong><span> </span>"
    "<span>items</span> left</p><button><strong>2</strong><span> </span><span>done</span>"
    "</button></footer>"
)

# Long lines of one letter: a regex the guard lets through (two unbounded quantifiers) takes a
# tenth of a second on each, so that the page's lines together run past find's time.
# Enough lines that `.*.*b` takes many seconds over them however fast the machine is (about 25 ms a
# line on a quiet one), so the 1 s limit always stops it.
SLOW_LINES = 600
SLOW = "<!doctype html><title>Slow</title>" + "".join(
    f"<p>{'a' * 400}</p>" for _ in range(SLOW_LINES)
)

PAGES = {
    "/items.html": ITEMS,
    "/products.html": products_html(),
    "/inline.html": INLINE,
    "/slow.html": SLOW,
}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serving_pages(PAGES) as url:
        yield url


def _find(daemon: Daemon, status: int = 200, **params: Any) -> dict[str, Any]:
    response = daemon.post_json("/browser_find", params, timeout=60)
    body: dict[str, Any] = response.json()
    assert response.status_code == status, body
    return body


def _ref_in(context: str) -> str:
    found = re.search(r"\[ref=(e\d+)\]", context)
    assert found, context
    return found[1]


def _added(daemon: Daemon) -> list[str]:
    """The names of the products whose button was clicked, read back from the page."""
    script = (
        "[...document.querySelectorAll('li[data-added]')].map((li) => li.firstChild.textContent)"
    )
    result: list[str] = daemon.execute(script).json()["result"]
    return result


def _snapshot(daemon: Daemon, **params: Any) -> str:
    body = daemon.post_json("/browser_snapshot", params, timeout=60).json()
    assert body["success"], body
    return str(body["result"]["snapshot"])


def test_item_137_is_found_in_under_300_characters_and_its_ref_acts(
    daemon: Daemon, browser: webdriver.Chrome, site: str
) -> None:
    open_url(daemon, f"{site}/items.html")
    envelope = _find(daemon, text="Item 137")
    text = find_text(envelope)
    ref = _ref_in(envelope["result"]["matches"][0]["context"])
    assert text == (
        f'1 match\n- text: Item 137 \u2014 in listitem: "{_price(137)}", button "Add to cart" '
        f"[ref={ref}]"
    )
    assert len(text) < 300
    # The ref acts at once, on Item 137's own button.
    clicked = daemon.post_json("/browser_act", {"kind": "click", "ref": ref}).json()
    assert clicked["success"], clicked
    assert _added(daemon) == ["Item 137"]


def test_the_bench_page_product_137_in_under_300_characters(
    daemon: Daemon, browser: webdriver.Chrome, site: str
) -> None:
    open_url(daemon, f"{site}/products.html")
    envelope = _find(daemon, text="no. 137")
    text = find_text(envelope)
    assert envelope["result"]["total"] == 1
    assert re.fullmatch(
        r'1 match\n- heading "Linen throw blanket no\. 137" \[level=2\] \u2014 in listitem: '
        r'"\$\d+\.\d\d", button "Add to cart" \[ref=e\d+\], link "Details" \[ref=e\d+\]',
        text,
    ), text
    assert len(text) < 300


def test_matches_are_capped_with_a_count_of_the_rest(
    daemon: Daemon, browser: webdriver.Chrome, site: str
) -> None:
    open_url(daemon, f"{site}/items.html")
    envelope = _find(daemon, role="button", name="add to cart", limit=3)
    text = find_text(envelope)
    lines = text.split("\n")
    assert lines[0] == "300 matches" and lines[-1] == "\u2026 297 more; narrow the query"
    assert lines[1].startswith('- button "Add to cart" [ref=e') and lines[1].endswith(
        f' \u2014 in listitem: "Item 1", "{_price(1)}"'
    )
    assert len(text) < 400
    # "137" is in a name and in prices: each line that holds it, the name's included.
    found = _find(daemon, text="137")["result"]
    assert "text: Item 137" in [m["line"] for m in found["matches"]]
    assert all("137" in m["line"] for m in found["matches"])
    regex = _find(daemon, regex=r"^item 13\d$", limit=20)["result"]
    assert [m["line"] for m in regex["matches"]] == [f"text: Item {i}" for i in range(130, 140)]


def test_a_regex_that_would_backtrack_is_refused_and_the_tab_still_answers(
    daemon: Daemon, browser: webdriver.Chrome, site: str
) -> None:
    open_url(daemon, f"{site}/slow.html")
    for pattern in ("(a+)+$", "(a|aa)*b", ".*.*.*b"):
        body = _find(daemon, 422, regex=pattern)
        assert body["error"]["code"] == "regex_too_slow", body
        assert "Simplify it" in body["error"]["message"]
    bad = _find(daemon, 400, regex="(a")
    assert (
        bad["error"]["code"] == "invalid_regex" and "Unterminated group" in bad["error"]["message"]
    )
    # Let through, and slow on these lines: stopped after about a second.
    started = time.monotonic()
    body = _find(daemon, 422, regex=".*.*b")
    assert time.monotonic() - started < 5
    assert body["error"]["code"] == "regex_too_slow" and "took over 1 s" in body["error"]["message"]
    # The worker and the tab go on answering.
    assert _find(daemon, text="aaaa", limit=1)["result"]["total"] == SLOW_LINES
    assert daemon.execute("1 + 1").json()["result"] == 2


def test_words_apart_across_inline_elements(
    daemon: Daemon, browser: webdriver.Chrome, site: str
) -> None:
    open_url(daemon, f"{site}/inline.html")
    text = _snapshot(daemon)
    assert "- text: 3 items left" in text, text
    assert '- button "2 done" [ref=' in text, text
    read = daemon.post_json("/browser_read", {}).json()["result"]["text"]
    assert "3 items left" in read


def test_a_collapsed_run_keeps_each_rows_text_whole(
    daemon: Daemon, browser: webdriver.Chrome, site: str
) -> None:
    open_url(daemon, f"{site}/items.html")
    text = _snapshot(daemon)
    template, rows = collapsed_rows(text, "listitem")
    assert template.strip().startswith(
        '- 300 \u00d7 listitem: (text: {1}, text: {2}, button "Add to cart" [ref={3}])'
    )
    assert rows[136][:2] == ["Item 137", _price(137)]
    assert all(row[0] == f"Item {i}" for i, row in enumerate(rows, 1))
    # At most a quarter more than the rows cut at their shared start took (6,926 characters, in a
    # fresh browser's refs: theirs grow with the pages snapshotted before).
    assert len(renumbered(text)) <= 6926 * 1.25, len(renumbered(text))


def test_interactive_only_tells_identical_controls_apart(
    daemon: Daemon, browser: webdriver.Chrome, site: str
) -> None:
    open_url(daemon, f"{site}/items.html")
    text = _snapshot(daemon, interactive_only=True)
    template, rows = collapsed_rows(text, "listitem")
    assert template.strip().startswith(
        '- 300 \u00d7 listitem: (text: {1}, button "Add to cart" [ref={2}])'
    )
    assert rows[136][0] == "Item 137" and re.fullmatch(r"e\d+", rows[136][1])
    assert "$" not in text


def test_find_in_the_managed_browser(managed: Daemon, site: str) -> None:
    open_url(managed, f"{site}/items.html")
    envelope = _find(managed, text="item 250")
    match = envelope["result"]["matches"][0]
    assert (envelope["result"]["total"], match["line"]) == (1, "text: Item 250")
    ref = _ref_in(match["context"])
    assert managed.post_json("/browser_act", {"kind": "click", "ref": ref}).json()["success"]
    assert _added(managed) == ["Item 250"]
    assert _find(managed, 422, regex="(a+)+")["error"]["code"] == "regex_too_slow"


@pytest.mark.parametrize("face", FACES)
def test_find_on_each_face(face: str, daemon: Daemon, browser: webdriver.Chrome, site: str) -> None:
    open_url(daemon, f"{site}/items.html")
    tab = daemon.get("/tabs").json()["result"]
    tab_id = next(t["id"] for t in tab if t["active"] and t["url"].endswith("/items.html"))
    found = FACES[face](daemon)("browser_find", {"text": "Item 42", "tab_id": tab_id})
    if face == "mcp":  # the text the model reads
        assert found.startswith("1 match\n- text: Item 42 \u2014 in listitem: "), found
    else:
        assert found["total"] == 1 and found["matches"][0]["line"] == "text: Item 42", found
