"""A page that replaces the built-ins after tabpilot's page-world files loaded changes nothing the
serializer answers, in the real Chromium, in the human-like browser and the managed one
(docs/protocol.md §5; the serializer's files capture what they use at document_start)."""

from __future__ import annotations

from typing import Any

import pytest
from selenium import webdriver

from tests.e2e.harness import Daemon

pytestmark = pytest.mark.e2e

# Values of every kind, made while the built-ins are intact and kept on the page for later.
KEEP_EVERY_KIND = """
const err = new Error("bad", { cause: { why: "disk" } });
err.stack = "Error: bad\\n    at f (eval at compileForm "
  + "(chrome-extension://x/page/executor.js:74:31), <anonymous>:5:7)";
const loop = { name: "loop" };
loop.self = loop;
window.__kinds = { list: [1, "a\\uD800", null], map: new Map([[1, { x: 1 }]]), set: new Set([1, 2]),
  when: new Date(0), re: /a+/gi, big: 12n, sym: Symbol("s"), fn: function named() {}, err,
  typed: new Uint8Array([1, 2]), buf: new ArrayBuffer(4), node: document.getElementById("test"),
  host: Object.assign(Object.create({ get field() { return 3; }, method() {} }), { own: 1 }),
  loop, nan: NaN, promise: Promise.resolve(1), many: Array.from({ length: 101 }, (_, i) => i) };
"kept"
"""

# What a hostile page script does once it runs: replace each built-in the serializer calls or
# reads through, iteration included.
REPLACE_BUILT_INS = """
Object.getPrototypeOf(new Map().entries()).next = () => ({ done: true });
Object.keys = Object.getOwnPropertyNames = () => ["hijacked"];
Object.getPrototypeOf = () => null;
Object.getOwnPropertyDescriptor = () => undefined;
Array.isArray = () => false;
for (const name of ["map", "forEach", "push", "slice", "join", "indexOf"]) {
  Array.prototype[name] = () => { throw new Error(name); };
}
JSON.stringify = () => "hijacked";
Array.prototype[Symbol.iterator] = function* () { yield "hijacked"; };
Map.prototype[Symbol.iterator] = Set.prototype[Symbol.iterator] = Array.prototype[Symbol.iterator];
Map.prototype.entries = Set.prototype.values = () => { throw new Error("tampered"); };
Object.defineProperty(Map.prototype, "size", { get: () => 0 });
String.prototype.slice = String.prototype.indexOf = () => "hijacked";
String.prototype.toWellFormed = () => "hijacked";
RegExp.prototype.exec = () => null;
Math.max = Math.round = () => "hijacked";
Date.prototype.toISOString = Date.prototype.getTime = () => "hijacked";
Symbol.prototype.toString = BigInt.prototype.toString = () => "hijacked";
Element.prototype.getBoundingClientRect = () => ({ x: "hijacked" });
Object.defineProperty(Array.prototype, "toJSON", { configurable: true, value: () => "hijacked" });
Object.defineProperty(Object.prototype, "toJSON", { configurable: true, value: () => "hijacked" });
Object.defineProperty(Object.prototype, "value", { configurable: true, get: () => () => {} });
"replaced"
"""


@pytest.fixture(params=["browser", "managed"])
def pilot(request: pytest.FixtureRequest) -> Daemon:
    """The daemon of the human-like browser, then of the managed one."""
    if request.param == "browser":
        request.getfixturevalue("browser")
        daemon: Daemon = request.getfixturevalue("daemon")
        return daemon
    managed: Daemon = request.getfixturevalue("managed")
    return managed


def _run(daemon: Daemon, tab: int, script: str) -> dict[str, Any]:
    body: dict[str, Any] = daemon.execute(script, tab_id=tab).json()
    assert body["success"] is True, body
    return body


def test_a_page_replacing_built_ins_after_load_changes_no_answer(pilot: Daemon, pages: str) -> None:
    opened = pilot.post_json(
        "/browser_tabs", {"action": "new", "url": f"{pages}/index.html"}, timeout=60
    )
    tab = opened.json()["result"]["id"]
    try:
        _run(pilot, tab, KEEP_EVERY_KIND)
        plain = _run(pilot, tab, "window.__kinds")
        assert plain["result_type"] == "object"
        kinds = plain["result"]
        assert kinds["err"]["stack"] == "Error: bad\n    at f (<script>:3:7)"
        assert kinds["map"] == [[1, {"x": 1}]]
        assert kinds["host"] == {"own": 1, "field": 3}
        assert kinds["list"] == [1, "a\ufffd", None]
        assert kinds["when"] == "1970-01-01T00:00:00.000Z"
        assert kinds["node"].startswith("[DIV#test @ (")
        assert kinds["many"][-1] == "... 1 more items"
        assert _run(pilot, tab, REPLACE_BUILT_INS)["result"] == "replaced"
        tampered = _run(pilot, tab, "window.__kinds")
        assert (tampered["result"], tampered["result_type"]) == (kinds, "object")
    finally:
        pilot.post_json("/browser_tabs", {"action": "close", "tab_id": tab})


def test_the_page_world_files_leave_no_library_on_the_page(
    browser: webdriver.Chrome, daemon: Daemon, page: dict[str, Any]
) -> None:
    names = _run(
        daemon,
        page["id"],
        "Object.getOwnPropertyNames(window).filter((name) => name.startsWith('__tabpilot')).sort()",
    )
    # Nothing at all: a second copy of the files finds the first through events on the document.
    assert names["result"] == []
