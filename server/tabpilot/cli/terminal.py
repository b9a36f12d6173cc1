"""What the CLI writes to a terminal: a page's text, with nothing in it a terminal would obey.

A page controls much of what the CLI prints (a script's value, its text, titles, urls, console
messages, the messages of its errors), and a terminal obeys what it is sent: ``ESC[2J`` clears the
screen, a bare carriage return lets later text overwrite a line, OSC 52 (``ESC]52;c;…BEL``) asks
some terminals to write the clipboard, and a bidirectional override (U+202E) shows text in another
order than it is. So every character of :data:`UNSAFE` the CLI writes is shown as its JSON and
JavaScript escape instead, ``\\u001b`` for ESC: the person sees that it was there, and which one.
Newlines and tabs stay, and a carriage return just before a newline, which moves nothing.

The escaping is done by the streams themselves (:func:`terminal_streams`), so that no command, and
no error message, can print around it. The same form is a JSON string's own escape, and those
characters can only stand inside the strings of JSON text, so ``--json`` output stays the same
JSON. ``tabpilot --raw`` writes everything as it came.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from typing import BinaryIO, TextIO

#: What is never written as is: the C0 controls but tab and newline (a carriage return only when no
#: newline follows it), DEL, the C1 controls (U+0080-U+009F; U+009B is a CSI in one character), and
#: the characters that change the direction of text: the embeddings and overrides U+202A-U+202E,
#: the isolates U+2066-U+2069, and the marks U+200E, U+200F and U+061C.
UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
)


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match[0]):04x}"


def escape(text: str) -> str:
    """``text`` with each character of :data:`UNSAFE` written as its escape, ``\\u001b``."""
    return UNSAFE.sub(_escaped, text)


class EscapingStream(io.TextIOBase):
    """A text stream that writes through ``stream``, each :data:`UNSAFE` character escaped."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(escape(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        # The stream is not this one's to close; nor to flush when this one is collected, by
        # which time it may be closed itself.
        pass

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self._stream.errors

    @property
    def buffer(self) -> BinaryIO:
        # Bytes are not text: `tabpilot screenshot -o -` writes an image here, as it is.
        return self._stream.buffer


@contextlib.contextmanager
def terminal_streams(*, raw: bool = False) -> Iterator[None]:
    """Within the block, stdout and stderr escape what they write (:func:`escape`); as they were
    with ``raw``."""
    if raw:
        yield
        return
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapingStream(out), EscapingStream(err)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        sys.stdout, sys.stderr = out, err


__all__ = ["UNSAFE", "EscapingStream", "escape", "terminal_streams"]
