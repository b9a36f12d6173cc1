"""tabpilot beside Playwright MCP and chrome-devtools-mcp on frames and find (bench/peer_suite.py):

- a snapshot of a checkout whose payment form and order list are cross-origin iframes from
  another site (bench/frame_pages.py): its characters, its time, and how many of the controls
  inside the frames carry a ref in it (each control is found by its role and its name, which no
  other control has);
- a search for one product on the 300-product page by each server's find tool (tabpilot's
  `browser_find`, Playwright MCP's `browser_find`; chrome-devtools-mcp has none): its characters,
  its time, and whether the answer shows the product with a ref.

Both navigate each server's current page, so they run after the rows that use the pages opened
at the start. The readers here parse any server's snapshot: tabpilot's folds a run of same-shape
siblings into a template and a line of fields each, which `unfold` writes out again.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from bench import frame_pages as fp
from bench import pages
from bench.peer_hands import show
from bench.peers import REF_TOKEN
from bench.suites import Counts
from bench.systems import System, Unavailable, guarded

if TYPE_CHECKING:
    from bench.peer_suite import Peer

PRODUCTS = "/products.html"
#: The product the find row looks for, by its whole name as a person would give it.
FIND_INDEX = 136
FIND_TEXT = pages.product_name(FIND_INDEX)

#: A folded run's template line, `- 6 \u00d7 listitem: (…{1}…[ref={3}]…); one per line: {1}|{3}`.
_TEMPLATE = re.compile(r"^(\s*)- (\d+) \u00d7 (.*); one per line: (\S+)\s*$")


def unfold(text: str) -> str:
    """`text` with each folded run written out, one line per sibling: its template with that
    sibling's fields in place of `{1}`, `{2}`…; every other line as it is."""
    out: list[str] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        template = _TEMPLATE.match(line)
        if template is None:
            out.append(line)
            continue
        indent, shape, spec = template.group(1), template.group(3), template.group(4)
        fields = spec.split("|")
        while index < len(lines):
            row = lines[index]
            if len(row) - len(row.lstrip()) <= len(indent) or not row.strip():
                break
            index += 1
            cells = row.strip().split("|")
            written = shape
            for field, cell in zip(fields, cells, strict=False):
                written = written.replace(field, cell)
            out.append(f"{indent}- {written}")
    return "\n".join(out)


def named_ref(text: str, role: str, name: str) -> str | None:
    """The ref of the `role` called `name` in a snapshot, folded or not: on its line, the ref
    right after the name (`button "Pay" [ref=e7]`, `[ref=f1e22]`) or right before the role
    (`uid=1_26 button "Pay"`); None if no such control has one."""
    named = re.compile(rf'(?<![\w"]){re.escape(role)} "{re.escape(name)}"', re.I)
    for line in unfold(text).splitlines():
        for match in named.finditer(line):
            after = re.match(r"((?:\s*\[[^\]]*\])*)", line[match.end() :])
            for token in re.findall(r"\[ref=([^\]]+)\]", after.group(1) if after else ""):
                if REF_TOKEN.fullmatch(token):
                    return token
            before = re.search(r"uid=(\S+)\s+$", line[: match.start()])
            if before and REF_TOKEN.fullmatch(before.group(1)):
                return before.group(1)
    return None


def frame_refs(text: str) -> dict[str, str | None]:
    """Each control inside the checkout's frames (`FRAME_CONTROLS`), by name: its ref in `text`."""
    return {name: named_ref(text, role, name) for role, name in fp.FRAME_CONTROLS}


def distinct_refs(refs: dict[str, str | None]) -> int:
    """How many controls got a ref of their own: two controls on one ref count once."""
    return len({ref for ref in refs.values() if ref is not None})


def found_with_ref(text: str, wanted: str = FIND_TEXT) -> bool:
    """Whether a find answer shows `wanted`, on a line with a ref an agent can act on: the
    match's own line, or the line of the element it is in."""
    lines = unfold(text).splitlines()
    for index, line in enumerate(lines):
        if wanted not in line:
            continue
        if REF_TOKEN.search(line.replace(wanted, " ")):
            return True
        # A heading's line may carry no ref: its list item's, just above it, does.
        if index and REF_TOKEN.search(lines[index - 1]):
            return True
    return False


def _calls(peer: Peer, counts: Counts) -> tuple[int, int]:
    # As bench/peer_suite.py's rows: tabpilot's tools take milliseconds, the peers' tenths of a
    # second.
    if peer.fast:
        return counts.peer_fast, max(1, counts.peer_fast // 20)
    return counts.peer_slow, 1


def _frames_loaded(peer: Peer, target: Any) -> None:
    """Waits until both frames of the checkout have loaded, by a call not counted: a snapshot
    taken earlier would time a page still loading."""
    server, _ = peer.open
    script = "[...document.querySelectorAll('iframe')].every((f) => f.dataset.loaded === '1')"
    for _ in range(100):
        if server.value(peer.run(server.evaluate(target, script))) == "true":
            return
        time.sleep(0.05)
    raise RuntimeError("the checkout's frames did not load")


#: How many snapshots a server may take to show the whole framed page, and how far apart.
SETTLE_TRIES, SETTLE_WAIT_S = 15, 0.2


def _settled(peer: Peer, args: tuple[str, dict[str, Any]]) -> str:
    """The server's snapshot once two in a row are the same size: a server may show a frame's
    tree a moment after the frame has loaded (chrome-devtools-mcp, now and then, the second
    frame), and the row counts what it shows once it has it, not how soon."""
    last = peer.run(args)
    for _ in range(SETTLE_TRIES):
        time.sleep(SETTLE_WAIT_S)
        text = peer.run(args)
        if len(text) == len(last):
            return text
        last = text
    return last


def frames_snapshot_system(peer: Peer, counts: Counts, found: dict[str, Any]) -> System:
    """Snapshots of the checkout with its two cross-origin frames, with each server's defaults;
    `found` gets the first's characters and the refs it gave the controls inside the frames."""
    state: dict[str, Any] = {}

    def setup() -> None:
        server, _ = peer.open
        target = show(peer, fp.FRAMES)
        _frames_loaded(peer, target)
        state["args"] = server.snapshot(target)
        text = _settled(peer, state["args"])
        refs = frame_refs(text)
        found[peer.name] = {
            "chars": len(text),
            "frame_controls": len(refs),
            "frame_refs": distinct_refs(refs),
            "missing": [name for name, ref in refs.items() if ref is None],
        }

    def call() -> None:
        if not peer.run(state["args"]):
            raise RuntimeError(f"{peer.name} gave an empty snapshot")

    calls, warmup = _calls(peer, counts)
    return System(peer.name, guarded(call), guarded(setup), calls=calls, warmup=warmup)


def find_system(peer: Peer, counts: Counts, found: dict[str, Any]) -> System:
    """Searches of the 300-product page for one product by name; `found` gets the first
    answer, its characters and whether it shows the product with a ref."""
    state: dict[str, Any] = {}

    def setup() -> None:
        server, _ = peer.open
        if server.find is None:
            raise Unavailable(f"{peer.name} has no tool that finds on the page")
        target = show(peer, PRODUCTS)
        state["args"] = server.find(target, FIND_TEXT)
        text = peer.run(state["args"])
        found[peer.name] = {"chars": len(text), "found": found_with_ref(text), "answer": text}

    def call() -> None:
        if FIND_TEXT not in peer.run(state["args"]):
            raise RuntimeError(f"{peer.name} did not find {FIND_TEXT!r}")

    calls, warmup = _calls(peer, counts)
    return System(peer.name, guarded(call), guarded(setup), calls=calls, warmup=warmup)
