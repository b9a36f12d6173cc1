"""Whole tasks, each done by a fixed script over MCP the way an agent would do it, per server.

Each script starts by loading its page and ends with an answer; the row records whether the task
succeeded (the answer, and where the task changes the page, the page afterwards, checked by calls
that are not counted), how many tool calls the script made, the characters those calls handed the
model (the text blocks; and the text with each answer's structured content as compact JSON
beside it, for a client that forwards both) and the wall time from the first call to the answer.

The peers' scripts take a snapshot and act by ref, as their tools' descriptions say; a value the
page shows is read from an answer that already holds it, or else with the server's evaluation
tool and the same short script tabpilot's uses. tabpilot's scripts use its own tools
(`browser_navigate`, `browser_snapshot`, `browser_act`, `browser_read`, the log tools,
`execute_javascript`). Anything that parses an answer looks for what it needs anywhere in the
text, so that a line more (a hint, a note) changes nothing but the characters.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import hand_pages as hp
from bench import pages
from bench import task_pages as tp
from bench.peers import REF_TOKEN, Session
from bench.systems import Unavailable

#: The task suite's pages, beside the peers' (bench/pages.py).
SHOP = "/shop.html"
#: The product the cart task adds.
PRODUCT = pages.product_name(130)
#: How often a script looks again for what a click set off (a log line, a response), and how long
#: it waits between looks: an agent's "not there yet, look again".
LOOKS, LOOK_WAIT_S = 20, 0.1

#: Task key -> what the row says the task is.
TASKS = {
    "cart": f'add "{PRODUCT}" from a list of {pages.PRODUCT_COUNT} products to the cart, then '
    "read the cart's count",
    "login": "fill and submit a sign-in form, then read the greeting",
    "table": f"read the row of {tp.city(tp.TABLE_ROW)!r} from a {tp.TABLE_ROWS}-row table in a "
    "long article",
    "error": 'click "Save draft", which logs an error, then report the error\'s message',
    "failed": 'click "Refresh prices", then find the request that failed',
    "upload": f"attach {hp.RECEIPT} ({hp.RECEIPT_BYTES // 1024} KB) to an expense form, then "
    "read the size and hash the page confirms",
    "wait": f"search, wait for the results that arrive {hp.SEARCH_DELAY_MS / 1000:g} s later, "
    f'then open "{hp.RESULT}"',
    "drag": f'drag "{hp.CARDS[-1]}" to the top of a list of {len(hp.CARDS)} cards (native drag '
    "and drop), then read the new order",
}
#: The tasks that upload a file: tabpilot's script needs its `files` capability for them.
FILE_TASKS = frozenset({"upload"})


def shop_html() -> str:
    """The product page, and a record of which products were added (`window.added`), which the
    check of the cart task reads."""
    record = (
        "<script>document.querySelector('.products').addEventListener('click', e => {"
        "if (e.target.matches('button.add')) (window.added ||= [])"
        ".push(e.target.closest('li').querySelector('h2').textContent); });</script>"
    )
    return pages.products_html().replace("</body>", record + "</body>")


def task_pages() -> dict[str, pages.Page]:
    return {SHOP: pages.Page(shop_html()), **tp.task_pages(), **hp.hand_pages()}


@dataclass
class Tally:
    """One run of a task script: what it cost and what it answered."""

    calls: int = 0
    chars: int = 0
    structured_chars: int = 0
    answer: str = ""
    tools: list[str] = field(default_factory=list)


class Agent:
    """A server's MCP session as a task script drives it: each call is counted."""

    def __init__(
        self, session: Session, base: str, page: Any = None, files: Path | None = None
    ) -> None:
        self.session, self.base, self.page = session, base, page
        #: The folder the server uploads files from (tabpilot: its uploads folder).
        self.files = files or Path()
        self.tally = Tally()

    def call(self, tool: str, arguments: dict[str, Any]) -> str:
        self.tally.calls += 1
        self.tally.tools.append(tool)
        try:
            return self.session.call(tool, arguments)
        finally:
            last = self.session.last
            if last is not None:
                text = "\n".join(getattr(block, "text", "") for block in last.content)
                self.tally.chars += len(text)
                structured = last.structured_content
                if structured:
                    self.tally.structured_chars += len(_compact(structured))

    def url(self, path: str) -> str:
        return self.base + path


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# What the scripts read out of answers, whichever server gave them.


