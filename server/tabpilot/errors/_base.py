"""The root of the error tree and its three branches, and the registry of codes that every leaf
joins as it is defined (:mod:`tabpilot.errors` draws the tree)."""

from __future__ import annotations

from typing import Any, ClassVar

_BY_CODE: dict[str, type[TabpilotError]] = {}


class TabpilotError(Exception):
    """Root of every tabpilot API error."""

    code: ClassVar[str] = "internal_error"
    status: ClassVar[int] = 500
    meaning: ClassVar[str] = ""
    default_message: ClassVar[str] = ""

    def __init__(self, code: str, message: str, status: int, stack: str | None = None) -> None:
        super().__init__(message)
        # Instance attributes shadow the class defaults, so a bare TabpilotError can carry any
        # code while the subclasses below fill them in from their class.
        self.code = code  # type: ignore[misc]
        self.message = message
        self.status = status  # type: ignore[misc]
        self.stack = stack
        #: For a script's failure: the route it ran by, and the dialogs answered meanwhile.
        self.route: str | None = None
        self.dialogs: list[dict[str, Any]] | None = None
        #: For a script's own error: the thrown value's other fields (code, cause, errors).
        self.data: Any = None

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if cls.meaning:  # only the leaves, which carry a meaning, are API codes
            _BY_CODE[cls.code] = cls

    @property
    def headers(self) -> dict[str, str]:
        """Extra HTTP headers of the error's response (Retry-After, say)."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class _Coded(TabpilotError):
    """A leaf of the tree: code and status come from the class."""

    def __init__(self, message: str | None = None, *, stack: str | None = None) -> None:
        # None, not "", stands for the default: a script may throw an Error with no message.
        message = self.default_message if message is None else message
        super().__init__(self.code, message, self.status, stack)


class RequestRefused(_Coded):
    """The caller must change something (4xx)."""


class BridgeFailure(_Coded):
    """The daemon could not get an answer from the extension (5xx)."""


class ScriptFailed(_Coded):
    """The script ran and threw, failed to compile or rejected: HTTP 200 with success false."""

    status = 200
