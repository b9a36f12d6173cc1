"""A context's name and its proxy: the rules and params that the context tools take and the
daemon's contexts (:mod:`tabpilot.browsers.contexts`) hold."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from tabpilot.errors import InvalidRequest
from tabpilot.tools.fields import Params

#: A context's name: short, and safe in a url's query, a log line and a file name.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
NAME_RULE = "1 to 40 letters, digits, '.', '_' or '-', starting with a letter or digit"


def check_name(name: str) -> str:
    """``name`` if it is a valid context name, else InvalidRequest saying the rule."""
    if not NAME.fullmatch(name):
        raise InvalidRequest(f"Invalid context name {name[:60]!r}: use {NAME_RULE}.")
    return name


@dataclass(frozen=True)
class Proxy:
    """A managed context's proxy: Chromium's launch flags name the server, and the extension
    answers its authentication with the credentials (never on the command line)."""

    server: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    bypass: str | None = None


PROXY_SCHEMES = ("http", "https", "socks5")
_NAME_FIELD = Field(min_length=1, max_length=40, description=f"A context's name: {NAME_RULE}.")


def _name(value: str) -> str:
    try:
        return check_name(value)
    except InvalidRequest as error:
        raise ValueError(error.message) from None


class ProxyParams(Params):
    """A context's proxy. Its credentials go to the context's extension privately, never into a
    page, a log line or an answer."""

    server: str = Field(
        min_length=1,
        max_length=300,
        description="`http://host:port`, `https://host:port` or `socks5://host:port`.",
    )
    username: str | None = Field(default=None, min_length=1, max_length=300)
    password: str | None = Field(default=None, max_length=300, repr=False)
    bypass: str | None = Field(
        default=None,
        max_length=2000,
        description="Hosts that go direct, `;`-separated, e.g. `*.internal.test;10.0.0.0/8`.",
    )

    @field_validator("server")
    @classmethod
    def _server(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in PROXY_SCHEMES:
            raise ValueError(
                f"the proxy's scheme must be one of {', '.join(PROXY_SCHEMES)} (got "
                f"{value.split(':', 1)[0][:20]!r}), e.g. http://proxy.test:8080"
            )
        if parts.username is not None or parts.password is not None:
            raise ValueError("put the credentials in `username` and `password`, not in the url")
        try:
            port = parts.port
        except ValueError:
            port = None
        if not parts.hostname or port is None or parts.path not in ("", "/") or parts.query:
            raise ValueError(f"give the proxy as scheme://host:port, e.g. {parts.scheme}://h:1080")
        return f"{parts.scheme}://{parts.netloc}"

    @field_validator("bypass")
    @classmethod
    def _bypass(cls, value: str | None) -> str | None:
        if value is not None and any(ord(ch) < 0x20 or ch == " " for ch in value):
            raise ValueError("the bypass list holds spaces or control characters")
        return value

    @model_validator(mode="after")
    def _auth(self) -> ProxyParams:
        if self.password is not None and self.username is None:
            raise ValueError("the proxy's `password` needs its `username`")
        if self.username is not None and self.server.startswith("socks5:"):
            raise ValueError(
                "Chrome does not support SOCKS5 authentication, so tabpilot refuses a SOCKS5 "
                "proxy with a username rather than go through it unauthenticated; use an http "
                "proxy, or a SOCKS5 proxy without credentials"
            )
        return self

    def proxy(self) -> Proxy:
        return Proxy(self.server, self.username, self.password, self.bypass)


#: The proxy's schema written out in place: every face's schema (OpenAPI, MCP) is one object per
#: field, with no shared definitions to point to.
PROXY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "server": {"type": "string", "description": "http(s)/socks5://host:port"},
        **{key: {"type": "string"} for key in ("username", "password", "bypass")},
    },
    "required": ["server"],
}
