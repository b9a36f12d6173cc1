"""Contexts on one daemon, against scripted fake extensions: each browser joins the context its
hello names, tab ids carry their context, each caller has its own active context, the close
rules, the refusals of browser_context_create that come before any browser starts, and saving
storage on every face. The real browsers' contexts are in tests/e2e/test_contexts.py."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabpilot import AsyncClient, ClientError, cli
from tabpilot.browsers.tab_ids import TAB_SPAN
from tabpilot.cli import tool_commands
from tests.mcp_support import open_mcp, text_of
from tests.support import TAB, Command, Daemon, Reply, connected, fail, ok, run_daemon
from tests.test_calls import call as socket_call
from tests.test_calls import calls_socket

#: Chrome's id of the fake extensions' one tab.
CHROME_ID = TAB["id"]
SECOND = "work"

STATE = {
    "cookies": [
        {
            **{"name": "sid", "value": "s3cr3t", "domain": "a.test", "path": "/"},
            **{"expires": -1, "httpOnly": True, "secure": False, "sameSite": "Lax"},
        }
    ],
    "origins": [{"origin": "http://a.test", "localStorage": [{"name": "k", "value": "v"}]}],
}


async def answers(command: Command) -> Reply | None:
    """The fake extension: a storage export of one page, tabs, scripts echoed; a tab it does not
    have is refused with Chrome's id in the message, as the real extension words it."""
    if command.command == "storage_export":
        page = {"tab_id": CHROME_ID, "url": "http://a.test/", "origin": "http://a.test"}
        skipped = [{"tab_id": CHROME_ID + 1, "url": "http://b.test/", "reason": "discarded"}]
        return ok({**STATE, "pages": [page], "skipped": skipped}, "object", tab=None)
    if command.command in ("list_tabs", "browser_tabs"):
        return ok([{**TAB, "active": True, "window_id": 1}], "array", tab=None)
    if command.params.get("script") == "throw":
        return fail("execution_error", "no tab 5 here")  # a script's own words
    if command.params.get("tab_id") not in (None, CHROME_ID):
        return fail("tab_not_found", f"No tab with id {command.params['tab_id']}.")
    return ok(command.params.get("script"), "string")


@pytest.fixture(scope="module")
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("contexts-state")


@pytest.fixture(scope="module")
def daemon(state_dir: Path) -> Iterator[Daemon]:
    # No Chromium: browser_context_create's checks run, and no browser starts.
    with run_daemon(state_dir=state_dir, chromium_path="/nonexistent/chromium") as running:
        yield running


async def test_each_browser_is_the_context_its_hello_names(daemon: Daemon) -> None:
    async with (
        connected(daemon, answers) as first,
        connected(daemon, answers, context=SECOND) as second,
        daemon.client() as client,
    ):
        status = (await client.get("/status")).json()["result"]
        # The first person's Chrome to connect is the default context: `chrome` without a name.
        assert status["default_context"] == "chrome"
        assert [c["name"] for c in status["contexts"]] == ["chrome", SECOND]
        assert all(c["connected"] and not c["managed"] for c in status["contexts"])

        # The default context keeps Chrome's ids; the other's carry its slot.
        default_tabs = (await client.get("/tabs")).json()["result"]
        other_tabs = (await client.get("/tabs", params={"context": SECOND})).json()["result"]
        assert default_tabs[0]["id"] == CHROME_ID
        other_id = other_tabs[0]["id"]
        assert other_id > TAB_SPAN and other_id % TAB_SPAN == CHROME_ID

        # A tab id says its context: the call goes there, with Chrome's own id.
        body = {"script": "1 + 1", "tab_id": other_id}
        answer = (await client.post("/execute_javascript", json=body)).json()
        assert answer["tab"]["id"] == other_id
        assert second.commands[-1].params["tab_id"] == CHROME_ID
        assert not any(c.command == "execute_javascript" for c in first.commands)

        # An error names the tab by the id the caller knows.
        missing = other_id + 5
        refused = await client.post("/execute_javascript", json={"script": "1", "tab_id": missing})
        assert refused.json()["error"]["message"] == f"No tab with id {missing}."

        # A script's own message is its own, even in words that look like a tab's.
        thrown = await client.post("/execute_javascript?context=work", json={"script": "throw"})
        assert thrown.json()["error"]["message"] == "no tab 5 here"

        # A tab of no context, an unknown context, a tab of another context than the one named.
        nowhere = await client.post(
            "/execute_javascript", json={"script": "1", "tab_id": 5 * TAB_SPAN}
        )
        assert nowhere.status_code == 404 and nowhere.json()["error"]["code"] == "tab_not_found"
        unknown = await client.get("/tabs", params={"context": "nope"})
        assert unknown.status_code == 404
        assert unknown.json()["error"]["code"] == "context_not_found"
        assert "chrome, work" in unknown.json()["error"]["message"]
        crossed = await client.post(
            "/execute_javascript?context=chrome", json={"script": "1", "tab_id": other_id}
        )
        assert crossed.status_code == 400
        assert f"belongs to context '{SECOND}'" in crossed.json()["error"]["message"]


