"""The bus's fan-out (realtime/bus.py): every socket that follows a group gets each message, even when
another one of them is closing or broken. A closing socket is no error worth a log line: its
disconnect takes it out; anything else is logged, naming the event."""

from __future__ import annotations

import asyncio
import logging

import pytest
from autobahn.exception import Disconnected

from realtime.bus import Message, bus, send

GROUP = "game.5"


class Listening:
    def __init__(self) -> None:
        self.heard: list[int] = []
        self.got = asyncio.Event()

    async def hear(self, message: Message) -> None:
        self.heard.append(message.v)
        self.got.set()


class Closing:
    async def hear(self, message: Message) -> None:
        raise Disconnected("Attempt to send on a closed protocol")


class Broken:
    async def hear(self, message: Message) -> None:
        raise RuntimeError("a bug in one socket")


@pytest.mark.parametrize("other", [Closing, Broken])
async def test_a_closing_or_broken_socket_does_not_keep_an_event_from_the_others(
    other: type, caplog: pytest.LogCaptureFixture
) -> None:
    first, second = Listening(), Listening()
    for follower in (first, other(), second):
        await bus().subscribe(GROUP, follower)
    event = Message(GROUP, "event", 2, '{"t": "event", "v": 2}')

    with caplog.at_level(logging.WARNING):
        await send(bus().outlet, [event])
        await asyncio.wait_for(asyncio.gather(first.got.wait(), second.got.wait()), timeout=5)

    assert first.heard == second.heard == [2]
    problems = [record.getMessage() for record in caplog.records]
    if other is Closing:
        assert problems == []  # a socket on its way out is no error
    else:
        assert problems == [f"{GROUP}: event v2 was not delivered to a socket"]


async def test_many_sockets_on_one_game_share_one_subscription_and_each_hears_an_event_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However many tabs and watchers follow a game in a process, Redis (the channel layer without it)
    has one subscription for it and delivers each event to the process once."""
    inlet, joined, left = bus().inlet, [], []
    subscribe, unsubscribe = inlet.subscribe, inlet.unsubscribe

    async def counted_subscribe(group: str) -> None:
        joined.append(group)
        await subscribe(group)

    async def counted_unsubscribe(group: str) -> None:
        left.append(group)
        await unsubscribe(group)

    monkeypatch.setattr(inlet, "subscribe", counted_subscribe)
    monkeypatch.setattr(inlet, "unsubscribe", counted_unsubscribe)
    sockets = [Listening() for _ in range(5)]
    for socket in sockets:
        await bus().subscribe(GROUP, socket)

    await send(bus().outlet, [Message(GROUP, "event", 2, "{}")])
    await asyncio.wait_for(asyncio.gather(*(socket.got.wait() for socket in sockets)), timeout=5)

    assert joined == [GROUP] and bus().following(GROUP) == 5
    assert [socket.heard for socket in sockets] == [[2]] * 5
    for socket in sockets[:4]:
        await bus().unsubscribe(GROUP, socket)
    assert left == []  # one socket still follows
    await bus().unsubscribe(GROUP, sockets[4])
    assert left == [GROUP] and bus().following(GROUP) == 0
