"""Identities that every layer checks or makes: request ids, the daemon's token, the extension's
origin. Below the faces, so that the runtime and the clients need not import the HTTP edge."""

from __future__ import annotations

import hmac
import secrets

#: The Origin of a request from a Chrome extension (its id follows).
EXTENSION_ORIGIN_PREFIX = "chrome-extension://"


def new_request_id() -> str:
    """A fresh request id: 16 hex characters."""
    return secrets.token_hex(8)


def token_matches(given: str | None, expected: str | None) -> bool:
    """Whether ``given`` is the daemon's token; always true when the daemon has none."""
    if not expected:
        return True
    if given is None:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())
