"""`tabpilot mcp --browser`: the daemon on the port, or one started now with its managed browser.

An MCP client's configuration is then one line: the first call gets a working browser with no
daemon started by hand. The rules:

- A tabpilot daemon already answering on the port is used as it is (a person's, or one another
  client started). Something else answering there is an error that names the port.
- Otherwise `tabpilot serve --browser --port P --idle-stop S` is started, the very command a
  person would run (same defaults, environment and state dir), as a detached process of its own
  session that outlives this one, its output in ``<state dir>/daemon-<port>.log`` and never in the
  MCP stream. MCP is served meanwhile; the first call waits (bounded) until the daemon answers and
  its browser is ready.
- Check-then-start runs under an OS lock on ``<state dir>/daemon-<port>.lock``: clients that start
  together start one daemon, and the others find it.
- Each forwarder holds its callers' socket open for its life, so the daemon's idle stop
  (:mod:`tabpilot.http.idle`) counts it; once no forwarder is left for ``--idle-stop`` seconds, the
  daemon stops, unless `--stay` started it without one.
- A start that fails (no Chromium, say) never hangs the client: every call answers the reason,
  with its code and next step, and the next call tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from tabpilot import guard
from tabpilot.client.unreachable import is_envelope, not_running, not_tabpilot
from tabpilot.config import Settings, client_headers
from tabpilot.envelope import failure_body
from tabpilot.errors import BrowserError
from tabpilot.ids import new_request_id
from tabpilot.tools.fields import Params
from tabpilot.tools.tool import Tool

#: How long a started daemon stays once no client is left, by default (`--idle-stop`).
IDLE_STOP_S = 600.0
#: Longest wait for a started daemon to answer; past it, the start failed.
ANSWER_TIMEOUT_S = 30.0
#: Longest wait, after it answers, for its browser's first page; past it MCP is served anyway,
#: and each call waits for the browser as the daemon's calls do.
READY_TIMEOUT_S = 30.0
#: Each probe of the port, in seconds: a tabpilot daemon answers /health in milliseconds.
PROBE_TIMEOUT_S = 5.0
_POLL_S = 0.05
#: The line that begins each start's part of the daemon's log.
START_LINE = "tabpilot mcp --browser starts the daemon"
#: Past this size the log is started afresh at the next start.
MAX_LOG_BYTES = 1024 * 1024

#: A failure every call answers: a fresh envelope each time.
Refusal = Callable[[], dict[str, Any]]


def _log_path(settings: Settings) -> Path:
    return settings.state_dir / f"daemon-{settings.port}.log"


def _get(settings: Settings, path: str) -> tuple[int, Any]:
    """GET ``path`` of the port: the status and the JSON body (None if not JSON). Plain
    http.client: an httpx client's first TLS context alone costs a fifth of a second, before the
    daemon can be spawned."""
    connection = http.client.HTTPConnection(settings.host, settings.port, timeout=PROBE_TIMEOUT_S)
    try:
        connection.request("GET", path, headers=client_headers(settings))
        response = connection.getresponse()
        try:
            return response.status, json.loads(response.read())
        except ValueError:
            return response.status, None
    finally:
        connection.close()


def _probe(settings: Settings) -> str | None:
    """What answers on the port: `tabpilot` for a tabpilot daemon, None for nothing at all,
    else what does, in words."""
    try:
        status, body = _get(settings, "/health")
    except ConnectionRefusedError:
        return None
    except TimeoutError:
        return f"no answer to /health in {PROBE_TIMEOUT_S:g} s"
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    # A 401 in the envelope is tabpilot too, with another token: its calls will say so.
    return "tabpilot" if is_envelope(body) else f"HTTP {status}"


def _browser_ready(settings: Settings) -> bool:
    """Whether the daemon's browser has its extension connected and its first page loaded."""
    try:
        _, body = _get(settings, "/status")
    except (OSError, http.client.HTTPException):
        return False
    status = (body.get("result") if isinstance(body, dict) else None) or {}
    connected = (status.get("extension") or {}).get("connected")
    return bool(connected and (status.get("browser") or {}).get("ready"))


@contextlib.contextmanager
def _port_lock(settings: Settings, deadline: float) -> Iterator[None]:
    """The lock of check-then-start on this port, shared by every client of the state dir."""
    settings.state_dir.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: no flock; a second start then fails to bind and says so
        yield
        return
    with (settings.state_dir / f"daemon-{settings.port}.lock").open("a") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError from None
                time.sleep(_POLL_S)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def serve_command(settings: Settings, idle_stop_s: float | None) -> list[str]:
    """`tabpilot serve --browser` on the port, as this interpreter runs tabpilot."""
    command = [sys.executable, "-m", "tabpilot", "serve", "--browser", "--port", str(settings.port)]
    if idle_stop_s is not None:
        command += ["--idle-stop", f"{idle_stop_s:g}"]
    return command


def _spawn(settings: Settings, idle_stop_s: float | None) -> subprocess.Popen[bytes]:
    path = _log_path(settings)
    command = serve_command(settings, idle_stop_s)
    # One log across starts (each begins with its line), started afresh once it grows large.
    with contextlib.suppress(FileNotFoundError):
        if path.stat().st_size > MAX_LOG_BYTES:
            path.unlink()
    with path.open("ab") as log:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        log.write(f"{stamp} {START_LINE}: {' '.join(command[1:])}\n".encode())
        log.flush()
        # Its own session: the MCP client ends this forwarder's process group, not the daemon
        # other clients may share. Its streams go to the log, never into the MCP stream.
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )


