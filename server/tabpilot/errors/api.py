"""The generic API codes: a request, the token and the switch, tabs, the extension link, a script's
run, the managed browser, and the caller's side (:mod:`tabpilot.errors` draws the tree)."""

from __future__ import annotations

from typing import ClassVar

from tabpilot.errors._base import BridgeFailure, RequestRefused, ScriptFailed, _Coded

# -- 4xx ----------------------------------------------------------------------------------------


class InvalidRequest(RequestRefused):
    code, status = "invalid_request", 400
    meaning = "The request is not well-formed HTTP, or its body is not JSON or breaks the schema."
    default_message = (
        'Invalid request. Send a JSON object such as {"script": "2 + 2"} with '
        "Content-Type: application/json; see /docs."
    )


class Unauthorized(RequestRefused):
    code, status = "unauthorized", 401
    meaning = "This daemon was started with a token, and the request did not carry it."
    default_message = (
        "This daemon requires a token. Send `Authorization: Bearer <token>`; the tabpilot CLI "
        "and `tabpilot mcp` send it by themselves from $TABPILOT_TOKEN or the token file in "
        "their state dir."
    )


class ForbiddenHost(RequestRefused):
    code, status = "forbidden_host", 403
    meaning = "The Host header is not 127.0.0.1, localhost or [::1] (DNS rebinding guard)."
    default_message = (
        "Host header refused: the daemon only answers to 127.0.0.1, localhost or [::1]. "
        "Call it as http://127.0.0.1:<port>/."
    )


class ForbiddenOrigin(RequestRefused):
    code, status = "forbidden_origin", 403
    meaning = "The request came from a web page (an http/https Origin); only local tools may call."
    default_message = (
        "Requests from web pages are refused so that no website can drive your browser. "
        "Call the daemon from curl, a script, the tabpilot CLI or MCP."
    )


class PilotDisabled(RequestRefused):
    code, status = "pilot_disabled", 403
    meaning = "The AI Web Pilot switch in the extension popup is off."
    default_message = (
        "The AI Web Pilot switch is off. Turn it on in the tabpilot extension popup, then retry."
    )


class SiteBlocked(RequestRefused):
    code, status = "site_blocked", 403
    meaning = (
        "The tab shows, or the url leads to, a site the person at the browser ruled out (the "
        "popup's Sites list) or the daemon's --block-site/--only-site rules do; the message "
        "names the rule."
    )
    default_message = (
        "The person at this browser does not let the AI act on this site (the Sites list in the "
        "tabpilot popup). Work on another site; only the person can change the list."
    )


class TabNotFound(RequestRefused):
    code, status = "tab_not_found", 404
    meaning = "No tab has the given tab_id."
    default_message = "No tab has that id. List the open tabs with GET /tabs and pick an id."


class NoTargetTab(RequestRefused):
    code, status = "no_target_tab", 404
    meaning = "No tab_id was given and there is no active tab to run in."
    default_message = (
        "There is no active tab to run in. Open a tab in Chrome, or pass a tab_id from GET /tabs."
    )


class NotFound(RequestRefused):
    code, status = "not_found", 404
    meaning = "Unknown route."
    default_message = "No such route. See /docs for the API."


class MethodNotAllowed(RequestRefused):
    code, status = "method_not_allowed", 405
    meaning = "The route exists but not with this HTTP method."
    default_message = "This route does not take that HTTP method. See /docs for the API."


class TabNotScriptable(RequestRefused):
    code, status = "tab_not_scriptable", 409
    meaning = "The tab shows a page extensions may not script (chrome://, the Web Store, ...)."
    default_message = (
        "Chrome does not let extensions script this tab (chrome:// pages, the Web Store, "
        "other extensions). Navigate it to a normal web page or pick another tab."
    )


class CspBlocked(RequestRefused):
    code, status = "csp_blocked", 409
    meaning = (
        "The page's Content-Security-Policy refuses the script on every route this browser allows; "
        "the message names the directive and the switch that would let it run."
    )
    default_message = (
        "The page's Content-Security-Policy forbids running code from strings, and no other "
        'route is allowed in this browser. Turn on "Allow User Scripts" for tabpilot, or the '
        'popup switch "Strict pages: allow the debugger", or pick another tab.'
    )


class DialogOpen(RequestRefused):
    code, status = "dialog_open", 409
    meaning = (
        "The tab shows a JavaScript dialog (alert, confirm, prompt) that stops the page; only the "
        "person at the browser can answer it there."
    )
    default_message = (
        "The tab shows a dialog that stops the page until it is answered. Answer it in the "
        'browser, or turn on the popup switch "Strict pages: allow the debugger" so that tabpilot '
        "answers dialogs by itself, then retry."
    )


class TabDiscarded(RequestRefused):
    code, status = "tab_discarded", 409
    meaning = (
        "Chrome discarded the tab to save memory: no page is loaded in it until it is selected."
    )
    default_message = (
        "Chrome discarded this tab to save memory, so no page is loaded in it. Select it "
        '(browser_tabs with action "select", or click it) to load it again, then retry.'
    )


class TabNavigated(RequestRefused):
    code, status = "tab_navigated", 409
    meaning = "The tab navigated or reloaded while the script ran; its answer was lost."
    default_message = (
        "The tab navigated away (or reloaded) while the script ran, so its answer was lost with "
        "the page. The script may have run in part; check the page, then retry once it has loaded."
    )


