"""The rows of frames and find (bench/frames.py) and the tasks across frames and tabs
(bench/frame_tasks.py): the readers that count each server's refs and parse its answers, the
targets each row is held to, and the pages on two sites; the rows themselves run in
tests/e2e/test_bench.py's smoke run."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from bench import frame_pages as fp
from bench import frame_tasks, frames, frames_report, tasks
from bench import peer_report as pr
from bench.pages import serve

#: Playwright MCP 0.0.83's snapshot of the checkout (its frames' part).
PLAYWRIGHT = (
    """- iframe [ref=e7]:
  - generic [ref=f1e1]:
    - heading "Card details" [level=2] [ref=f1e2]
    - generic [ref=f1e3]:
      - paragraph [ref=f1e4]:
        - generic [ref=f1e5]:
          - text: Card holder
          - textbox "Card holder" [ref=f1e6]
      - paragraph [ref=f1e7]:
        - generic [ref=f1e8]:
          - text: Card number
          - textbox "Card number" [ref=f1e9]
      - paragraph [ref=f1e10]:
        - generic [ref=f1e11]:
          - text: Expiry (MM/YY)
          - textbox "Expiry (MM/YY)" [ref=f1e12]
      - paragraph [ref=f1e13]:
        - generic [ref=f1e14]:
          - text: Security code
          - textbox "Security code" [ref=f1e15]
      - paragraph [ref=f1e16]:
        - generic [ref=f1e17]:
          - text: Billing country
          - combobox "Billing country" [ref=f1e18]:
            - option "France" [selected]
      - paragraph [ref=f1e19]:
        - generic [ref=f1e20]:
          - checkbox "Save this card" [ref=f1e21]
          - text: Save this card
      - button "Pay €42.00" [ref=f1e22]
- iframe [ref=e8]:
  - generic [ref=f2e1]:
    - heading "Recent orders" [level=2] [ref=f2e2]
    - list [ref=f2e3]:
"""
    + "".join(
        f'      - listitem [ref=f2e{4 + 2 * i}]:\n        - text: "Order {n}: {thing}"\n'
        f'        - button "Track order {n}" [ref=f2e{5 + 2 * i}]\n'
        for i, (n, thing) in enumerate(fp.ORDERS)
    )
    + """    - paragraph [ref=f2e16]:
      - link "All orders" [ref=f2e17] [cursor=pointer]:
        - /url: /orders
"""
)

#: chrome-devtools-mcp 1.11.0's.
DEVTOOLS = (
    """uid=1_7 Iframe "Payment"
  uid=1_8 RootWebArea "Secure payment" url="http://localhost:44861/pay-frame.html"
    uid=1_10 form
      uid=1_11 "Card holder "
      uid=1_12 textbox "Card holder"
      uid=1_13 "Card number "
      uid=1_14 textbox "Card number"
      uid=1_16 textbox "Expiry (MM/YY)"
      uid=1_18 textbox "Security code"
      uid=1_20 combobox "Billing country" expandable haspopup="menu" value="France"
        uid=1_21 option "France" selected
      uid=1_25 checkbox "Save this card"
      uid=1_26 button "Pay €42.00"
