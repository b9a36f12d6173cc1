"""The task suite's pages and the readers its scripts parse each server's answers with
(bench/tasks.py); the suite itself runs in tests/e2e/test_bench.py's smoke run."""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request

import pytest
from bench import pages, tasks
from bench import task_pages as tp


def test_the_pages_are_served_with_the_login_answer_and_the_failing_request() -> None:
    served = {**pages.fixture_pages(), **tasks.task_pages()}
    with pages.serve(served, tp.answer) as base:

        def post(user: str, password: str) -> str:
            body = urllib.parse.urlencode({"user": user, "password": password}).encode()
            with urllib.request.urlopen(f"{base}{tp.WELCOME}", body, timeout=10) as answer:
                return str(answer.read().decode())

        assert tp.GREETING in post(tp.USER, tp.PASSWORD)
        refused = post(tp.USER, "wrong")
        assert tp.GREETING not in refused and "Wrong user name or password" in refused
        with urllib.request.urlopen(base + tp.OK_PATHS[0], timeout=10) as ok:
            assert ok.status == 200 and ok.headers["Content-Type"] == "application/json"
        with pytest.raises(urllib.error.HTTPError) as failed:
            urllib.request.urlopen(base + tp.FAILED_PATH, timeout=10)
        assert failed.value.code == 503
        failed.value.close()
        with urllib.request.urlopen(base + tasks.SHOP, timeout=10) as shop:
            html = shop.read().decode()
        assert tasks.PRODUCT in html and "window.added" in html
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "/nothing", timeout=10)
        assert missing.value.code == 404
        missing.value.close()


def test_the_table_has_one_row_per_town_and_the_article_is_long() -> None:
    names = [tp.city(i) for i in range(1, tp.TABLE_ROWS + 1)]
    assert len(set(names)) == tp.TABLE_ROWS
    html = tp.article_html()
    assert html.count("<tr>") == tp.TABLE_ROWS + 1 and len(html) > 25_000
    assert all(cell in html for cell in tp.table_row(tp.TABLE_ROW))


def test_a_button_ref_is_found_below_a_product_in_each_servers_snapshot() -> None:
    playwright = (
        '- listitem [ref=f2e40]:\n  - heading "Oak kettle no. 130" [level=2] [ref=f2e41]\n'
        '  - paragraph [ref=f2e42]: $9.00\n  - button "Add to cart" [ref=f2e43]\n'
        '- listitem [ref=f2e45]:\n  - heading "Oak kettle no. 131" [level=2] [ref=f2e46]\n'
        '  - button "Add to cart" [ref=f2e48]'
    )
    devtools = (
        'uid=3_40 heading "Oak kettle no. 130" level="2"\nuid=3_41 StaticText "$9.00"\n'
        'uid=3_42 button "Add to cart"\nuid=3_44 heading "Oak kettle no. 131" level="2"\n'
        'uid=3_46 button "Add to cart"'
    )
    folded = (
        "- list [ref=e9]:\n"
        '  - 2 \u00d7 listitem: (heading "{1}", paragraph: {2}, button "Add to cart" [ref={3}], '
        'link "Details" [ref={4}]); one per line: {1}|{2}|{3}|{4}\n'
        "    Oak kettle no. 130|$9.00|e15|e16\n"
        "    Oak kettle no. 131|$46.13|e17|e18"
    )
    name, button = "Oak kettle no. 131", pages.ADD_TO_CART
    assert tasks.ref_after(playwright, name, button) == "f2e48"
    assert tasks.ref_after(devtools, name, button) == "3_46"
    assert tasks.ref_after(folded, name, button) == "e17"
    assert tasks.ref_after('- textbox "Password" [ref=f1e12]', '"Password"') == "f1e12"
    with pytest.raises(LookupError):
        tasks.ref_after(playwright, "Oak kettle no. 999", button)


def test_the_failed_request_is_read_from_each_servers_network_log() -> None:
    base = "http://127.0.0.1:4000"
    tabpilot = (
        f"3 of 3 requests on page 2 {base}/dashboard.html (3 in all). Newer: since=3\n"
        f"#1 GET 200 xhr {base}/api/prices?currency=EUR (450 ms, 12 B)\n"
        f"#2 GET 503 xhr {base}{tp.FAILED_PATH} (19 ms, 40 B)\n"
        "Hint: a request's body: include_body=<#>"
    )
    playwright = (
        f"### Result\n2. [GET] {base}/api/widget?id=0 => [200] OK\n"
        f"3. [GET] {base}{tp.FAILED_PATH} => [503] Service Unavailable\n"
        f"4. [GET] {base}/api/stock?warehouse=north"
    )
    devtools = (
        f"reqid=4 GET {base}/api/widget?id=404 [200]\nreqid=9 GET {base}{tp.FAILED_PATH} [503]"
    )
    network_failure = f"reqid=9 GET {base}/api/x [failed - net::ERR_CONNECTION_REFUSED]"
    for text in (tabpilot, playwright, devtools):
        assert tasks.failed_request(text, base) == tp.FAILED_PATH, text
    assert tasks.failed_request(network_failure, base) == "/api/x"
    assert tasks.failed_request(f"#1 GET 200 xhr {base}/api/a (512 ms)", base) is None


def test_the_error_message_is_read_from_each_servers_console_log() -> None:
    message = tp.ERROR_MESSAGE
    answers = (
        f"1 of 1 console messages at level error or above on page 2\n#14 error: {message} "
        "(http://127.0.0.1:4000/errors.html:1)\nHint: since=14",
        f"### Result\nTotal messages: 15 (Errors: 1, Warnings: 1)\n\n[ERROR] {message} @ "
        "http://127.0.0.1:4000/errors.html:0",
        f"## Console messages\nmsgid=15 [error] {message} (1 args)",
    )
    for text in answers:
        assert tasks.error_message(text) == message, text
    assert tasks.error_message("[WARNING] autosave is off") is None


def test_a_table_row_is_read_from_the_cells_below_its_name() -> None:
    name = tp.city(tp.TABLE_ROW)
    cells = tp.table_row(tp.TABLE_ROW)
    playwright = f'- row [ref=e9]:\n  - cell "{name}" [ref=e10]\n' + "".join(
        f'  - cell "{cell}" [ref=e{11 + i}]\n' for i, cell in enumerate(cells[1:])
    )
    devtools = f'uid=4_202 "{name}"\n' + "".join(
        f'uid=4_{203 + i} "{cell}"\n' for i, cell in enumerate(cells[1:])
    )
    for text in (playwright, devtools):
        row = tasks.row_text(text, name)
        assert row is not None and all(cell in row for cell in cells)
    assert tasks.row_text(playwright, "Nowhere 99") is None
