"""The systems whose `1+1` round trip is compared, and the hops of tabpilot's own chain.

A system is a name and a callable that makes one round trip, with optional set-up and tear-down.
The callable raises when the answer is wrong, and returns the time the daemon itself reports
(`duration_ms`) where there is one. Adding a system (tabpilot through MCP `tools/call`, say) is a
function like ``selenium_cdp_evaluate`` that opens its client in ``setup``, closes it in
``teardown`` and checks the answer in ``call``, plus one entry in ``comparison_systems``.
"""

from __future__ import annotations

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


def comparison_systems(rig: Rig) -> list[System]:
    """The latency suite: tabpilot first, then what it is compared with."""
    return [tabpilot_http(rig), selenium_execute_script(rig), selenium_cdp_evaluate(rig)]


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