async def test_a_hello_that_names_a_held_or_bad_context_is_refused(daemon: Daemon) -> None:
    async with connected(daemon, answers, context=SECOND):
        twin = daemon.extension(answers, context=SECOND, expect_daemon_hello=False)
        async with twin:
            code, reason = await twin.wait_closed()
        assert code == 4002 and reason is not None and reason.startswith("busy")
    for hello in ({"context": "bad name!"}, {"context": "ghost", "context_key": "k"}):
        refused = daemon.extension(answers, expect_daemon_hello=False, **hello)
        async with refused:
            code, _ = await refused.wait_closed()
        assert code == 4006, hello


async def test_each_socket_and_each_mcp_session_has_its_own_active_context(
    daemon: Daemon,
) -> None:
    async with (
        connected(daemon, answers),
        connected(daemon, answers, context=SECOND) as second,
        calls_socket(daemon) as mine,
        calls_socket(daemon) as theirs,
    ):
        switched = await socket_call(mine, "browser_context_switch", {"name": SECOND})
        assert switched["envelope"]["result"]["is_active"] is True
        assert (await socket_call(mine, "tabs"))["envelope"]["result"][0]["id"] > TAB_SPAN
        assert (await socket_call(theirs, "tabs"))["envelope"]["result"][0]["id"] == CHROME_ID
        # A call may name its context, for that call alone.
        frame = {"type": "call", "id": 7, "method": "tabs", "params": {}, "context": "chrome"}
        await theirs.send(json.dumps(frame))
        named = json.loads(await theirs.recv())
        assert named["envelope"]["result"][0]["id"] == CHROME_ID
        listed = (await socket_call(mine, "browser_context_list"))["envelope"]["result"]
        assert [(c["name"], c["is_active"]) for c in listed] == [("chrome", False), (SECOND, True)]
        status = (await socket_call(mine, "status"))["envelope"]["result"]
        assert status["active_context"] == SECOND
        # A status that names no such context still answers.
        frame = {"type": "call", "id": 8, "method": "status", "params": {}, "context": "nope"}
        await mine.send(json.dumps(frame))
        assert json.loads(await mine.recv())["envelope"]["success"] is True

        # Two MCP sessions: one switches, the other stays on the default context.
        async with (
            open_mcp("http", daemon.settings.port, mode="legacy", caps="contexts") as one,
            open_mcp("stdio", daemon.settings.port, caps="contexts") as two,
        ):
            assert "browser_context_switch" in {t.name for t in (await one.list_tools()).tools}
            said = text_of(await one.call_tool("browser_context_switch", {"name": SECOND}))
            assert (
                said == f'Switched to context "{SECOND}" (person\'s Chrome): 1 tab, {TAB["url"]}.'
            )
            before = len(second.commands)
            await one.call_tool("execute_javascript", {"script": "'one'"})
            await two.call_tool("execute_javascript", {"script": "'two'"})
            scripts = [c.params["script"] for c in second.commands[before:]]
            assert scripts == ["'one'"]
            listing = text_of(await two.call_tool("browser_context_list", {}))
            assert listing == (
                f"* chrome (person's Chrome): 1 tab, {TAB['url']}\n"
                f"  {SECOND} (person's Chrome): 1 tab, {TAB['url']}"
            )


