"""browser_navigate: load a url, or go back, forward or reload, and wait for the load."""

from __future__ import annotations

from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, TimeoutMs, result_of, web_url
from tabpilot.tools.tool import ClientFace, CliFace, Tool, describe, timeout_ms


class NavigateParams(Params):
    """Load a url in a tab, or go back, forward, or reload."""

    example: ClassVar[str] = '{"url": "https://example.com/"}'

    url: str | None = Field(
        default=None,
        max_length=8192,
        description="For `goto`: the http(s) url.",
    )
    action: Literal["goto", "back", "forward", "reload"] = Field(
        default="goto",
        description="`goto` loads `url`.",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)
    timeout_ms: TimeoutMs = Field(
        default=30_000, description="Give up waiting for the page to load after this many ms."
    )

    @field_validator("url")
    @classmethod
    def _web_url(cls, url: str | None) -> str | None:
        return web_url(url, "browser_navigate loads")

    @model_validator(mode="after")
    def _url_with_goto_only(self) -> NavigateParams:
        if self.action == "goto" and self.url is None:
            raise ValueError('`goto` needs `url`; or send `action`: "back", "forward" or "reload"')
        if self.action != "goto" and self.url is not None:
            raise ValueError(f"`{self.action}` takes no `url`; `url` goes with `goto`")
        return self


def navigate_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_navigate: `Navigated to <url> (HTTP 200): "<title>"`.

    Given the call's ``params`` (MCP does), a page loaded at the url it asked for is only
    `Loaded "<title>"`: the caller wrote that url a moment ago. The url follows when it changed
    (a redirect; back, forward, reload), and the status when it is not 200.
    """
    page = result_of(envelope)
    status = page.get("status")
    title = page.get("title") or ""
    asked = getattr(params, "url", None)
    if isinstance(asked, str) and same_url(asked, str(page.get("url") or "")):
        return f'Loaded "{title}"' + ("" if status in (200, None) else f" (HTTP {status})")
    http = f" (HTTP {status})" if status is not None else ""
    return f'Navigated to {page.get("url")}{http}: "{title}"'


#: The port a scheme means when its url names none.
_DEFAULT_PORTS = {"http": 80, "https": 443}


def same_url(a: str, b: str) -> bool:
    """Whether two urls name the same page as a browser writes it: the scheme and host in any
    case, a default port or an empty path left out (`https://A.test` is `https://a.test/`)."""

    def key(url: str) -> tuple[Any, ...] | None:
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError:
            return None
        scheme = parts.scheme.lower()
        port = None if port == _DEFAULT_PORTS.get(scheme) else port
        host = (parts.hostname or "").lower()
        return (scheme, host, port, parts.path or "/", parts.query, parts.fragment)

    found = key(a)
    return found is not None and found == key(b)


NAVIGATE = Tool(
    name="browser_navigate",
    params=NavigateParams,
    title="Open a url in the browser tab",
    description=describe(
        """
        Open an http(s) url (or go back, forward, reload) and wait for the load. E.g. {"url":
        "https://a.test"} → Loaded "A"; or where it ended (a redirect), or why not.
        """
    ),
    timeout_s=timeout_ms,
    text=navigate_text,
    read_only=False,
    client=ClientFace(
        "navigate",
        doc=(
            "Load ``url`` (or go back, forward, reload) and wait for it: ``{url, title, status}``."
        ),
        positional=("url",),
    ),
    cli=CliFace("navigate", positional=("url",)),
)

TOOLS = (NAVIGATE,)