def ref_after(text: str, line_has: str, then_has: str | None = None) -> str:
    """The ref on the first line holding `line_has`, or, with `then_has`, on the first line at or
    after it that holds `then_has`; in a snapshot that folds a run of same-shape siblings into a
    template and one line of fields each (tabpilot's), the field of that line the template gives
    for `then_has`. Raises if there is none."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line_has in line), None)
    if start is None:
        raise LookupError(f"{line_has!r} is not in the snapshot")
    if then_has is None:
        found = REF_TOKEN.findall(lines[start].replace(line_has, ""))
        if found:
            return str(found[0])
        raise LookupError(f"no ref on the line of {line_has!r}")
    row = lines[start]
    if "|" in row:  # a folded sibling: its template is the nearest line above naming the fields
        for above in reversed(lines[:start]):
            spec = re.search(r"one per line: (\S+)\s*$", above)
            field_ref = re.search(re.escape(then_has) + r"[^,)]*?\[ref=(\{\d+\})\]", above)
            if spec and field_ref:
                column = spec.group(1).split("|").index(field_ref.group(1))
                return row.strip().split("|")[column]
    for line in lines[start : start + 12]:
        if then_has in line:
            found = REF_TOKEN.findall(line.replace(then_has, ""))
            if found:
                return str(found[0])
    raise LookupError(f"no {then_has!r} with a ref after {line_has!r}")


#: Roles whose line names a text without being a control one fills (a label's own text, a
#: fieldset's legend, a heading).
NOT_CONTROLS = frozenset(
    {"heading", "group", "paragraph", "generic", "text", "StaticText", "LabelText", "legend"}
)


def control_ref(text: str, label: str) -> str:
    """The ref of the control called `label` in a snapshot: the first line naming it in quotes
    after a role (`textbox "Email" [ref=e7]`, `uid=1_13 Date "Delivery date"`), skipping the
    label's own text. Raises if there is none."""
    named = re.compile(rf'(?<![\w"])([A-Za-z]+) "{re.escape(label)}"')
    for line in text.splitlines():
        match = named.search(line)
        if match is None or match.group(1) in NOT_CONTROLS:
            continue
        found = REF_TOKEN.findall(line.replace(f'"{label}"', " "))
        if found:
            return str(found[0])
    raise LookupError(f"no control {label!r} with a ref in the snapshot")


def upload_confirmation(text: str) -> str | None:
    """The upload page's confirmation, wherever an answer shows it."""
    match = re.search(r"Received \S+: [\d,]+ bytes, SHA-256 [0-9a-f]{16}", text)
    return match.group(0) if match else None


def opened(text: str) -> str | None:
    """The search page's "Opened <result>", wherever an answer shows it."""
    match = re.search(r"Opened (\w+ kettle no\. \d+)", text)
    return match.group(0) if match else None


def card_order(text: str) -> str | None:
    """The cards in the order an answer lists them, one a line (a snapshot's list), joined by
    ", "; None unless it lists every card. A line naming two cards (the page's "Moved … before
    …") is not a card's line."""
    order: list[str] = []
    for line in text.splitlines():
        named = [card for card in hp.CARDS if card in line]
        if len(named) == 1 and named[0] not in order:
            order.append(named[0])
    return ", ".join(order) if len(order) == len(hp.CARDS) else None


def cart_count(text: str) -> str | None:
    match = re.search(r"Cart: (\d+) items", text)
    return match.group(1) if match else None


