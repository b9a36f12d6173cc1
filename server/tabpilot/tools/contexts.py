"""The context tools: create, switch, list and close contexts, and save a context's storage.

The daemon answers them itself (``Tool.daemon``), with the caller's view of the contexts
(:class:`tabpilot.browsers.contexts.Scope`); saving and loading storage are the extension's
``storage_export`` and ``storage_import`` commands (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, WithJsonSchema, field_validator, model_validator

from tabpilot.errors import InvalidRequest, TabpilotError
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import Params
from tabpilot.tools.storage_state import (
    Cookie,
    Origin,
    StorageState,
    parse_storage_state,
    read_storage_state,
    storage_path,
    write_storage_state,
)

if TYPE_CHECKING:
    from tabpilot.browsers.contexts import Context, Scope

#: A context's name: short, and safe in a url's query, a log line and a file name.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
NAME_RULE = "1 to 40 letters, digits, '.', '_' or '-', starting with a letter or digit"


def check_name(name: str) -> str:
    """``name`` if it is a valid context name, else InvalidRequest saying the rule."""
    if not NAME.fullmatch(name):
        raise InvalidRequest(f"Invalid context name {name[:60]!r}: use {NAME_RULE}.")
    return name


@dataclass(frozen=True)
class Proxy:
    """A managed context's proxy: Chromium's launch flags name the server, and the extension
    answers its authentication with the credentials (never on the command line)."""

    server: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    bypass: str | None = None


#: A new context's Chromium, its extension and its first page; then its storage state.
CREATE_TIMEOUT_S = 120.0
#: Reading every cookie, and the localStorage of each open page.
EXPORT_TIMEOUT_S = 60.0
#: Cookies set one by one, and a blank tab per origin for its localStorage.
IMPORT_TIMEOUT_S = 60.0
#: Asking each context for its tabs.
LIST_TIMEOUT_S = 10.0
#: A managed context's Chromium stopping.
CLOSE_TIMEOUT_S = 30.0
PROXY_SCHEMES = ("http", "https", "socks5")
_NAME_FIELD = Field(min_length=1, max_length=40, description=f"A context's name: {NAME_RULE}.")


def _name(value: str) -> str:
    try:
        return check_name(value)
    except InvalidRequest as error:
        raise ValueError(error.message) from None


class ProxyParams(Params):
    """A context's proxy. Its credentials go to the context's extension privately, never into a
    page, a log line or an answer."""

    server: str = Field(
        min_length=1,
        max_length=300,
        description="`http://host:port`, `https://host:port` or `socks5://host:port`.",
    )
    username: str | None = Field(default=None, min_length=1, max_length=300)
    password: str | None = Field(default=None, max_length=300, repr=False)
    bypass: str | None = Field(
        default=None,
        max_length=2000,
        description="Hosts that go direct, `;`-separated, e.g. `*.internal.test;10.0.0.0/8`.",
    )

    @field_validator("server")
    @classmethod
    def _server(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in PROXY_SCHEMES:
            raise ValueError(
                f"the proxy's scheme must be one of {', '.join(PROXY_SCHEMES)} (got "
                f"{value.split(':', 1)[0][:20]!r}), e.g. http://proxy.test:8080"
            )
        if parts.username is not None or parts.password is not None:
            raise ValueError("put the credentials in `username` and `password`, not in the url")
        try:
            port = parts.port
        except ValueError:
            port = None
        if not parts.hostname or port is None or parts.path not in ("", "/") or parts.query:
            raise ValueError(f"give the proxy as scheme://host:port, e.g. {parts.scheme}://h:1080")
        return f"{parts.scheme}://{parts.netloc}"

    @field_validator("bypass")
    @classmethod
    def _bypass(cls, value: str | None) -> str | None:
        if value is not None and any(ord(ch) < 0x20 or ch == " " for ch in value):
            raise ValueError("the bypass list holds spaces or control characters")
        return value

    @model_validator(mode="after")
    def _auth(self) -> ProxyParams:
        if self.password is not None and self.username is None:
            raise ValueError("the proxy's `password` needs its `username`")
        if self.username is not None and self.server.startswith("socks5:"):
            raise ValueError(
                "Chrome does not support SOCKS5 authentication, so tabpilot refuses a SOCKS5 "
                "proxy with a username rather than go through it unauthenticated; use an http "
                "proxy, or a SOCKS5 proxy without credentials"
            )
        return self

    def proxy(self) -> Proxy:
        return Proxy(self.server, self.username, self.password, self.bypass)


#: The proxy's schema written out in place: every face's schema (OpenAPI, MCP) is one object per
#: field, with no shared definitions to point to.
PROXY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server": {"type": "string", "description": "http(s)/socks5://host:port"},
        **{key: {"type": "string"} for key in ("username", "password", "bypass")},
    },
    "required": ["server"],
}


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


class SaveStorageParams(Params):
    example: ClassVar[str] = '{"name": "default", "path": "login"}'

    name: str | None = Field(
        default=None, min_length=1, max_length=40, description="The context; yours by default."
    )
    path: str | None = Field(
        default=None, min_length=1, max_length=100, description="A file name, e.g. `login`."
    )


def _answer(request_id: str, result: Any) -> ResultFrame:
    kind = "array" if isinstance(result, list) else "object"
    return ResultFrame(id=request_id, ok=True, result=result, result_type=kind, tab=None)


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
    return _answer(request_id, details)


async def switch(scope: Scope, params: Any, request_id: str) -> ResultFrame:
    """browser_context_switch: the caller's calls run in that context from now on."""
    context = scope.contexts.get(params.name)
    scope.switch(params.name)
    return _answer(request_id, await _details(scope, context))


