"""Contexts end to end, with real Chromiums and the real extension.

- In the managed daemon (`tabpilot serve --browser`): a context behind a real proxy that asks for
  credentials (tests/proxy_server.py), which the context's extension answers; a login on a site
  only that proxy can reach; its storage saved, and loaded into a new context that is then logged
  in; the default context's traffic never through that proxy; a proxy that refuses fails the
  navigation, never falling back to a direct connection.
- In the daemon of a person's Chrome (the `browser` fixture): a second person's Chrome under
  another name is a context of its own, its storage is exported only while its popup switch is on,
  closing it only drops it from the list, and the default context cannot be closed.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tabpilot.browsers.tab_ids import TAB_SPAN
from tabpilot.tools.storage_state import parse_storage_state
from tests.e2e.harness import (
    POPUP_URL,
    Daemon,
    launch_chromium,
    serving,
    set_popup_switch,
    use_popup,
    wait_for,
)
from tests.proxy_server import ProxyServer

#: A name no resolver knows: only the proxy (its `hosts` map) reaches it.
SITE = "site.test"
USER, PASSWORD = "ctx-user", "ctx-pass"
SESSION = "s3ss10n-abc"
CREATE_TIMEOUT_S = 150.0


class _Site(BaseHTTPRequestHandler):
    """A site with a login: /login sets an HttpOnly session cookie, and its page a localStorage
    item; /account says whether the session cookie came."""

    def do_GET(self) -> None:
        headers = {"Content-Type": "text/html; charset=utf-8"}
        if self.path.startswith("/login"):
            headers["Set-Cookie"] = f"session={SESSION}; HttpOnly; Path=/; SameSite=Lax"
            body = (
                "<!doctype html><title>logged in</title>"
                "<script>localStorage.setItem('theme', 'dark')</script><p>welcome</p>"
            )
        else:
            signed_in = f"session={SESSION}" in (self.headers.get("Cookie") or "")
            who = "signed in" if signed_in else "signed out"
            body = f"<!doctype html><title>account</title><p id=who>{who}</p>"
        data = body.encode()
        self.send_response(200)
        for name, value in {**headers, "Content-Length": str(len(data))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[int]:
    with serving(_Site) as port:
        yield port


def _call(daemon: Daemon, tool: str, body: dict[str, Any], context: str | None = None) -> Any:
    query = f"?context={context}" if context else ""
    response = httpx.post(f"{daemon.url}/{tool}{query}", json=body, timeout=CREATE_TIMEOUT_S)
    return response.json()


def _ok(envelope: dict[str, Any]) -> Any:
    assert envelope["success"], envelope
    return envelope["result"]


def _run(daemon: Daemon, context: str, script: str) -> Any:
    return _ok(_call(daemon, "execute_javascript", {"script": script}, context))


def test_a_proxied_login_saved_and_loaded_into_a_new_context(
    managed: Daemon, site: int, tmp_path: Path
) -> None:
    origin = f"http://{SITE}:{site}"
    first, second = f"proxied-{uuid.uuid4().hex[:6]}", f"loaded-{uuid.uuid4().hex[:6]}"
    saved = f"login-{uuid.uuid4().hex[:6]}"
    proxy_server = ProxyServer(USER, PASSWORD, hosts={SITE: "127.0.0.1"})
    with proxy_server as proxy:
        given = {"server": proxy.url, "username": USER, "password": PASSWORD}
        try:
            created = _ok(_call(managed, "browser_context_create", {"name": first, "proxy": given}))
            assert (created["name"], created["is_active"]) == (first, True)
            assert created["proxy"] == proxy.url  # the server only, never the credentials
            assert PASSWORD not in json.dumps(created)

            # Through the proxy, which asked for the credentials and got them.
            loaded = _ok(_call(managed, "browser_navigate", {"url": f"{origin}/login"}, first))
            assert loaded["title"] == "logged in"
            to_site = [r for r in proxy.records if r.host == SITE]
            assert any(r.authorised and r.url == f"{origin}/login" for r in to_site)
            assert all(r.authorised or r.status == 407 for r in to_site)
            assert _run(managed, first, "localStorage.getItem('theme')") == "dark"
            assert _run(managed, first, "document.cookie") == ""  # HttpOnly: no page can read it

            # The default context is not behind that proxy: the name does not resolve there.
            before = len(proxy.records)
            direct = _call(managed, "browser_navigate", {"url": f"{origin}/account"})
            assert direct["error"]["code"] == "navigation_failed"
            assert direct["error"]["data"]["reason"] == "dns"
            assert len([r for r in proxy.records[before:] if r.host == SITE]) == 0

            # Saved: a private file in Playwright's format, with the HttpOnly cookie.
            result = _ok(
                _call(managed, "browser_context_save_storage", {"name": first, "path": saved})
            )
            path = Path(result["path"])
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
            state = json.loads(path.read_text())
            parsed = parse_storage_state(state)  # Playwright's rules (tabpilot.tools.storage_state)
            session = next(c for c in parsed.cookies if c.name == "session")
            assert (session.value, session.domain, session.httpOnly) == (SESSION, SITE, True)
            assert {"origin": origin, "localStorage": [{"name": "theme", "value": "dark"}]} in (
                state["origins"]
            )

            # Loaded into a new context, before its first command: it is logged in.
            body = {"name": second, "proxy": given, "storage_state": saved}
            again = _ok(_call(managed, "browser_context_create", body))
            assert again["storage"]["cookies"] >= 1 and again["storage"]["origins"] == 1
            _ok(_call(managed, "browser_navigate", {"url": f"{origin}/account"}, second))
            assert _run(managed, second, "document.getElementById('who').textContent") == (
                "signed in"
            )
            assert _run(managed, second, "localStorage.getItem('theme')") == "dark"
            tab_id = _ok(_call(managed, "browser_tabs", {}, second))[0]["id"]
            assert tab_id >= TAB_SPAN  # not the default context's

            # A proxy that refuses fails the navigation; nothing goes direct instead.
            proxy.refuse()
            refused = _call(managed, "browser_navigate", {"url": f"{origin}/again"}, second)
            assert refused["error"]["code"] == "navigation_failed"
            assert refused["error"]["data"]["net_error"] == "net::ERR_PROXY_CONNECTION_FAILED"
        finally:
            for name in (first, second):
                _call(managed, "browser_context_close", {"name": name})
            Path(managed.state_dir, "storage", f"{saved}.json").unlink(missing_ok=True)
    listed = [c["name"] for c in _ok(_call(managed, "browser_context_list", {}))]
    assert first not in listed and second not in listed


def _name_and_connect(driver: webdriver.Chrome, daemon: Daemon, name: str) -> None:
    """Name the browser's context in its popup, then point it at the daemon, as a new user does."""
    previous = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        driver.get(POPUP_URL)
        field = driver.find_element(By.ID, "context-name")
        field.clear()
        field.send_keys(name, Keys.ENTER)
    finally:
        driver.close()
        driver.switch_to.window(previous)
    use_popup(driver, port=daemon.port)


