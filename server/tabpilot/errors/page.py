"""The page tools' own errors: a ref, an element, a page load, the debugger switch, and the
function registry.

They are leaves of the tree drawn in :mod:`tabpilot.errors`, which imports this module so that
``from_extension`` and the API table know their codes.
"""

from __future__ import annotations

from tabpilot.errors import BridgeFailure, RequestRefused


class DebuggerDisabled(RequestRefused):
    code, status = "debugger_disabled", 403
    meaning = (
        "The action needs chrome.debugger (trusted input) and the debugger switch in the "
        "extension popup is off."
    )
    default_message = (
        "This action needs trusted input through chrome.debugger, and the debugger switch in the "
        "tabpilot popup is off. Retry without `trusted`, or ask the user to turn the switch on."
    )


class RefNotFound(RequestRefused):
    code, status = "ref_not_found", 404
    meaning = "No element with that ref was ever given out in this page; take a snapshot."
    default_message = (
        "No element has that ref in this page. Take a browser_snapshot and use a ref from it."
    )


class ElementNotInteractable(RequestRefused):
    code, status = "element_not_interactable", 409
    meaning = (
        "The element is covered by another (the message names it), disabled, hidden, or not the "
        "right kind for the action; `error.data.reason` says which."
    )
    default_message = (
        "The element cannot take this action now (covered, disabled, hidden or of the wrong "
        "kind). Take a browser_snapshot: close what covers it, or pick another element."
    )


class StaleRef(RequestRefused):
    code, status = "stale_ref", 410
    meaning = (
        "The ref's element is gone: the page navigated or the element was removed; take a new "
        "snapshot."
    )
    default_message = (
        "That element is gone: the page navigated or changed since the snapshot. Take a new "
        "browser_snapshot and use a ref from it."
    )


class NavigationFailed(BridgeFailure):
    code, status = "navigation_failed", 502
    meaning = (
        "The page did not load (DNS, refused, timeout, an HTTP error status...); "
        "`error.data.reason` says why."
    )
    default_message = (
        "The page did not load. Check the url, or retry; browser_read shows what the tab holds."
    )


class RequestNotFound(RequestRefused):
    code, status = "request_not_found", 404
    meaning = (
        "browser_network_requests' `include_body` names no request in the tab's log (evicted, "
        "cleared, or never made there)."
    )
    default_message = (
        "No request with that # in this tab's network log. Call browser_network_requests and "
        "pass the # of one of its requests."
    )


class ConfirmTokenUnknown(RequestRefused):
    code, status = "confirm_token_unknown", 404
    meaning = (
        "No answer was ever kept under that confirm_token (or the daemon restarted since); run "
        "the tool again."
    )
    default_message = (
        "No answer is kept under that confirm_token: it was never given out, or the daemon "
        "restarted. Run the tool again, asking for less."
    )


class ConfirmTokenMismatch(RequestRefused):
    code, status = "confirm_token_mismatch", 409
    meaning = "The confirm_token belongs to another tool; call that tool with it."
    default_message = "That confirm_token belongs to another tool: call that tool with it."


class ConfirmTokenExpired(RequestRefused):
    code, status = "confirm_token_expired", 410
    meaning = (
        "The answer kept under that confirm_token is gone: kept 10 minutes, and the oldest go "
        "first past 32 MiB; run the tool again."
    )
    default_message = (
        "The answer kept under that confirm_token is gone (answers are kept 10 minutes, and the "
        "oldest go first when many are kept). Run the tool again, asking for less."
    )


class ConfirmTokenUsed(RequestRefused):
    code, status = "confirm_token_used", 410
    meaning = "The confirm_token was used already: each answers once."
    default_message = (
        "That confirm_token was used already: each answers once. Use the confirm_token of the "
        "last answer, or run the tool again."
    )


class InvalidFunction(RequestRefused):
    code, status = "invalid_function", 400
    meaning = (
        "eval_define_function's source is not one function, or not valid JavaScript; the message "
        "gives the position (`error.data`: line, column)."
    )
    default_message = (
        "The source is not one valid function. Send one function, such as (a, b) => a + b, and "
        "define it again."
    )


class FunctionNotFound(RequestRefused):
    code, status = "function_not_found", 404
    meaning = "No function of that name is defined in this daemon (it forgets them on restart)."
    default_message = (
        "No function of that name is defined. eval_list_functions lists them; define it with "
        "eval_define_function."
    )


class TooManyFunctions(RequestRefused):
    code, status = "too_many_functions", 409
    meaning = "The daemon holds 100 functions, its limit; remove one first."
    default_message = (
        "The daemon holds as many functions as it may (100). Remove one with "
        "eval_remove_function, then define this one again."
    )
