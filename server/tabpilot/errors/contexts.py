"""The contexts' own errors: a name, the cap, the close rules, a storage export, and a saved
storage state.

(:mod:`tabpilot.errors` draws the tree.)
"""

from __future__ import annotations

from tabpilot.errors._base import RequestRefused


class ContextNotFound(RequestRefused):
    code, status = "context_not_found", 404
    meaning = "No context has that name (closed, never created, or its browser never connected)."
    default_message = (
        "No context has that name. browser_context_list lists them; browser_context_create "
        "makes one."
    )


class StorageStateNotFound(RequestRefused):
    code, status = "storage_state_not_found", 404
    meaning = (
        "No storage state is saved under that name in the daemon's storage folder; the message "
        "gives the path."
    )
    default_message = (
        "No storage state is saved under that name. Save one first with "
        "browser_context_save_storage, or pass the state as a JSON object."
    )


class ContextExists(RequestRefused):
    code, status = "context_exists", 409
    meaning = "A context of that name exists already; pick another name, or switch to it."
    default_message = (
        "A context of that name exists already. Pick another name, or browser_context_switch to it."
    )


class ContextLimit(RequestRefused):
    code, status = "context_limit", 409
    meaning = (
        "The daemon runs as many managed contexts as it may (TABPILOT_MAX_CONTEXTS); close one "
        "first."
    )
    default_message = (
        "The daemon runs as many managed contexts as it may. Close one with "
        "browser_context_close, or raise TABPILOT_MAX_CONTEXTS."
    )


class ContextNotClosable(RequestRefused):
    code, status = "context_not_closable", 409
    meaning = "The context cannot be closed: it is the only remaining one, or the daemon's default."
    default_message = "Cannot close the only remaining context."


class ExportDisabled(RequestRefused):
    code, status = "export_disabled", 403
    meaning = (
        "Saving storage from the person's own Chrome needs its popup switch \"Let the AI save "
        "this browser's cookies\", which is off."
    )
    default_message = (
        "Saving this browser's cookies and storage needs the switch \"Let the AI save this "
        "browser's cookies\" in its tabpilot popup, which is off. Only the person at that "
        "browser can turn it on."
    )


class NoValidPage(RequestRefused):
    code, status = "no_valid_page", 409
    meaning = "No page of the context could be read for its storage (none open, or all stale)."
    default_message = (
        "No open page of this context could be read. Open a page of the site whose storage you "
        "want (browser_navigate), then save again."
    )
