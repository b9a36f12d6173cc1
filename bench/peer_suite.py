"""tabpilot beside Playwright MCP and chrome-devtools-mcp, each over stdio through one MCP client.

tabpilot runs as a daemon of its own with its managed headless Chromium (`tabpilot serve
--browser`), so each of the three servers drives a browser it started itself. All three load the
same pages from one local server (bench/pages.py) and are measured side by side, interleaved in
blocks, in these rows:

- `1+1` through each evaluation tool with its defaults;
- a snapshot of the 300-product page: its characters, its time, and how many of the 300 "Add to
  cart" buttons carry a ref;
- a snapshot of the 10,000-element page;
- a click by ref on an "Add to cart" button from a snapshot, checked afterwards by the cart's count;
- a screenshot of the product page's viewport, with each tool's defaults: its time, and the bytes
  of the image the model is handed;
- a full-page screenshot of a page ten viewports tall.
- the console and the network log of a page that logged 1,500 messages and made 1,500 requests
  (tabpilot's rings full), each tool with its defaults: its time and its answer's characters;
- each server's whole `tools/list`, in characters, and its `instructions`;
- a page's hands (bench/peer_hands.py), and frames and find (bench/frames.py): a snapshot of a
  page with two cross-origin frames, a search of the product page;
- whole tasks, each done by a fixed script per server (bench/tasks.py, bench/frame_tasks.py),
  last, since they navigate the pages the rows above use.

A server, or a tool of it, that cannot be measured gets a row saying why instead of figures.
"""

from __future__ import annotations

import io
import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PIL import Image
from tests.e2e.harness import Daemon, spawn_daemon, wait_for

from bench import frame_pages as fp
from bench import frame_tasks, frames, pages, peer_hands, tasks
from bench import hand_pages as hp
from bench import task_pages as tp
from bench.peers import (
    Loop,
    Server,
    Session,
    button_refs,
    devtools_server,
    images_of,
    playwright_server,
    session,
    tabpilot_server,
)
from bench.suites import Counts, latency
from bench.systems import MissingTool, System, Unavailable, guarded

PRODUCTS, NODES, TALL, LOGS = "/products.html", "/nodes.html", "/tall.html", "/logs.html"
#: How long the log page may take to make all its requests.
LOGS_WAIT_S = 60