def _exited(settings: Settings, code: int) -> Refusal:
    """The failure of a started daemon that exited: the last line it logged says why."""
    path = _log_path(settings)
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines()]
    except OSError:
        lines = []
    said = next((line for line in reversed(lines) if line), f"exit status {code}")
    said = said.removeprefix("tabpilot: ")
    message = (
        f"The tabpilot daemon `tabpilot mcp --browser` started on 127.0.0.1:{settings.port} "
        f"exited: {said} Its log: {path}. Fix that, then call again."
    )
    return lambda: failure_body(new_request_id(), BrowserError(message))


def _wait_until_ready(settings: Settings, process: subprocess.Popen[bytes]) -> Refusal | None:
    """Wait for the started daemon to answer, then for its browser's first page, each bounded."""
    deadline = time.monotonic() + ANSWER_TIMEOUT_S
    while _probe(settings) != "tabpilot":
        code = process.poll()
        if code is not None:
            # A daemon a client started and left before it answered may hold the port now.
            return None if _probe(settings) == "tabpilot" else _exited(settings, code)
        if time.monotonic() > deadline:
            process.kill()
            message = (
                f"The tabpilot daemon `tabpilot mcp --browser` started on 127.0.0.1:"
                f"{settings.port} did not answer within {ANSWER_TIMEOUT_S:g} s and was stopped. "
                f"Its log: {_log_path(settings)}. Call again to start it anew."
            )
            return lambda: failure_body(new_request_id(), BrowserError(message))
        time.sleep(_POLL_S)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        code = process.poll()
        if code is not None:
            return _exited(settings, code)
        if _browser_ready(settings):
            return None
        time.sleep(_POLL_S)
    return None


def ensure_daemon(settings: Settings, idle_stop_s: float | None) -> Refusal | None:
    """Make a tabpilot daemon answer on the port: None once one does, found or started; else
    the failure every call should answer. Blocks at most about a minute."""
    found = _probe(settings)
    if found is None:
        deadline = time.monotonic() + ANSWER_TIMEOUT_S + READY_TIMEOUT_S + 5
        try:
            with _port_lock(settings, deadline):
                # Another client may have started it while this one waited for the lock.
                found = _probe(settings)
                if found is None:
                    return _wait_until_ready(settings, _spawn(settings, idle_stop_s))
        except TimeoutError:
            message = (
                f"Another client's start of the tabpilot daemon on 127.0.0.1:{settings.port} "
                f"held its lock past {ANSWER_TIMEOUT_S + READY_TIMEOUT_S:g} s. Its log: "
                f"{_log_path(settings)}. Call again."
            )
            return lambda: failure_body(new_request_id(), BrowserError(message))
    if found == "tabpilot":
        return None
    where = f"{settings.host}:{settings.port}"
    return lambda: not_tabpilot(where, found)


class Autostarting:
    """The forwarder's backend with `--browser`: each call goes to ``client`` once a daemon
    answers; a daemon gone since (stopped, killed) is started again before the call is sent.

    ``begun`` is the start already under way (:func:`ensure_daemon` in a thread, from the
    forwarder's first moment): MCP is served meanwhile, and the first call waits for it.
    """

    def __init__(
        self,
        client: Any,
        settings: Settings,
        idle_stop_s: float | None,
        begun: Future[Refusal | None] | None = None,
    ) -> None:
        self._client = client
        self._settings = settings
        self._idle_stop_s = idle_stop_s
        self._begun = begun
        self._refusal: Refusal | None = None
        self._started = False
        self._starting = asyncio.Lock()
        self._not_running = not_running(f"{settings.host}:{settings.port}")["error"]["message"]

    async def start(self, *, again: bool = False) -> None:
        """Find or start the daemon, then open the callers' socket, held for this client's life
        so that the daemon's idle stop waits for it. Once started, only ``again`` looks anew."""
        async with self._starting:
            if self._started and not again:
                return
            begun, self._begun = self._begun, None
            try:
                if begun is not None:
                    self._refusal = await asyncio.wrap_future(begun)
                else:
                    self._refusal = await asyncio.to_thread(
                        ensure_daemon, self._settings, self._idle_stop_s
                    )
            except OSError as exc:  # the state dir cannot hold the lock or the log
                error = BrowserError(
                    f"`tabpilot mcp --browser` could not start the daemon: {exc}. Check that "
                    f"the state dir {self._settings.state_dir} is writable, then call again."
                )
                self._refusal = lambda: failure_body(new_request_id(), error)
            self._started = self._refusal is None
            if self._started:
                await self._client.status()

    async def _call(self, send: Callable[[], Any]) -> dict[str, Any]:
        await self.start()
        if self._refusal is not None:
            return self._refusal()
        envelope: dict[str, Any] = await send()
        error = envelope.get("error") or {}
        if error.get("code") == "daemon_unreachable" and error.get("message") == self._not_running:
            # Nothing was sent (no daemon listened): start one, and send the call to it.
            await self.start(again=True)
            if self._refusal is not None:
                return self._refusal()
            envelope = await send()
        return envelope

    async def run_tool(
        self,
        tool: Tool,
        params: Params | None,
        ask: guard.Ask = guard.WHOLE,
        session: object | None = None,
    ) -> dict[str, Any]:
        return await self._call(lambda: self._client.run_tool(tool, params, ask, session=session))

    async def status(self, session: object | None = None) -> dict[str, Any]:
        return await self._call(lambda: self._client.status(session=session))
