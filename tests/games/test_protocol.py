from __future__ import annotations

import pytest

from games import protocol
from realtime.protocol import MessageRate


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_allowed_then_messages_wait_for_the_rate():
    clock = FakeClock()
    rate = MessageRate(per_second=10, burst=5, clock=clock)
    assert [rate.allow() for _ in range(6)] == [True] * 5 + [False]
    clock.now += 0.1
    assert rate.allow() and not rate.allow()


def test_a_quiet_socket_gets_its_full_burst_back_but_no_more():
    clock = FakeClock()
    rate = MessageRate(per_second=10, burst=3, clock=clock)
    for _ in range(3):
        rate.allow()
    clock.now += 60
    assert [rate.allow() for _ in range(4)] == [True, True, True, False]


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (None, "binary"),
        ("x" * 2000, "too large"),
        ("{", "malformed"),
        ("[]", "object"),
        ('{"t": "move", "n": -1}', "'n'"),
    ],
)
def test_parse_names_what_is_wrong(frame, reason):
    with pytest.raises(protocol.ProtocolError) as caught:
        protocol.parse_client_message(frame)
    assert reason in caught.value.reason


def test_a_move_message_parses_into_a_typed_move():
    assert protocol.parse_client_message('{"t": "move", "move": [4, 1], "n": 7}') == protocol.MoveMessage(
        n=7, move=(4, 1)
    )
