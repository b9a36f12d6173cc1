"""One settings object for the daemon, the CLI and the managed browser."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from tabpilot import __version__

#: The only address the daemon will bind. Anything else is refused at start-up.
LOOPBACK_HOST = "127.0.0.1"
DEFAULT_PORT = 7878


def _env_number(name: str, default: float, kind: type[float] | type[int]) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return kind(raw)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise SystemExit(f"tabpilot: {name} must be {what}, not {raw!r}.") from None


def _env_float(name: str, default: float) -> float:
    return _env_number(name, default, float)


def _env_int(name: str, default: int) -> int:
    return int(_env_number(name, default, int))


def _default_state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "tabpilot"


#: Room in a request body for the JSON around a script: field names and the other fields.
BODY_OVERHEAD_BYTES = 64 * 1024

#: The token file in the state dir; the daemon and the CLI both read it, so one file set up once
#: (mode 0600) protects the daemon from the machine's other users.
TOKEN_FILE_NAME = "token"


def read_token(state_dir: Path) -> str | None:
    """The shared secret: $TABPILOT_TOKEN, else the first line of ``<state_dir>/token``, else None.

    An empty value means no token.
    """
    raw = os.environ.get("TABPILOT_TOKEN")
    if raw is None:
        path = state_dir / TOKEN_FILE_NAME
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            # Running without the token the user set up would be worse than not running.
            reason = getattr(exc, "strerror", None) or "not UTF-8 text"
            raise SystemExit(
                f"tabpilot: cannot read the token file {path} ({reason}). Make it a text file "
                "you own and can read (chmod 600), or remove it to run without a token."
            ) from None
        raw = raw.splitlines()[0] if raw.strip() else ""
    token = raw.strip()
    if not (token.isascii() and token.isprintable()):
        # It travels in an HTTP header (Authorization: Bearer), which carries ASCII only.
        raise SystemExit(
            "tabpilot: the token holds characters other than printable ASCII, which an HTTP "
            "header cannot carry. Choose one of letters, digits and punctuation, e.g. from "
            "`python3 -c 'import secrets; print(secrets.token_urlsafe())'`."
        )
    return token or None


_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")


def parse_site(text: str) -> str:
    """A site rule as the extension keeps it (extension/worker/link/site-rules.js, the same
    syntax): ``bank.example`` (that host and its subdomains) or ``*.example.com`` (only the
    subdomains), lower case, an international name in punycode; a pasted url counts for its
    host. Raises ValueError saying what to write."""
    value = text.strip().lower()
    if not value:
        raise ValueError("an empty site; write one like bank.example or *.example.com")
    if re.match(r"^[a-z][a-z0-9+.-]*://", value):
        value = urlsplit(value).hostname or ""
    wildcard = value.startswith("*.")
    if wildcard:
        value = value[2:]
    if not value or re.search(r"[/:?#@\s*]", value):
        raise ValueError(
            f"{text!r} is not a site: write a host only, like bank.example or *.example.com "
            "(no path, no port; a rule covers every port and both http and https)"
        )
    try:
        host = value.rstrip(".").encode("idna").decode("ascii")
    except UnicodeError:
        raise ValueError(f"{text!r} is not a host name") from None
    if not _IPV4.match(host) and (
        len(host) > 253 or not all(_LABEL.match(label) for label in host.split("."))
    ):
        raise ValueError(f"{text!r} is not a host name")
    if wildcard and _IPV4.match(host):
        raise ValueError(f"{text!r}: an IP address has no subdomains; write it without *.")
    return f"*.{host}" if wildcard else host


def parse_sites(values: str | list[str] | None, source: str) -> tuple[str, ...]:
    """Sites from a flag given several times or an environment variable (commas or spaces
    between them); exits naming `source` when one is not a site."""
    items = [values] if isinstance(values, str) else list(values or ())
    sites: list[str] = []
    for item in items:
        for part in re.split(r"[,\s]+", str(item)):
            if not part:
                continue
            try:
                site = parse_site(part)
            except ValueError as exc:
                raise SystemExit(f"tabpilot: {source}: {exc}.") from None
            if site not in sites:
                sites.append(site)
    return tuple(sites)


@dataclass(frozen=True)
class Settings:
    """Settings of one daemon. Built from the environment by :meth:`from_env`."""

    host: str = LOOPBACK_HOST
    port: int = DEFAULT_PORT
    #: How long a command waits for an extension to connect before `extension_not_connected`:
    #: a browser may be starting, or Chrome may be waking the extension's service worker.
    connect_grace_s: float = 3.0
    #: Added to a command's own timeout_ms before the daemon gives up on the extension. The
    #: extension answers `execution_timeout` itself at timeout_ms; this only covers a dead worker.
    timeout_grace_s: float = 1.0
    #: Largest WebSocket frame accepted from the extension, in bytes. The extension refuses a
    #: result over MAX_RESULT_CHARS (protocol.py) of JSON, which is at most 3 bytes a character
    #: in UTF-8; a bigger frame would make uvicorn drop the link, failing every command on it.
    ws_max_size: int = 64 * 1024 * 1024
    #: Commands waiting for an answer (or for the extension) at once; past it, 429 queue_full.
    #: Each holds its request and a future, so this bounds the daemon's memory under a flood.
    max_in_flight: int = 1024
    #: Longest script, in UTF-8 bytes; past it, 413 script_too_large before anything is sent.
    max_script_bytes: int = 1024 * 1024
    state_dir: Path = field(default_factory=_default_state_dir)
    #: Launch and own a headless Chromium with the extension (`tabpilot serve --browser`).
    managed_browser: bool = False
    headed: bool = False
    #: Log a line per HTTP request (uvicorn's access log), `tabpilot serve --access-log`.
    access_log: bool = False
    #: Managed contexts at once, `default` included (browser_context_create refuses past it):
    #: each is a headless Chromium of about 200 MB PSS (make bench), and a 2-core machine keeps
    #: up with a handful acting at once.
    max_contexts: int = 6
    #: The one folder browser_upload reads files from (TABPILOT_UPLOAD_DIR); None:
    #: ``<state_dir>/uploads``, created on first use.
    upload_dir: Path | None = None
    #: Largest file browser_upload sends, and the most all files of one call may hold together
    #: (TABPILOT_UPLOAD_MAX_BYTES): 50 MB.
    upload_max_bytes: int = 50 * 1024 * 1024
    #: Path of a Chromium binary; found on PATH when None.
    chromium_path: str | None = None
    #: Sites no browser of this daemon lets the AI act on (`--block-site`, TABPILOT_BLOCK_SITES),
    #: and, when not None, the only ones it may (`--only-site`, TABPILOT_ONLY_SITES). Sent to each
    #: extension in the daemon's hello; they add to the person's own rules, never lift them
    #: (docs/security.md, "Site rules").
    block_sites: tuple[str, ...] = ()
    only_sites: tuple[str, ...] | None = None
    #: Shared secret that callers and the extension must present (README, "Security model");
    #: None leaves the daemon open to every local process, as before.
    token: str | None = field(default=None, repr=False)
    #: Stop the daemon after this many seconds with no caller connected and no request
    #: (`tabpilot serve --idle-stop`, which `tabpilot mcp --browser` passes to the daemon it
    #: starts); None: run until stopped, as a daemon a person started does.
    idle_stop_s: float | None = None

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings from TABPILOT_* environment variables, then `overrides` (None means unset)."""
        state_dir = Path(os.environ.get("TABPILOT_STATE_DIR") or _default_state_dir())
        settings = cls(
            port=_env_int("TABPILOT_PORT", DEFAULT_PORT),
            connect_grace_s=_env_float("TABPILOT_CONNECT_GRACE", cls.connect_grace_s),
            max_in_flight=_env_int("TABPILOT_MAX_IN_FLIGHT", cls.max_in_flight),
            max_script_bytes=_env_int("TABPILOT_MAX_SCRIPT_BYTES", cls.max_script_bytes),
            max_contexts=_env_int("TABPILOT_MAX_CONTEXTS", cls.max_contexts),
            state_dir=state_dir,
            chromium_path=os.environ.get("TABPILOT_CHROMIUM") or None,
            upload_dir=Path(os.environ["TABPILOT_UPLOAD_DIR"])
            if os.environ.get("TABPILOT_UPLOAD_DIR")
            else None,
            upload_max_bytes=_env_int("TABPILOT_UPLOAD_MAX_BYTES", cls.upload_max_bytes),
            block_sites=parse_sites(os.environ.get("TABPILOT_BLOCK_SITES"), "TABPILOT_BLOCK_SITES"),
            only_sites=parse_sites(os.environ["TABPILOT_ONLY_SITES"], "TABPILOT_ONLY_SITES")
            if os.environ.get("TABPILOT_ONLY_SITES")
            else None,
            token=read_token(state_dir),
        )
        given = {key: value for key, value in overrides.items() if value is not None}
        return replace(settings, **given)  # type: ignore[arg-type]

    @property
    def site_rules(self) -> dict[str, list[str] | None] | None:
        """The rules the hello carries to the extension, or None when there are none."""
        if not self.block_sites and self.only_sites is None:
            return None
        only = None if self.only_sites is None else list(self.only_sites)
        return {"never": list(self.block_sites), "only": only}

    @property
    def max_body_bytes(self) -> int:
        """Longest request body or ``/ws/calls`` frame read, in bytes: room for a script of
        ``max_script_bytes`` with every character escaped (JSON's ``\\uXXXX`` is 6 bytes), plus
        the other fields. Past it the daemon stops reading and answers ``script_too_large``."""
        return 6 * self.max_script_bytes + BODY_OVERHEAD_BYTES

    @property
    def uploads(self) -> Path:
        """The folder browser_upload reads from: ``upload_dir``, else ``<state_dir>/uploads``."""
        return self.upload_dir or self.state_dir / "uploads"

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    @property
    def version(self) -> str:
        return __version__


def client_headers(settings: Settings) -> dict[str, str]:
    """Headers every HTTP client of the daemon (the CLI, MCP) sends: the token when one is set."""
    return {"Authorization": f"Bearer {settings.token}"} if settings.token else {}
