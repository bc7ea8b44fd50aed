"""The cheaper unmasking autobahn gets in a web process (realtime/frame_costs.py) reads every frame as
autobahn's own masker does, whole or in pieces."""

from __future__ import annotations

import random

import pytest

from realtime import frame_costs
from realtime.frame_costs import XorMasker


def reference(mask: bytes, data: bytes, start: int = 0) -> bytes:
    return bytes(byte ^ mask[(start + index) & 3] for index, byte in enumerate(data))


@pytest.mark.parametrize("size", [0, 1, 3, 4, 5, 40, 127, 128, 1000, 70_000])
def test_a_payload_is_unmasked_as_the_protocol_says(size: int) -> None:
    rng = random.Random(size)
    mask, data = rng.randbytes(4), rng.randbytes(size)
    masker = XorMasker(mask, size)
    assert masker.process(data) == reference(mask, data)
    assert masker.pointer() == size


def test_a_payload_arriving_in_pieces_is_unmasked_from_where_the_last_piece_ended() -> None:
    rng = random.Random(7)
    mask, data = rng.randbytes(4), rng.randbytes(301)
    masker = XorMasker(mask, len(data))
    pieces, at = [], 0
    for size in (1, 2, 7, 64, 3, 224):
        pieces.append(masker.process(data[at : at + size]))
        at += size
    assert b"".join(pieces) == reference(mask, data)
    masker.reset()
    assert masker.pointer() == 0
    assert masker.process(data[:9]) == reference(mask, data[:9])


def test_a_masked_text_message_from_a_client_reads_back() -> None:
    frame_costs.install()
    from autobahn.websocket import protocol

    message = b'{"t": "move", "move": [12, 3], "n": 57}'
    mask = b"\x9a\x01\xff\x10"
    masker = protocol.create_xor_masker(mask, len(message))
    assert masker.process(reference(mask, message)) == message
