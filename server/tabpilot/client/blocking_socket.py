"""A blocking WebSocket for :class:`tabpilot.Client`, read and written on the calling thread.

websockets' own blocking client reads the socket on a background thread and hands each message
to the caller through a lock: a thread hop on every answer. Here the caller's own thread writes
the frame and reads the answer, with websockets' sans-I/O protocol (``ClientProtocol``) doing the
framing, the handshake, pings and the close.

Nothing reads the socket between calls, so the daemon's pings of an idle socket go unanswered
and, after about 40 s, it closes the socket; the next call sees that (:meth:`alive`) and opens a
new one, a millisecond's handshake.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Mapping

from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

_READ_SIZE = 256 * 1024


class BlockingSocket:
    """One open WebSocket; :meth:`open` it, then :meth:`send` and :meth:`recv` from one thread."""

    def __init__(self, sock: socket.socket, protocol: ClientProtocol) -> None:
        self._sock = sock
        self._protocol = protocol
        self._parts: list[bytes] = []
        self._eof = False

    @classmethod
    def open(cls, url: str, headers: Mapping[str, str], timeout: float) -> BlockingSocket:
        """Connect and shake hands. Raises OSError, TimeoutError, InvalidStatus (the daemon's
        refusal, its body in ``exc.response.body``) or another InvalidHandshake."""
        uri = parse_uri(url)
        sock = socket.create_connection((uri.host, uri.port), timeout=timeout)
        try:
            # Each frame goes out at once rather than after Nagle's wait for the daemon's ACK.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # No compression offered: on loopback it would only cost CPU. No size limit: the
            # daemon bounds every result.
            protocol = ClientProtocol(uri, max_size=None)
            request = protocol.connect()
            for name, value in headers.items():
                request.headers[name] = value
            protocol.send_request(request)
            self = cls(sock, protocol)
            self._flush()
            deadline = time.monotonic() + timeout
            while True:
                for event in protocol.events_received():
                    if isinstance(event, Response):
                        if protocol.handshake_exc is not None:
                            raise protocol.handshake_exc
                        return self
                if self._eof:
                    raise ConnectionClosed(None, None)
                self._read(deadline)
        except BaseException:
            sock.close()
            raise

    def alive(self) -> bool:
        """Whether the socket is still open, as far as what the daemon sent so far tells.

        A daemon that restarted between two calls closed the socket long ago; without looking,
        the next call would be written into it and lost.
        """
        while not self._eof and select.select([self._sock], [], [], 0)[0]:
            self._read(time.monotonic() + 1)
        with contextlib.suppress(OSError):
            self._flush()  # pongs to the daemon's pings, sent while the socket sat idle
        return self._protocol.state is State.OPEN and not self._eof

    def send(self, text: str) -> None:
        """Send one text message; ConnectionClosed if the socket is closed."""
        if self._protocol.state is not State.OPEN:
            raise ConnectionClosed(None, None)
        self._protocol.send_text(text.encode())
        self._flush()

    def recv(self, timeout: float) -> str:
        """The next text message; TimeoutError after ``timeout`` s; ConnectionClosed."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self._protocol.events_received():
                if isinstance(event, Frame):
                    message = self._on_frame(event)
                    if message is not None:
                        return message
            self._flush()  # a pong, or the answer to a close
            if self._eof or self._protocol.state is State.CLOSED:
                raise ConnectionClosed(None, None)
            self._read(deadline)

    def close(self) -> None:
        """Close the socket. Safe to call twice."""
        if self._protocol.state is State.OPEN:
            self._protocol.send_close()
            with contextlib.suppress(OSError):  # the daemon is gone already
                self._flush()
        self._sock.close()

    def _on_frame(self, frame: Frame) -> str | None:
        # Text, and its continuations when the daemon fragments a message; control frames are
        # answered by the protocol itself.
        if frame.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            self._parts.append(bytes(frame.data))
            if frame.fin:
                data, self._parts = b"".join(self._parts), []
                return data.decode()
        return None

    def _read(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        self._sock.settimeout(remaining)
        try:
            data = self._sock.recv(_READ_SIZE)
        except TimeoutError:
            raise
        except OSError:
            data = b""  # reset by the peer: as good as closed
        if data:
            self._protocol.receive_data(data)
        else:
            self._eof = True
            self._protocol.receive_eof()

    def _flush(self) -> None:
        for data in self._protocol.data_to_send():
            if data:
                self._sock.sendall(data)
