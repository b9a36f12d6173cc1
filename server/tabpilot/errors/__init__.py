"""Every error of the tabpilot API: one class per code, each with its HTTP status.

The hierarchy (``tests/test_errors.py`` checks that it names every code)::

    TabpilotError                      code, message, status, stack
     ├── RequestRefused                the caller must change something (4xx)
     │    ├── InvalidRequest           400 invalid_request
     │    ├── InvalidRule              400 invalid_rule  (page)
     │    ├── InvalidFunction          400 invalid_function  (functions)
     │    ├── UnknownDevice            400 unknown_device  (page)
     │    ├── InvalidRegex             400 invalid_regex  (page)
     │    ├── Unauthorized             401 unauthorized
     │    ├── ForbiddenHost            403 forbidden_host
     │    ├── ForbiddenOrigin          403 forbidden_origin
     │    ├── PilotDisabled            403 pilot_disabled
     │    ├── SiteBlocked              403 site_blocked
     │    ├── ExportDisabled           403 export_disabled  (contexts)
     │    ├── DebuggerDisabled         403 debugger_disabled  (page)
     │    ├── UploadPathOutside        403 upload_path_outside  (files)
     │    ├── TabNotFound              404 tab_not_found
     │    ├── NoTargetTab              404 no_target_tab
     │    ├── NotFound                 404 not_found
     │    ├── ContextNotFound          404 context_not_found  (contexts)
     │    ├── StorageStateNotFound     404 storage_state_not_found  (contexts)
     │    ├── RefNotFound              404 ref_not_found  (page)
     │    ├── RequestNotFound          404 request_not_found  (page)
     │    ├── RuleNotFound             404 rule_not_found  (page)
     │    ├── FileNotFound             404 file_not_found  (files)
     │    ├── ConfirmTokenUnknown      404 confirm_token_unknown  (guard)
     │    ├── FunctionNotFound         404 function_not_found  (functions)
     │    ├── MethodNotAllowed         405 method_not_allowed
     │    ├── HumanTimeout             408 human_timeout  (handoff)
     │    ├── TabNotScriptable         409 tab_not_scriptable
     │    ├── CspBlocked               409 csp_blocked
     │    ├── DialogOpen               409 dialog_open
     │    ├── TabDiscarded             409 tab_discarded
     │    ├── TabNavigated             409 tab_navigated
     │    ├── ContextExists            409 context_exists  (contexts)
     │    ├── ContextLimit             409 context_limit  (contexts)
     │    ├── ContextNotClosable       409 context_not_closable  (contexts)
     │    ├── NoValidPage              409 no_valid_page  (contexts)
     │    ├── ElementNotInteractable   409 element_not_interactable  (page)
     │    ├── RuleLimit                409 rule_limit  (page)
     │    ├── HumanTurn                409 human_turn  (handoff)
     │    ├── NoHuman                  409 no_human  (handoff)
     │    ├── NotAFileInput            409 not_a_file_input  (files)
     │    ├── ConfirmTokenMismatch     409 confirm_token_mismatch  (guard)
     │    ├── TooManyFunctions         409 too_many_functions  (functions)
     │    ├── TabClosed                410 tab_closed
     │    ├── StaleRef                 410 stale_ref  (page)
     │    ├── ConfirmTokenExpired      410 confirm_token_expired  (guard)
     │    ├── ConfirmTokenUsed         410 confirm_token_used  (guard)
     │    ├── ScriptTooLarge           413 script_too_large
     │    ├── FileTooLarge             413 file_too_large  (files)
     │    ├── PointOutsideViewport     422 point_outside_viewport  (page)
     │    ├── ClipOutsideViewport      422 clip_outside_viewport  (page)
     │    ├── RegexTooSlow             422 regex_too_slow  (page)
     │    └── QueueFull                429 queue_full
     ├── BridgeFailure                 the bridge could not get an answer (5xx)
     │    ├── InternalError            500 internal_error
     │    ├── ExtensionError           502 extension_error
     │    ├── ExtensionDisconnected    502 extension_disconnected
     │    ├── UnknownCommand           502 unknown_command
     │    ├── TabCrashed               502 tab_crashed
     │    ├── ResultTooLarge           502 result_too_large
     │    ├── NavigationFailed         502 navigation_failed  (page)
     │    ├── ExtensionNotConnected    503 extension_not_connected
     │    ├── TabUnresponsive          503 tab_unresponsive
     │    ├── BrowserError             503 browser_unavailable
     │    ├── ExecutionTimeout         504 execution_timeout
     │    └── WaitTimeout              504 wait_timeout  (page)
     └── ScriptFailed                  the script ran and failed: HTTP 200, success false
          ├── ExecutionError           200 execution_error
          ├── JavaScriptSyntaxError    200 syntax_error
          └── PromiseRejected          200 promise_rejected
    DaemonUnreachable (a TabpilotError) is raised on the caller's side, by the CLI and
    `tabpilot mcp`, when the daemon does not answer; the daemon itself never sends it.

The leaves live by area: the generic codes in :mod:`~tabpilot.errors.api`, the page tools' in
:mod:`~tabpilot.errors.page`, the large-output guard's in :mod:`~tabpilot.errors.guard`, the
function registry's in :mod:`~tabpilot.errors.functions`, the contexts' in
:mod:`~tabpilot.errors.contexts`, the file tools' in :mod:`~tabpilot.errors.files` and the
handoff's (browser_ask_human) in :mod:`~tabpilot.errors.handoff`. Each
imports only :mod:`~tabpilot.errors._base`, and this module
imports them all, so every code is known wherever ``tabpilot.errors`` is.

Each class carries its ``code``, ``status``, a one-line ``meaning`` (the API table in the OpenAPI
description is built from these) and a ``default_message`` that says what to do next.
"""

