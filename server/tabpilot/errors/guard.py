"""The large-output guard's errors: a confirm_token unknown, for other params, expired or used
(:mod:`tabpilot.errors` draws the tree)."""

from __future__ import annotations

from tabpilot.errors._base import RequestRefused


class ConfirmTokenUnknown(RequestRefused):
    code, status = "confirm_token_unknown", 404
    meaning = (
        "No answer was ever kept under that confirm_token for this caller (a token answers only "
        "the MCP session, /ws/calls socket or HTTP context it was given to), or the daemon "
        "restarted since; run the tool again to get a token of your own."
    )
    # Said the same of another caller's token, whatever became of it: nobody learns that it exists.
    default_message = (
        "No answer is kept under that confirm_token for you: it was never given out, it was "
        "given to another caller (a token answers only the MCP session, /ws/calls socket or "
        "HTTP context that received it), or the daemon restarted. Run the tool again, asking "
        "for less, to get a token of your own."
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
