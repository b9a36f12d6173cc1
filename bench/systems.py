"""The systems whose `1+1` round trip is compared, and the hops of tabpilot's own chain.

A system is a name and a callable that makes one round trip, with optional set-up and tear-down.
The callable raises when the answer is wrong, and returns the time the daemon itself reports
(`duration_ms`) where there is one. Adding a system is a function like ``tabpilot_mcp_stdio``
that opens its client in ``setup``, closes it in ``teardown`` and checks the answer in ``call``,
plus one entry in ``comparison_systems``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from websockets.sync.client import connect

import tabpilot
from bench.clients import LeanClient
from bench.rig import Rig
from tabpilot.protocol import CALLS_PATH


def _nothing() -> None:
    pass


class Unavailable(Exception):
    """A system, or a tool it needs, cannot be measured here; the message says why."""


class MissingTool(Unavailable):
    """A server runs but lacks a tool a row or task needs: that row or task cannot be measured,
    the server's others can."""


T = TypeVar("T")


def guarded(step: Callable[[], T]) -> Callable[[], T]:
    """Any failure of a set-up or a call (a tool this build lacks, an error answer, a server
    that stopped) makes the system unavailable with that reason, instead of stopping the whole
    benchmark."""

    def run() -> T:
        try:
            return step()
        except Unavailable:
            raise
        except Exception as exc:  # reported in the row, not raised
            raise Unavailable(f"{type(exc).__name__}: {exc}"[:400]) from exc

    return run


@dataclass
class System:
    name: str
    call: Callable[[], float | None]
    setup: Callable[[], None] = _nothing
    teardown: Callable[[], None] = _nothing
    #: Calls and warm-up calls of this system where they differ from the suite's counts: a call
    #: that takes half a second is measured fewer times than one that takes a millisecond.
    calls: int | None = None
    warmup: int | None = None
    #: The call returns its own sample, in ms, instead of being timed around: for a figure that
    #: starts in the page (a text appearing) rather than at the call.
    timed_by_call: bool = False


def _post(client: LeanClient, path: str, payload: dict[str, Any], expect: Any) -> float:
    body = client.post(path, payload)
    if body["result"] != expect:
        raise RuntimeError(f"{path} {payload} gave {body['result']!r}, not {expect!r}")
    return float(body["duration_ms"])


def tabpilot_http(rig: Rig) -> System:
    """tabpilot over HTTP, http.client on one keep-alive connection."""
    payload = {"script": "1+1"}
    return System("tabpilot HTTP", lambda: _post(rig.client, "/execute_javascript", payload, 2))


def selenium_execute_script(rig: Rig) -> System:
    def call() -> None:
        if rig.driver.execute_script("return 1+1") != 2:
            raise RuntimeError("execute_script did not answer 2")

    return System("Selenium execute_script", call)


def selenium_cdp_evaluate(rig: Rig) -> System:
    params = {"expression": "1+1", "returnByValue": True}

    def call() -> None:
        answer = rig.driver.execute_cdp_cmd("Runtime.evaluate", params)
        if answer["result"].get("value") != 2:
            raise RuntimeError(f"Runtime.evaluate gave {answer!r}")

    return System("Selenium CDP Runtime.evaluate", call)


def _public_client(port: int, state_dir: Path) -> Any:
    """`tabpilot.Client` aimed at the bench's daemon, finding its port and token as
    `tabpilot.Client()` does: from TABPILOT_PORT and the daemon's state folder, set while it is
    made."""
    client = getattr(tabpilot, "Client", None)
    if client is None:
        raise Unavailable(f"tabpilot {tabpilot.__version__} has no public Python client (Client)")
    aimed = {"TABPILOT_PORT": str(port), "TABPILOT_STATE_DIR": str(state_dir)}
    before = {name: os.environ.get(name) for name in aimed}
    os.environ.update(aimed)
    try:
        return client()
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _value(answer: Any) -> Any:
    """What a client call answered: the value itself, or the `result` of an envelope."""
    if isinstance(answer, dict) and "result" in answer:
        return answer["result"]
    return getattr(answer, "result", answer)


