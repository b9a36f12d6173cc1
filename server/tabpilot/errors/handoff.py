"""The handoff's own errors (browser_ask_human): the person did not answer, the tab is theirs
while a request is open, no person at all (:mod:`tabpilot.errors` draws the tree)."""

from __future__ import annotations

from tabpilot.errors._base import RequestRefused

#: Where the handoff is described: how to get a person's Chrome with the extension.
HANDOFF_DOCS = "docs/handoff.md"


class HumanTimeout(RequestRefused):
    # 408: the caller waited for an answer that did not come; asking again is the fix.
    code, status = "human_timeout", 408
    meaning = (
        "browser_ask_human: the person did not answer within timeout_ms; the request was "
        "withdrawn from the popup."
    )
    default_message = (
        "The person did not answer within timeout_ms, and the request was withdrawn. Ask again "
        "(maybe with a longer timeout_ms), or go on without their help."
    )


class HumanTurn(RequestRefused):
    code, status = "human_turn", 409
    meaning = (
        "The person at the browser has this tab for a handoff (browser_ask_human): every command "
        "in it is refused until they answer."
    )
    default_message = (
        "The person at the browser has this tab for a handoff. Wait for browser_ask_human's "
        "answer before acting in it, or work in another tab."
    )


class NoHuman(RequestRefused):
    code, status = "no_human", 409
    meaning = (
        "browser_ask_human in a browser no person sees (the daemon's managed, headless one): "
        "nobody can answer."
    )
    default_message = (
        "No person sees this browser: tabpilot started it headless for the AI, so nobody can "
        "answer browser_ask_human. For a handoff, run `tabpilot serve` without --browser and "
        "connect a person's Chrome with the tabpilot extension (see " + HANDOFF_DOCS + "), or "
        "go on without asking."
    )
