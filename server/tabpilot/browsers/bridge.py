"""The extension link: one live WebSocket, the commands in flight on it, and their timeouts.

A command is written to exactly one connection and never re-sent: when that connection closes,
every command still waiting on it fails with ``extension_disconnected``. The callers wait on
futures that the receive loop resolves, so nothing in the path of a command sleeps or polls.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from starlette.websockets import WebSocket

from tabpilot.browsers import supervisor as first_page
from tabpilot.browsers import tab_ids
from tabpilot.browsers.functions import FunctionRegistry
from tabpilot.browsers.handshake import close_socket
from tabpilot.browsers.managed import ManagedBrowser
from tabpilot.browsers.refusals import Refusals
from tabpilot.config import Settings
from tabpilot.envelope import dialog_dicts
from tabpilot.errors import (
    ExecutionTimeout,
    ExtensionDisconnected,
    ExtensionError,
    ExtensionNotConnected,
    InternalError,
    PilotDisabled,
    QueueFull,
    ScriptFailed,
    TabpilotError,
    from_extension,
)
from tabpilot.ids import EXTENSION_ORIGIN_PREFIX
from tabpilot.protocol import (
    CLOSE_BUSY,
    CommandFrame,
    CommandName,
    DaemonHello,
    ExtensionHello,
    KeepaliveFrame,
    PilotFrame,
    ResultFrame,
    loads,
    parse_extension_frame,
    payload,
)
from tabpilot.tools.fields import Params, PingParams

log = logging.getLogger(__name__)

#: list_tabs is a quick chrome.tabs.query; the daemon's own grace still applies on top.
LIST_TABS_TIMEOUT_S = 5.0
#: A ping runs nothing; the extension gives up on a stuck tab after 5 s itself.
PING_TIMEOUT_S = 5.0
#: How long a call waits for a managed browser it started again: Chromium's start and the
#: extension's first hello, on a loaded machine.
BROWSER_START_GRACE_S = 30.0
#: Close code for the daemon shutting down ("going away", RFC 6455 §7.4.1).
CLOSE_GOING_AWAY = 1001


@dataclass(eq=False)
class _Link:
    """One extension connection that said a valid hello."""

    ws: WebSocket
    hello: ExtensionHello
    extension_id: str | None
    pilot_enabled: bool
    connected_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    # One writer at a time per socket; it also keeps the daemon's hello first on the wire.
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    pending: set[str] = field(default_factory=set)
    closed: bool = False
    #: The refusals the daemon answered itself, on their way to the popup (set once linked).
    refusals: Refusals | None = None


class Bridge:
    """Hands commands to the connected extension and routes each result to its caller by id."""

    def __init__(
        self, settings: Settings, *, functions: FunctionRegistry | None = None, tab_base: int = 0
    ) -> None:
        self._settings = settings
        #: Added to its browser's tab ids on every face (tabpilot.browsers.tab_ids): 0 for the
        #: default context, whose ids are Chrome's own.
        self.tab_base = tab_base
        self._link: _Link | None = None
        self._last: _Link | None = None  # kept for /status after a disconnect
        # Set while a link is live: callers waiting out the connect grace wake on it.
        self._linked = asyncio.Event()
        self._pending: dict[str, tuple[asyncio.Future[ResultFrame], _Link]] = {}
        # Callers inside call(), waiting for the extension or for their answer.
        self._callers = 0
        #: The managed Chromium of `serve --browser`, started again by a call that finds it
        #: stopped (set by the app once it started it).
        self.browser: ManagedBrowser | None = None
        # The watch over a start of that browser (tabpilot.browsers.supervisor): calls wait for its
        # verdict, so none runs in a browser it is about to replace.
        self._first_page: asyncio.Task[bool] | None = None
        #: The functions of eval_define_function: daemon-wide, in memory (tabpilot.tools.functions),
        #: one registry for every context's bridge.
        self.functions = functions if functions is not None else FunctionRegistry()

    # -- state --------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether an extension is connected now."""
        return self._link is not None

    @property
    def in_flight(self) -> int:
        """How many commands are waiting for their result."""
        return len(self._pending)

    @property
    def callers(self) -> int:
        """How many callers count against ``max_in_flight``: those waiting for their result, and
        those still waiting for an extension to connect."""
        return self._callers

    @property
    def seen_link(self) -> tuple[_Link | None, bool]:
        """The extension's link, or the last one seen when none is connected; and whether it is
        connected."""
        link = self._link or self._last
        return link, link is not None and link is self._link

    # -- commands -----------------------------------------------------------------------------

    async def list_tabs(self, request_id: str) -> ResultFrame:
        """The open tabs, as the extension lists them."""
        timeout_s = LIST_TABS_TIMEOUT_S + self._settings.timeout_grace_s
        return await self.call("list_tabs", {}, request_id, timeout_s)

    @property
    def settings(self) -> Settings:
        """The daemon's settings: its limits and graces."""
        return self._settings

    async def command(
        self, command: CommandName, params: Params, request_id: str, timeout_s: float
    ) -> ResultFrame:
        """Send a tool's command (tabpilot.tools): the extension may take ``timeout_s``, and the
        daemon waits its grace on top."""
        timeout_s += self._settings.timeout_grace_s
        return await self.call(command, params.model_dump(), request_id, timeout_s)

    async def ping(self, params: PingParams, request_id: str) -> ResultFrame:
        """A round trip to the service worker, the tab's content script or its page world."""
        timeout_s = PING_TIMEOUT_S + self._settings.timeout_grace_s
        return await self.call("ping", params.model_dump(), request_id, timeout_s)

    async def call(
        self, command: CommandName, params: dict[str, Any], request_id: str, timeout_s: float
    ) -> ResultFrame:
        """Send one command once and wait for its result.

        Raises ExtensionNotConnected after the connect grace, PilotDisabled when the extension
        last reported the switch off, ExtensionDisconnected when the connection closes first,
        ExecutionTimeout after ``timeout_s``, and the extension's own error when ``ok`` is false.
        """
        if self._callers >= self._settings.max_in_flight:
            raise QueueFull(
                f"{self._callers} commands are waiting already (the limit is "
                f"{self._settings.max_in_flight}, TABPILOT_MAX_IN_FLIGHT), so this one was not "
                f"queued. Retry after {QueueFull.retry_after_s} s."
            )
        self._callers += 1
        try:
            if not self.tab_base:
                return await self._call(command, params, request_id, timeout_s)
            try:
                answer = await self._call(
                    command, tab_ids.inward(params, self.tab_base), request_id, timeout_s
                )
            except ScriptFailed:
                raise  # a script's own words are passed on as they are
            except TabpilotError as error:
                raise tab_ids.outward_error(error, self.tab_base) from None
            return tab_ids.outward(command, answer, self.tab_base)
        finally:
            self._callers -= 1

    async def _call(
        self, command: CommandName, params: dict[str, Any], request_id: str, timeout_s: float
    ) -> ResultFrame:
        link = await self._wait_for_link()
        if not link.pilot_enabled:
            self.report_refusal(command, PilotDisabled.code, link)
            raise PilotDisabled()
        if request_id in self._pending:
            raise InternalError(f"Request id {request_id!r} is already in flight.")
        future: asyncio.Future[ResultFrame] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (future, link)
        link.pending.add(request_id)
        try:
            async with asyncio.timeout(timeout_s):
                await self._send(link, CommandFrame(id=request_id, command=command, params=params))
                answer = await future
        except TimeoutError:
            what = (
                "Narrow the script or raise timeout_ms"
                if command == "execute_javascript"
                else f"Retry {command}"
            )
            raise ExecutionTimeout(
                f"No answer from the extension to {command} within {timeout_s:g} s (its timeout "
                f"plus the daemon's grace). {what}, and check that the page is not stuck."
            ) from None
        finally:
            self._pending.pop(request_id, None)
            link.pending.discard(request_id)
            if future.done() and not future.cancelled():
                future.exception()  # mark retrieved: no "never retrieved" noise on cancel
        if not answer.ok:
            assert answer.error is not None  # ResultFrame validates this
            error = from_extension(answer.error.code, answer.error.message, answer.error.stack)
            error.route = answer.route
            error.dialogs = dialog_dicts(answer.dialogs)
            error.data = answer.error.data
            raise error
        return answer

    async def _wait_for_link(self) -> _Link:
        # A browser may be starting or Chrome may be waking the service worker: wait out the
        # grace on the event the hello sets, never by polling.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._settings.connect_grace_s
        started_browser = False
        while self._link is None:
            browser = self.browser
            if browser is not None and not browser.running:
                # browser_close stopped it, or it crashed: start it again, and wait for it (once
                # more if it dies before its extension connects, but no longer for that).
                await browser.ensure_running(lambda: self._link is not None)
                if not started_browser:
                    deadline = max(deadline, loop.time() + BROWSER_START_GRACE_S)
                started_browser = True
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise ExtensionNotConnected()
            waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(self._linked.wait())]
            if browser is not None:  # a browser that dies meanwhile is started again at once
                waits.append(asyncio.ensure_future(browser.exited()))
            try:
                done, _ = await asyncio.wait(
                    waits, timeout=remaining, return_when="FIRST_COMPLETED"
                )
            finally:
                for waiting in waits:
                    waiting.cancel()
            if not done:
                raise ExtensionNotConnected()
        if started_browser and self.browser is not None:
            # Its extension connects before its first page has loaded: the call waits for that
            # page, and a browser whose first page never loads is replaced (first_page).
            self.watch_first_page(self.browser)
        watching = self._first_page
        if watching is not None and not watching.done() and asyncio.current_task() is not watching:
            await asyncio.shield(watching)
            if self._link is None:
                return await self._wait_for_link()
        return self._link

    def report_refusal(self, command: str, code: str, link: _Link | None = None) -> None:
        """Tell the extension that the daemon refused ``command`` with ``code`` without sending
        it, so that the popup lists the refusal like one the extension answered. Refusals are
        gathered and sent a few times a second at most (tabpilot.browsers.refusals)."""
        link = link or self._link
        if link is not None and link.refusals is not None and not link.closed:
            link.refusals.note(command, code)

    @property
    def first_page_pending(self) -> bool:
        """Whether a start of the managed browser is still waiting for its first page: calls wait
        meanwhile (/status says ``browser.ready: false``)."""
        return self._first_page is not None and not self._first_page.done()

    def watch_first_page(self, browser: ManagedBrowser) -> asyncio.Task[bool]:
        """Watch a start of ``browser`` until its first page loads (tabpilot.browsers.supervisor),
        once however many callers ask; calls meanwhile wait for the verdict."""
        if self._first_page is None or self._first_page.done():
            self._first_page = asyncio.create_task(first_page.watch(self, browser))
        return self._first_page

    def drop_link(self, why: str) -> None:
        """Forget the extension's link at once (its browser was stopped), rather than when its
        socket's close arrives: a call meanwhile would be written into a dead socket."""
        if self._link is not None:
            self._detach(self._link, why)

    async def _send(self, link: _Link, frame: BaseModel) -> None:
        text = frame.model_dump_json()
        async with link.send_lock:
            if link.closed:
                # Its commands were failed already; writing now could run one after its caller
                # was told it did not.
                return
            try:
                await link.ws.send_text(text)
            except Exception as exc:  # any failure to write means the connection is gone
                log.info("write to extension failed (%s); dropping the connection", exc)
                self._detach(link, "The connection to the extension broke.")

    # -- the connection -----------------------------------------------------------------------

    async def serve_link(self, ws: WebSocket, hello: ExtensionHello) -> None:
        """Run an extension's accepted WebSocket, whose hello was read, until it closes (the
        /ws endpoint hands each to its context's bridge: tabpilot.browsers.contexts)."""
        origin = ws.headers.get("origin", "")
        link = _Link(
            ws=ws,
            hello=hello,
            extension_id=origin[len(EXTENSION_ORIGIN_PREFIX) :].rstrip("/") or None,
            pilot_enabled=hello.pilot_enabled,
        )
        link.refusals = Refusals(lambda frame: self._send(link, frame))
        holder = self._link
        if holder is not None:
            # First come, first served: taking the link from a live extension would fail its
            # commands in flight, and two browsers pointed at one daemon would take it from each
            # other for ever. The newcomer retries and gets in once the holder leaves.
            log.warning(
                "refused extension %s: extension %s is connected",
                link.extension_id,
                holder.extension_id,
            )
            await close_socket(
                ws, CLOSE_BUSY, "busy: another browser's tabpilot extension is connected"
            )
            return
        try:
            async with link.send_lock:
                self._link, self._last = link, link
                self._linked.set()
                hello_frame = DaemonHello(
                    daemon_version=self._settings.version, site_rules=self._settings.site_rules
                )
                await ws.send_text(hello_frame.model_dump_json(exclude_none=True))
            log.info(
                "extension %s %s connected (pilot %s)",
                link.extension_id,
                hello.extension_version,
                "on" if hello.pilot_enabled else "off",
            )
            await self._receive_loop(link)
        finally:
            self._detach(link, "The extension disconnected.")

    async def _receive_loop(self, link: _Link) -> None:
        while True:
            message = await link.ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            data = payload(message)
            if data is None:
                continue
            try:
                frame = parse_extension_frame(data)
            except ValidationError as exc:
                self._on_malformed(link, data, exc)
                continue
            match frame:
                case ResultFrame():
                    self._on_result(link, frame)
                case PilotFrame():
                    link.pilot_enabled = frame.enabled
                    log.info("pilot switched %s", "on" if frame.enabled else "off")
                case KeepaliveFrame():
                    await self._send(link, KeepaliveFrame())
                case ExtensionHello():
                    log.warning("ignoring a second hello on the same connection")

    def _on_result(self, link: _Link, frame: ResultFrame) -> None:
        entry = self._pending.get(frame.id)
        if entry is None or entry[1] is not link or entry[0].done():
            log.warning("ignoring a result for an unknown or answered id %r", frame.id)
            return
        entry[0].set_result(frame)

    def _on_malformed(self, link: _Link, data: str | bytes, exc: ValidationError) -> None:
        raw = loads(data)
        kind = raw.get("type") if isinstance(raw, dict) else None
        log.warning(
            "ignoring a malformed frame of type %r: %s", kind, exc.errors(include_input=False)[:1]
        )
        # A result we cannot read still answers its command: failing it now beats a timeout.
        request_id = raw.get("id") if isinstance(raw, dict) and kind == "result" else None
        entry = self._pending.get(request_id) if isinstance(request_id, str) else None
        if entry is not None and entry[1] is link and not entry[0].done():
            entry[0].set_exception(
                ExtensionError(
                    "The extension sent a result the daemon cannot read. Update tabpilot and "
                    "its extension to the same version."
                )
            )

    def _detach(self, link: _Link, why: str) -> None:
        """Forget ``link`` and fail its commands. Safe to call twice."""
        if link.closed:
            return
        link.closed = True
        if link.refusals is not None:
            link.refusals.close()
        if self._link is link:
            self._link = None
            self._linked.clear()
        for request_id in list(link.pending):
            entry = self._pending.get(request_id)
            if entry is not None and not entry[0].done():
                entry[0].set_exception(
                    ExtensionDisconnected(
                        f"{why} The command was in flight and is not re-sent, so it ran at most "
                        "once; check the page before retrying."
                    )
                )
        link.pending.clear()
        log.info("extension link closed: %s", why)

    async def close(
        self,
        code: int = CLOSE_GOING_AWAY,
        reason: str = "daemon shutting down",
        why: str = "The daemon is shutting down.",
    ) -> None:
        """Fail every command in flight and close the extension's socket (by default: the daemon
        shuts down)."""
        link = self._link
        if link is not None:
            self._detach(link, why)
            await close_socket(link.ws, code, reason)