#: A failed request's status on its line: after the method (tabpilot's `#38 GET 503 xhr`), or in
#: brackets (Playwright's `=> [503] Service Unavailable`, chrome-devtools-mcp's `[503]`,
#: `[failed - net::ERR_…]`); a 4xx or 5xx, or a failure.
STATUS_FAILED = re.compile(
    r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(?:[45]\d\d|failed)\b|\[(?:[45]\d\d|failed)\b"
)


def failed_request(text: str, base: str) -> str | None:
    """The path of the one request in a network log whose line gives a 4xx or 5xx status or a
    failure; None while there is none."""
    failing = []
    for line in text.splitlines():
        url = re.search(re.escape(base) + r"\S*", line)
        if url is None:
            continue
        rest = line.replace(url.group(0), " ")
        if STATUS_FAILED.search(rest):
            failing.append(url.group(0)[len(base) :].rstrip(",)"))
    return failing[0] if len(set(failing)) == 1 else None


def error_message(text: str) -> str | None:
    """The message of the error line of a console log: its text after the level, less where it
    came from."""
    for line in text.splitlines():
        match = re.search(r"(?i)(?:\berror\b\]?:?|\[error\])\s+(.*)$", line)
        if match and "Draft" in match.group(1):
            message = re.sub(
                r"\s+(?:@ \S+|\(\S+:\d+(?::\d+)?\)|\(\d+ args?\))$", "", match.group(1)
            )
            return message.strip()
    return None


def row_text(text: str, name: str) -> str | None:
    """The row of the table whose first cell is `name`, from a snapshot: the line of that cell
    and the lines of the cells after it (one a line, in Playwright's and chrome-devtools-mcp's
    snapshots), as many as the table has columns."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if re.search(rf'"{re.escape(name)}"', line):
            return " | ".join(cell.strip() for cell in lines[index : index + len(expected_row())])
    return None


def look_again(read: Callable[[], str], find: Callable[[str], str | None]) -> str:
    """`find` in what `read` answers, reading again a little later while it is not there."""
    for _ in range(LOOKS):
        try:
            found = find(read())
        except RuntimeError:  # an error answer: the agent reads it and tries again
            found = None
        if found is not None:
            return found
        time.sleep(LOOK_WAIT_S)
    raise LookupError("not found after looking again")


#: The script that reads the cart's count, and the one that reads a table row, for any server.
CART_JS = "document.body.innerText.match(/Cart: \\d+ items/)[0]"


#: The status line of the hands pages; the board's cards in order, joined as `card_order` does.
STATUS_JS = "document.querySelector('[role=status]').textContent"
ORDER_TEXT_JS = "[...document.querySelectorAll('#cards li')].map((li) => li.textContent).join(', ')"


def open_js(name: str) -> str:
    """Opens the link called `name`, then reads the status line."""
    return (
        f"[...document.querySelectorAll('a')].find((a) => a.textContent === {json.dumps(name)})"
        f".click(); return {STATUS_JS}"
    )


def row_js(name: str) -> str:
    return (
        "[...document.querySelectorAll('tr')]"
        f".find((r) => r.cells[0]?.textContent === {json.dumps(name)})?.innerText"
    )


# The scripts, one class per server: each method does one task and answers what it found.


class Script:
    """A server's script: `go` loads a page (`browser_navigate`, tabpilot's and Playwright MCP's
    name for it)."""

    def __init__(self, agent: Agent) -> None:
        self.a = agent

    def go(self, path: str) -> None:
        self.a.call("browser_navigate", {"url": self.a.url(path)})

    def js(self, script: str) -> str:
        """The first line of the value of `script`, through the server's evaluation tool (a
        call counted); a string without its JSON quotes."""
        server = self.a.session.server
        value = server.value(self.a.call(*server.evaluate(self.a.page, script))).strip()
        return value.splitlines()[0].strip('"') if value else ""

    def check(self, script: str) -> str:
        """The value of `script`, by a call that is not counted: for checking the page."""
        server = self.a.session.server
        return server.value(self.a.session.call(*server.evaluate(self.a.page, script)))


def click_js(name: str) -> str:
    """Clicks the button called `name`, whatever the page's markup: what an agent writes without
    looking at the page first."""
    return (
        f"[...document.querySelectorAll('button')].find((b) => b.textContent.trim() === "
        f"{json.dumps(name)}).click()"
    )


def add_js(product: str) -> str:
    """Adds `product` to the cart by the "Add to cart" button nearest its name, then reads the
    cart; written, like `click_js`, without looking at the page's markup."""
    return (
        "let box = [...document.querySelectorAll('body *')]"
        f".find((e) => !e.children.length && e.textContent.trim() === {json.dumps(product)}); "
        "while (box && !box.querySelector('button')) box = box.parentElement; "
        "[...box.querySelectorAll('button')]"
        f".find((b) => b.textContent.includes({json.dumps(pages.ADD_TO_CART)})).click(); "
        f"return {CART_JS}"
    )