def _listed(daemon: Daemon) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in daemon.status()["contexts"]}


def test_a_second_persons_chrome_is_its_own_context_under_the_persons_rules(
    browser: webdriver.Chrome, daemon: Daemon, pages: str
) -> None:
    profile = Path(tempfile.mkdtemp(prefix="tabpilot-chromium-"))
    work = launch_chromium(profile, f"{pages}/other.html")
    try:
        _name_and_connect(work, daemon, "work")
        wait_for(lambda: _listed(daemon).get("work", {}).get("connected"), 15, "work to connect")
        _pilot_on(work, daemon)
        listed = _listed(daemon)
        assert not listed["work"]["managed"] and not listed["chrome"]["managed"]
        assert daemon.status()["default_context"] == "chrome"

        # Its tabs are its own, and their ids say so.
        tabs = _ok(_call(daemon, "browser_tabs", {}, "work"))
        other = next(t for t in tabs if t["url"] == f"{pages}/other.html")
        assert other["id"] >= TAB_SPAN
        title = _ok(
            _call(daemon, "execute_javascript", {"script": "document.title", "tab_id": other["id"]})
        )
        assert title == "other tab"

        # Its cookies are the person's: exported only while its own popup switch is on.
        refused = _call(daemon, "browser_context_save_storage", {"name": "work", "path": "w"})
        assert refused["error"]["code"] == "export_disabled"
        set_popup_switch(work, "export-toggle", True)
        saved = _ok(_call(daemon, "browser_context_save_storage", {"name": "work", "path": "w"}))
        assert saved["pages"] and Path(saved["path"]).is_file()
        Path(saved["path"]).unlink()

        # The default context stays; another person's Chrome is only dropped, until it is back.
        kept = _call(daemon, "browser_context_close", {"name": "chrome"})
        assert kept["error"]["code"] == "context_not_closable"
        dropped = _ok(_call(daemon, "browser_context_close", {"name": "work"}))
        assert (dropped["managed"], dropped["closed"]) == (False, False)
        wait_for(lambda: _listed(daemon).get("work", {}).get("connected"), 15, "work to return")
        assert work.title == "other tab"  # nothing of it was closed
    finally:
        work.quit()
        shutil.rmtree(profile, ignore_errors=True)
        _call(daemon, "browser_context_close", {"name": "work"})


def _pilot_on(driver: webdriver.Chrome, daemon: Daemon) -> None:
    """Turn AI Web Pilot on in the popup of the context `work`."""
    use_popup(driver, pilot=True)
    wait_for(
        lambda: (
            _listed(daemon).get("work", {}).get("connected")
            and _call(daemon, "browser_tabs", {}, "work").get("success")
        ),
        10,
        "the pilot of work to be on",
    )