class TabClosed(RequestRefused):
    code, status = "tab_closed", 410
    meaning = "The tab was closed while the script ran."
    default_message = (
        "The tab was closed while the script ran. The script may have run in part. Pick another "
        "tab from GET /tabs."
    )


class ScriptTooLarge(RequestRefused):
    code, status = "script_too_large", 413
    meaning = (
        "The script, or the body or call frame that carries it, is longer than the daemon's limit "
        "(1 MiB of script by default); nothing was sent."
    )
    default_message = (
        "The script is too large, so it was not sent. Send a shorter script (load big code from "
        "the page with fetch), or raise the limit with TABPILOT_MAX_SCRIPT_BYTES."
    )


class QueueFull(RequestRefused):
    code, status = "queue_full", 429
    meaning = "Too many commands are waiting already; retry after the Retry-After header's seconds."
    default_message = (
        "Too many commands are waiting for the browser already, so this one was not queued. "
        "Retry after the seconds in the Retry-After header, or send fewer commands at once."
    )
    retry_after_s: ClassVar[int] = 1

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_s)}


# -- 5xx ----------------------------------------------------------------------------------------


class InternalError(BridgeFailure):
    code, status = "internal_error", 500
    meaning = "A bug in the daemon."
    default_message = "The daemon hit an internal error. Check its log, and report the bug."


class ExtensionError(BridgeFailure):
    code, status = "extension_error", 502
    meaning = "The extension failed for a reason of its own, or answered something unreadable."
    default_message = "The extension could not run the command. Reload the tab and retry."


class ExtensionDisconnected(BridgeFailure):
    code, status = "extension_disconnected", 502
    meaning = "The extension went away with the command in flight; it was not re-sent."
    default_message = (
        "The extension disconnected while the command was in flight. It was not re-sent, so it "
        "ran at most once; check the page before retrying."
    )


class UnknownCommand(BridgeFailure):
    code, status = "unknown_command", 502
    meaning = "The extension does not know the command (an older extension)."
    default_message = "The extension does not know this command. Update the tabpilot extension."


class TabCrashed(BridgeFailure):
    code, status = "tab_crashed", 502
    meaning = "The tab's page crashed (Chrome shows its sad tab) while or before the script ran."
    default_message = (
        "The tab's page crashed, so the script's answer was lost. The script may have run in "
        'part. Close it and open a fresh one (browser_tabs with action "close", then "new"), or '
        "reload it in the browser, then retry."
    )


class ResultTooLarge(BridgeFailure):
    code, status = "result_too_large", 502
    meaning = "The script ran, but its result is larger than 16 MiB of JSON; nothing was returned."
    default_message = (
        "The script ran, but its result is larger than the 16 MiB a result may have. Return less: "
        "a slice, a count or a summary."
    )


class ExtensionNotConnected(BridgeFailure):
    code, status = "extension_not_connected", 503
    meaning = "No extension connected within the connect grace."
    default_message = (
        "No tabpilot extension is connected. Open Chrome with the tabpilot extension, or start "
        "the daemon with `tabpilot serve --browser`."
    )


class TabUnresponsive(BridgeFailure):
    code, status = "tab_unresponsive", 503
    meaning = "The tab is still stuck in an earlier script, so the command was not sent to it."
    default_message = (
        "The tab is still busy with an earlier script that timed out (a long loop, say), so this "
        "command was not sent. It clears when that script ends; to go on now, close the tab and "
        'open a fresh one (browser_tabs with action "close", then "new").'
    )


class BrowserError(BridgeFailure):
    """The managed Chromium could not be found or started."""

    code, status = "browser_unavailable", 503
    meaning = "A managed Chromium could not be found or started; the message says why."
    default_message = (
        "The managed Chromium did not start. Check that Chromium is installed, or point "
        "TABPILOT_CHROMIUM at it."
    )


class ExecutionTimeout(BridgeFailure):
    code, status = "execution_timeout", 504
    meaning = "No answer within timeout_ms (plus a short grace on the daemon side)."
    default_message = (
        "The script did not finish within timeout_ms. Narrow the script (less work per call) or "
        "raise timeout_ms, and check that the page is not stuck."
    )


# -- 200: the script ran ------------------------------------------------------------------------


class ExecutionError(ScriptFailed):
    code = "execution_error"
    meaning = "The script threw; message and stack are the script's."
    default_message = "The script threw an error."


class JavaScriptSyntaxError(ScriptFailed):
    code = "syntax_error"
    meaning = "The script is not valid JavaScript."
    default_message = "The script is not valid JavaScript. Fix its syntax and retry."


class PromiseRejected(ScriptFailed):
    code = "promise_rejected"
    meaning = "The script's returned promise rejected."
    default_message = "The promise the script returned was rejected."


# -- on the caller's side -----------------------------------------------------------------------

#: What to do when no daemon answers, said the same way by every client.
START_DAEMON = (
    "Start it with `tabpilot serve --browser` (with its own headless Chromium) or `tabpilot serve` "
    "(for the extension in your own Chrome), then retry."
)


class DaemonUnreachable(_Coded):
    """The daemon did not answer a client (the CLI, `tabpilot mcp`): never sent by the daemon.

    It has no ``meaning``, so it stays out of the API table; the status is what it would be.
    """

    code, status = "daemon_unreachable", 503
    default_message = f"The tabpilot daemon is not running. {START_DAEMON}"