def sign_in_js(user: str, password: str) -> str:
    """Fills a sign-in form by its fields' labels and submits it."""
    return (
        "const field = (name) => [...document.querySelectorAll('label')]"
        ".find((l) => l.textContent.includes(name)).control; "
        f"field('User name').value = {json.dumps(user)}; "
        f"field('Password').value = {json.dumps(password)}; "
        "field('Password').form.requestSubmit()"
    )


class TabpilotScript(Script):
    """tabpilot's: a page tool where one answers the task, else a short execute_javascript, as
    its tools' descriptions and hints lead an agent to do."""

    def cart(self) -> str:
        self.go(SHOP)
        return cart_count(self.js(add_js(PRODUCT))) or ""

    def login(self) -> str:
        self.go(tp.LOGIN)
        self.js(sign_in_js(tp.USER, tp.PASSWORD))
        return look_again(
            lambda: self.a.call("browser_read", {}),
            lambda text: tp.GREETING if tp.GREETING in text else None,
        )

    def table(self) -> str:
        self.go(tp.ARTICLE)
        return self.js(row_js(tp.city(tp.TABLE_ROW)))

    def error(self) -> str:
        self.go(tp.ERRORS)
        self.js(click_js("Save draft"))
        return look_again(
            lambda: self.a.call("browser_console_messages", {"level": "error"}), error_message
        )

    def failed(self) -> str:
        self.go(tp.FAILING)
        self.js(click_js("Refresh prices"))
        return look_again(
            lambda: self.a.call("browser_network_requests", {"status": "failed"}),
            lambda text: failed_request(text, self.a.base),
        )

    def upload(self) -> str:
        self.go(hp.UPLOAD)
        snap = self.a.call("browser_snapshot", {"interactive_only": True})
        ref = control_ref(snap, "Receipt")
        self.a.call("browser_upload", {"ref": ref, "paths": [hp.RECEIPT]})
        answer = self.a.call("browser_wait_for", {"text": f"Received {hp.RECEIPT}"})
        return upload_confirmation(answer) or self.js(STATUS_JS)

    def wait(self) -> str:
        self.go(hp.SEARCH)
        self.js(click_js("Search"))
        self.a.call("browser_wait_for", {"text": hp.RESULT})
        return self.js(open_js(hp.RESULT))

    def drag(self) -> str:
        self.go(hp.BOARD)
        # The whole snapshot: an interactive_only one lists the cards' refs without their text.
        snap = self.a.call("browser_snapshot", {})
        source, target = ref_after(snap, hp.CARDS[-1]), ref_after(snap, hp.CARDS[0])
        answer = self.a.call("browser_act", {"kind": "drag", "ref": source, "to_ref": target})
        return card_order(answer) or self.js(ORDER_TEXT_JS)