async def test_close_rules(state_dir: Path) -> None:
    # A daemon of its own: a person's Chrome stays listed after it disconnects.
    with run_daemon(state_dir=state_dir) as daemon:
        await _close_rules(daemon)


async def _close_rules(daemon: Daemon) -> None:
    async with connected(daemon, answers), daemon.client() as client:
        only = await client.post("/browser_context_close", json={"name": "chrome"})
        assert only.status_code == 409
        assert only.json()["error"] == {
            "code": "context_not_closable",
            "message": "Cannot close the only remaining context.",
        }
        async with connected(daemon, answers, context=SECOND) as second:
            default = await client.post("/browser_context_close", json={"name": "chrome"})
            assert default.status_code == 409
            assert "default context" in default.json()["error"]["message"]
            async with calls_socket(daemon) as ws:
                await socket_call(ws, "browser_context_switch", {"name": SECOND})
                dropped = await socket_call(ws, "browser_context_close", {"name": SECOND})
                result = dropped["envelope"]["result"]
                assert result == {
                    "name": SECOND,
                    "managed": False,
                    "closed": False,
                    "active": "chrome",
                }
            code, reason = await second.wait_closed()
            assert code == 4005 and reason is not None and reason.startswith("dropped")
            names = [c["name"] for c in (await client.get("/status")).json()["result"]["contexts"]]
            assert names == ["chrome"]
        # It is listed again when its browser connects again, with the same tab ids.
        async with connected(daemon, answers, context=SECOND):
            again = (await client.get("/tabs", params={"context": SECOND})).json()["result"]
            assert again[0]["id"] // TAB_SPAN >= 1


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        ({"name": "chrome"}, 409, "context_exists", "exists already"),
        ({"name": "no spaces"}, 400, "invalid_request", "Invalid context name"),
        (
            {"name": "x", "storage_state": "never-saved"},
            404,
            "storage_state_not_found",
            "never-saved",
        ),
        ({"name": "x", "storage_state": {"cookies": [{}]}}, 400, "invalid_request", "cookies"),
        (
            {"name": "x", "proxy": {"server": "socks5://p.test:1080", "username": "u"}},
            400,
            "invalid_request",
            "Chrome does not support SOCKS5 authentication",
        ),
        ({"name": "x", "proxy": {"server": "ftp://p.test:21"}}, 400, "invalid_request", "scheme"),
        (
            {"name": "x", "proxy": {"server": "http://u:p@p.test:8080"}},
            400,
            "invalid_request",
            "not in the url",
        ),
        ({"name": "x"}, 503, "browser_unavailable", "not an executable"),
    ],
)
async def test_create_is_refused_before_any_browser_starts(
    daemon: Daemon, body: dict[str, Any], status: int, code: str, words: str
) -> None:
    async with connected(daemon, answers), daemon.client() as client:
        response = await client.post("/browser_context_create", json=body)
        assert (response.status_code, response.json()["error"]["code"]) == (status, code)
        assert words in response.json()["error"]["message"]
        names = [c["name"] for c in (await client.get("/status")).json()["result"]["contexts"]]
        assert "x" not in names  # nothing was left behind


async def test_the_cap_on_managed_contexts(state_dir: Path) -> None:
    with run_daemon(state_dir=state_dir, max_contexts=0) as capped:
        async with capped.client() as client:
            response = await client.post("/browser_context_create", json={"name": "more"})
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "context_limit" and "TABPILOT_MAX_CONTEXTS" in error["message"]


