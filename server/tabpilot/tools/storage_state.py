"""Cookies and localStorage in Playwright's ``storageState`` format, and their named files.

The format is what ``BrowserContext.storage_state()`` writes and ``new_context(storage_state=...)``
reads::

    {"cookies": [{"name", "value", "domain", "path", "expires", "httpOnly", "secure",
                  "sameSite": "Strict" | "Lax" | "None", "partitionKey"?}],
     "origins": [{"origin", "localStorage": [{"name", "value"}]}]}

``expires`` is unix seconds, -1 for a session cookie. The checks follow Playwright's own
(``rewriteCookies`` in playwright-core's ``server/network.ts``): a cookie has a ``url`` or a
``domain`` and ``path`` pair, never both; ``expires`` is -1 or a positive number of seconds no
later than the year 9999.

The extension reads and writes cookies with ``chrome.cookies`` and converts them both ways itself
(extension/shared/storage-state.js, in the service worker); tests/chrome_cookies.py is its Python
oracle, and tests/fixtures/storage_state_cases.json holds the cases both must agree on. The
choices:

- sameSite: Chrome's "no_restriction" is "None"; "unspecified" is "Lax", which is what Chrome
  enforces for a cookie set without SameSite (and what Playwright reports for one). Written back,
  it becomes an explicit "lax": Chrome's two-minute grace for top-level POSTs with unspecified
  cookies ("Lax-allowing-unsafe") is lost.
- host-only: Playwright has no ``hostOnly`` field. A domain with a leading dot is a domain cookie,
  one without is host-only (that is how Chrome lists them). For ``chrome.cookies.set`` a host-only
  cookie omits ``domain``, since passing any domain makes a domain cookie.
- partitioned (CHIPS) cookies: Chrome's ``partitionKey.topLevelSite`` is Playwright's
  ``partitionKey`` string; ``hasCrossSiteAncestor`` travels in Playwright's non-standard
  ``_crHasCrossSiteAncestor``, true when absent as Playwright assumes.
- ``storeId`` is not saved: a file restores into whichever cookie store (context) loads it.
- expiry: Chrome clamps a cookie's expiry to 400 days from when it is set, so a far-future
  ``expires`` comes back earlier; an expired cookie is not set at all (``chrome.cookies.set``
  answers null), as in Playwright.

Beyond Playwright's checks, the cookies Chrome would refuse (SameSite=None or partitioned without
Secure, the ``__Secure-``/``__Host-`` prefix rules, ';' or control characters) are refused here
with the field to change, since ``chrome.cookies.set`` says only "Failed to parse or set cookie".
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tabpilot.errors import InvalidRequest, StorageStateNotFound

#: Playwright's kMaxCookieExpiresDateInSeconds: 9999-12-31T23:59:59Z.
MAX_EXPIRES = 253402300799
#: A saved state is read whole; anything larger is not a browser's cookies and localStorage.
MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_NAME_CHARS = 100
STORAGE_DIR_NAME = "storage"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_NEXT_STEP = "Send a storage state as Playwright's BrowserContext.storage_state() writes it."

SameSite = Literal["Strict", "Lax", "None"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Cookie(_Strict):
    """A cookie as Playwright's storageState holds it (``url`` is folded in on validation)."""

    name: str
    value: str
    url: str | None = Field(default=None, exclude=True)
    domain: str = ""
    path: str = ""
    expires: float = -1
    httpOnly: bool = False
    secure: bool = False
    sameSite: SameSite = "Lax"
    partitionKey: str | None = None
    crHasCrossSiteAncestor: bool | None = Field(default=None, alias="_crHasCrossSiteAncestor")

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _ints_are_seconds(cls, data: Any) -> Any:
        # Strict mode refuses an int for a float; JSON has one number type.
        if isinstance(data, dict) and type(data.get("expires")) is int:
            data = {**data, "expires": float(data["expires"])}
        return data

    @model_validator(mode="after")
    def _playwright_rules(self) -> Cookie:
        if not self.name and not self.value:
            raise ValueError("`name` and `value` are both empty")
        for field, text in (("name", self.name), ("value", self.value)):
            # Chrome refuses these (chrome.cookies.set: "Failed to parse or set cookie").
            bad = next((ch for ch in text if ch == ";" or ord(ch) < 0x20 or ord(ch) == 0x7F), None)
            if bad is not None:
                raise ValueError(f"`{field}` holds {bad!r}, which no browser accepts in a cookie")
        if "=" in self.name:
            raise ValueError("`name` holds '=', which no browser accepts in a cookie's name")
        if self.url is not None:
            if self.domain or self.path:
                raise ValueError("give either `url` or `domain` and `path`, not both")
            self._fold_url(self.url)
        elif not self.domain or not self.path:
            raise ValueError("a cookie needs `url`, or `domain` and `path`")
        if not self.path.startswith("/"):
            raise ValueError(f"`path` must start with '/' (got {self.path!r})")
        if self.expires != -1 and not 0 < self.expires <= MAX_EXPIRES:
            raise ValueError(
                f"`expires` must be -1 (a session cookie) or unix seconds between 1 and "
                f"{MAX_EXPIRES} (got {self.expires})"
            )
        if self.partitionKey is not None and not re.fullmatch(r"https?://[^/]+", self.partitionKey):
            raise ValueError(
                "`partitionKey` must be a top-level site such as 'https://example.com' "
                f"(got {self.partitionKey!r})"
            )
        self._chrome_rules()
        return self

    def _chrome_rules(self) -> None:
        # What chrome.cookies.set refuses with a bare "Failed to parse or set cookie" (checked on
        # Chromium 156): said here with the field to change instead.
        if not self.secure:
            if self.sameSite == "None":
                raise ValueError(
                    "`sameSite` 'None' needs `secure`: true; Chrome refuses it otherwise"
                )
            if self.partitionKey is not None:
                raise ValueError("a cookie with a `partitionKey` needs `secure`: true (CHIPS)")
            if self.name.startswith(("__Secure-", "__Host-")):
                raise ValueError(f"`name` {self.name!r} has a prefix that needs `secure`: true")
        if self.name.startswith("__Host-") and (not self.host_only or self.path != "/"):
            raise ValueError(
                f"`name` {self.name!r} needs a host-only `domain` (no leading '.') and `path` '/'"
            )

    def _fold_url(self, url: str) -> None:
        # As Playwright does: the host, the path up to its last '/', and secure for https.
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"`url` must be an http(s) URL (got {url!r})")
        host = parts.hostname
        self.domain = f"[{host}]" if ":" in host else host  # Chrome lists IPv6 hosts bracketed
        path = parts.path or "/"
        self.path = path[: path.rfind("/") + 1]
        self.secure = parts.scheme == "https"
        self.url = None

    @property
    def host_only(self) -> bool:
        return not self.domain.startswith(".")


