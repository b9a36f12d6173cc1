"""Contexts under faults and load, in the managed daemon (`tabpilot serve --browser`) with real
Chromiums: a context's browser killed mid-command, a context starting while another one works,
and two contexts answering at once. Every context a test creates is closed at its end, since the
other tests share the daemon."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import figures
from tests.e2e.conftest import managed
from tests.e2e.harness import Daemon, wait_for

__all__ = ["managed"]

pytestmark = pytest.mark.e2e

#: A context's Chromium, its extension and its first page (restarted if that page stalls:
#: tabpilot.browsers.supervisor), on a loaded 2-core machine.
CREATE_TIMEOUT_S = 150.0

# Marks the page while it waits (the window in which the fault strikes), counts its runs.
SLOW = (
    "window.slowRuns = (window.slowRuns || 0) + 1;\n"
    "window.slowState = 'running';\n"
    "await new Promise((resolve) => setTimeout(resolve, 10000));\n"
    "window.slowState = 'finished';\n"
    "return 'finished'"
)
SLOW_RUNS = "[window.slowRuns ?? 0, location.href]"


def call(
    daemon: Daemon, tool: str, body: dict[str, Any], context: str | None = None, timeout: float = 30
) -> httpx.Response:
    """POST /<tool>, in ``context`` (``?context=``) if one is named."""
    query = f"?context={context}" if context else ""
    return httpx.post(f"{daemon.url}/{tool}{query}", json=body, timeout=timeout)


def run(
    daemon: Daemon, script: str, context: str | None = None, timeout: float = 30, **params: Any
) -> httpx.Response:
    return call(daemon, "execute_javascript", {"script": script, **params}, context, timeout)


def ok(response: httpx.Response) -> Any:
    body = response.json()
    assert response.status_code == 200 and body["success"], body
    return body["result"]


@contextlib.contextmanager
def context(daemon: Daemon, prefix: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """A new managed context, named ``prefix`` and a unique suffix, for the length of the block;
    yields its name and browser_context_create's answer."""
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    body = {"name": name}
    created = ok(call(daemon, "browser_context_create", body, timeout=CREATE_TIMEOUT_S))
    try:
        yield name, created
    finally:
        closed = call(daemon, "browser_context_close", {"name": name}, timeout=60)
        assert closed.status_code == 200, closed.text


def show_page(daemon: Daemon, name: str, url: str) -> int:
    """Load ``url`` in the context's active tab; its tab id (which carries the context)."""
    navigated = call(daemon, "browser_navigate", {"url": url}, name, timeout=60).json()
    assert navigated["success"], navigated
    tab_id: int = navigated["tab"]["id"]
    return tab_id


@contextlib.contextmanager
def default_tab(daemon: Daemon, url: str) -> Iterator[int]:
    """A new tab of the default context showing ``url``, its active one, for the length of the
    block: other tests use the tab the default context starts with."""
    opened = ok(call(daemon, "browser_tabs", {"action": "new", "url": url}))
    tab_id: int = opened["id"]
    try:
        wait_for(lambda: run(daemon, "1", tab_id=tab_id).json().get("result") == 1, 10, url)
        yield tab_id
    finally:
        call(daemon, "browser_tabs", {"action": "close", "tab_id": tab_id})


def profile_of(daemon: Daemon, name: str) -> Path:
    """The profile of the context's Chromium: the daemon's state dir holds one ``browser-*``
    profile per running managed browser, whose extension copy's managed.json names its context."""
    found = [
        managed_json.parents[1]
        for managed_json in daemon.state_dir.glob("browser-*/tabpilot-extension/managed.json")
        if json.loads(managed_json.read_text())["context"] == name
    ]
    assert len(found) == 1, found
    return found[0]


def chromium_of(profile: Path) -> int:
    """The pid of the browser process (not a renderer or helper) that runs ``profile``."""
    flag = f"--user-data-dir={profile}".encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if flag in argv and not any(arg.startswith(b"--type=") for arg in argv):
            return int(proc.name)
    raise AssertionError(f"no Chromium runs {profile}")


def in_background(fn: Any, *args: Any, **kwargs: Any) -> Future[httpx.Response]:
    pool = ThreadPoolExecutor(1)
    future: Future[httpx.Response] = pool.submit(fn, *args, **kwargs)
    pool.shutdown(wait=False)
    return future


def test_a_contexts_chromium_killed_mid_command_answers_at_once_and_others_keep_working(
    managed: Daemon, pages: str
) -> None:
    with (
        default_tab(managed, f"{pages}/other.html?default") as default,
        context(managed, "killed") as (name, _),
    ):
        tab_id = show_page(managed, name, f"{pages}/index.html?killed")
        profile = profile_of(managed, name)
        pid = chromium_of(profile)

        future = in_background(run, managed, SLOW, timeout_ms=20_000, tab_id=tab_id)
        wait_for(
            lambda: (
                run(managed, "window.slowState ?? null", tab_id=tab_id).json().get("result")
                == "running"
            ),
            10,
            "the slow script to run in the context's page",
        )
        # The whole browser goes at once, as when the kernel kills it: its process group.
        os.killpg(os.getpgid(pid), signal.SIGKILL)
        killed_at = time.monotonic()
        during = ok(run(managed, "1 + 1", tab_id=default))  # the default context, meanwhile
        response = future.result(timeout=30)
        answered_in = time.monotonic() - killed_at
        body = response.json()
        assert response.status_code == 502, body
        assert body["error"]["code"] == "extension_disconnected"
        assert "not re-sent" in body["error"]["message"]
        assert answered_in < 5, f"answered {answered_in:.2f} s after the kill"
        assert during == 2
        assert ok(run(managed, "1 + 1", tab_id=default)) == 2

        # The next call to the context starts a fresh Chromium (a new profile, so a new page
        # whose window holds nothing of the killed one), waits for its first page, and runs
        # there.
        started = time.monotonic()
        again = run(managed, SLOW_RUNS, name, timeout=CREATE_TIMEOUT_S)
        restart_s = time.monotonic() - started
        fresh = profile_of(managed, name)
        assert fresh != profile and not profile.exists()
        assert chromium_of(fresh) != pid
        runs, url = ok(again)
        assert runs == 0, "the interrupted script ran again in the new browser"
        assert url.startswith("http"), url
        assert again.json()["tab"]["id"] != tab_id
        # The killed browser's tab is gone with it.
        gone = run(managed, "1", tab_id=tab_id).json()
        assert gone["error"]["code"] == "tab_not_found", gone
        assert ok(run(managed, "1 + 1", tab_id=default)) == 2
    figures.record(
        "Faults",
        "a context's Chromium killed (SIGKILL) mid-command",
        f"502 extension_disconnected {answered_in:.2f} s after the kill, not re-sent; the "
        f"default context answered meanwhile; the next call to the context started a fresh "
        f"Chromium and ran in {restart_s:.1f} s",
        figures.REAL_BROWSER,
    )


