"""The hub's fan-out (games/hub.py): every socket that follows a game gets each event, even when
another one of them is closing or broken. A closing socket is no error worth a log line: its
disconnect takes it out; anything else is logged, naming the event."""

from __future__ import annotations

import asyncio
import logging

import pytest
from autobahn.exception import Disconnected
from channels.layers import get_channel_layer

from games import events
from games.hub import hub

GAME = 5


class Listening:
    def __init__(self) -> None:
        self.heard: list[int] = []
        self.got = asyncio.Event()

    async def deliver_event(self, v: int, frame: str) -> None:
        self.heard.append(v)
        self.got.set()


class Closing:
    async def deliver_event(self, v: int, frame: str) -> None:
        raise Disconnected("Attempt to send on a closed protocol")


class Broken:
    async def deliver_event(self, v: int, frame: str) -> None:
        raise RuntimeError("a bug in one socket")


@pytest.mark.parametrize("other", [Closing, Broken])
async def test_a_closing_or_broken_socket_does_not_keep_an_event_from_the_others(
    other: type, caplog: pytest.LogCaptureFixture
) -> None:
    first, second = Listening(), Listening()
    for follower in (first, other(), second):
        await hub().follow(GAME, follower)
    event = events.GameEventOut(game=GAME, v=2, kind="move", frame='{"t": "event", "v": 2}')

    with caplog.at_level(logging.WARNING):
        await events.send_to_layer(get_channel_layer(), [event])
        await asyncio.wait_for(asyncio.gather(first.got.wait(), second.got.wait()), timeout=5)

    assert first.heard == second.heard == [2]
    problems = [record.getMessage() for record in caplog.records]
    if other is Closing:
        assert problems == []  # a socket on its way out is no error
    else:
        assert problems == [f"game {GAME}: event v2 was not delivered to a socket"]


async def test_many_sockets_on_one_game_share_one_subscription_and_each_hears_an_event_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However many tabs and watchers follow a game in a process, the channel layer (Redis in production)
    has one subscription for it and delivers each event to the process once."""
    layer, joined, left = hub().layer, [], []
    group_add, group_discard = layer.group_add, layer.group_discard

    async def counted_add(group: str, channel: str) -> None:
        joined.append(group)
        await group_add(group, channel)

    async def counted_discard(group: str, channel: str) -> None:
        left.append(group)
        await group_discard(group, channel)

    monkeypatch.setattr(layer, "group_add", counted_add)
    monkeypatch.setattr(layer, "group_discard", counted_discard)
    sockets = [Listening() for _ in range(5)]
    for socket in sockets:
        await hub().follow(GAME, socket)

    await events.send_to_layer(layer, [events.GameEventOut(game=GAME, v=2, kind="move", frame="{}")])
    await asyncio.wait_for(asyncio.gather(*(socket.got.wait() for socket in sockets)), timeout=5)

    assert joined == [events.group_name(GAME)] and hub().following(GAME) == 5
    assert [socket.heard for socket in sockets] == [[2]] * 5
    for socket in sockets[:4]:
        await hub().unfollow(GAME, socket)
    assert left == []  # one socket still follows
    await hub().unfollow(GAME, sockets[4])
    assert left == [events.group_name(GAME)] and hub().following(GAME) == 0
