"""The daemon's registry of named functions (eval_define_function; :mod:`tabpilot.tools.functions`
has the tools): in memory, one per daemon, shared by every caller, forgotten when the daemon stops.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabpilot.errors import FunctionNotFound, TooManyFunctions

#: How many functions the daemon keeps at most.
MAX_FUNCTIONS = 100
#: What each caller sees of a function in the list: its first line, this long at most.
FIRST_LINE_CHARS = 120


@dataclass(frozen=True)
class StoredFunction:
    """One function as the registry keeps it: the text the extension's check answered."""

    name: str
    source: str

    @property
    def first_line(self) -> str:
        line = self.source.splitlines()[0] if self.source else ""
        return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"


class FunctionRegistry:
    """The daemon's functions, by name, in the order they were first defined."""

    def __init__(self, limit: int = MAX_FUNCTIONS) -> None:
        self._functions: dict[str, StoredFunction] = {}
        self.limit = limit

    def check_room(self, name: str) -> None:
        """Raises TooManyFunctions when ``name`` is new and the registry is full."""
        if name not in self._functions and len(self._functions) >= self.limit:
            raise TooManyFunctions(
                f"The daemon holds {len(self._functions)} functions, its limit, so {name!r} was "
                "not defined. Remove one with eval_remove_function (eval_list_functions lists "
                "them), or replace one by defining its name again."
            )

    def put(self, name: str, source: str) -> bool:
        """Store ``source`` as ``name``; whether it replaced a function of that name."""
        self.check_room(name)
        replaced = name in self._functions
        self._functions[name] = StoredFunction(name, source)
        return replaced

    def get(self, name: str) -> StoredFunction:
        """The function ``name``; raises FunctionNotFound."""
        found = self._functions.get(name)
        if found is None:
            raise FunctionNotFound(_not_found(name, self._functions))
        return found

    def remove(self, name: str) -> None:
        """Forget ``name``; raises FunctionNotFound."""
        self.get(name)
        del self._functions[name]

    def listing(self) -> list[dict[str, Any]]:
        """``[{name, first_line}]``, in the order they were defined."""
        return [{"name": f.name, "first_line": f.first_line} for f in self._functions.values()]


def _not_found(name: str, functions: dict[str, StoredFunction]) -> str:
    known = ", ".join(list(functions)[:10]) + ("…" if len(functions) > 10 else "")
    defined = f"The defined ones: {known}." if functions else "None is defined."
    return (
        f"No function is named {name!r} in this daemon. {defined} Define it with "
        "eval_define_function (the daemon forgets its functions when it restarts)."
    )