async def test_storage_is_saved_to_a_private_file_or_into_the_answer(
    daemon: Daemon, state_dir: Path
) -> None:
    async with (
        connected(daemon, answers),
        connected(daemon, answers, context=SECOND),
        daemon.client() as client,
    ):
        saved = await client.post(
            "/browser_context_save_storage", json={"name": SECOND, "path": "login"}
        )
        result = saved.json()["result"]
        path = state_dir / "storage" / "login.json"
        assert result["path"] == str(path)
        assert json.loads(path.read_text()) == STATE
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        # The pages' tab ids are the daemon's, as every face gives them.
        assert (
            result["pages"][0]["tab_id"]
            == TAB_SPAN * (result["pages"][0]["tab_id"] // TAB_SPAN) + CHROME_ID
        )
        assert result["skipped"][0]["tab_id"] == result["pages"][0]["tab_id"] + 1
        assert "storage_state" not in result

        whole = (await client.post("/browser_context_save_storage", json={})).json()["result"]
        assert whole["name"] == "chrome" and whole["storage_state"] == STATE
        async with AsyncClient(daemon.settings.port) as python:
            answer = await python.context_save_storage(SECOND)
        assert answer["storage_state"] == STATE

        # A model never gets the cookies: over MCP a path is required.
        async with open_mcp("stdio", daemon.settings.port, caps="contexts") as mcp:
            refused = await mcp.call_tool("browser_context_save_storage", {})
            assert refused.is_error and "Give `path`" in text_of(refused)
            written = text_of(await mcp.call_tool("browser_context_save_storage", {"path": "m"}))
        assert written == (
            f'Saved context "chrome" to {state_dir / "storage" / "m.json"}: 1 cookie, '
            "localStorage of 1 origin. Skipped 1 page: tab "
            f"{CHROME_ID + 1} http://b.test/ (discarded)."
        )

        bad = await client.post("/browser_context_save_storage", json={"path": "../x"})
        assert bad.status_code == 400 and "path separator" in bad.json()["error"]["message"]


async def test_a_refused_export_keeps_its_code(daemon: Daemon) -> None:
    async def refusing(command: Command) -> Reply:
        return fail("export_disabled", "")

    async with connected(daemon, refusing), AsyncClient(daemon.settings.port) as python:
        with pytest.raises(ClientError) as raised:
            await python.context_save_storage(path="x")
    assert raised.value.code == "export_disabled"
    assert "Only the person at that browser can turn it on" in raised.value.message


def test_the_cli_keeps_its_own_active_context(
    daemon: Daemon,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("TABPILOT_STATE_DIR", str(tmp_path))
    port = ["--port", str(daemon.settings.port)]
    seen: list[str | None] = []

    class Recording(tool_commands.Client):
        def __init__(self, *args: Any, context: str | None = None, **kwargs: Any) -> None:
            seen.append(context)
            super().__init__(*args, context=context, **kwargs)

    monkeypatch.setattr(tool_commands, "Client", Recording)
    assert cli.main(["context", "switch", "nope", *port]) == 1
    assert "No context is named 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "cli-context").exists()
    assert cli.main(["context", "save", *port]) == 1
    assert "Give `path`" in capsys.readouterr().err
    assert cli.main(["tabs", "--context", "elsewhere", *port]) == 1
    assert seen[-1] == "elsewhere"
    # A proxy as JSON, or as its bare server.
    socks = '{"server": "socks5://p.test:1080", "username": "u"}'
    assert cli.main(["context", "create", "x", "--proxy", socks, *port]) == 1
    assert "SOCKS5 authentication" in capsys.readouterr().err
    assert cli.main(["context", "create", "x", "--proxy", "ftp://p.test:21", *port]) == 1
    assert "the proxy's scheme must be one of" in capsys.readouterr().err
