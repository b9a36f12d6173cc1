"""Frames on the callers' socket are bounded like route bodies, and one too large is answered.

uvicorn reads every WebSocket with one ``ws_max_size`` (64 MiB: the extension's results need it)
and closes a socket whose message is larger. On ``/ws/calls`` a call is a route's body in a frame,
so the daemon's WebSocket protocol (tabpilot.http.protocols) holds its frames to
``Settings.max_body_bytes`` and keeps the socket: a :class:`FrameGate` in front of uvicorn's
parser reads each frame's header, passes the frames within the limit through untouched and throws
away, as its bytes arrive, a message past it. In its place the app receives a
``websocket.receive`` message carrying :data:`OVERSIZED` (the first bytes of the refused message,
from which the call's id may be read), and answers ``script_too_large``. The daemon never holds
more than the limit of a frame.
"""

from __future__ import annotations

from websockets.utils import apply_mask

#: The key of a ``websocket.receive`` message that stands for a refused message: its first bytes.
OVERSIZED = "tabpilot.oversized"
#: How much of a refused message is kept to read its id from: ``{"type": "call", "id": …`` comes
#: first from every client we know of.
HEAD_BYTES = 4096

_CONT, _CONTROL = 0x0, 0x8
_FORWARD, _HOLD, _DISCARD = "forward", "hold", "discard"


class Oversized(bytes):
    """In :meth:`FrameGate.feed`'s answer, a message refused for its size: its first bytes."""