async def list_contexts(scope: Scope, params: Any, request_id: str) -> ResultFrame:
    """browser_context_list: every context, its tabs asked of each browser at once."""
    contexts = scope.contexts
    listed = [contexts.get(name) for name in contexts.names()]
    details = await asyncio.gather(*(_details(scope, context) for context in listed))
    return _answer(request_id, list(details))


async def close(scope: Scope, params: Any, request_id: str) -> ResultFrame:
    """browser_context_close: a managed context stops; a person's Chrome is only dropped."""
    context = await scope.contexts.close(params.name)
    if scope.active == params.name:
        scope.switch(None)
    current = scope.current()
    return _answer(
        request_id,
        {
            "name": context.name,
            "managed": context.managed,
            "closed": context.managed,
            "active": current.name if current is not None else None,
        },
    )


async def save_storage(scope: Scope, params: Any, request_id: str) -> ResultFrame:
    """browser_context_save_storage: cookies and localStorage, as Playwright's storageState."""
    target = scope.naming(params.name) if params.name is not None else scope
    if params.path is not None:
        storage_path(scope.contexts.settings.state_dir, params.path)  # a bad name: said first
    context = target.current()
    bridge = context.bridge if context is not None else scope.contexts.primary
    answer = await bridge.call("storage_export", {}, request_id, EXPORT_TIMEOUT_S)
    exported = answer.result if isinstance(answer.result, dict) else {}
    state, refused = _checked(exported)
    result: dict[str, Any] = {
        "name": context.name if context is not None else scope.contexts.default_name,
        "cookies": len(state.cookies),
        "origins": len(state.origins),
        "pages": exported.get("pages") or [],
        "skipped": exported.get("skipped") or [],
    }
    if refused:
        result["refused"] = refused
    if params.path is not None:
        path = write_storage_state(scope.contexts.settings.state_dir, params.path, state)
        result["path"] = str(path)
    else:
        result["storage_state"] = state.to_json()
    return _answer(request_id, result)


def _checked(exported: dict[str, Any]) -> tuple[StorageState, list[dict[str, Any]]]:
    """The exported cookies and origins that Playwright's format holds; the others, and why."""
    cookies: list[Cookie] = []
    origins: list[Origin] = []
    refused: list[dict[str, Any]] = []
    for raw in exported.get("cookies") or []:
        try:
            cookies.append(Cookie.model_validate(raw))
        except ValidationError as exc:
            name = raw.get("name") if isinstance(raw, dict) else None
            domain = raw.get("domain") if isinstance(raw, dict) else None
            reason = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
            refused.append({"name": name, "domain": domain, "reason": reason})
    for raw in exported.get("origins") or []:
        try:
            origins.append(Origin.model_validate(raw))
        except ValidationError:
            origin = raw.get("origin") if isinstance(raw, dict) else None
            refused.append({"origin": origin, "reason": "not an http(s) origin's localStorage"})
    return StorageState(cookies=cookies, origins=origins), refused