class PlaywrightScript(Script):
    def click(self, what: str, ref: str) -> str:
        return self.a.call("browser_click", {"element": what, "target": ref})

    def cart(self) -> str:
        self.go(SHOP)
        ref = ref_after(self.a.call("browser_snapshot", {}), PRODUCT, pages.ADD_TO_CART)
        answer = self.click(f"{pages.ADD_TO_CART} button of {PRODUCT}", ref)
        return cart_count(answer) or cart_count(self.js(CART_JS)) or ""

    def login(self) -> str:
        self.go(tp.LOGIN)
        snap = self.a.call("browser_snapshot", {})
        fields = [
            {"name": "User name", "type": "textbox", "target": ref_after(snap, '"User name"'),
             "value": tp.USER},
            {"name": "Password", "type": "textbox", "target": ref_after(snap, '"Password"'),
             "value": tp.PASSWORD},
        ]  # fmt: skip
        self.a.call("browser_fill_form", {"fields": fields})
        answer = self.click("Sign in button", ref_after(snap, 'button "Sign in"'))
        if tp.GREETING in answer:
            return tp.GREETING
        return look_again(
            lambda: self.a.call("browser_snapshot", {}),
            lambda text: tp.GREETING if tp.GREETING in text else None,
        )

    def table(self) -> str:
        self.go(tp.ARTICLE)
        return row_text(self.a.call("browser_snapshot", {}), tp.city(tp.TABLE_ROW)) or ""

    def error(self) -> str:
        self.go(tp.ERRORS)
        snap = self.a.call("browser_snapshot", {})
        self.click("Save draft button", ref_after(snap, '"Save draft"'))
        return look_again(
            lambda: self.a.call("browser_console_messages", {"level": "error"}), error_message
        )

    def failed(self) -> str:
        self.go(tp.FAILING)
        snap = self.a.call("browser_snapshot", {})
        self.click("Refresh prices button", ref_after(snap, '"Refresh prices"'))
        return look_again(
            lambda: self.a.call("browser_network_requests", {}),
            lambda text: failed_request(text, self.a.base),
        )

    def upload(self) -> str:
        self.go(hp.UPLOAD)
        snap = self.a.call("browser_snapshot", {})
        self.click("Receipt file input", control_ref(snap, "Receipt"))  # opens the chooser
        self.a.call("browser_file_upload", {"paths": [str(self.a.files / hp.RECEIPT)]})
        answer = self.a.call("browser_wait_for", {"text": f"Received {hp.RECEIPT}"})
        return upload_confirmation(answer) or self.js(STATUS_JS)

    def wait(self) -> str:
        self.go(hp.SEARCH)
        self.click("Search button", control_ref(self.a.call("browser_snapshot", {}), "Search"))
        self.a.call("browser_wait_for", {"text": hp.RESULT})
        # Its answers link the page's snapshot in a file instead of showing it: a snapshot more.
        ref = control_ref(self.a.call("browser_snapshot", {}), hp.RESULT)
        answer = self.click(f"{hp.RESULT} link", ref)
        return opened(answer) or self.js(STATUS_JS)

    def drag(self) -> str:
        self.go(hp.BOARD)
        snap = self.a.call("browser_snapshot", {})
        args = {
            "startElement": f"{hp.CARDS[-1]} card",
            "startTarget": ref_after(snap, hp.CARDS[-1]),
            "endElement": f"{hp.CARDS[0]} card",
            "endTarget": ref_after(snap, hp.CARDS[0]),
        }
        return card_order(self.a.call("browser_drag", args)) or self.js(ORDER_TEXT_JS)


