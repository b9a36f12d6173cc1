"""Contexts: several isolated browsers on one daemon, each one extension link with its own bridge.

A context is one browser connected through the tabpilot extension:

- a **managed** context is a headless Chromium the daemon started, with a fresh profile and,
  optionally, a proxy: ``default`` (``tabpilot serve --browser``) and those of
  browser_context_create. Its extension proves which one it is with the key in its managed.json;
- a **person's Chrome** is a context as soon as its extension connects, under the name set in its
  popup (``chrome`` by default). The AI can drop it from the list, never close it.

The daemon's *default context* is ``default`` when it runs a managed browser, else the first
person's Chrome that connected. Every caller has an *active* context (:class:`Scope`): one per
MCP session and per ``/ws/calls`` socket, set by browser_context_switch; an HTTP request names
its context with ``?context=``. Without one, a call goes to the default context. A call with a
``tab_id`` goes to the context that tab belongs to (:mod:`tabpilot.browsers.tab_ids`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket

from tabpilot.browsers.bridge import Bridge
from tabpilot.browsers.functions import FunctionRegistry
from tabpilot.browsers.handshake import close_socket, read_hello
from tabpilot.browsers.managed import ManagedBrowser
from tabpilot.browsers.tab_ids import TAB_SPAN, slot_of
from tabpilot.config import Settings
from tabpilot.errors import (
    BrowserError,
    ContextExists,
    ContextLimit,
    ContextNotClosable,
    ContextNotFound,
    InvalidRequest,
    TabNotFound,
    TabpilotError,
)
from tabpilot.ids import new_request_id, token_matches
from tabpilot.protocol import CLOSE_BUSY, CLOSE_DROPPED, CLOSE_NAME_TAKEN, ExtensionHello
from tabpilot.tools.context_settings import NAME, NAME_RULE, Proxy, check_name

log = logging.getLogger(__name__)

#: The managed context of `tabpilot serve --browser`.
DEFAULT = "default"
#: A person's Chrome whose popup names no context (and an older extension, which sends none).
HUMAN_DEFAULT = "chrome"
#: People's browsers connected at once under different names; past it, a newcomer is told busy.
MAX_HUMAN = 8
#: The longest a new context's start may take: Chromium, its extension, its first page, with
#: the first-page watch's restarts (tabpilot.browsers.supervisor).
CREATE_WAIT_S = 100.0
#: How long browser_context_list waits for a context's tabs before it shows them as unknown.
LIST_TIMEOUT_S = 2.0


@dataclass(eq=False)
class Context:
    """One browser of the daemon."""

    name: str
    bridge: Bridge
    #: Its Chromium, for a managed context; None for a person's Chrome.
    browser: ManagedBrowser | None
    #: Its tab ids are ``slot * TAB_SPAN + Chrome's`` (tabpilot.browsers.tab_ids).
    slot: int
    created: float = field(default_factory=time.monotonic)

    @property
    def managed(self) -> bool:
        return self.browser is not None

    @property
    def proxy(self) -> str | None:
        """The proxy's server, never its credentials."""
        proxy = self.browser.proxy if self.browser is not None else None
        return proxy.server if proxy is not None else None

    def summary(self) -> dict[str, Any]:
        """What /status says of it: no call to its browser."""
        return {
            "name": self.name,
            "managed": self.managed,
            "connected": self.bridge.connected,
            "proxy": self.proxy,
        }