def tabpilot_client(rig: Rig) -> System:
    """tabpilot's public Python client: `tabpilot.Client().execute("1+1")`."""
    state: dict[str, Any] = {}

    def setup() -> None:
        state["client"] = _public_client(rig.port, rig.daemon.state_dir)
        try:
            call()
        except Exception as exc:  # reported in the row, not raised
            raise Unavailable(f"tabpilot.Client().execute failed: {exc!r}"[:400]) from exc

    def call() -> None:
        value = _value(state["client"].execute("1+1"))
        if value != 2:
            raise RuntimeError(f"tabpilot.Client().execute('1+1') gave {value!r}")

    def teardown() -> None:
        close = getattr(state.pop("client", None), "close", None)
        if callable(close):
            close()

    return System("tabpilot.Client().execute", call, setup, teardown)


def client_systems(rig: Rig) -> list[System]:
    """tabpilot's Python client beside the fastest way Selenium runs a script in the same tab."""
    return [tabpilot_client(rig), selenium_cdp_evaluate(rig)]


#: The protocol revision the official MCP SDK's client speaks by default: each request carries its
#: own envelope in ``_meta``, with no initialize handshake and no session.
MCP_PROTOCOL = "2026-07-28"
#: The last revision with a handshake and sessions, which older clients still speak.
MCP_HANDSHAKE_PROTOCOL = "2025-06-18"
_CLIENT = {"name": "tabpilot-bench", "version": "1"}
_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MCP_PROTOCOL,
    "io.modelcontextprotocol/clientInfo": _CLIENT,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _tools_call(*, envelope: bool) -> dict[str, Any]:
    """One tools/call of execute_javascript `1+1`, byte for byte as an MCP client sends it."""
    params: dict[str, Any] = {"name": "execute_javascript", "arguments": {"script": "1+1"}}
    if envelope:
        params["_meta"] = _ENVELOPE
    return {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}


def _mcp_answer(data: bytes) -> None:
    """Checks a tools/call's answer. MCP's structured content is the value alone (what the text
    shows), so these rows have no time inside the daemon."""
    answer = json.loads(data)["result"]
    # The result's line; hints (tabpilot.mcp.hints) may follow it in a session.
    text = answer["content"][0]["text"].split("\n")[0]
    if answer.get("isError") or text != "2":
        raise RuntimeError(f"tools/call gave {answer!r}")


def _mcp_post(
    rig: Rig, headers: dict[str, str]
) -> Callable[[bytes], tuple[int, bytes, str | None]]:
    conn = rig.client.conn

    def post(message: bytes) -> tuple[int, bytes, str | None]:
        conn.request("POST", "/mcp", body=message, headers=headers)
        response = conn.getresponse()
        return response.status, response.read(), response.getheader("mcp-session-id")

    return post


def tabpilot_mcp_http(rig: Rig) -> System:
    """tools/call at the daemon's /mcp as the SDK's client sends it (2026-07-28: one
    self-contained POST, JSON answer), over http.client keep-alive: the bytes of an MCP client's
    HTTP transport, without its own client-side overhead."""
    body = json.dumps(_tools_call(envelope=True)).encode()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MCP_PROTOCOL,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "execute_javascript",
    }
    post = _mcp_post(rig, headers)

    def call() -> None:
        status, data, _ = post(body)
        if status != 200:
            raise RuntimeError(f"/mcp answered {status}: {data[:300]!r}")
        return _mcp_answer(data)

    return System("tabpilot MCP tools/call (HTTP /mcp)", call)


def tabpilot_mcp_http_session(rig: Rig) -> System:
    """tools/call at /mcp as a client of a handshake-era revision sends it: in the session its
    initialize opened (Mcp-Session-Id)."""
    body = json.dumps(_tools_call(envelope=False)).encode()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MCP_HANDSHAKE_PROTOCOL,
    }
    post = _mcp_post(rig, headers)

    def setup() -> None:
        status, data, session = post(json.dumps(_initialize(0)).encode())
        if status != 200 or session is None:
            raise RuntimeError(f"/mcp initialize answered {status}: {data[:300]!r}")
        headers["Mcp-Session-Id"] = session
        post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())

    def call() -> None:
        status, data, _ = post(body)
        if status != 200:
            raise RuntimeError(f"/mcp answered {status}: {data[:300]!r}")
        return _mcp_answer(data)

    return System(
        f"tabpilot MCP tools/call (HTTP /mcp, {MCP_HANDSHAKE_PROTOCOL} session)", call, setup
    )


