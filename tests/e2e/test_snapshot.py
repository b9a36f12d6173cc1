"""browser_snapshot in the real Chromium with the real extension, through the daemon's route."""

from __future__ import annotations

import re
import statistics
import time

from selenium import webdriver

from tests.e2e.harness import Daemon, set_pilot
from tests.e2e.tool_pages import (
    PRODUCT_COUNT,
    call,
    collapsed_rows,
    frames_snapshot,
    open_tool_page,
    product_name,
    ref_of,
    snapshot,
    submit_button_ref,
)

#: Playwright MCP's snapshot of a page of 300 products, in characters: ours is at most a third.
PLAYWRIGHT_PRODUCTS_CHARS = 47_062


def test_every_product_button_has_a_ref(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/products.html")
    result = snapshot(daemon)
    text = result["snapshot"]
    assert result["truncated"] is False
    assert result["chars"] == len(text)
    template, rows = collapsed_rows(text, "listitem")
    assert len(rows) == PRODUCT_COUNT
    holes = template.split(": (", 1)[1]
    button_field = int(holes.split('button "Add to cart" [ref={', 1)[1].split("}", 1)[0]) - 1
    refs = [row[button_field] for row in rows]
    assert len(set(refs)) == PRODUCT_COUNT
    # Each ref reaches its own product's button.
    for index in (1, 137, PRODUCT_COUNT):
        name = daemon.execute(
            "(el) => el.closest('article').querySelector('h3').textContent", ref=refs[index - 1]
        ).json()
        assert name["result"] == product_name(index), name
    assert result["refs"] == len(set(re.findall(r"\be\d+\b", text))) == 612


def renumbered(text: str) -> str:
    """The snapshot with its refs numbered from e1 in order of first appearance."""
    numbers: dict[str, str] = {}
    return re.sub(r"\be\d+\b", lambda m: numbers.setdefault(m[0], f"e{len(numbers) + 1}"), text)


def test_a_long_page_is_small_and_quick(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/products.html")
    took = []
    for _ in range(7):
        started = time.perf_counter()
        result = snapshot(daemon)
        took.append(time.perf_counter() - started)
    # Refs are numbered across the browser's documents (docs/protocol.md, "Refs"), so theirs grow
    # with the pages snapshotted before; Playwright's figure is of a fresh browser's, from e1.
    fresh = renumbered(result["snapshot"])
    assert len(fresh) <= PLAYWRIGHT_PRODUCTS_CHARS / 3, len(fresh)
    # The targets (50 ms here, 500 ms for the 10,000-element page) are measured by `make bench`
    # on a quiet machine; these bounds catch a walk that went an order of magnitude slower.
    assert statistics.median(took) < 0.5, took
    open_tool_page(daemon, pages, "/tools/big.html")
    started = time.perf_counter()
    big = snapshot(daemon, max_chars=1_000_000)
    assert time.perf_counter() - started < 5
    assert big["refs"] >= 2000 and big["truncated"] is False


def test_refs_stay_the_same_across_snapshots(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/form.html")
    first = snapshot(daemon)["snapshot"]
    second = snapshot(daemon)["snapshot"]
    assert first == second
    assert ref_of(first, '- button "Create account"') == ref_of(second, '- button "Create account"')


def test_the_form_reads_with_roles_names_and_states(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/form.html")
    text = snapshot(daemon)["snapshot"]
    for line in (
        '- heading "Sign up" [level=1]',
        '- form "Sign up" [ref=',
        '  - textbox "Email" [ref=',
        '  - combobox "Colour" [ref=',
        '    - option "Blue" [selected]',
        '  - checkbox "Agree to the terms" [checked] [ref=',
        '  - checkbox "Send me news" [ref=',
        '  - textbox "About you" [ref=',
        '  - button "Create account" [ref=',
        '  - button "Disabled action" [disabled] [ref=',
        "- text: Fields marked with a star are required.",
    ):
        assert any(row.startswith(line) for row in text.splitlines()), (line, text)
    assert ": ada@example.com" in text


def test_hidden_elements_are_left_out(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/form.html")
    text = snapshot(daemon)["snapshot"]
    for hidden in ("Display none", "Invisible", "Aria hidden", "Hidden attribute", "hidden-token"):
        assert hidden not in text


def test_stale_ref_after_the_element_is_removed(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    ref = submit_button_ref(daemon, pages)
    assert daemon.execute("document.querySelector('button[type=submit]').remove(); 1").json()[
        "success"
    ]
    for route in ("/browser_snapshot", "/browser_read"):
        body = call(daemon, route, 410, ref=ref)
        assert body["error"]["code"] == "stale_ref"
        assert "no longer in the page" in body["error"]["message"]


def test_stale_ref_after_navigation(daemon: Daemon, browser: webdriver.Chrome, pages: str) -> None:
    ref = submit_button_ref(daemon, pages)
    open_tool_page(daemon, pages, "/tools/article.html")
    body = call(daemon, "/browser_read", 410, ref=ref)
    assert body["error"]["code"] == "stale_ref"
    assert "navigated since that snapshot" in body["error"]["message"]


def test_a_ref_never_given_out_is_not_found(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/form.html")
    snapshot(daemon)
    body = call(daemon, "/browser_snapshot", 404, ref="e9999")
    assert body["error"]["code"] == "ref_not_found"
    assert "Take a snapshot" in body["error"]["message"]


def test_a_subtree_by_ref(daemon: Daemon, browser: webdriver.Chrome, pages: str) -> None:
    open_tool_page(daemon, pages, "/tools/products.html")
    whole = snapshot(daemon)["snapshot"]
    nav = ref_of(whole, '- navigation "Main"')
    part = snapshot(daemon, ref=nav)
    assert part["snapshot"].startswith(f'- navigation "Main" [ref={nav}]:')
    assert "Home|" in part["snapshot"] and "Add to cart" not in part["snapshot"]
    assert part["refs"] == 6


def test_interactive_only(daemon: Daemon, browser: webdriver.Chrome, pages: str) -> None:
    open_tool_page(daemon, pages, "/tools/form.html")
    text = snapshot(daemon, interactive_only=True)["snapshot"]
    assert "- text:" not in text and "Fields marked" not in text
    assert '- textbox "Email" [ref=' in text and '- button "Create account" [ref=' in text


def test_max_chars_cuts_with_a_line_saying_how_to_get_the_rest(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/products.html")
    cut = snapshot(daemon, max_chars=2000)
    assert cut["truncated"] is True and cut["chars"] <= 2000
    last = cut["snapshot"].splitlines()[-1]
    assert last.startswith("- \u2026 ") and "more characters" in last and "more refs" in last
    larger = int(last.split("max_chars ", 1)[1].split(",", 1)[0].rstrip("."))
    whole = snapshot(daemon, max_chars=larger)
    assert whole["truncated"] is False
    assert whole["snapshot"].startswith("\n".join(cut["snapshot"].splitlines()[:-2]))


def test_shadow_roots_open_and_closed(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/shadow.html")
    text = snapshot(daemon)["snapshot"]
    assert "- text: Inside the open root" in text
    assert ref_of(text, '- button "Open shadow button"')
    assert ref_of(text, '- textbox "Shadow field"')
    assert ref_of(text, '- button "Closed shadow button"')


def test_iframes_same_origin_walked_cross_origin_included_with_origin(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/frames.html")
    port = pages.rsplit(":", 1)[1]

    text = frames_snapshot(daemon)
    assert ref_of(text, '- iframe "Same origin frame"')
    assert "  - text: Inside the frame" in text
    assert '  - button "Inner button" [ref=' in text
    assert ref_of(text, '- button "Inner button"')
    # The other origin's frame is read by its own content script (tests/e2e/test_frames.py).
    other = f"[origin=http://localhost:{port}]:"
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('- iframe "Other origin frame"'))
    assert ref_of(lines[at], '- iframe "Other origin frame"') and lines[at].endswith(other), text
    assert lines[at + 2].startswith('  - button "Inner button" [ref='), text


def test_contenteditable_and_click_targets(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/editable.html")
    text = snapshot(daemon)["snapshot"]
    assert ref_of(text, '- textbox "Note"')
    assert ref_of(text, '- button "Custom action"')
    assert ref_of(text, "- generic") and "Click handler" in text
    assert ref_of(text, '- button "More options"')
    assert "Hidden until opened" not in text


def test_bad_max_chars_is_refused(daemon: Daemon, browser: webdriver.Chrome, pages: str) -> None:
    open_tool_page(daemon, pages, "/tools/form.html")
    body = call(daemon, "/browser_snapshot", 400, max_chars=10)
    assert body["error"]["code"] == "invalid_request"


def test_pilot_off_refuses_snapshot_and_read(
    browser: webdriver.Chrome, daemon: Daemon, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/form.html")
    set_pilot(browser, daemon, False)
    try:
        for route in ("/browser_snapshot", "/browser_read"):
            body = call(daemon, route, 403)
            assert body["error"]["code"] == "pilot_disabled"
    finally:
        set_pilot(browser, daemon, True)


def test_a_table_collapses_into_one_line_per_row(
    daemon: Daemon, browser: webdriver.Chrome, pages: str
) -> None:
    open_tool_page(daemon, pages, "/tools/table.html")
    text = snapshot(daemon)["snapshot"]
    assert text.startswith('- table "Orders" [ref=') and "text: Orders" not in text
    template, rows = collapsed_rows(text, "row:")
    # Each row's text whole, as the page shows it: a search of the snapshot finds it.
    assert 'cell "{2}"' in template and 'button "Refund" [ref={4}]' in template
    assert rows[0][:3] == ["#1001", "Customer 1", "$3.00"]
    assert len({row[3] for row in rows}) == len(rows) == 50
