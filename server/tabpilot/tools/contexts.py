"""The context tools: create, switch, list and close contexts, and save a context's storage.

The daemon answers them itself (their ``handle``), with the caller's view of the contexts
(:class:`tabpilot.browsers.contexts.Scope`); saving and loading storage are the extension's
``storage_export`` and ``storage_import`` commands (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import Field, WithJsonSchema, field_validator

from tabpilot.errors import TabpilotError
from tabpilot.protocol import ResultFrame
from tabpilot.tools.context_settings import _NAME_FIELD, PROXY_SCHEMA, ProxyParams, _name
from tabpilot.tools.fields import Params, plural
from tabpilot.tools.storage_state import StorageState, parse_storage_state, read_storage_state
from tabpilot.tools.tool import (
    ClientFace,
    CliFace,
    HttpFace,
    McpFace,
    Tool,
    daemon_answer,
    describe,
)

if TYPE_CHECKING:
    from tabpilot.browsers.contexts import Context, Scope

#: A new context's Chromium, its extension and its first page; then its storage state.
CREATE_TIMEOUT_S = 120.0
#: Cookies set one by one, and a blank tab per origin for its localStorage.
IMPORT_TIMEOUT_S = 60.0
#: Asking each context for its tabs.
LIST_TIMEOUT_S = 10.0
#: A managed context's Chromium stopping.
CLOSE_TIMEOUT_S = 30.0


class CreateParams(Params):
    example: ClassVar[str] = '{"name": "clean"}'

    name: str = _NAME_FIELD
    proxy: Annotated[ProxyParams | None, WithJsonSchema(PROXY_SCHEMA)] = Field(
        default=None, description="Route its traffic through this proxy."
    )
    storage_state: Annotated[
        str | dict[str, Any] | None, WithJsonSchema({"type": ["string", "object"]})
    ] = Field(default=None, description="A saved `path`, or a storageState object, to load.")

    _check_name = field_validator("name")(_name)


class NameParams(Params):
    example: ClassVar[str] = '{"name": "clean"}'

    name: str = _NAME_FIELD

    _check_name = field_validator("name")(_name)


class ListParams(Params):
    pass


async def _details(scope: Scope, context: Context) -> dict[str, Any]:
    pages, url = await scope.contexts.pages(context)
    current = scope.current()
    return {
        "name": context.name,
        "is_active": current is context,
        "managed": context.managed,
        "connected": context.bridge.connected,
        "page_count": pages,
        "current_url": url,
        "proxy": context.proxy,
    }


def _state_of(given: str | dict[str, Any] | None, scope: Scope) -> StorageState | None:
    if given is None:
        return None
    if isinstance(given, str):
        return read_storage_state(scope.contexts.settings.state_dir, given)
    return parse_storage_state(given)


async def create(scope: Scope, params: Any, request_id: str) -> ResultFrame:
    """browser_context_create: a new managed Chromium, its storage state loaded; then active."""
    contexts = scope.contexts
    contexts.check_room(params.name)  # before a file is read or a browser started
    state = _state_of(params.storage_state, scope)
    started = time.perf_counter()
    proxy = params.proxy.proxy() if params.proxy is not None else None
    context = await contexts.create(params.name, proxy)
    loaded = None
    if state is not None:
        try:
            answer = await context.bridge.call(
                "storage_import", state.to_json(), request_id, IMPORT_TIMEOUT_S
            )
        except TabpilotError:
            await contexts.discard(params.name)
            raise
        loaded = answer.result
    scope.switch(params.name)
    details = await _details(scope, context)
    details["startup_ms"] = round((time.perf_counter() - started) * 1000)
    if loaded is not None:
        details["storage"] = loaded
    return daemon_answer(request_id, details)


async def switch(scope: Scope, params: Any, request_id: str) -> ResultFrame:
    """browser_context_switch: the caller's calls run in that context from now on."""
    context = scope.contexts.get(params.name)
    scope.switch(params.name)
    return daemon_answer(request_id, await _details(scope, context))


async def list_contexts(scope: Scope, params: Any, request_id: str) -> ResultFrame:
    """browser_context_list: every context, its tabs asked of each browser at once."""
    contexts = scope.contexts
    listed = [contexts.get(name) for name in contexts.names()]
    details = await asyncio.gather(*(_details(scope, context) for context in listed))
    return daemon_answer(request_id, list(details))


async def close(scope: Scope, params: Any, request_id: str) -> ResultFrame:
    """browser_context_close: a managed context stops; a person's Chrome is only dropped."""
    context = await scope.contexts.close(params.name)
    if scope.active == params.name:
        scope.switch(None)
    current = scope.current()
    return daemon_answer(
        request_id,
        {
            "name": context.name,
            "managed": context.managed,
            "closed": context.managed,
            "active": current.name if current is not None else None,
        },
    )


# -- the text a model reads ---------------------------------------------------------------------


def _where(context: dict[str, Any]) -> str:
    pages = context.get("page_count")
    if pages is None:
        why = "not connected" if not context.get("connected") else "pilot off or busy"
        return f"tabs unknown ({why})"
    url = context.get("current_url")
    return plural(pages, "tab") + (f", {url}" if url else "")


def _kind(context: dict[str, Any]) -> str:
    kind = "managed" if context.get("managed") else "person's Chrome"
    proxy = f", proxy {context['proxy']}" if context.get("proxy") else ""
    return kind + proxy