from __future__ import annotations

from tabpilot.errors._base import (
    _BY_CODE,
    BridgeFailure,
    RequestRefused,
    ScriptFailed,
    TabpilotError,
    _Coded,
)
from tabpilot.errors.api import (
    START_DAEMON,
    BrowserError,
    CspBlocked,
    DaemonUnreachable,
    DialogOpen,
    ExecutionError,
    ExecutionTimeout,
    ExtensionDisconnected,
    ExtensionError,
    ExtensionNotConnected,
    ForbiddenHost,
    ForbiddenOrigin,
    InternalError,
    InvalidRequest,
    JavaScriptSyntaxError,
    MethodNotAllowed,
    NoTargetTab,
    NotFound,
    PilotDisabled,
    PromiseRejected,
    QueueFull,
    ResultTooLarge,
    ScriptTooLarge,
    SiteBlocked,
    TabClosed,
    TabCrashed,
    TabDiscarded,
    TabNavigated,
    TabNotFound,
    TabNotScriptable,
    TabUnresponsive,
    Unauthorized,
    UnknownCommand,
)
from tabpilot.errors.contexts import (
    ContextExists,
    ContextLimit,
    ContextNotClosable,
    ContextNotFound,
    ExportDisabled,
    NoValidPage,
    StorageStateNotFound,
)
from tabpilot.errors.files import (
    FileNotFound,
    FileTooLarge,
    NotAFileInput,
    UploadPathOutside,
)
from tabpilot.errors.functions import (
    FunctionNotFound,
    InvalidFunction,
    TooManyFunctions,
)
from tabpilot.errors.guard import (
    ConfirmTokenExpired,
    ConfirmTokenMismatch,
    ConfirmTokenUnknown,
    ConfirmTokenUsed,
)
from tabpilot.errors.handoff import HumanTimeout, HumanTurn, NoHuman
from tabpilot.errors.page import (
    ClipOutsideViewport,
    DebuggerDisabled,
    ElementNotInteractable,
    InvalidRegex,
    InvalidRule,
    NavigationFailed,
    PointOutsideViewport,
    RefNotFound,
    RegexTooSlow,
    RequestNotFound,
    RuleLimit,
    RuleNotFound,
    StaleRef,
    UnknownDevice,
    WaitTimeout,
)