def _say(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


@dataclass
class Peer:
    """A server's open session and the pages it has open, by path."""

    name: str
    server: Server | None
    session: Session | None
    reason: str = ""
    pages: dict[str, Any] = field(default_factory=dict)
    #: For a server with one current tab (Playwright MCP): the path it shows.
    showing: str | None = None
    base: str = ""
    #: The folder the server uploads files from, with the upload task's file in it.
    files: Path | None = None
    #: tabpilot's session with the MCP capability `files` (browser_upload), for the tasks that
    #: upload: its default session stays the one whose `tools/list` is measured.
    capped: Session | None = None

    @property
    def fast(self) -> bool:
        return self.name == "tabpilot"

    @property
    def open(self) -> tuple[Server, Session]:
        if self.server is None or self.session is None:
            raise Unavailable(self.reason)
        return self.server, self.session

    def aim(self, path: str) -> Any:
        """What the server's tools need to act on `path`, navigating there first if it must."""
        _, session = self.open
        if path in self.pages:
            return self.pages[path]
        if self.showing != path:
            session.call("browser_navigate", {"url": self.base + path})
            self.showing = path
        return None

    def run(self, tool_args: tuple[str, dict[str, Any]]) -> str:
        return self.open[1].call(*tool_args)


def _counts(peer: Peer, counts: Counts, row: str = "") -> tuple[int, int]:
    """Calls and warm-up of a row: tabpilot's tools take milliseconds, the peers' tenths of a
    second, and their snapshots of 10,000 elements seconds (measured a sixth as many times, for
    reference only)."""
    if row == "nodes":
        return (counts.peer_10k if peer.fast else max(1, counts.peer_10k // 6)), 1
    if not peer.fast:  # the set-up's own call has warmed it up already
        return counts.peer_slow, 1
    many = counts.peer_fast // 2 if row == "products" else counts.peer_fast
    return many, max(1, many // 20)


def evaluate_system(peer: Peer, counts: Counts) -> System:
    state: dict[str, Any] = {}

    def setup() -> None:
        server, _ = peer.open
        # tabpilot's defaults aim at the active tab: the product page, opened last.
        state["args"] = server.evaluate(None if peer.fast else peer.aim(PRODUCTS), "1+1")
        state["value"] = server.value
        call()

    def call() -> None:
        value = state["value"](peer.run(state["args"]))
        if value != "2":
            raise RuntimeError(f"{peer.name} answered {value!r} to 1+1")

    calls, warmup = _counts(peer, counts)
    return System(peer.name, guarded(call), guarded(setup), calls=calls, warmup=warmup)


def snapshot_system(peer: Peer, path: str, counts: Counts, found: dict[str, Any]) -> System:
    """Snapshots of `path`; `found` gets the size of the first (its text, which an agent reads,
    and the structured content beside it, if any) and, on the product page, how many of its "Add
    to cart" buttons carry a ref."""
    state: dict[str, Any] = {}

    def setup() -> None:
        server, session = peer.open
        state["args"] = server.snapshot(peer.aim(path))
        text = peer.run(state["args"])
        structured = session.last.structured_content if session.last else None
        found[peer.name] = {
            "chars": len(text),
            "structured_chars": len(json.dumps(structured)) if structured else 0,
        }
        if path == PRODUCTS:
            found[peer.name]["add_to_cart_refs"] = len(button_refs(text, pages.ADD_TO_CART))

    def call() -> None:
        if not peer.run(state["args"]):
            raise RuntimeError(f"{peer.name} gave an empty snapshot")

    calls, warmup = _counts(peer, counts, "products" if path == PRODUCTS else "nodes")
    return System(peer.name, guarded(call), guarded(setup), calls=calls, warmup=warmup)


def click_system(peer: Peer, counts: Counts, found: dict[str, Any]) -> System:
    """Clicks on the first "Add to cart" button by the ref a snapshot gave it; at the end the
    page's cart must count every click, or the row says it does not."""
    state: dict[str, Any] = {"clicks": 0}

    def cart() -> int:
        server, _ = peer.open
        script = "+document.getElementById('cart').textContent"
        return int(server.value(peer.run(server.evaluate(peer.aim(PRODUCTS), script))))

    def setup() -> None:
        server, _ = peer.open
        target = peer.aim(PRODUCTS)
        state["before"] = cart()
        refs = button_refs(peer.run(server.snapshot(target)), pages.ADD_TO_CART)
        if not refs:
            raise RuntimeError(f'no button "{pages.ADD_TO_CART}" with a ref in the snapshot')
        ref = refs[0]
        state["args"] = server.click(target, ref)
        call()

    def call() -> None:
        peer.run(state["args"])
        state["clicks"] += 1

    def teardown() -> None:
        try:
            counted: int | str = cart() - state["before"]
        except Exception as exc:  # the row says so; the other servers' figures stand
            counted = f"unknown ({exc})"[:200]
        found[peer.name] = {"clicks": state["clicks"], "cart_counted": counted}

    calls, warmup = _counts(peer, counts)
    return System(peer.name, guarded(call), guarded(setup), teardown, calls, warmup)


def screenshot_system(
    peer: Peer, path: str, full: bool, counts: Counts, found: dict[str, Any]
) -> System:
    """Screenshots of `path` (its viewport, or the whole page); `found` gets what the first handed
    the model: its image's bytes and size, and the characters of its text."""
    state: dict[str, Any] = {}

    def setup() -> None:
        server, session = peer.open
        if server.screenshot is None:
            raise Unavailable(f"{peer.name} has no screenshot tool here")
        target = peer.aim(path)
        if server.front is not None:
            peer.run(server.front(target))
        state["args"] = server.screenshot(target, full)
        text = peer.run(state["args"])
        images = images_of(session.last)
        if not images:
            raise RuntimeError(f"{peer.name} answered no image: {text[:200]}")
        with Image.open(io.BytesIO(images[0])) as image:
            size = f"{image.width}x{image.height} {image.format}"
        found[peer.name] = {"image_bytes": sum(map(len, images)), "image": size, "chars": len(text)}

    def call() -> None:
        peer.run(state["args"])
        if not images_of(peer.open[1].last):
            raise RuntimeError(f"{peer.name} answered no image")

    if full:  # up to a second or so each, for every server
        calls, warmup = max(2, counts.peer_slow // 2), 1
    else:
        calls, warmup = _counts(peer, counts)
    return System(peer.name, guarded(call), guarded(setup), calls=calls, warmup=warmup)


def log_system(peer: Peer, kind: str, counts: Counts, found: dict[str, Any]) -> System:
    """The console (`kind` "console") or network log of the log page, once it has logged and
    fetched all it does; `found` gets the characters of the first answer."""
    state: dict[str, Any] = {}

    def setup() -> None:
        server, session = peer.open
        _settled(peer)
        target = peer.aim(LOGS)
        state["args"] = server.console(target) if kind == "console" else server.network(target)
        text = peer.run(state["args"])
        structured = session.last.structured_content if session.last else None
        found[peer.name] = {
            "chars": len(text),
            "structured_chars": len(json.dumps(structured)) if structured else 0,
        }

    def call() -> None:
        if not peer.run(state["args"]):
            raise RuntimeError(f"{peer.name} gave an empty {kind} log")

    calls, warmup = _counts(peer, counts, "products")
    return System(peer.name, guarded(call), guarded(setup), calls=calls, warmup=warmup)


def _open_tabpilot_tabs(daemon: Daemon, base: str) -> dict[str, int]:
    """The log page, the tall page, the 10,000-element page, then the product page, in tabs of the
    managed browser: the product page is left the active tab."""
    tabs = {}
    for path in (LOGS, TALL, NODES, PRODUCTS):
        body = daemon.post_json("/browser_tabs", {"action": "new", "url": base + path}).json()
        if not body.get("success"):
            raise RuntimeError(f"/browser_tabs new answered {body}")
        tab = int(body["result"]["id"])

        def loaded(tab: int = tab) -> bool:
            answer = daemon.execute("document.readyState", tab_id=tab).json()
            return bool(answer.get("success")) and answer["result"] == "complete"

        wait_for(loaded, 30, f"{path} to load in tabpilot's browser")
        tabs[path] = tab
    return tabs


def _open_devtools_pages(peer: Peer) -> None:
    for path in (LOGS, TALL, NODES, PRODUCTS):
        text = peer.run(("new_page", {"url": peer.base + path}))
        match = re.search(rf"^(\d+): .*\({re.escape(peer.base + path)}\)", text, re.M)
        if match is None:
            raise RuntimeError(f"new_page did not list {path}: {text[:300]}")
        peer.pages[path] = int(match.group(1))


def _settled(peer: Peer) -> None:
    """Waits until the peer's log page has made all its requests. The page fetches 1,500 times
    after its load event, for about ten seconds: measuring during that would time every server
    against a browser still busy with it."""
    server, _ = peer.open
    done = server.evaluate(peer.aim(LOGS), "window.logsDone === true")
    wait_for(lambda: server.value(peer.run(done)) == "true", LOGS_WAIT_S, f"{LOGS} to finish")


@contextmanager
def _managed_daemon() -> Iterator[Daemon]:
    with spawn_daemon("--browser") as daemon:

        def ready() -> bool:
            status = daemon.status()
            extension = status["extension"]
            started = status["browser"][
                "ready"
            ]  # its first page loaded (tabpilot.browsers.supervisor)
            return bool(extension["connected"] and extension.get("pilot_enabled") and started)

        wait_for(ready, 90, "the managed browser's first page, with AI Web Pilot on")
        yield daemon


@contextmanager
def _peers(loop: Loop, base: str) -> Iterator[list[Peer]]:
    """tabpilot, Playwright MCP and chrome-devtools-mcp, each with its pages open; a server that
    cannot start is a Peer without a session and a reason."""
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabpilot-peers-")))
        tabs: dict[str, int] = {}
        # Where each server uploads from: tabpilot's uploads folder, the peers' working folder
        # (Playwright MCP reads files only inside it).
        folders = {"Playwright MCP": work, "chrome-devtools-mcp": work}

        def tabpilot() -> Server:
            daemon = stack.enter_context(_managed_daemon())
            tabs.update(_open_tabpilot_tabs(daemon, base))
            folders["tabpilot"] = daemon.state_dir / "uploads"
            return tabpilot_server(daemon.port, daemon.state_dir)

        makers: dict[str, Callable[[], Server]] = {
            "tabpilot": tabpilot,
            "Playwright MCP": lambda: playwright_server(work),
            "chrome-devtools-mcp": lambda: devtools_server(work),
        }
        peers = []
        for name, make in makers.items():
            try:
                server = make()
                peer = Peer(name, server, stack.enter_context(session(loop, server)), base=base)
                peer.pages = tabs if name == "tabpilot" else {}
                if name == "chrome-devtools-mcp":
                    _open_devtools_pages(peer)
                if peer.pages:  # its log page is open already: let it finish first
                    _settled(peer)
                peer.files = folders[name]
                hp.write_file(peer.files, hp.RECEIPT, hp.RECEIPT_BYTES)
                if peer.fast:
                    peer.capped = _capped(stack, loop, server)
            except Exception as exc:  # a peer that cannot start is reported
                _say(f"{name} is not available: {exc}")
                peer = Peer(name, None, None, reason=f"{exc}"[:400])
            peers.append(peer)
        yield peers


def _capped(stack: ExitStack, loop: Loop, server: Server) -> Session | None:
    """A second `tabpilot mcp` on the same daemon, with the `files` capability; None (and the
    upload task says tabpilot lacks its tool) where this build has no such capability."""
    port = server.params.args[server.params.args.index("--port") + 1]
    state = Path(server.params.env["TABPILOT_STATE_DIR"]) if server.params.env else Path()
    try:
        return stack.enter_context(session(loop, tabpilot_server(int(port), state, "files")))
    except Exception as exc:  # reported by the task that needs it
        _say(f"tabpilot mcp --caps files is not available: {exc}")
        return None


def _merge(rows: list[dict[str, Any]], found: dict[str, Any], peers: list[Peer]) -> None:
    versions = {p.name: p.server.version for p in peers if p.server is not None}
    for row in rows:
        row.update(found.get(row["system"], {}))
        row["version"] = versions.get(row["system"])


def tools_list_rows(peers: list[Peer]) -> list[dict[str, Any]]:
    """Each server's whole `tools/list` (the tools array as compact JSON, as the client received
    it) and its `instructions`, in characters."""
    rows: list[dict[str, Any]] = []
    for peer in peers:
        if peer.server is None or peer.session is None:
            rows.append({"system": peer.name, "available": False, "reason": peer.reason})
            continue
        listing, instructions = peer.session.listing, peer.session.instructions or ""
        rows.append(
            {
                "system": peer.name,
                "version": peer.server.version,
                "tools": len(listing),
                "chars": len(json.dumps(listing, separators=(",", ":"), ensure_ascii=False)),
                "instructions_chars": len(instructions),
            }
        )
    return rows


def task_rows(peers: list[Peer], counts: Counts) -> dict[str, list[dict[str, Any]]]:
    """Each task (bench/tasks.py) done by each server's script, the servers interleaved run by
    run after a warm-up run each; one row per server and task."""
    every = [*tasks.TASKS, *frame_tasks.TASKS]
    keys = [k for k in every if counts.task_keys is None or k in counts.task_keys]
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        k: {p.name: [] for p in peers} for k in keys
    }
    broken: dict[str, str] = {}  # a server that stopped answering: why
    lacking: dict[tuple[str, str], str] = {}  # (task, server) -> the tool the server lacks
    for round_ in range(counts.task_warmup + counts.task_runs):
        for key in keys:
            for peer in peers:
                if peer.session is None or peer.name in broken or (key, peer.name) in lacking:
                    continue
                page = peer.pages.get(PRODUCTS) if peer.name == "chrome-devtools-mcp" else None
                held = peer.session
                if key in tasks.FILE_TASKS and peer.fast:
                    held = peer.capped or peer.session
                try:
                    run = _run_task(key, peer, held, page)
                except MissingTool as exc:
                    lacking[key, peer.name] = str(exc)
                    continue
                except Unavailable as exc:
                    broken[peer.name] = str(exc)
                    continue
                if round_ >= counts.task_warmup:
                    runs[key][peer.name].append(run)
    out: dict[str, list[dict[str, Any]]] = {}
    for key in keys:
        out[key] = []
        for peer in peers:
            done = runs[key][peer.name]
            if not done:
                reason = peer.reason if peer.session is None else broken.get(peer.name, "")
                reason = reason or lacking.get((key, peer.name), "no run")
                out[key].append({"system": peer.name, "available": False, "reason": reason})
                continue
            version = peer.server.version if peer.server else None
            out[key].append({"system": peer.name, "version": version, **tasks.summarize(done)})
    return out


def _run_task(key: str, peer: Peer, held: Session, page: Any) -> dict[str, Any]:
    if key in frame_tasks.TASKS:
        scripts, check = frame_tasks.SCRIPTS, frame_tasks.CHECKS[key]
        return tasks.run_task(key, peer.name, held, peer.base, page, None, scripts, check)
    return tasks.run_task(key, peer.name, held, peer.base, page, peer.files)


def measure(counts: Counts, only: str | None = None) -> dict[str, Any]:
    """The rows, each a list of one row per server, tabpilot first; the tasks' rows by task.
    `only="tasks"`: the tasks and the `tools/list` row alone; `only="hands"`: the form and wait
    rows (bench/peer_hands.py), the tasks and the `tools/list` row; `only="frames"`: the frames
    and find rows (bench/frames.py), the tasks and the `tools/list` row."""
    blocks = replace(counts, blocks=counts.peer_blocks)
    loop = Loop()
    out: dict[str, Any] = {}
    try:
        # The second site first: the first site's pages embed and link it.
        with pages.serve(fp.second_site()) as second:
            served = {
                **pages.fixture_pages(),
                **tasks.task_pages(),
                **fp.first_site(fp.other_site(second)),
            }
            with pages.serve(served, _answer) as base, _peers(loop, base) as peers:
                out["tools_list"] = tools_list_rows(peers)
                if only is None:
                    _rows(peers, counts, blocks, out)
                if only in (None, "hands"):
                    _hand_rows(peers, counts, blocks, out)
                if only in (None, "frames"):
                    _frame_rows(peers, counts, blocks, out)
                _say("peers: whole tasks, each by a fixed script")
                out["tasks"] = task_rows(peers, counts)
    finally:
        loop.close()
    return out


def _answer(path: str, body: bytes | None) -> pages.Page | None:
    return hp.answer(path, body) or tp.answer(path, body)


def _hand_rows(peers: list[Peer], counts: Counts, blocks: Counts, out: dict[str, Any]) -> None:
    """The form and wait rows, side by side; they navigate each server's current page, so they
    come after the rows that use the pages opened at the start."""
    _say("peers: a ten-field form filled in one call")
    found: dict[str, Any] = {}
    systems = [peer_hands.fill_form_system(p, counts, found) for p in peers]
    out["fill_form"] = latency(systems, blocks)
    _merge(out["fill_form"], found, peers)
    _say("peers: a wait for a text, from its appearing to the answer")
    found = {}
    out["wait_for"] = latency([peer_hands.wait_system(p, counts, found) for p in peers], blocks)
    _merge(out["wait_for"], found, peers)


def _frame_rows(peers: list[Peer], counts: Counts, blocks: Counts, out: dict[str, Any]) -> None:
    """The frames and find rows, side by side; they navigate each server's current page."""
    _say("peers: a snapshot of a page with two cross-origin frames")
    found: dict[str, Any] = {}
    systems = [frames.frames_snapshot_system(p, counts, found) for p in peers]
    out["snapshot_frames"] = latency(systems, blocks)
    _merge(out["snapshot_frames"], found, peers)
    _say(f"peers: a search for {frames.FIND_TEXT!r} on the product page")
    found = {}
    out["find"] = latency([frames.find_system(p, counts, found) for p in peers], blocks)
    _merge(out["find"], found, peers)


def _rows(peers: list[Peer], counts: Counts, blocks: Counts, out: dict[str, Any]) -> None:
    """The rows of single tools, side by side."""
    _say("peers: 1+1 through each server's evaluation tool")
    out["evaluate"] = latency([evaluate_system(p, counts) for p in peers], blocks)
    _merge(out["evaluate"], {}, peers)
    found: dict[str, Any] = {}
    _say("peers: a snapshot of 300 products")
    systems = [snapshot_system(p, PRODUCTS, counts, found) for p in peers]
    out["snapshot_products"] = latency(systems, blocks)
    _merge(out["snapshot_products"], found, peers)
    _say("peers: a click by ref")
    found = {}
    out["click"] = latency([click_system(p, counts, found) for p in peers], blocks)
    _merge(out["click"], found, peers)
    _say("peers: a snapshot of 10,000 elements")
    found = {}
    systems = [snapshot_system(p, NODES, counts, found) for p in peers]
    # Half as many blocks: a peer's few calls of seconds each still fill every block.
    halves = replace(blocks, blocks=max(1, counts.peer_blocks // 2))
    out["snapshot_nodes"] = latency(systems, halves)
    _merge(out["snapshot_nodes"], found, peers)
    _say("peers: a screenshot of the viewport")
    found = {}
    systems = [screenshot_system(p, PRODUCTS, False, counts, found) for p in peers]
    out["screenshot"] = latency(systems, blocks)
    _merge(out["screenshot"], found, peers)
    _say("peers: a full-page screenshot of ten viewports")
    found = {}
    systems = [screenshot_system(p, TALL, True, counts, found) for p in peers]
    out["screenshot_full"] = latency(systems, halves)
    _merge(out["screenshot_full"], found, peers)
    for kind in ("console", "network"):
        _say(f"peers: the {kind} log of a page that logged and fetched 1,500 times")
        found = {}
        out[kind] = latency([log_system(p, kind, counts, found) for p in peers], blocks)
        _merge(out[kind], found, peers)
