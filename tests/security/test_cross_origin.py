"""A web page on another origin attacks the daemon from the real Chromium, while the pilot is ON.

The page's own scripts try every way a page can send a request to 127.0.0.1: fetch with JSON, a
"simple" text/plain POST that skips CORS preflight, a no-cors fetch, an auto-submitted form crafted
to be JSON, a WebSocket to /ws, and reads of /status and /tabs. Each attack asks the daemon to run a
canary that would request the sink server. The canary never fires and the page reads nothing, and
a control shows the same canary does fire when sent the legitimate way.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from selenium import webdriver

from tests import figures
from tests.e2e.harness import Daemon, wait_for
from tests.security.conftest import Server

pytestmark = pytest.mark.e2e

ATTACKS = [
    "fetch_json",
    "fetch_text_plain",
    "fetch_no_cors",
    "form_text_plain",
    "websocket",
    "calls_socket",
    "read_status",
    "read_tabs",
    "read_status_no_cors",
    "script_tag_tabs",
]

ATTACK_PAGE = """<!doctype html><title>a page you visit</title>
<iframe name="sink-frame" id="sink-frame"></iframe>
<script>
const D = "http://127.0.0.1:%(daemon)d";
const canary = (name) => "fetch('%(sink)s/ran?via=" + name + "', {mode: 'no-cors'}); return 1";
const body = (name) => JSON.stringify({script: canary(name)});
const report = {};
const attempt = async (name, fn) => {
  try { report[name] = String(await fn()); } catch (e) { report[name] = "blocked: " + e.name; }
};
const settle = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  await attempt("fetch_json", async () => {
    const r = await fetch(D + "/execute_javascript", {method: "POST",
      headers: {"content-type": "application/json"}, body: body("fetch_json")});
    return "read " + r.status + " " + await r.text();
  });
  await attempt("fetch_text_plain", async () => {
    const r = await fetch(D + "/execute_javascript", {method: "POST",
      headers: {"content-type": "text/plain"}, body: body("fetch_text_plain")});
    return "read " + r.status + " " + await r.text();
  });
  await attempt("fetch_no_cors", async () => {
    const r = await fetch(D + "/execute_javascript", {method: "POST", mode: "no-cors",
      headers: {"content-type": "text/plain"}, body: body("fetch_no_cors")});
    return "opaque " + r.type + " " + r.status + " " + (await r.text()).length;
  });
  await attempt("form_text_plain", async () => {
    // text/plain form bodies are name=value: this one is {"script":"...;var x='='"}.
    const form = document.createElement("form");
    form.method = "POST"; form.enctype = "text/plain"; form.target = "sink-frame";
    form.action = D + "/execute_javascript";
    const input = document.createElement("input");
    input.name = '{"script":"' + canary("form_text_plain").replaceAll('"', "'") + ';var x=\\'';
    input.value = '\\'"}';
    form.appendChild(input); document.body.appendChild(form);
    const frame = document.getElementById("sink-frame");
    const loaded = new Promise((r) => { frame.onload = r; });
    form.submit();
    await Promise.race([loaded, settle(5000)]);
    return "read " + frame.contentDocument.body.innerText;
  });
  await attempt("websocket", () => new Promise((resolve) => {
    const ws = new WebSocket("ws://127.0.0.1:%(daemon)d/ws");
    ws.onopen = () => {
      ws.send(JSON.stringify({type: "hello", protocol_version: 1, extension_version: "0.1.0",
        pilot_enabled: true}));
      resolve("opened");
    };
    ws.onmessage = (e) => resolve("message " + e.data);
    ws.onclose = (e) => resolve("closed " + e.code);
    setTimeout(() => resolve("timeout"), 5000);
  }));
  await attempt("calls_socket", () => new Promise((resolve) => {
    const ws = new WebSocket("ws://127.0.0.1:%(daemon)d/ws/calls");
    ws.onopen = () => {
      ws.send(JSON.stringify({type: "call", id: 1, method: "execute_javascript",
        params: {script: canary("calls_socket")}}));
      resolve("opened");
    };
    ws.onmessage = (e) => resolve("message " + e.data);
    ws.onclose = (e) => resolve("closed " + e.code);
    setTimeout(() => resolve("timeout"), 5000);
  }));
  await attempt("read_status", async () => "read " + await (await fetch(D + "/status")).text());
  await attempt("read_tabs", async () => "read " + await (await fetch(D + "/tabs")).text());
  await attempt("read_status_no_cors", async () => {
    const r = await fetch(D + "/status", {mode: "no-cors"});
    return "opaque " + r.type + " " + (await r.text()).length;
  });
  await attempt("script_tag_tabs", () => new Promise((resolve) => {
    window.onerror = (message) => { resolve("script error " + message); };
    const s = document.createElement("script");
    s.src = D + "/tabs";
    s.onload = () => resolve("loaded, globals: " + Object.keys(window).length);
    s.onerror = () => resolve("blocked: error event");
    document.head.appendChild(s);
  }));
  window.__report = report;
})();
</script>"""


def _run_attack(browser: webdriver.Chrome, url: str) -> dict[str, str]:
    previous = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        browser.get(url)
        report: dict[str, str] = wait_for(
            lambda: browser.execute_script("return window.__report || null"), 60, "the attacks"
        )
        return report
    finally:
        browser.close()
        browser.switch_to.window(previous)


def _refused_in_log(daemon: Daemon) -> list[str]:
    text = (daemon.state_dir / "daemon.log").read_text(errors="replace")
    return [line for line in text.splitlines() if "refused" in line]


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_a_page_on_another_origin_can_neither_run_nor_read(
    daemon: Daemon,
    browser: webdriver.Chrome,
    page: dict[str, Any],
    sink: Server,
    attacker: Server,
    host: str,
) -> None:
    assert daemon.status()["extension"]["pilot_enabled"] is True
    attacker.site["/attack.html"] = lambda: (
        ATTACK_PAGE
        % {
            "daemon": daemon.port,
            "sink": sink.origin(),
        }
    )
    refused_before = len(_refused_in_log(daemon))
    report = _run_attack(browser, f"{attacker.origin(host)}/attack.html")
    assert set(report) == set(ATTACKS), report

    # Nothing was read: every answer was blocked or opaque.
    for name in ("fetch_json", "fetch_text_plain", "read_status", "read_tabs"):
        assert report[name] == "blocked: TypeError", (name, report[name])
    assert report["fetch_no_cors"] == "opaque opaque 0 0"
    assert report["read_status_no_cors"] == "opaque opaque 0"
    # The form's answer lands in a frame of the daemon's origin: its contentDocument is null.
    assert report["form_text_plain"] == "blocked: TypeError"
    assert report["websocket"] == report["calls_socket"] == "closed 1006"
    assert not report["script_tag_tabs"].startswith("loaded"), report["script_tag_tabs"]
    assert all(
        "daemon_version" not in value and "request_id" not in value for value in report.values()
    )

    # The daemon saw and refused every attempt; nothing ran, so no canary reached the sink.
    wait_for(
        lambda: len(_refused_in_log(daemon)) - refused_before >= len(ATTACKS),
        10,
        "the daemon to log every refusal",
    )
    refused = _refused_in_log(daemon)[refused_before:]
    assert sink.ran() == [], sink.hits
    assert all("forbidden_origin" in line for line in refused), refused
    # The no-cors GETs carry no Origin at all; Fetch Metadata gives them away.
    without_origin = [line for line in refused if "origin=None" in line and "/ws" not in line]
    assert len(without_origin) >= 2, refused

    # The control: the same canary, sent by a local tool, does reach the sink.
    script = f"fetch('{sink.origin()}/ran?via=control', {{mode: 'no-cors'}}); return 1"
    answer = httpx.post(
        f"{daemon.url}/execute_javascript",
        json={"script": script, "tab_id": page["id"]},
        timeout=30,
    )
    assert answer.json()["success"] is True, answer.text
    wait_for(lambda: sink.ran(), 15, "the control canary")
    # An attack's script would have fired its canary when it ran, before the control's.
    assert sink.ran() == ["/ran?via=control"]
    where = "localhost (another site)" if host == "localhost" else "another port of 127.0.0.1"
    figures.record(
        "Hostile input",
        f"cross-origin attacks from a page on {where}, pilot ON",
        f"{len(ATTACKS)} attacks: scripts run 0, nothing read, every attempt refused "
        "(forbidden_origin)",
        figures.REAL_BROWSER,
    )


def test_dns_rebinding_host_headers_are_refused_by_the_real_daemon(daemon: Daemon) -> None:
    for host in (f"evil.example:{daemon.port}", "attacker.com", f"127.0.0.1.nip.io:{daemon.port}"):
        for method, path in (("GET", "/status"), ("GET", "/tabs"), ("POST", "/execute_javascript")):
            response = httpx.request(
                method, f"{daemon.url}{path}", headers={"Host": host}, json={"script": "1"}
            )
            assert response.status_code == 403, (host, path)
            assert response.json()["error"]["code"] == "forbidden_host"
            assert "daemon_version" not in response.text
    # A sanity check that the request shape itself is served with a loopback Host.
    assert json.loads(httpx.get(f"{daemon.url}/health").text)["success"] is True