def create_text(envelope: dict[str, Any], params: Any = None) -> str:
    """`Created context "clean" (managed), now active: 1 tab, http://…/. Started in 1.4 s.`"""
    c = envelope.get("result") or {}
    text = f'Created context "{c.get("name")}" ({_kind(c)}), now active: {_where(c)}.'
    storage = c.get("storage")
    if isinstance(storage, dict):
        text += (
            f" Loaded {plural(storage.get('cookies', 0), 'cookie')} and the localStorage of "
            f"{plural(storage.get('origins', 0), 'origin')}."
        )
    if isinstance(c.get("startup_ms"), int):
        text += f" Started in {c['startup_ms'] / 1000:.1f} s."
    return text


def switch_text(envelope: dict[str, Any], params: Any = None) -> str:
    """`Switched to context "clean" (managed): 2 tabs, https://a.test/.`"""
    c = envelope.get("result") or {}
    return f'Switched to context "{c.get("name")}" ({_kind(c)}): {_where(c)}.'


def list_text(envelope: dict[str, Any], params: Any = None) -> str:
    """A line per context, the active one marked."""
    lines = []
    for c in envelope.get("result") or []:
        mark = "* " if c.get("is_active") else "  "
        lines.append(f"{mark}{c.get('name')} ({_kind(c)}): {_where(c)}")
    return "\n".join(lines) or "No contexts."


def close_text(envelope: dict[str, Any], params: Any = None) -> str:
    """`Closed context "clean"; active: default.`"""
    c = envelope.get("result") or {}
    active = c.get("active")
    now = f" Active: {active}." if active else ""
    if c.get("managed"):
        return f'Closed context "{c.get("name")}" and stopped its browser.{now}'
    return (
        f'Dropped context "{c.get("name")}" from the list; the person\'s Chrome stays open and '
        f"is listed again when it reconnects.{now}"
    )


CREATE = Tool(
    name="browser_context_create",
    params=CreateParams,
    title="Open a new isolated browser",
    description=describe(
        """
        A new isolated browser (own cookies, tabs), made your active context. E.g. {"name":
        "b"} → Created context "b" (managed), now active: 1 tab, http://…
        """
    ),
    timeout_s=CREATE_TIMEOUT_S,
    text=create_text,
    read_only=False,
    client=ClientFace(
        "context_create",
        doc=(
            "Start the managed context ``name`` (a fresh headless Chromium), optionally through "
            "``proxy`` (``{server, username?, password?, bypass?}``) and with ``storage_state`` "
            "loaded (a saved name, or a Playwright storageState dict); it becomes this client's "
            "active context: ``{name, is_active, managed, connected, page_count, current_url, "
            "proxy, startup_ms, storage?}``."
        ),
        positional=("name",),
    ),
    cli=CliFace("context create", in_context=False, positional=("name",), after="use"),
    handle=create,
    command=None,
    mcp=McpFace(cap="contexts"),
    http=HttpFace(empty_body=None),
)


SWITCH = Tool(
    name="browser_context_switch",
    params=NameParams,
    title="Work in another browser context",
    description=describe(
        """
        Your next calls run in this context's tabs. E.g. {"name": "chrome"} → Switched to
        context "chrome" (person's Chrome): 3 tabs, https://a.test/
        """
    ),
    timeout_s=LIST_TIMEOUT_S,
    text=switch_text,
    read_only=False,
    client=ClientFace(
        "context_switch",
        doc="Make ``name`` this client's active context: ``{name, is_active, managed, …}``.",
        positional=("name",),
    ),
    cli=CliFace("context switch", in_context=False, positional=("name",), after="use"),
    handle=switch,
    command=None,
    mcp=McpFace(cap="contexts"),
    http=HttpFace(empty_body=None),
)


LIST_CONTEXTS = Tool(
    name="browser_context_list",
    params=ListParams,
    title="List the browser contexts",
    description=describe(
        """
        The browsers, yours marked *. E.g. {} → * default (managed): 1 tab, https://a.test/
        """
    ),
    timeout_s=LIST_TIMEOUT_S,
    text=list_text,
    read_only=True,
    client=ClientFace(
        "context_list",
        doc=(
            "Every context: ``[{name, is_active, managed, connected, page_count, current_url, "
            "proxy}]``."
        ),
    ),
    cli=CliFace("context list", in_context=False),
    handle=list_contexts,
    command=None,
    mcp=McpFace(cap="contexts"),
)


CLOSE_CONTEXT = Tool(
    name="browser_context_close",
    params=NameParams,
    title="Close a browser context",
    description=describe(
        """
        Close a context and its browser (a person's Chrome is only unlisted). E.g. {"name":
        "b"} → Closed context "b" and stopped its browser. Active: default.
        """
    ),
    timeout_s=CLOSE_TIMEOUT_S,
    text=close_text,
    read_only=False,
    client=ClientFace(
        "context_close",
        doc=(
            "Close the managed context ``name`` (its browser stops), or drop a person's Chrome "
            "from the list: ``{name, managed, closed, active}``."
        ),
        positional=("name",),
    ),
    cli=CliFace("context close", in_context=False, positional=("name",), after="forget"),
    handle=close,
    command=None,
    mcp=McpFace(cap="contexts"),
    http=HttpFace(empty_body=None),
)


TOOLS = (CREATE, SWITCH, LIST_CONTEXTS, CLOSE_CONTEXT)