def _initialize(request_id: int) -> dict[str, Any]:
    params = {"protocolVersion": MCP_HANDSHAKE_PROTOCOL, "capabilities": {}, "clientInfo": _CLIENT}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def tabpilot_calls_socket(rig: Rig) -> System:
    """tabpilot's callers' socket (/ws/calls), websockets' sync client on one connection."""
    state: dict[str, Any] = {}
    frame = json.dumps(
        {"type": "call", "id": 1, "method": "execute_javascript", "params": {"script": "1+1"}}
    )

    def setup() -> None:
        state["ws"] = connect(
            f"ws://127.0.0.1:{rig.port}{CALLS_PATH}", compression=None, proxy=None, max_size=None
        )
        state["ws"].socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def call() -> float:
        state["ws"].send(frame)
        envelope = json.loads(state["ws"].recv())["envelope"]
        if envelope.get("result") != 2:
            raise RuntimeError(f"/ws/calls gave {envelope!r}")
        return float(envelope["duration_ms"])

    def teardown() -> None:
        ws = state.pop("ws", None)
        if ws is not None:
            ws.close()

    return System("tabpilot WebSocket /ws/calls", call, setup, teardown)


def tabpilot_mcp_stdio(rig: Rig) -> System:
    """tools/call to `tabpilot mcp` over its stdin/stdout, as an agent's client spawns it; that
    process forwards each call to the daemon over the callers' socket."""
    state: dict[str, Any] = {}
    tools_call = _tools_call(envelope=True)

    def send(message: dict[str, Any]) -> None:
        state["process"].stdin.write(json.dumps(message).encode() + b"\n")
        state["process"].stdin.flush()

    def setup() -> None:
        state["process"] = subprocess.Popen(
            [sys.executable, "-m", "tabpilot", "mcp", "--port", str(rig.port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        # What the SDK's client opens with at 2026-07-28, in place of initialize.
        discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover"}
        send({**discover, "params": {"_meta": _ENVELOPE}})
        if "result" not in json.loads(state["process"].stdout.readline()):
            raise RuntimeError("tabpilot mcp did not answer server/discover")

    def call() -> None:
        send(tools_call)
        return _mcp_answer(state["process"].stdout.readline())

    def teardown() -> None:
        process = state.pop("process", None)
        if process is not None:
            process.stdin.close()
            process.wait(10)

    return System("tabpilot MCP tools/call (stdio)", call, setup, teardown)


def comparison_systems(rig: Rig) -> list[System]:
    """The latency suite: tabpilot first, then what it is compared with."""
    return [
        tabpilot_http(rig),
        tabpilot_calls_socket(rig),
        tabpilot_mcp_http(rig),
        tabpilot_mcp_http_session(rig),
        tabpilot_mcp_stdio(rig),
        selenium_execute_script(rig),
        selenium_cdp_evaluate(rig),
    ]


#: Hop name -> what answers it. Each level adds one hop of the chain to the one before.
HOPS = {
    "caller ⇄ daemon (GET /health)": None,
    "+ daemon ⇄ service worker (ping worker)": "worker",
    "+ service worker ⇄ content script (ping content)": "content",
    "+ content script ⇄ page world (ping page)": "page",
    "+ run 1+1 in the page (execute_javascript)": "execute",
}


def hop_systems(rig: Rig) -> list[System]:
    """The chain, one more hop per system; pings run nothing (docs/protocol.md, `ping`)."""
    systems: list[System] = []
    for name, to in HOPS.items():
        if to is None:
            systems.append(System(name, lambda: _health(rig.client)))
        elif to == "execute":
            systems.append(System(name, tabpilot_http(rig).call))
        else:
            payload = {"to": to}
            systems.append(
                System(name, lambda p=payload: _post(rig.client, "/ping", p, "pong"))  # type: ignore[misc]
            )
    return systems


def _health(client: LeanClient) -> None:
    status, _ = client.request("GET", "/health")
    if status != 200:
        raise RuntimeError(f"/health answered {status}")