uid=1_27 Iframe "Recent orders"
"""
    + "".join(
        f'    uid=1_{30 + 2 * i} "Order {n}: {thing} "\n'
        f'    uid=1_{31 + 2 * i} button "Track order {n}"\n'
        for i, (n, thing) in enumerate(fp.ORDERS)
    )
    + '    uid=1_42 link "All orders" url="http://localhost:44861/orders"\n'
)

#: tabpilot's today: one line per cross-origin frame, nothing inside.
TABPILOT_TODAY = """Page "Checkout" http://127.0.0.1:39367/checkout.html, 5 refs
- main [ref=e5]:
  - heading "Checkout" [level=1]
  - iframe "Payment" [ref=e3] [cross-origin: http://localhost:37179] (not readable; open its url in a tab)
  - iframe "Recent orders" [ref=e4] [cross-origin: http://localhost:37179] (not readable; open its url in a tab)
  - status: Waiting for payment"""  # noqa: E501

#: tabpilot's as the frames part agreed to write it: each frame's tree under its line, with its
#: origin, the order list folded into a template and a line of fields per order.
TABPILOT = (
    """Page "Checkout" http://127.0.0.1:4000/checkout.html, 20 refs
- main [ref=e5]:
  - heading "Checkout" [level=1]
  - iframe "Payment" [ref=e3] [origin=http://localhost:4001]:
    - heading "Card details" [level=2]
    - textbox "Card holder" [ref=e9]
    - textbox "Card number" [ref=e10]
    - textbox "Expiry (MM/YY)" [ref=e11]
    - textbox "Security code" [ref=e12]
    - combobox "Billing country" [ref=e13]:
      - option "France" [selected]
    - checkbox "Save this card" [ref=e14]
    - button "Pay €42.00" [ref=e15]
  - iframe "Recent orders" [ref=e4] [origin=http://localhost:4001]:
    - heading "Recent orders" [level=2]
    - list [ref=e22]:
"""
    + '      - 6 \u00d7 listitem: (text: Order {1}, button "Track order {2}" [ref={3}]); '
    + "one per line: {1}|{2}|{3}\n"
    + "".join(f"        {n}: {thing}|{n}|e{16 + i}\n" for i, (n, thing) in enumerate(fp.ORDERS))
    + """    - link "All orders" [ref=e23]:
      - /url: /orders
  - status: Waiting for payment"""
)


@pytest.mark.parametrize("text", [PLAYWRIGHT, DEVTOOLS, TABPILOT])
def test_every_control_in_the_frames_is_found_with_its_ref_in_each_servers_snapshot(
    text: str,
) -> None:
    refs = frames.frame_refs(text)
    assert len(refs) == len(fp.FRAME_CONTROLS) == 14
    assert None not in refs.values(), refs
    assert frames.distinct_refs(refs) == 14


def test_each_ref_is_the_controls_own_not_its_labels_or_its_neighbours() -> None:
    assert frames.named_ref(PLAYWRIGHT, "textbox", "Card holder") == "f1e6"
    assert frames.named_ref(PLAYWRIGHT, "button", "Track order 4473") == "f2e9"
    assert frames.named_ref(DEVTOOLS, "checkbox", "Save this card") == "1_25"
    assert frames.named_ref(DEVTOOLS, "link", fp.ALL_ORDERS) == "1_42"
    assert frames.named_ref(TABPILOT, "button", "Track order 4476") == "e21"
    assert frames.named_ref(TABPILOT, "combobox", "Billing country") == "e13"
    # A text that only names a control, a role the name does not have, a name cut short.
    assert frames.named_ref("- text: Card holder [ref=e1]", "textbox", "Card holder") is None
    assert frames.named_ref(PLAYWRIGHT, "button", "Card holder") is None
    assert frames.named_ref(TABPILOT, "button", "Track order 447") is None


def test_a_snapshot_that_stops_at_the_frames_gives_their_controls_no_ref() -> None:
    refs = frames.frame_refs(TABPILOT_TODAY)
    assert list(refs) == [name for _, name in fp.FRAME_CONTROLS]
    assert frames.distinct_refs(refs) == 0


def test_two_controls_on_one_ref_count_once() -> None:
    assert frames.distinct_refs({"a": "e1", "b": "e1", "c": "e2", "d": None}) == 2


def test_a_folded_run_is_written_out_one_line_per_sibling_and_other_lines_stay() -> None:
    products = (
        "- list [ref=e9]:\n"
        '  - 2 \u00d7 listitem: (heading "{1}", button "Add to cart" [ref={2}], link "Details" '
        "[ref={3}]); one per line: {1}|{2}|{3}\n"
        "    Oak lamp|e15|e16\n"
        "    Wool rug|e17|e18\n"
        '- button "Checkout" [ref=e20]'
    )
    assert frames.unfold(products).splitlines() == [
        "- list [ref=e9]:",
        '  - listitem: (heading "Oak lamp", button "Add to cart" [ref=e15], link "Details" '
        "[ref=e16])",
        '  - listitem: (heading "Wool rug", button "Add to cart" [ref=e17], link "Details" '
        "[ref=e18])",
        '- button "Checkout" [ref=e20]',
    ]
    assert frames.named_ref(products, "link", "Details") == "e16"
    assert frames.named_ref(products, "heading", "Wool rug") is None  # a heading without a ref
    assert frames.unfold(TABPILOT_TODAY) == TABPILOT_TODAY


def test_a_find_answer_counts_when_it_shows_the_product_with_a_ref() -> None:
    name = frames.FIND_TEXT
    playwright = (
        f'Found 1 match for "{name}":\n\n- generic [active] [ref=f3e1]:\n'
        f"      - listitem [ref=f3e709]:\n"
        f'        - heading "{name}" [level=2] [ref=f3e710]\n'
        '        - button "Add to cart" [ref=f3e712]'
    )
    assert frames.found_with_ref(playwright)
    assert frames.found_with_ref(f'1 match\n- heading "{name}" [level=2] — in listitem [ref=e412]')
    assert frames.found_with_ref(f"1 match\n{name}|$101.68|e412|e413 — in list")
    assert not frames.found_with_ref(f'1 match\n- heading "{name}" [level=2] — in list')
    assert not frames.found_with_ref('0 matches for "Oak"\n- button "Add" [ref=e2]')


def test_each_servers_list_of_tabs_gives_the_tab_on_a_path() -> None:
    tabpilot = (
        "1825600479: Order 4471 http://127.0.0.1:3/order.html\n"
        "1825600480 (active): Parcel tracking http://localhost:4/tracking.html?order=4471"
    )
    playwright = (
        "### Open tabs\n- 0: (current) [Order 4471](http://127.0.0.1:3/order.html)\n"
        "- 1: [Parcel tracking](http://localhost:4/tracking.html?order=4471)\n### Page"
    )
    devtools_click = (
        "Successfully clicked on the element\n## Opened pages\n"
        "2: Parcel tracking (http://localhost:4/tracking.html?order=4471)"
    )
    devtools_pages = (
        "## Pages\n1: Order 4471 (http://127.0.0.1:3/order.html) [selected]\n"
        "3: Parcel tracking (http://localhost:4/tracking.html?order=4471)"
    )
    assert frame_tasks.tabs_showing(tabpilot, fp.TRACKING) == [1825600480]
    assert frame_tasks.tabs_showing(playwright, fp.TRACKING) == [1]
    assert frame_tasks.tabs_showing(devtools_click, fp.TRACKING) == [2]
    assert frame_tasks.tabs_showing(devtools_pages, fp.TRACKING) == [3]
    assert frame_tasks.tabs_showing(devtools_pages, "/order.html") == [1]
    assert frame_tasks.tabs_showing("No tabs", fp.TRACKING) == []


def test_the_answers_are_read_wherever_a_server_shows_them() -> None:
    shown = fp.confirmation(fp.PAYMENT)
    assert shown == "Payment accepted: Ada Lovelace, card ending 4242"
    assert frame_tasks.paid(f"Checkout\n{shown}\n[chars 0-90 of 90]") == shown
    assert frame_tasks.paid(f'uid=1_45 "{shown}"') == shown
    assert frame_tasks.paid("- status [ref=e9]: Waiting for payment") is None
    number = fp.TRACKING_NUMBER
    assert frame_tasks.tracking_number(f'uid=2_3 "Tracking number: {number}"') == number
    assert frame_tasks.tracking_number(f"- paragraph: Tracking number: {number}\n") == number
    assert frame_tasks.tracking_number("Order 4471") is None
    with pytest.raises(LookupError):
        frame_tasks.need_ref(TABPILOT_TODAY, "textbox", "Card holder")


def _row(system: str, p50: float, **more: Any) -> dict[str, Any]:
    return {"system": system, "p50": p50, "p99": p50, "n": 30, **more}


def _frames_row(system: str, p50: float, chars: int, refs: int = 14) -> dict[str, Any]:
    missing = [name for _, name in fp.FRAME_CONTROLS][refs:]
    return _row(system, p50, chars=chars, frame_controls=14, frame_refs=refs, missing=missing)


GONE = {"system": pr.DEVTOOLS, "available": False, "reason": "no tool"}


def test_the_frames_targets_need_every_ref_and_a_leaner_quicker_snapshot() -> None:
    peers = [_frames_row(pr.PLAYWRIGHT, 60.0, 2735), _frames_row(pr.DEVTOOLS, 24.0, 2031)]
    met = frames_report.targets_by_row(
        {"peers": {"snapshot_frames": [_frames_row(pr.TABPILOT, 15.0, 1200), *peers]}}
    )["snapshot_frames"]
    assert [m for _, m, _ in met] == [
        "14 of 14",
        "1,200 vs chrome-devtools-mcp 2,031 characters (0.59x)",
        "15.0 ms vs chrome-devtools-mcp 24.0 ms",
    ]
    assert all(ok for _, _, ok in met)
    slow = frames_report.targets_by_row(
        {"peers": {"snapshot_frames": [_frames_row(pr.TABPILOT, 30.0, 1500), *peers]}}
    )["snapshot_frames"]
    assert [ok for _, _, ok in slow] == [True, False, False]  # 0.74x, and slower
    # Smaller and quicker for want of the frames' controls: none of the three is met.
    short = frames_report.targets_by_row(
        {"peers": {"snapshot_frames": [_frames_row(pr.TABPILOT, 12.0, 463, refs=0), *peers]}}
    )["snapshot_frames"]
    assert [ok for _, _, ok in short] == [False, False, False]
    assert short[0][1] == "0 of 14; none for Card holder, Card number, Expiry (MM/YY), …"
    assert short[1][1].endswith("(0.23x); without the frames' controls (0 of 14)")
    # A peer whose snapshot missed a frame is no yardstick: the one that had them all is.
    halved = [_frames_row(pr.PLAYWRIGHT, 150.0, 2735), _frames_row(pr.DEVTOOLS, 59.0, 1276, 7)]
    beside = frames_report.targets_by_row(
        {"peers": {"snapshot_frames": [_frames_row(pr.TABPILOT, 37.0, 1251), *halved]}}
    )["snapshot_frames"]
    assert [(m, ok) for _, m, ok in beside] == [
        ("14 of 14", True),
        ("1,251 vs Playwright MCP 2,735 characters (0.46x)", True),
        ("37.0 ms vs Playwright MCP 150.0 ms", True),
    ]
    alone = frames_report.targets_by_row(
        {"peers": {"snapshot_frames": [_frames_row(pr.TABPILOT, 37.0, 1251), halved[1]]}}
    )["snapshot_frames"]
    assert alone[1][1].endswith("(0.98x); no peer's snapshot had every control either")


def test_the_find_targets_are_300_characters_with_a_ref_and_playwrights_time() -> None:
    playwright = _row(pr.PLAYWRIGHT, 240.0, chars=511, found=True)
    rows = [_row(pr.TABPILOT, 20.0, chars=180, found=True), playwright, GONE]
    met = frames_report.targets_by_row({"peers": {"find": rows}})["find"]
    assert [(m, ok) for _, m, ok in met] == [
        ("180 characters", True),
        ("20.0 ms vs 240.0 ms (511 characters)", True),
    ]
    rows[0] = _row(pr.TABPILOT, 20.0, chars=180, found=False)
    assert not frames_report.targets({"peers": {"find": rows}})[0][2]
    table = "\n".join(frames_report.markdown({"peers": {"find": rows}}))
    assert "| Playwright MCP | - | 240.00 | 240.00 | 30 | 511 | yes |" in table
    assert "| tabpilot | - | 20.00 | 20.00 | 30 | 180 | **no** |" in table
    assert f"| {pr.DEVTOOLS} | - | not available: no tool | | | | |" in table
    missing = {"system": pr.TABPILOT, "available": False, "reason": "no tool 'browser_find'"}
    assert frames_report.targets({"peers": {"find": [missing, playwright]}}) == [
        (t, "tabpilot not available: no tool 'browser_find'", False)
        for t, _, _ in frames_report.targets({"peers": {"find": rows}})
    ]


def _task(system: str, ok: bool, chars: int, ms: float) -> dict[str, Any]:
    why = "" if ok else "no ref"
    figures = {"calls": 4, "chars": chars, pr.TASK_CHARS: chars, "ms": ms, "tools": ["t"]}
    return {"system": system, "ok": ok, "why": why, **figures}


def test_the_frame_tasks_have_a_target_of_their_own_and_leave_the_others_target_alone() -> None:
    results = {
        "tasks": {
            "frame_form": [
                _task(pr.TABPILOT, True, 1100, 900.0),
                _task(pr.PLAYWRIGHT, True, 6965, 3800.0),
                _task(pr.DEVTOOLS, True, 4586, 2000.0),
            ],
            "new_tab": [
                _task(pr.TABPILOT, False, 400, 900.0),
                _task(pr.PLAYWRIGHT, True, 1628, 1900.0),
                _task(pr.DEVTOOLS, True, 1180, 900.0),
            ],
        }
    }
    goals = pr.targets_by_row(results)
    assert "tasks" not in goals  # no task of bench/tasks.py ran
    [(target, measured, met)] = goals["frame_tasks"]
    assert "≤ 1/2 of the best peer's characters" in target
    assert measured == (
        "frame_form: 1,100 vs 4,586 characters (0.24x), 900 vs 2000 ms (0.45x); "
        "new_tab: tabpilot failed: no ref"
    )
    assert not met
    results["tasks"]["new_tab"][0] = _task(pr.TABPILOT, True, 400, 800.0)
    assert pr.targets_by_row(results)["frame_tasks"][0][2]
    table = "\n".join(pr.markdown(results))
    assert f"| frame_form: {frame_tasks.TASKS['frame_form']} | tabpilot | yes |" in table


def test_the_checkout_embeds_the_second_site_and_the_order_links_to_it() -> None:
    with serve(fp.second_site()) as second:
        other = fp.other_site(second)
        assert other.startswith("http://localhost:") and other != second
        with serve(fp.first_site(other)) as base:
            for path in (fp.FRAMES, fp.OPENER):
                with urllib.request.urlopen(base + path, timeout=10) as page:
                    html = page.read().decode()
                assert f'src="{other}' in html or f'href="{other}' in html
            pay = urllib.request.urlopen(second + fp.FORM_FRAME, timeout=10).read().decode()
            assert all(label in pay for label, _ in fp.PAY_FIELDS.values())
            assert "parent.postMessage" in pay and fp.PAY_BUTTON in pay
            tracking = urllib.request.urlopen(second + fp.TRACKING, timeout=10).read().decode()
            assert f"Tracking number: {fp.TRACKING_NUMBER}" in tracking
    opener = fp.opener_html(other)
    assert fp.TRACKING_NUMBER not in opener and 'target="_blank"' in opener
    assert json.loads(json.dumps(fp.PAYMENT))["save"] is True


def test_the_frame_tasks_run_through_the_task_runner_with_their_own_scripts() -> None:
    assert set(frame_tasks.SCRIPTS) == set(tasks.SCRIPTS)
    assert set(frame_tasks.CHECKS) == set(frame_tasks.TASKS) == {"frame_form", "new_tab"}
    assert not set(frame_tasks.TASKS) & set(tasks.TASKS)
    for name, script in frame_tasks.SCRIPTS.items():
        assert issubclass(script, tasks.SCRIPTS[name])
        assert callable(script.frame_form) and callable(script.new_tab)
        assert callable(script.tidy_new_tab)


class _Session:
    """Stands in for an MCP session: each call answers the tool's name."""

    def __init__(self) -> None:
        self.last = None
        self.calls: list[str] = []

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        self.calls.append(tool)
        return tool


class _Script(tasks.Script):
    tidied = 0

    def demo(self) -> str:
        self.a.call("browser_navigate", {})
        return self.a.call("browser_read", {})

    def tidy_demo(self) -> None:
        _Script.tidied += 1
        self.a.session.call("browser_tabs", {})
        raise RuntimeError("the tab was gone already")


def test_a_task_of_another_suite_runs_its_script_its_check_and_then_tidies_uncounted() -> None:
    session = _Session()
    checked: list[str] = []

    def check(answer: str, script: Any) -> tuple[bool, str]:
        checked.append(answer)
        return answer == "browser_read", ""

    run = tasks.run_task(
        "demo", "tabpilot", session, "http://x", None, None, {"tabpilot": _Script}, check
    )  # type: ignore[arg-type]
    assert run["ok"] and run["calls"] == 2 and run["answer"] == "browser_read"
    assert run["tools"] == ["browser_navigate", "browser_read"]
    assert checked == ["browser_read"] and _Script.tidied == 1
    assert session.calls == ["browser_navigate", "browser_read", "browser_tabs"]


class _Peer:
    """Stands in for a server whose snapshot grows twice before it settles."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.runs = 0

    def run(self, args: Any) -> str:
        self.runs += 1
        return "x" * self.sizes[min(self.runs, len(self.sizes)) - 1]


def test_the_frames_row_counts_the_snapshot_once_it_has_settled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(frames, "SETTLE_WAIT_S", 0)
    peer = _Peer([1276, 2031, 2031])
    assert len(frames._settled(peer, ("take_snapshot", {}))) == 2031  # type: ignore[arg-type]
    assert peer.runs == 3
    growing = _Peer(list(range(1, 100)))
    assert len(frames._settled(growing, ("s", {}))) == frames.SETTLE_TRIES + 1  # type: ignore[arg-type]
