"""Watcher counts a player and the live list can trust: the player and the watchers hear how many are
watching, counts from several processes add up, a process that dies stops counting, and closed
sockets — a thousand at once included — leave nothing behind."""

from __future__ import annotations

import asyncio
import gc
import random

import pytest
from django.conf import settings

from games import events
from games.watching.consumers import WatchConsumer
from games.watching.runtime import watching as watching_runtime
from games.watching.selectors import crowd_totals
from realtime.bus import running_bus
from realtime.presence import presence

from ..sockets import game_socket
from .sockets import CONNECT_S, count_heard, counted, heard, last_count, watching

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("quick_counts")]


async def test_the_player_hears_when_someone_starts_and_stops_watching(playing_game, player, watcher):
    tab = await game_socket(playing_game.pk, player, v=1)
    assert (await tab.connect())[0]

    socket = await watching(playing_game, watcher)
    await count_heard(tab, 1)
    await socket.disconnect()

    await count_heard(tab, 0)
    await tab.disconnect()


async def test_a_player_who_opens_the_game_while_watched_is_told_the_count_at_once(playing_game, player, watcher):
    socket = await watching(playing_game, watcher)
    await count_heard(socket, 1)

    tab = await game_socket(playing_game.pk, player, v=1)
    assert (await tab.connect())[0]

    assert await tab.receive_json_from(timeout=5) == {"t": "crowd", "watchers": 1}
    await tab.disconnect()
    await socket.disconnect()


async def test_watchers_hear_each_other_come(playing_game, watcher, other_player):
    first = await watching(playing_game, watcher)
    await count_heard(first, 1)

    second = await watching(playing_game, other_player)

    await count_heard(first, 2)
    await count_heard(second, 2)
    await first.disconnect()
    await second.disconnect()


async def test_counts_stay_right_while_hundreds_come_and_go(playing_game):
    rng = random.Random(7)
    open_sockets = []
    for _ in range(6):
        open_sockets.extend(await asyncio.gather(*(counted(playing_game, None) for _ in range(50))))
        rng.shuffle(open_sockets)
        leaving, open_sockets = open_sockets[:30], open_sockets[30:]
        await asyncio.gather(*(socket.disconnect(timeout=CONNECT_S) for socket in leaving))

    assert len(open_sockets) == 120
    assert await last_count(open_sockets[-1]) == 120
    assert crowd_totals([playing_game.pk]) == {playing_game.pk: 120}
    await asyncio.gather(*(socket.disconnect(timeout=CONNECT_S) for socket in open_sockets))


async def test_a_thousand_watchers_leaving_at_once_leave_nothing_behind(playing_game, player):
    tab = await game_socket(playing_game.pk, player, v=1)
    assert (await tab.connect())[0]
    sockets = []
    for _ in range(10):
        sockets.extend(await asyncio.gather(*(counted(playing_game, None) for _ in range(100))))
    await count_heard(tab, 1000, timeout=30)

    await asyncio.gather(*(socket.disconnect(timeout=CONNECT_S) for socket in sockets))

    await count_heard(tab, 0, timeout=30)
    runtime = await watching_runtime()
    await asyncio.gather(*runtime.closing)
    assert runtime.audiences == {} and (await presence()).entries == {}
    assert crowd_totals([playing_game.pk]) == {playing_game.pk: 0}
    bus = running_bus()
    group = events.group_name(playing_game.pk)
    assert bus is not None and set(bus.listeners) - {"presence"} == {group} and bus.following(group) == 1
    assert subscribed_to(bus, group)  # the player's tab still follows the game
    del sockets
    gc.collect()
    assert not [thing for thing in gc.get_objects() if type(thing) is WatchConsumer]
    await tab.disconnect()
    assert set(bus.listeners) == {"presence"}
    assert not subscribed_to(bus, group)


def subscribed_to(bus, group: str) -> bool:
    """Whether this process's bus still follows the group: on Redis, its subscriptions; else the layer's."""
    if settings.REDIS_URL:
        shard, channel = bus.inlet._shard(group)
        return channel in shard.channels
    return group in bus.inlet.layer.groups


async def test_a_watchers_first_count_includes_itself_once_the_count_is_written(playing_game, watcher):
    socket = await watching(playing_game, watcher)
    assert (await heard(socket, "state"))["v"] == 1
    await count_heard(socket, 1)
    await socket.disconnect()
