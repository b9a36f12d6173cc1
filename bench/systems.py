"""The systems whose `1+1` round trip is compared, and the hops of tabpilot's own chain.

A system is a name and a callable that makes one round trip, with optional set-up and tear-down.
The callable raises when the answer is wrong, and returns the time the daemon itself reports
(`duration_ms`) where there is one. Adding a system is a function like ``tabpilot_mcp_stdio``
that opens its client in ``setup``, closes it in ``teardown`` and checks the answer in ``call``,
plus one entry in ``comparison_systems``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.clients import LeanClient
from bench.rig import Rig


def _nothing() -> None:
    pass


@dataclass
class System:
    name: str
    call: Callable[[], float | None]
    setup: Callable[[], None] = _nothing
    teardown: Callable[[], None] = _nothing


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


#: One JSON-RPC tools/call, as an MCP client sends it.
_TOOLS_CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "execute_javascript", "arguments": {"script": "1+1"}},
}
_MCP_PROTOCOL = "2025-06-18"


def _mcp_answer(data: bytes) -> float:
    answer = json.loads(data)["result"]
    text = answer["content"][0]["text"]
    if answer.get("isError") or text != "2":
        raise RuntimeError(f"tools/call gave {answer!r}")
    return float(answer["structuredContent"]["duration_ms"])


def tabpilot_mcp_http(rig: Rig) -> System:
    """tools/call at the daemon's /mcp (stateless, JSON answers), http.client keep-alive: the
    bytes an MCP client's HTTP transport sends, without its own client-side overhead."""
    body = json.dumps(_TOOLS_CALL).encode()
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": _MCP_PROTOCOL,
    }
    conn = rig.client.conn

    def post(message: bytes) -> tuple[int, bytes, str | None]:
        conn.request("POST", "/mcp", body=message, headers=headers)
        response = conn.getresponse()
        return response.status, response.read(), response.getheader("mcp-session-id")

    def setup() -> None:
        # The session an MCP client opens with its initialize, then names on every request.
        status, data, session = post(json.dumps(_initialize(0)).encode())
        if status != 200 or session is None:
            raise RuntimeError(f"/mcp initialize answered {status}: {data[:300]!r}")
        headers["Mcp-Session-Id"] = session
        post(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())

    def call() -> float:
        status, data, _ = post(body)
        if status != 200:
            raise RuntimeError(f"/mcp answered {status}: {data[:300]!r}")
        return _mcp_answer(data)

    return System("tabpilot MCP tools/call (HTTP /mcp)", call, setup)


def _initialize(request_id: int) -> dict[str, Any]:
    client = {"name": "tabpilot-bench", "version": "1"}
    params = {"protocolVersion": _MCP_PROTOCOL, "capabilities": {}, "clientInfo": client}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def tabpilot_mcp_stdio(rig: Rig) -> System:
    """tools/call to `tabpilot mcp` over its stdin/stdout, as an agent's client spawns it; that
    process forwards each call to the daemon over HTTP."""
    state: dict[str, Any] = {}

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
        send(_initialize(0))
        if "result" not in json.loads(state["process"].stdout.readline()):
            raise RuntimeError("tabpilot mcp did not initialize")
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call() -> float:
        send(_TOOLS_CALL)
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
        tabpilot_mcp_http(rig),
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
