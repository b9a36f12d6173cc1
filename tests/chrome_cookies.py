"""The Python oracle of extension/shared/storage-state.js: chrome.cookies' cookies turned into
Playwright's storageState cookies and back. The daemon never converts cookies itself (the extension
does, in the browser); tests/test_storage_state.py holds both to tests/fixtures/
storage_state_cases.json."""

from __future__ import annotations

from typing import Any

from tabpilot.tools.storage_state import Cookie, SameSite

_FROM_CHROME_SAME_SITE: dict[str, SameSite] = {
    "no_restriction": "None",
    "lax": "Lax",
    "strict": "Strict",
    "unspecified": "Lax",  # Chrome's default enforcement for a cookie without SameSite
}

_TO_CHROME_SAME_SITE = {"None": "no_restriction", "Lax": "lax", "Strict": "strict"}


def from_chrome_cookie(c: dict[str, Any]) -> Cookie:
    """A ``chrome.cookies.Cookie`` (as ``chrome.cookies.getAll`` answers) as a Playwright cookie."""
    domain = str(c["domain"])
    # Chrome writes a domain cookie's domain with its dot already; normalise either way.
    domain = domain.lstrip(".") if c.get("hostOnly") else "." + domain.lstrip(".")
    session = c.get("session") or c.get("expirationDate") is None
    key = c.get("partitionKey") or {}
    fields: dict[str, Any] = {
        "name": c["name"],
        "value": c["value"],
        "domain": domain,
        "path": c.get("path") or "/",
        "expires": -1.0 if session else float(c["expirationDate"]),
        "httpOnly": bool(c.get("httpOnly")),
        "secure": bool(c.get("secure")),
        "sameSite": _FROM_CHROME_SAME_SITE.get(c.get("sameSite") or "unspecified", "Lax"),
    }
    if key.get("topLevelSite"):
        fields["partitionKey"] = key["topLevelSite"]
        if key.get("hasCrossSiteAncestor") is not None:
            fields["_crHasCrossSiteAncestor"] = key["hasCrossSiteAncestor"]
    return Cookie.model_validate(fields)


def to_chrome_cookie(cookie: Cookie, store_id: str | None = None) -> dict[str, Any]:
    """A Playwright cookie as the ``chrome.cookies.Cookie`` Chrome would list after setting it."""
    out: dict[str, Any] = {
        "name": cookie.name,
        "value": cookie.value,
        "domain": cookie.domain,
        "hostOnly": cookie.host_only,
        "path": cookie.path,
        "secure": cookie.secure,
        "httpOnly": cookie.httpOnly,
        "sameSite": _TO_CHROME_SAME_SITE[cookie.sameSite],
        "session": cookie.expires == -1,
    }
    return out | _optional_chrome_fields(cookie, store_id)


def to_chrome_set_details(cookie: Cookie, store_id: str | None = None) -> dict[str, Any]:
    """The argument of ``chrome.cookies.set`` that recreates ``cookie``.

    ``url`` is required by Chrome and decides which cookies it may set: https for a secure
    cookie, the domain without its dot, the cookie's path. A host-only cookie leaves ``domain``
    out; a session cookie leaves ``expirationDate`` out.
    """
    host = cookie.domain.lstrip(".")
    details: dict[str, Any] = {
        "url": f"{'https' if cookie.secure else 'http'}://{host}{cookie.path}",
        "name": cookie.name,
        "value": cookie.value,
        "path": cookie.path,
        "secure": cookie.secure,
        "httpOnly": cookie.httpOnly,
        "sameSite": _TO_CHROME_SAME_SITE[cookie.sameSite],
    }
    if not cookie.host_only:
        details["domain"] = cookie.domain
    return details | _optional_chrome_fields(cookie, store_id)


def _optional_chrome_fields(cookie: Cookie, store_id: str | None) -> dict[str, Any]:
    # Chrome's shape for "absent": a session cookie has no expirationDate, an unpartitioned one
    # no partitionKey. hasCrossSiteAncestor defaults to true, as Playwright's addCookies does.
    out: dict[str, Any] = {}
    if cookie.expires != -1:
        out["expirationDate"] = cookie.expires
    if store_id is not None:
        out["storeId"] = store_id
    if cookie.partitionKey is not None:
        cross = cookie.crHasCrossSiteAncestor
        out["partitionKey"] = {
            "topLevelSite": cookie.partitionKey,
            "hasCrossSiteAncestor": True if cross is None else cross,
        }
    return out