class FrameGate:
    """Splits a client's bytes into WebSocket frames (RFC 6455 §5.2) and sorts them.

    :meth:`feed` answers, in order, the bytes to hand to the WebSocket parser and, in place of
    each message past ``limit``, an :class:`Oversized` with the start of its payload, unmasked. A
    message in one frame is passed on as its bytes arrive. A fragmented one is held until its
    last frame, since only then is its size known: at most ``limit`` is held. Control frames
    (ping, pong, close) always pass; so does anything malformed, for the parser to refuse.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        # The current frame
        self._head = b""  # the start of its header, when a read ended inside it
        self._left = 0  # payload bytes still to come
        self._mode = _FORWARD
        self._fin = True
        # The current data message, when it is held or refused
        self._held: bytearray | None = None  # its frames so far, while within the limit
        self._held_size = 0
        self._refusing = False  # refused; its frames are thrown away until its last one
        self._capturing = False  # the start of its payload is being kept, in _prefix
        self._prefix = bytearray()
        self._mask = b""  # of its first frame, to unmask _prefix with
        self._first_size = 0  # the payload size of its first frame
        self._broken: bytes | None = None  # a held message that a new one interrupted

    def feed(self, data: bytes) -> list[bytes]:
        """What to do with the next bytes read: see the class."""
        if self._whole_small_frame(data):
            return [data]
        out: list[bytes] = []
        # Where the bytes of data that pass as they are start: here, unless a read ended inside a
        # header or inside a frame that is held or thrown away.
        passing = not self._head and (not self._left or self._mode is _FORWARD)
        run: int | None = 0 if passing else None
        pos, size = 0, len(data)
        while pos < size:
            if self._left:
                take = min(self._left, size - pos)
                if self._mode is not _FORWARD:
                    self._keep(data[pos : pos + take])
                pos += take
                self._left -= take
                if not self._left:
                    self._end_frame(out)
                continue
            header = self._read_header(data, pos)
            if header is None:  # the read ended inside the header: keep it for the next
                if run is not None and run < pos:
                    out.append(data[run:pos])
                self._head += data[pos:]
                return out
            raw, here = header
            if self._broken is not None:
                # A new message began before the held one ended: the parser gets both, in order,
                # and closes the socket as the protocol says.
                if run is not None and run < pos:
                    out.append(data[run:pos])
                out.append(self._broken)
                self._broken, run = None, None
            if self._mode is _FORWARD and run is None:
                if len(raw) > here:
                    out.append(raw[: len(raw) - here])  # the part of the header read before
                run = pos
            elif self._mode is not _FORWARD:
                if run is not None and run < pos:
                    out.append(data[run:pos])
                run = None
                if self._mode is _HOLD:
                    assert self._held is not None
                    self._held += raw
            pos += here
            if not self._left:
                self._end_frame(out)
        if run is not None and run < size:
            out.append(data if run == 0 else data[run:])
        return out

    def _whole_small_frame(self, data: bytes) -> bool:
        # The common read, one whole call of under 64 KiB in one frame, as fast as can be.
        if self._head or self._left or self._held is not None or self._refusing:
            return False
        if len(data) < 6 or not (data[0] & 0x80 and data[1] & 0x80):  # final, masked
            return False
        length = data[1] & 0x7F
        if length < 126:
            return len(data) == 6 + length
        if length == 126:
            length = int.from_bytes(data[2:4], "big")
            return len(data) == 8 + length and length <= self.limit
        return False

    def _read_header(self, data: bytes, pos: int) -> tuple[bytes, int] | None:
        """The header of the frame at ``pos`` and how many of its bytes are in ``data``; sets
        the frame's state. None when ``data`` ends before the header does."""
        carried = len(self._head)
        window = self._head + data[pos : pos + 14 - carried]
        if len(window) < 2:
            return None
        masked = window[1] & 0x80
        length = window[1] & 0x7F
        extra = 2 if length == 126 else 8 if length == 127 else 0
        header_size = 2 + extra + (4 if masked else 0)
        if len(window) < header_size:
            return None
        if extra:
            length = int.from_bytes(window[2 : 2 + extra], "big")
        raw = window[:header_size]
        mask = raw[-4:] if masked else b"\0\0\0\0"
        self._head = b""
        self._left = length
        self._fin = bool(window[0] & 0x80)
        self._mode = self._decide(window[0] & 0x0F, length, mask)
        return raw, header_size - carried

    def _decide(self, opcode: int, length: int, mask: bytes) -> str:
        if opcode >= _CONTROL:
            return _FORWARD  # one past 125 bytes is invalid, and the parser closes on it
        if opcode != _CONT:  # a new message
            if self._held is not None:  # before the last one ended: for the parser to refuse
                self._broken, self._held = bytes(self._held), None
                return _FORWARD
            self._refusing = False
            if length > self.limit:
                self._refuse(mask, capture=True)
                return _DISCARD
            if self._fin:
                return _FORWARD
            self._held, self._held_size, self._first_size, self._mask = (
                bytearray(),
                length,
                length,
                mask,
            )
            return _HOLD
        if self._refusing:
            return _DISCARD
        if self._held is None:  # no message to continue: for the parser to refuse
            if length <= self.limit:
                return _FORWARD
            self._refuse(mask, capture=True)
            return _DISCARD
        self._held_size += length
        if self._held_size <= self.limit:
            return _HOLD
        # Past the limit: keep the start of the first frame's payload, drop the rest.
        first = self._held
        start = 6 + (2 if first[1] & 0x7F == 126 else 8 if first[1] & 0x7F == 127 else 0)
        self._prefix = bytearray(first[start : start + min(self._first_size, HEAD_BYTES)])
        self._held = None
        self._refuse(self._mask, capture=False)
        return _DISCARD

    def _refuse(self, mask: bytes, *, capture: bool) -> None:
        self._refusing = True
        self._capturing = capture
        if capture:
            self._mask, self._prefix = mask, bytearray()

    def _keep(self, payload: bytes) -> None:
        if self._mode is _HOLD:
            assert self._held is not None
            self._held += payload
        elif self._capturing and len(self._prefix) < HEAD_BYTES:
            self._prefix += payload[: HEAD_BYTES - len(self._prefix)]

    def _end_frame(self, out: list[bytes]) -> None:
        self._capturing = False
        if self._fin and self._mode is _HOLD and self._held is not None:
            out.append(bytes(self._held))
            self._held = None
        elif self._fin and self._mode is _DISCARD:
            self._refusing = False
            out.append(Oversized(apply_mask(bytes(self._prefix), self._mask)))
            self._prefix = bytearray()
        self._mode = _FORWARD
