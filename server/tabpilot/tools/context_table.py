"""The context tools' entries in the tool table (:data:`tabpilot.tools.TOOLS`): what each face
needs of browser_context_create, _switch, _list, _close and _save_storage. The daemon answers them
itself (:mod:`tabpilot.tools.contexts`), and MCP lists them with the `contexts` capability."""

from __future__ import annotations

from tabpilot.tools import contexts as context_tools
from tabpilot.tools.tool import Tool, describe

CONTEXT_TOOLS = (
    Tool(
        name="browser_context_create",
        params=context_tools.CreateParams,
        title="Open a new isolated browser",
        description=describe(
            """
            A new isolated browser (own cookies, tabs), made your active context. E.g. {"name":
            "b"} → Created context "b" (managed), now active: 1 tab, http://…
            """
        ),
        timeout_s=lambda params: context_tools.CREATE_TIMEOUT_S,
        text=context_tools.create_text,
        read_only=False,
        cli="context create",
        method="context_create",
        positional=("name",),
        empty_body=None,
        daemon=context_tools.create,
        cap="contexts",
    ),
    Tool(
        name="browser_context_switch",
        params=context_tools.NameParams,
        title="Work in another browser context",
        description=describe(
            """
            Your next calls run in this context's tabs. E.g. {"name": "chrome"} → Switched to
            context "chrome" (person's Chrome): 3 tabs, https://a.test/
            """
        ),
        timeout_s=lambda params: context_tools.LIST_TIMEOUT_S,
        text=context_tools.switch_text,
        read_only=False,
        cli="context switch",
        method="context_switch",
        positional=("name",),
        empty_body=None,
        daemon=context_tools.switch,
        cap="contexts",
    ),
    Tool(
        name="browser_context_list",
        params=context_tools.ListParams,
        title="List the browser contexts",
        description=describe(
            """
            The browsers, yours marked *. E.g. {} → * default (managed): 1 tab, https://a.test/
            """
        ),
        timeout_s=lambda params: context_tools.LIST_TIMEOUT_S,
        text=context_tools.list_text,
        read_only=True,
        cli="context list",
        method="context_list",
        daemon=context_tools.list_contexts,
        cap="contexts",
    ),
    Tool(
        name="browser_context_close",
        params=context_tools.NameParams,
        title="Close a browser context",
        description=describe(
            """
            Close a context and its browser (a person's Chrome is only unlisted). E.g. {"name":
            "b"} → Closed context "b" and stopped its browser. Active: default.
            """
        ),
        timeout_s=lambda params: context_tools.CLOSE_TIMEOUT_S,
        text=context_tools.close_text,
        read_only=False,
        cli="context close",
        method="context_close",
        positional=("name",),
        empty_body=None,
        daemon=context_tools.close,
        cap="contexts",
    ),
    Tool(
        name="browser_context_save_storage",
        params=context_tools.SaveStorageParams,
        title="Save a context's cookies and localStorage",
        description=describe(
            """
            Save cookies and localStorage (Playwright storageState) as file `path`, for
            browser_context_create's `storage_state`. E.g. {"path": "login"} → Saved context
            "default" to …/login.json: 4 cookies, localStorage of 1 origin.
            """
        ),
        timeout_s=lambda params: context_tools.EXPORT_TIMEOUT_S,
        text=context_tools.save_text,
        read_only=False,
        cli="context save",
        method="context_save_storage",
        positional=("name",),
        daemon=context_tools.save_storage,
        cap="contexts",
        model_check=context_tools.refuse_unsaved,
    ),
)