class Scope:
    """One caller's view of the contexts: its active one, and the one a call names.

    An MCP session and a ``/ws/calls`` socket each hold one for their life; an HTTP request gets
    its own. :meth:`naming` gives a call's view that names a context for that call alone.

    ``caller`` is who the caller is, for what is kept for it alone (the guard's cut answers,
    tabpilot.guard.store): the strongest identity each face has. An MCP session over ``/mcp`` is
    ``("mcp", key)``, its session key (tabpilot.mcp.hints.session_key: the ``Mcp-Session-Id``
    the SDK checked, or for a request without a session the client program it names); a
    ``/ws/calls`` socket is ``("calls", n)``, that connection and no other (``tabpilot mcp``,
    the CLI and the Python clients each call over one); an HTTP request, which carries nothing of
    its sender but the shared token, is ``("http", context)``, the ``?context=`` it names (None:
    none), so HTTP requests naming the same context are one caller.
    """

    def __init__(
        self,
        contexts: Contexts,
        *,
        named: str | None = None,
        owner: Scope | None = None,
        caller: Hashable = None,
    ) -> None:
        self.contexts = contexts
        #: The context this call names (HTTP ?context=, a call frame's ``context``).
        self.named = named
        self._owner = owner
        self._caller = caller
        self._active: str | None = None

    @property
    def caller(self) -> Hashable:
        """Who the caller is (the class's doc); a call's view is its caller's."""
        return self._owner.caller if self._owner is not None else self._caller

    @property
    def active(self) -> str | None:
        """The caller's active context; None: the default one."""
        return self._owner.active if self._owner is not None else self._active

    def switch(self, name: str | None) -> None:
        """Make ``name`` the caller's active context (None: the default one)."""
        if self._owner is not None:
            self._owner.switch(name)
        else:
            self._active = name

    def naming(self, name: str | None) -> Scope:
        """This caller's view for a call that names ``name`` (None: it names none)."""
        if name is None:
            return self
        return Scope(self.contexts, named=name, owner=self)

    def bridge(self, params: Any) -> Bridge:
        """The bridge of the context a call with ``params`` runs in."""
        return self.contexts.bridge_for(self, getattr(params, "tab_id", None))

    def current(self) -> Context | None:
        """The context a call without a tab_id runs in; None while the default one (a person's
        Chrome) has not connected yet."""
        return self.contexts.context_for(self)


