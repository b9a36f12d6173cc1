"""The frame gate of the callers' socket, on its own: whatever the stream of frames and wherever
the reads cut it, the WebSocket parser behind the gate gets exactly the messages within the limit,
and each message past it is replaced by its first bytes, in order."""

from __future__ import annotations

import random

import pytest
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol

from tabpilot.http.frame_gate import HEAD_BYTES, FrameGate, Oversized

LIMIT = 1000

#: A message as a test builds it: its opcode and the payload of each of its frames.
Message = tuple[Opcode, list[bytes]]


def _frames(message: Message, rng: random.Random) -> bytes:
    opcode, parts = message
    out = b""
    for i, part in enumerate(parts):
        out += Frame(opcode if i == 0 else Opcode.CONT, part, i == len(parts) - 1).serialize(
            mask=True, extensions=[]
        )
        if i < len(parts) - 1 and rng.random() < 0.3:  # a ping between fragments is allowed
            out += Frame(Opcode.PING, b"p").serialize(mask=True, extensions=[])
    return out


def _random_message(rng: random.Random) -> Message:
    opcode = rng.choice([Opcode.TEXT, Opcode.BINARY])
    size = rng.choice([0, 1, 125, 126, 200, LIMIT, LIMIT + 1, 5 * LIMIT, 70_000])
    payload = bytes(rng.getrandbits(8) for _ in range(min(size, 64))) * (size // 64 + 1)
    payload = payload[:size]
    if rng.random() < 0.5 or not payload:
        return opcode, [payload]
    cuts = sorted(rng.sample(range(len(payload) + 1), min(len(payload) + 1, rng.randint(1, 4))))
    return opcode, [payload[a:b] for a, b in zip([0, *cuts], [*cuts, len(payload)], strict=True)]


def _through_gate(stream: bytes, cuts: list[int]) -> list[tuple[str, bytes]]:
    """What comes out: ("message", data) as the parser read it, ("oversized", first bytes)."""
    gate = FrameGate(LIMIT)
    parser = ServerProtocol(state=State.OPEN, max_size=LIMIT)
    out: list[tuple[str, bytes]] = []
    pending: list[bytes] = []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        for piece in gate.feed(stream[a:b]):
            if isinstance(piece, Oversized):
                out.append(("oversized", bytes(piece)))
                continue
            parser.receive_data(piece)
            assert parser.parser_exc is None, parser.parser_exc
            for event in parser.events_received():
                assert isinstance(event, Frame)
                if event.opcode in (Opcode.PING, Opcode.PONG):
                    continue
                pending.append(bytes(event.data))
                if event.fin:
                    out.append(("message", b"".join(pending)))
                    pending = []
    return out


@pytest.mark.parametrize("seed", range(40))
def test_any_stream_cut_anywhere(seed: int) -> None:
    rng = random.Random(seed)
    messages = [_random_message(rng) for _ in range(rng.randint(1, 12))]
    stream = b"".join(_frames(m, rng) for m in messages)
    expected = []
    for _, parts in messages:
        data = b"".join(parts)
        if len(data) <= LIMIT:
            expected.append(("message", data))
        else:
            expected.append(("oversized", parts[0][:HEAD_BYTES]))
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(stream)), min(len(stream) - 1, rng.randint(0, 30))))
        assert _through_gate(stream, cuts) == expected


def test_bytes_within_the_limit_pass_as_they_are() -> None:
    """The common case, a read of whole small frames, costs no copy."""
    data = Frame(Opcode.TEXT, b'{"type": "call"}').serialize(mask=True, extensions=[]) * 3
    out = FrameGate(LIMIT).feed(data)
    assert len(out) == 1 and out[0] is data


def test_a_huge_frame_is_never_held() -> None:
    gate = FrameGate(LIMIT)
    size = 50 * LIMIT
    header = Frame(Opcode.TEXT, b"x" * size).serialize(mask=True, extensions=[])[:-size]
    assert gate.feed(header) == []
    for _ in range(49):
        assert gate.feed(b"\0" * LIMIT) == []
    (oversized,) = gate.feed(b"\0" * LIMIT)
    assert isinstance(oversized, Oversized) and len(oversized) == HEAD_BYTES


def test_a_new_message_inside_a_held_one_reaches_the_parser_which_closes() -> None:
    gate = FrameGate(LIMIT)
    parser = ServerProtocol(state=State.OPEN, max_size=LIMIT)
    start = Frame(Opcode.TEXT, b"ab", fin=False).serialize(mask=True, extensions=[])
    again = Frame(Opcode.TEXT, b"cd").serialize(mask=True, extensions=[])
    for piece in gate.feed(start + again):
        parser.receive_data(piece)
    assert parser.parser_exc is not None
    assert "expected a continuation frame" in str(parser.parser_exc)