class DevtoolsScript(Script):
    def args(self, **more: Any) -> dict[str, Any]:
        return {"pageId": self.a.page, **more}

    def go(self, path: str) -> None:
        self.a.call("navigate_page", self.args(type="url", url=self.a.url(path)))

    def snapshot(self) -> str:
        return self.a.call("take_snapshot", self.args())

    def cart(self) -> str:
        self.go(SHOP)
        ref = ref_after(self.snapshot(), PRODUCT, pages.ADD_TO_CART)
        answer = self.a.call("click", self.args(uid=ref))
        return cart_count(answer) or cart_count(self.js(CART_JS)) or ""

    def login(self) -> str:
        self.go(tp.LOGIN)
        snap = self.snapshot()
        elements = [
            {"uid": ref_after(snap, 'textbox "User name"'), "value": tp.USER},
            {"uid": ref_after(snap, 'textbox "Password"'), "value": tp.PASSWORD},
        ]
        self.a.call("fill_form", self.args(elements=elements))
        answer = self.a.call(
            "click", self.args(uid=ref_after(snap, 'button "Sign in"'), includeSnapshot=True)
        )
        if tp.GREETING in answer:
            return tp.GREETING
        return look_again(self.snapshot, lambda text: tp.GREETING if tp.GREETING in text else None)

    def table(self) -> str:
        self.go(tp.ARTICLE)
        return row_text(self.snapshot(), tp.city(tp.TABLE_ROW)) or ""

    def error(self) -> str:
        self.go(tp.ERRORS)
        self.a.call("click", self.args(uid=ref_after(self.snapshot(), '"Save draft"')))
        return look_again(
            lambda: self.a.call("list_console_messages", self.args(types=["error"])),
            error_message,
        )

    def failed(self) -> str:
        self.go(tp.FAILING)
        self.a.call("click", self.args(uid=ref_after(self.snapshot(), '"Refresh prices"')))
        return look_again(
            lambda: self.a.call("list_network_requests", self.args()),
            lambda text: failed_request(text, self.a.base),
        )

    def upload(self) -> str:
        self.go(hp.UPLOAD)
        uid = control_ref(self.snapshot(), "Receipt")
        path = str(self.a.files / hp.RECEIPT)
        self.a.call("upload_file", self.args(uid=uid, filePaths=[path]))
        answer = self.a.call("wait_for", self.args(text=[f"Received {hp.RECEIPT}"]))
        return upload_confirmation(answer) or self.js(STATUS_JS)

    def wait(self) -> str:
        self.go(hp.SEARCH)
        self.a.call("click", self.args(uid=control_ref(self.snapshot(), "Search")))
        answer = self.a.call("wait_for", self.args(text=[hp.RESULT]))
        uid = control_ref(answer, hp.RESULT)
        answer = self.a.call("click", self.args(uid=uid, includeSnapshot=True))
        return opened(answer) or self.js(STATUS_JS)

    def drag(self) -> str:
        self.go(hp.BOARD)
        snap = self.snapshot()
        args = self.args(
            from_uid=ref_after(snap, hp.CARDS[-1]),
            to_uid=ref_after(snap, hp.CARDS[0]),
            includeSnapshot=True,
        )
        return card_order(self.a.call("drag", args)) or self.js(ORDER_TEXT_JS)


SCRIPTS: dict[str, type[Script]] = {
    "tabpilot": TabpilotScript,
    "Playwright MCP": PlaywrightScript,
    "chrome-devtools-mcp": DevtoolsScript,
}


def expected_row() -> tuple[str, str, str, str]:
    return tp.table_row(tp.TABLE_ROW)


def succeeded(task: str, answer: str, script: Any) -> tuple[bool, str]:
    """Whether the task was done, by its answer and by the page after it (calls not counted);
    and, when not, why."""
    if task == "cart":
        added = script.check("JSON.stringify(window.added || [])")
        if answer != "1":
            return False, f"answered the cart count {answer!r}, not 1"
        if PRODUCT not in added or added.count("no.") != 1:
            return False, f"the page added {added[:200]}"
        return True, ""
    if task == "login":
        heading = script.check("document.querySelector('h1')?.textContent")
        ok = answer == tp.GREETING and tp.GREETING in heading
        return ok, "" if ok else f"answered {answer[:100]!r}; the page says {heading[:100]!r}"
    if task == "table":
        missing = [cell for cell in expected_row() if cell not in answer]
        ok = not missing
        return ok, "" if ok else f"answered {answer[:200]!r}, without {missing}"
    if task == "error":
        ok = answer == tp.ERROR_MESSAGE
        return ok, "" if ok else f"answered {answer[:200]!r}"
    if task in HAND_CHECKS:
        return HAND_CHECKS[task](answer, script)
    ok = answer == tp.FAILED_PATH
    return ok, "" if ok else f"answered {answer[:200]!r}"


def _page_json(script: Any, js: str) -> Any:
    """The value of `js`, a JSON.stringify(...), by a call that is not counted."""
    return from_json(script.check(js))


def from_json(text: str) -> Any:
    """The value a JSON.stringify(...) made, from an evaluation's answer: its JSON, whether the
    server shows a string value quoted (JSON of the JSON) or as is."""
    value = json.loads(text)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:  # the server showed the string as is: `value` is the JSON's value
            return value
    return value