class LocalStorageItem(_Strict):
    name: str
    value: str


class Origin(_Strict):
    """One origin's localStorage. Playwright's newer ``indexedDB`` and ``opfs`` entries are
    accepted so that its files load, and are kept, but tabpilot does not restore them."""

    origin: Annotated[str, Field(pattern=r"^https?://[^/]+$")]
    localStorage: list[LocalStorageItem]
    indexedDB: list[Any] | None = None
    opfs: list[Any] | None = None


class StorageState(_Strict):
    cookies: list[Cookie] = []
    origins: list[Origin] = []

    def to_json(self) -> dict[str, Any]:
        """The Playwright JSON: fields it would write, absent optional ones left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def parse_storage_state(data: Any, *, source: str = "The storage state") -> StorageState:
    """Validate a decoded JSON value, or raise ``invalid_request`` naming each bad field."""
    if not isinstance(data, dict):
        raise InvalidRequest(
            f"Invalid storage state: {source} must be a JSON object with `cookies` and "
            f"`origins`. {_NEXT_STEP}"
        )
    try:
        return StorageState.model_validate(data)
    except ValidationError as exc:
        raise InvalidRequest(f"Invalid storage state: {_reasons(exc)}. {_NEXT_STEP}") from None


def _reasons(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ""
        for p in err["loc"]:
            where += f"[{p}]" if isinstance(p, int) else (f".{p}" if where else str(p))
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "is not a field of Playwright's storage state"
        elif err["type"] == "missing":
            msg = "is required"
        parts.append(f"`{where}` {msg}" if where else msg)
    more = len(exc.errors()) - 5
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


# ---- named files in <state_dir>/storage/ ------------------------------------------------------


def storage_path(state_dir: Path, name: str) -> Path:
    """Where the storage state called ``name`` lives: ``<state_dir>/storage/<name>.json``.

    ``name`` is a name, never a path: an AI that could name any path could overwrite a shell
    start-up file. Letters, digits, '.', '_' and '-', starting with a letter or digit.
    """
    if not isinstance(name, str) or not name:
        raise InvalidRequest(
            "Invalid storage name: it is empty. Give a short name such as 'login' (saved as "
            "storage/login.json in the daemon's state directory)."
        )
    base = name.removesuffix(".json")
    problem = None
    if "/" in name or "\\" in name or "\0" in name:
        problem = "it holds a path separator; it is a name, not a path"
    elif name.startswith("."):
        problem = "it starts with '.'"
    elif ".." in name:
        problem = "it holds '..'"
    elif len(name) > MAX_NAME_CHARS:
        problem = f"it is {len(name)} characters long, more than {MAX_NAME_CHARS}"
    elif not base or not _NAME.fullmatch(base):
        problem = (
            "only letters, digits, '.', '_' and '-' are allowed, starting with a letter or digit"
        )
    if problem is not None:
        raise InvalidRequest(
            f"Invalid storage name {name[:MAX_NAME_CHARS]!r}: {problem}. Give a short name such "
            "as 'login' (saved as storage/login.json in the daemon's state directory)."
        )
    return state_dir / STORAGE_DIR_NAME / f"{base}.json"


def write_storage_state(state_dir: Path, name: str, state: StorageState) -> Path:
    """Write ``state`` as ``name`` atomically, readable by this user only; returns the path."""
    path = storage_path(state_dir, name)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    # The directory may predate us with a looser mode (a umask, a copy): it holds login sessions.
    os.chmod(path.parent, 0o700)
    # mkstemp creates the file 0600; the rename makes a reader see the old file or the new one.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(state.to_json(), f, ensure_ascii=False, indent=2)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_storage_state(state_dir: Path, name: str) -> StorageState:
    """Read and validate the storage state saved as ``name``."""
    path = storage_path(state_dir, name)
    try:
        # O_NOFOLLOW: a symlink planted in storage/ must not point the read elsewhere.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise StorageStateNotFound(
            f"No storage state named {path.stem!r}: {path} does not exist. Save one first with "
            "browser_context_save_storage, or pass the state as a JSON object."
        ) from None
    except OSError as exc:
        raise InvalidRequest(f"Cannot read storage state {path.stem!r}: {exc.strerror}.") from None
    with os.fdopen(fd, "rb") as f:
        raw = f.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise InvalidRequest(
            f"Storage state {path.stem!r} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB; "
            "it is not one browser's cookies and localStorage."
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidRequest(
            f"Storage state {path.stem!r} is not valid JSON ({exc}). Save it again with "
            "browser_context_save_storage."
        ) from None
    return parse_storage_state(data, source=f"storage state {path.stem!r}")