def test_a_second_context_starts_while_calls_run_in_the_first_and_both_answer_at_once(
    managed: Daemon, pages: str
) -> None:
    key = f"seen_{uuid.uuid4().hex[:8]}"
    # Counts each call's runs by its own id, in the default context's page.
    count = "(window.{key} ??= {{}})['{id}'] = (window.{key}['{id}'] || 0) + 1; return 1 + 1"
    sent: list[str] = []
    answers: list[Any] = []
    streaming = threading.Event()
    created = threading.Event()

    def stream(tab_id: int) -> None:
        while not created.is_set() or len(sent) < 20:
            call_id = f"c{len(sent)}"
            sent.append(call_id)
            answers.append(run(managed, count.format(key=key, id=call_id), tab_id=tab_id).json())
            streaming.set()

    with default_tab(managed, f"{pages}/index.html?stream") as tab_id:
        try:
            streamer = threading.Thread(target=stream, args=(tab_id,))
            streamer.start()
            try:
                assert streaming.wait(10)
                started = time.monotonic()
                with context(managed, "second") as (name, answer):
                    created.set()
                    startup_s = time.monotonic() - started
                    sent_during = len(sent)
                    streamer.join(30)
                    assert not streamer.is_alive()
                    assert answer["connected"] and answer["managed"] and answer["is_active"]
                    second_tab = show_page(managed, name, f"{pages}/other.html?second")
                    assert ok(run(managed, "document.title", tab_id=second_tab)) == "other tab"
                    assert ok(run(managed, "document.title", name)) == "other tab"
                    both = burst_in_both(managed, {"default": tab_id, name: second_tab}, key)
            finally:
                created.set()
                streamer.join(30)
            failed = [a for a in answers if not a.get("success") or a.get("result") != 2]
            assert not failed, failed[:3]
            assert len(answers) == len(sent)
            # As one string: the serializer shortens an object of many keys.
            runs = json.loads(ok(run(managed, f"JSON.stringify(window.{key})", tab_id=tab_id)))
            assert sorted(runs) == sorted(sent), "a call was lost"
            twice = {call_id: n for call_id, n in runs.items() if n != 1}
            assert not twice, f"calls that ran more than once: {twice}"
        finally:
            # The default context's cookie jar is the other tests' too.
            run(managed, f"document.cookie = '{key}=; max-age=0'", tab_id=tab_id)
    figures.record(
        "Load",
        "a second context starts while calls stream in the default one",
        f"{sent_during} calls sent while it started ({startup_s:.1f} s): all answered ok, lost 0, "
        "run twice 0; the new context ran scripts at once",
        figures.REAL_BROWSER,
    )
    figures.record(
        "Load",
        "two contexts, two callers each, at once",
        f"{both} calls: each answered by its own context's browser (its window.name and its "
        "cookie jar), none by the other",
        figures.REAL_BROWSER,
    )


def burst_in_both(daemon: Daemon, tabs: dict[str, int], cookie: str) -> int:
    """Two callers per context at once, each asking its page which browser it is: the page's
    window.name and a cookie of the same name on the same origin, set in each context's own
    browser. Every answer must come from the caller's context; how many there were."""
    for name, tab_id in tabs.items():
        ok(
            run(
                daemon,
                f"window.name = '{name}'; document.cookie = '{cookie}={name}'",
                tab_id=tab_id,
            )
        )
    script = f"[window.name, document.cookie.split('; ').filter((c) => c.startsWith('{cookie}='))]"
    per_caller = 25

    def ask(name: str, tab_id: int, by_tab: bool) -> list[Any]:
        # One caller names the tab (its id says its context), the other the context (its
        # active tab; the default context is the one a call without a name goes to).
        if by_tab:
            return [run(daemon, script, tab_id=tab_id).json() for _ in range(per_caller)]
        named = None if name == "default" else name
        return [run(daemon, script, named).json() for _ in range(per_caller)]

    with ThreadPoolExecutor(2 * len(tabs)) as pool:
        futures = [
            (name, pool.submit(ask, name, tab_id, by_tab))
            for name, tab_id in tabs.items()
            for by_tab in (True, False)
        ]
        results = [(name, future.result(timeout=120)) for name, future in futures]
    wrong = [
        (name, answer)
        for name, answers in results
        for answer in answers
        if not answer.get("success") or answer["result"] != [name, [f"{cookie}={name}"]]
    ]
    assert not wrong, wrong[:3]
    return sum(len(answers) for _, answers in results)