#: The areas in the order the API table lists a status's codes: the generic ones first.
_AREAS = ("api", "contexts", "page", "handoff", "files", "guard", "functions")


def error_classes() -> list[type[TabpilotError]]:
    """Every API error class, in the order of the table above: by branch, then by status."""
    branches = (RequestRefused, BridgeFailure, ScriptFailed)

    def place(cls: type[TabpilotError]) -> tuple[int, int, int]:
        branch = next(i for i, b in enumerate(branches) if issubclass(cls, b))
        return branch, cls.status, _AREAS.index(cls.__module__.rsplit(".", 1)[-1])

    # A stable sort: within an area, the order of definition.
    return sorted(_BY_CODE.values(), key=place)


def error_for_code(code: str) -> type[TabpilotError] | None:
    """The class of an API error code, or None for a code tabpilot does not know."""
    return _BY_CODE.get(code)


def from_extension(code: str, message: str | None = "", stack: str | None = None) -> TabpilotError:
    """Translate an error the extension reported into the API error to answer with.

    The extension's message is passed on verbatim: a script's own errors must read ``test error``,
    not ours, and for the other codes the extension knows the specifics (the tab, the url, the
    timeout) and says what to do next itself. Without a message, the class's default says it. An
    unknown code is an :class:`ExtensionError` (502), since the daemon cannot tell what it means.
    """
    cls = _BY_CODE.get(code)
    if cls is None or not issubclass(cls, _Coded):
        detail = f": {message}" if message else ""
        return ExtensionError(
            f"The extension answered with an unknown error code {code!r}{detail}. "
            "Update tabpilot and its extension to the same version.",
            stack=stack,
        )
    # A script's own words are passed on even when there are none: `throw new Error()`.
    keep = issubclass(cls, ScriptFailed) and message is not None
    return cls(message if keep else (message or cls.default_message), stack=stack)


__all__ = [
    "START_DAEMON",
    "BridgeFailure",
    "BrowserError",
    "ClipOutsideViewport",
    "ConfirmTokenExpired",
    "ConfirmTokenMismatch",
    "ConfirmTokenUnknown",
    "ConfirmTokenUsed",
    "ContextExists",
    "ContextLimit",
    "ContextNotClosable",
    "ContextNotFound",
    "CspBlocked",
    "DaemonUnreachable",
    "DebuggerDisabled",
    "DialogOpen",
    "ElementNotInteractable",
    "ExecutionError",
    "ExecutionTimeout",
    "ExportDisabled",
    "ExtensionDisconnected",
    "ExtensionError",
    "ExtensionNotConnected",
    "FileNotFound",
    "FileTooLarge",
    "ForbiddenHost",
    "ForbiddenOrigin",
    "FunctionNotFound",
    "HumanTimeout",
    "HumanTurn",
    "InternalError",
    "InvalidFunction",
    "InvalidRegex",
    "InvalidRequest",
    "InvalidRule",
    "JavaScriptSyntaxError",
    "MethodNotAllowed",
    "NavigationFailed",
    "NoHuman",
    "NoTargetTab",
    "NoValidPage",
    "NotAFileInput",
    "NotFound",
    "PilotDisabled",
    "PointOutsideViewport",
    "PromiseRejected",
    "QueueFull",
    "RefNotFound",
    "RegexTooSlow",
    "RequestNotFound",
    "RequestRefused",
    "ResultTooLarge",
    "RuleLimit",
    "RuleNotFound",
    "ScriptFailed",
    "ScriptTooLarge",
    "SiteBlocked",
    "StaleRef",
    "StorageStateNotFound",
    "TabClosed",
    "TabCrashed",
    "TabDiscarded",
    "TabNavigated",
    "TabNotFound",
    "TabNotScriptable",
    "TabUnresponsive",
    "TabpilotError",
    "TooManyFunctions",
    "Unauthorized",
    "UnknownCommand",
    "UnknownDevice",
    "UploadPathOutside",
    "WaitTimeout",
    "error_classes",
    "error_for_code",
    "from_extension",
]