class Contexts:
    """Every context of the daemon, by name; the extension links land here first (/ws)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.functions = FunctionRegistry()
        #: The default context's bridge; it exists before anything connects, so that calls wait
        #: on it for a browser as they always have.
        self.primary = Bridge(settings, functions=self.functions)
        self._by_name: dict[str, Context] = {}
        self._default: str | None = None
        # Slot 0 is the default context's; the others are never reused while the daemon runs,
        # so an old tab id never names a new context's tab.
        self._next_slot = 1
        self._human_slots: dict[str, int] = {}
        # Managed contexts whose browser is starting: their name is taken, they are not listed.
        self._starting: set[str] = set()

    @property
    def settings(self) -> Settings:
        return self._settings

    # -- the default context ------------------------------------------------------------------

    @property
    def default_name(self) -> str | None:
        """The default context's name; None until a person's Chrome connects to a daemon that
        runs no managed browser."""
        return self._default

    async def start_default(self) -> ManagedBrowser:
        """Start the managed browser of `serve --browser`: the context ``default``."""
        browser = ManagedBrowser(self._settings, context=DEFAULT)
        self._by_name[DEFAULT] = Context(DEFAULT, self.primary, browser, slot=0)
        self._default = DEFAULT
        self.primary.browser = browser
        await browser.start()
        return browser

    # -- finding a context --------------------------------------------------------------------

    def get(self, name: str) -> Context:
        """The listed context ``name``, or ContextNotFound naming those there are."""
        context = self._by_name.get(name)
        if context is None or name in self._starting:
            names = ", ".join(self.names()) or "none yet"
            raise ContextNotFound(
                f"No context is named {name[:60]!r} (there are: {names}). browser_context_list "
                "lists them; browser_context_create makes one."
            )
        return context

    def names(self) -> list[str]:
        return [name for name in self._by_name if name not in self._starting]

    def context_for(self, scope: Scope) -> Context | None:
        """The context a call of ``scope`` without a tab_id runs in."""
        if scope.named is not None:
            return self.get(scope.named)
        name = scope.active
        if name is not None and name not in self._by_name:
            # Closed by another caller: the default context becomes this caller's active one.
            scope.switch(None)
            name = None
        name = name or self._default
        return self._by_name.get(name) if name is not None else None

    def bridge_for(self, scope: Scope, tab_id: Any) -> Bridge:
        """The bridge a call runs on: its tab's context's, else its scope's context's."""
        if isinstance(tab_id, int) and not isinstance(tab_id, bool):
            owner = self._by_slot(slot_of(tab_id))
            if owner is None:
                raise TabNotFound(
                    f"No tab has id {tab_id}: it belongs to no open context. browser_tabs lists "
                    "the tabs of the active context."
                )
            if scope.named is not None and scope.named != owner.name:
                self.get(scope.named)  # an unknown name is said as such
                raise InvalidRequest(
                    f"Tab {tab_id} belongs to context {owner.name!r}, not {scope.named!r}. Name "
                    f"that context, or none: a tab id says its context."
                )
            return owner.bridge
        context = self.context_for(scope)
        return context.bridge if context is not None else self.primary

    def _by_slot(self, slot: int) -> Context | None:
        return next(
            (c for c in self._by_name.values() if c.slot == slot and c.name not in self._starting),
            None,
        )

    def _take_slot(self) -> int:
        slot, self._next_slot = self._next_slot, self._next_slot + 1
        return slot

    # -- managed contexts ---------------------------------------------------------------------

    def check_room(self, name: str) -> None:
        """Refuse a new managed context ``name`` before anything starts: a name taken, the cap."""
        check_name(name)
        if name in self._by_name:
            raise ContextExists(
                f"A context named {name!r} exists already. Pick another name, or "
                "browser_context_switch to it."
            )
        managed = sum(1 for c in self._by_name.values() if c.managed)
        cap = self._settings.max_contexts
        if managed >= cap:
            raise ContextLimit(
                f"The daemon runs {managed} managed contexts, its limit ({cap}, "
                "TABPILOT_MAX_CONTEXTS). Close one with browser_context_close first."
            )

    async def create(self, name: str, proxy: Proxy | None) -> Context:
        """Start a managed context's Chromium and wait until its extension is connected and its
        first page loaded; listed only then. Raises BrowserError if it does not start."""
        self.check_room(name)
        slot = self._take_slot()
        bridge = Bridge(self._settings, functions=self.functions, tab_base=slot * TAB_SPAN)
        browser = ManagedBrowser(self._settings, context=name, proxy=proxy)
        context = Context(name, bridge, browser, slot)
        # Registered before Chromium starts: its extension's hello finds it by name and key.
        self._by_name[name] = context
        self._starting.add(name)
        try:
            await browser.start()
            loaded = await asyncio.wait_for(
                asyncio.shield(bridge.watch_first_page(browser)), CREATE_WAIT_S
            )
            if not (loaded and bridge.connected):
                raise BrowserError(
                    f"The browser of context {name!r} started, but its extension did not "
                    "connect or its first page never loaded, after restarts. Retry; if it keeps "
                    "failing, see the daemon's log."
                )
            # A call whose browser died is started again, as for the default context.
            bridge.browser = browser
        except BaseException as exc:
            self._by_name.pop(name, None)
            await bridge.close(why=f"Context {name!r} did not start.")
            await browser.stop()
            if isinstance(exc, TimeoutError):
                raise BrowserError(
                    f"The browser of context {name!r} did not load its first page in time. "
                    "Retry once the machine is less busy."
                ) from None
            raise
        finally:
            self._starting.discard(name)
        log.info("context %s created (slot %d)", name, slot)
        return context

    async def close(self, name: str) -> Context:
        """Close a managed context (its Chromium stops), or drop a person's Chrome from the list
        until it connects again."""
        context = self.get(name)
        if len(self.names()) <= 1:
            raise ContextNotClosable("Cannot close the only remaining context.")
        if name == self._default:
            raise ContextNotClosable(
                f"Cannot close {name!r}: it is the daemon's default context, where calls that "
                "name none run. browser_close closes what the AI opened in it."
            )
        await self.discard(name)
        log.info("context %s closed", name)
        return context

    async def discard(self, name: str) -> None:
        """Take ``name`` off the list, whatever it is: a managed context's Chromium stops, a
        person's Chrome is told it was dropped."""
        context = self._by_name.pop(name, None)
        if context is None:
            return
        if context.browser is not None:
            context.bridge.browser = None  # no call may start it again
            await context.bridge.close(why=f"Context {name!r} was closed.")
            await context.browser.stop()
        else:
            await context.bridge.close(
                CLOSE_DROPPED,
                "dropped: an agent closed this browser's context; it is listed again when it "
                "reconnects",
                why=f"Context {name!r} was dropped.",
            )

    # -- what a context holds -----------------------------------------------------------------

    async def pages(self, context: Context) -> tuple[int | None, str | None]:
        """Its open tabs' count and its active tab's url; None, None when its browser cannot say
        now (not connected, its pilot switch off)."""
        if not context.bridge.connected:
            return None, None
        try:
            answer = await asyncio.wait_for(
                context.bridge.list_tabs(new_request_id()), LIST_TIMEOUT_S
            )
        except (TabpilotError, TimeoutError):
            return None, None
        tabs = answer.result if isinstance(answer.result, list) else []
        active = next((t for t in tabs if isinstance(t, dict) and t.get("active")), None)
        return len(tabs), (active or {}).get("url")

    def summaries(self) -> list[dict[str, Any]]:
        """Each listed context, as /status shows it."""
        return [self._by_name[name].summary() for name in self.names()]

    # -- the extensions' links ----------------------------------------------------------------

    async def serve_connection(self, ws: WebSocket) -> None:
        """Run one extension WebSocket (the /ws endpoint) on the bridge of the context its hello
        names, until it closes."""
        await ws.accept()
        hello = await read_hello(ws, self._settings.token)
        if hello is None:
            return
        context = self._context_of(hello)
        if isinstance(context, str):
            log.warning("refused an extension's hello: %s", context)
            code = CLOSE_BUSY if context.startswith("busy") else CLOSE_NAME_TAKEN
            await close_socket(ws, code, context)
            return
        await context.bridge.serve_link(ws, hello)

    def _context_of(self, hello: ExtensionHello) -> Context | str:
        """The context a hello joins (made for a person's Chrome seen the first time), or why
        it is refused."""
        name = hello.context or HUMAN_DEFAULT
        context = self._by_name.get(name)
        if context is not None and context.browser is not None:
            if token_matches(hello.context_key, context.browser.key):
                return context
            return f"name taken: context {name!r} is a managed browser of this daemon"
        if hello.context_key is not None:
            return f"name taken: the managed context {name!r} is closed"
        if not NAME.fullmatch(name):
            return f"name taken: {name[:40]!r} is not a context name ({NAME_RULE})"
        if context is not None:
            return context  # its bridge says busy if another browser holds it now
        if self._default is None:
            context = Context(name, self.primary, None, slot=0)
            self._default = name
        else:
            if sum(1 for c in self._by_name.values() if not c.managed) >= MAX_HUMAN:
                return f"busy: {MAX_HUMAN} people's browsers are connected to this daemon"
            slot = self._human_slots.get(name) or self._take_slot()
            self._human_slots[name] = slot
            bridge = Bridge(self._settings, functions=self.functions, tab_base=slot * TAB_SPAN)
            context = Context(name, bridge, None, slot)
        self._by_name[name] = context
        log.info("a person's browser joined as context %s", name)
        return context

    async def aclose(self) -> None:
        """Shut down: every link closed, every managed browser stopped."""
        for context in list(self._by_name.values()):
            await context.bridge.close()
            if context.browser is not None:
                await context.browser.stop()
        await self.primary.close()