def refuse_unsaved(params: Any) -> TabpilotError | None:
    """A storage state holds login cookies: a model (MCP, the CLI) gets it only in a file."""
    if getattr(params, "path", None) is None:
        return InvalidRequest(
            'Give `path`: a file name under the daemon\'s storage/ folder, such as "login". A '
            "storage state holds login cookies, so it is never put into a model's context; "
            "HTTP and the Python client may ask for it without a path."
        )
    return None


# -- the text a model reads ---------------------------------------------------------------------


def _result(envelope: dict[str, Any]) -> Any:
    return envelope.get("result")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _where(context: dict[str, Any]) -> str:
    pages = context.get("page_count")
    if pages is None:
        why = "not connected" if not context.get("connected") else "pilot off or busy"
        return f"tabs unknown ({why})"
    url = context.get("current_url")
    return _plural(pages, "tab") + (f", {url}" if url else "")


def _kind(context: dict[str, Any]) -> str:
    kind = "managed" if context.get("managed") else "person's Chrome"
    proxy = f", proxy {context['proxy']}" if context.get("proxy") else ""
    return kind + proxy


def create_text(envelope: dict[str, Any]) -> str:
    """`Created context "clean" (managed), now active: 1 tab, http://…/. Started in 1.4 s.`"""
    c = _result(envelope) or {}
    text = f'Created context "{c.get("name")}" ({_kind(c)}), now active: {_where(c)}.'
    storage = c.get("storage")
    if isinstance(storage, dict):
        text += (
            f" Loaded {_plural(storage.get('cookies', 0), 'cookie')} and the localStorage of "
            f"{_plural(storage.get('origins', 0), 'origin')}."
        )
    if isinstance(c.get("startup_ms"), int):
        text += f" Started in {c['startup_ms'] / 1000:.1f} s."
    return text


def switch_text(envelope: dict[str, Any]) -> str:
    """`Switched to context "clean" (managed): 2 tabs, https://a.test/.`"""
    c = _result(envelope) or {}
    return f'Switched to context "{c.get("name")}" ({_kind(c)}): {_where(c)}.'


def list_text(envelope: dict[str, Any]) -> str:
    """A line per context, the active one marked."""
    lines = []
    for c in _result(envelope) or []:
        mark = "* " if c.get("is_active") else "  "
        lines.append(f"{mark}{c.get('name')} ({_kind(c)}): {_where(c)}")
    return "\n".join(lines) or "No contexts."


def close_text(envelope: dict[str, Any]) -> str:
    """`Closed context "clean"; active: default.`"""
    c = _result(envelope) or {}
    active = c.get("active")
    now = f" Active: {active}." if active else ""
    if c.get("managed"):
        return f'Closed context "{c.get("name")}" and stopped its browser.{now}'
    return (
        f'Dropped context "{c.get("name")}" from the list; the person\'s Chrome stays open and '
        f"is listed again when it reconnects.{now}"
    )


def save_text(envelope: dict[str, Any]) -> str:
    """`Saved context "default" to …/login.json: 5 cookies, 2 origins.` and what was skipped."""
    r = _result(envelope) or {}
    where = f" to {r['path']}" if r.get("path") else ""
    text = (
        f'Saved context "{r.get("name")}"{where}: {_plural(r.get("cookies", 0), "cookie")}, '
        f"localStorage of {_plural(r.get('origins', 0), 'origin')}."
    )
    skipped = r.get("skipped") or []
    if skipped:
        shown = "; ".join(
            f"tab {s.get('tab_id')} {s.get('url')} ({s.get('reason')})" for s in skipped[:5]
        )
        text += f" Skipped {_plural(len(skipped), 'page')}: {shown}."
    if r.get("refused"):
        text += f" Left out {_plural(len(r['refused']), 'item')} Playwright's format cannot hold."
    return text


__all__ = [
    "CreateParams",
    "ListParams",
    "NameParams",
    "ProxyParams",
    "SaveStorageParams",
    "close",
    "create",
    "list_contexts",
    "refuse_unsaved",
    "save_storage",
    "switch",
]