def _uploaded(answer: str, script: Any) -> tuple[bool, str]:
    data = hp.file_bytes(hp.RECEIPT, hp.RECEIPT_BYTES)
    count, received = _page_json(script, hp.RECEIVED_JS)
    expected = {"name": hp.RECEIPT, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    got = {k: (received or {}).get(k) for k in expected}
    if answer != hp.confirmation(hp.RECEIPT, data):
        return False, f"answered {answer[:200]!r}"
    if got != expected or count != 1:
        return False, f"the page received {count} files, the last {got}"
    return True, ""


def _opened(answer: str, script: Any) -> tuple[bool, str]:
    page = _page_json(script, "JSON.stringify(window.opened || null)")
    ok = answer == f"Opened {hp.RESULT}" and page == hp.RESULT
    return ok, "" if ok else f"answered {answer[:200]!r}; the page opened {page!r}"


def _reordered(answer: str, script: Any) -> tuple[bool, str]:
    expected = [hp.CARDS[-1], *hp.CARDS[:-1]]
    drops, order = _page_json(script, hp.ORDER_JS)
    ok = answer == ", ".join(expected) and order == expected and drops == 1
    return ok, "" if ok else f"answered {answer[:200]!r}; the page has {order} after {drops} drops"


#: The checks of the tasks on bench/hand_pages.py's pages, by task.
HAND_CHECKS = {"upload": _uploaded, "wait": _opened, "drag": _reordered}


#: Whether a task was done, given its answer and its script (for checks in the page), and why not.
Check = Callable[[str, Any], tuple[bool, str]]


def run_task(
    task: str,
    name: str,
    session: Session,
    base: str,
    page: Any,
    files: Path | None = None,
    scripts: dict[str, type[Script]] | None = None,
    check: Check | None = None,
) -> dict[str, Any]:
    """One run of one task by one server's script: its row's figures. `files`: the folder the
    server uploads files from, where the upload task's file is; `scripts` and `check`: another
    suite's scripts, by server, and its check of the task (bench/frame_tasks.py). A script's
    `tidy_<task>()`, where it has one, runs last, by calls not counted: it closes what the task
    opened."""
    agent = Agent(session, base, page, files)
    script = (scripts or SCRIPTS)[name](agent)
    started = time.perf_counter()
    error = ""
    try:
        agent.tally.answer = getattr(script, task)()
    except Unavailable:
        raise
    except Exception as exc:  # the task failed: the row says how
        error = f"{type(exc).__name__}: {exc}"[:300]
    ms = (time.perf_counter() - started) * 1000
    if error:
        ok, why = False, error
    else:
        try:
            if check is None:
                ok, why = succeeded(task, agent.tally.answer, script)
            else:
                ok, why = check(agent.tally.answer, script)
        except Exception as exc:  # the page could not be checked: not a success
            ok, why = False, f"the check failed: {type(exc).__name__}: {exc}"[:300]
    tidy = getattr(script, f"tidy_{task}", None)
    if tidy is not None:
        try:
            tidy()
        except Unavailable:
            raise
        except Exception as exc:  # the next run starts from what is left; the row stands
            print(f"bench: {name} could not tidy after {task}: {exc}"[:300], file=sys.stderr)
    tally = agent.tally
    return {
        "ok": ok,
        "why": why,
        "calls": tally.calls,
        "chars": tally.chars,
        "structured_chars": tally.structured_chars,
        "ms": ms,
        "answer": tally.answer[:200],
        "tools": tally.tools,
    }


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A server's row of a task from its runs: ok only if every run was; the median time; the
    calls and characters of the run with the most (they differ only when a script looked again)."""
    most = max(runs, key=lambda r: (r["chars"], r["calls"]))
    failed = [r for r in runs if not r["ok"]]
    return {
        "ok": not failed,
        "why": failed[0]["why"] if failed else "",
        "runs": len(runs),
        "calls": most["calls"],
        "chars": most["chars"],
        "structured_chars": most["structured_chars"],
        "text_and_structured_chars": most["chars"] + most["structured_chars"],
        "ms": statistics.median(r["ms"] for r in runs),
        "ms_all": [round(r["ms"], 1) for r in runs],
        "answer": most["answer"],
        "tools": most["tools"],
    }
