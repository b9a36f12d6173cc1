"""The page tools' own errors: a ref, an element, a page load, the debugger switch, a request of
the network log, a wait (:mod:`tabpilot.errors` draws the tree)."""

from __future__ import annotations

from tabpilot.errors._base import BridgeFailure, RequestRefused


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


class PointOutsideViewport(RequestRefused):
    code, status = "point_outside_viewport", 422
    meaning = (
        "The point is not in the viewport; `error.data` gives the viewport's width and height "
        "in CSS pixels."
    )
    default_message = (
        "That point is outside the viewport. Use a point of a viewport screenshot at scale 1, "
        "or scroll first."
    )


class ClipOutsideViewport(RequestRefused):
    code, status = "clip_outside_viewport", 422
    meaning = (
        "browser_take_screenshot's clip has no part inside the viewport; `error.data` gives the "
        "viewport's width and height in CSS pixels."
    )
    default_message = (
        "That clip is outside the viewport. Pick a region of a viewport screenshot at scale 1, "
        "or scroll the region into view first."
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


class WaitTimeout(BridgeFailure):
    code, status = "wait_timeout", 504
    meaning = (
        "browser_wait_for's condition did not hold within timeout_ms; the message says what was "
        "still false (similar texts, the element's state, the url)."
    )
    default_message = (
        "The condition did not hold within timeout_ms. Read what the page shows (browser_read or "
        "browser_snapshot), then wait for what is there, or raise timeout_ms."
    )


class UnknownDevice(RequestRefused):
    code, status = "unknown_device", 400
    meaning = "browser_emulate's `device` is not in its table; the message lists the devices."
    default_message = (
        "That device is not in browser_emulate's table. Use one it lists, or set width, height, "
        "device_scale_factor, mobile, touch and user_agent yourself."
    )


class InvalidRule(RequestRefused):
    code, status = "invalid_rule", 400
    meaning = (
        "browser_network_rules cannot take the rule: a malformed pattern, an unknown resource "
        "type, a redirect to a url that is not http(s), a bad header; the message says which."
    )
    default_message = (
        "That network rule is malformed. A pattern is a glob over the whole url (`**` any "
        'characters, `*` any but "/"), e.g. "**/api/*"; fix what the message names and retry.'
    )


class RuleNotFound(RequestRefused):
    code, status = "rule_not_found", 404
    meaning = "browser_network_rules' `id` names no rule of this browser; the message lists them."
    default_message = (
        "No network rule with that id in this browser. Call browser_network_rules with action "
        '"list" and pass the id of one of its rules.'
    )


class RuleLimit(RequestRefused):
    code, status = "rule_limit", 409
    meaning = (
        "The browser holds as many network rules as it takes (tabpilot's 100, or Chrome's "
        "declarativeNetRequest quota); nothing was added."
    )
    default_message = (
        'This browser holds as many network rules as it takes. Remove some (action "remove" or '
        '"clear"), then add again.'
    )


class InvalidRegex(RequestRefused):
    code, status = "invalid_regex", 400
    meaning = "browser_find's `regex` is not a valid JavaScript regular expression."
    default_message = (
        "The regex is not a valid JavaScript regular expression. Fix it (the message says "
        "where), or search with `text`."
    )


class RegexTooSlow(RequestRefused):
    code, status = "regex_too_slow", 422
    meaning = (
        "browser_find's `regex` could backtrack for seconds (a quantified group holding a "
        "quantifier or |, a backreference, many quantifiers), or ran over its time on the page."
    )
    default_message = (
        "The regex could backtrack for seconds, so it was not run. Simplify it (e.g. [ab]+ for "
        "(a|b)+, one .* rather than several), or search with `text`."
    )
