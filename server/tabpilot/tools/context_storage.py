"""browser_context_save_storage: save a context's cookies and localStorage as Playwright's
storageState (the extension's ``storage_export``; :mod:`tabpilot.tools.storage_state` is the
format), for a new context to load (browser_context_create's ``storage_state``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, ValidationError

from tabpilot.errors import InvalidRequest, TabpilotError
from tabpilot.protocol import ResultFrame
from tabpilot.tools.fields import Params, plural
from tabpilot.tools.storage_state import (
    Cookie,
    Origin,
    StorageState,
    storage_path,
    write_storage_state,
)
from tabpilot.tools.tool import ClientFace, CliFace, McpFace, Tool, daemon_answer, describe

if TYPE_CHECKING:
    from tabpilot.browsers.contexts import Scope

#: Reading every cookie, and the localStorage of each open page.
EXPORT_TIMEOUT_S = 60.0


class SaveStorageParams(Params):
    example: ClassVar[str] = '{"name": "default", "path": "login"}'

    name: str | None = Field(
        default=None, min_length=1, max_length=40, description="The context; yours by default."
    )
    path: str | None = Field(
        default=None, min_length=1, max_length=100, description="A file name, e.g. `login`."
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
    return daemon_answer(request_id, result)


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


def save_text(envelope: dict[str, Any], params: Any = None) -> str:
    """`Saved context "default" to …/login.json: 5 cookies, 2 origins.` and what was skipped."""
    r = envelope.get("result") or {}
    where = f" to {r['path']}" if r.get("path") else ""
    text = (
        f'Saved context "{r.get("name")}"{where}: {plural(r.get("cookies", 0), "cookie")}, '
        f"localStorage of {plural(r.get('origins', 0), 'origin')}."
    )
    skipped = r.get("skipped") or []
    if skipped:
        shown = "; ".join(
            f"tab {s.get('tab_id')} {s.get('url')} ({s.get('reason')})" for s in skipped[:5]
        )
        text += f" Skipped {plural(len(skipped), 'page')}: {shown}."
    if r.get("refused"):
        text += f" Left out {plural(len(r['refused']), 'item')} Playwright's format cannot hold."
    return text


SAVE_STORAGE = Tool(
    name="browser_context_save_storage",
    params=SaveStorageParams,
    title="Save a context's cookies and localStorage",
    description=describe(
        """
        Save cookies and localStorage (Playwright storageState) as file `path`, for
        browser_context_create's `storage_state`. E.g. {"path": "login"} → Saved context
        "default" to …/login.json: 4 cookies, localStorage of 1 origin.
        """
    ),
    timeout_s=EXPORT_TIMEOUT_S,
    text=save_text,
    read_only=False,
    client=ClientFace(
        "context_save_storage",
        doc=(
            "The cookies and localStorage of context ``name`` (the active one by default), as "
            "Playwright's storageState: written to ``path`` (a name under the daemon's storage/ "
            "folder), else in the answer's ``storage_state``. ``{name, cookies, origins, pages, "
            "skipped, path?, storage_state?}``."
        ),
        positional=("name",),
    ),
    cli=CliFace("context save", in_context=False, positional=("name",)),
    handle=save_storage,
    command=None,
    mcp=McpFace(cap="contexts", model_check=refuse_unsaved),
)


TOOLS = (SAVE_STORAGE,)
