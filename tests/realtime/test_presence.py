"""Presence in Redis (realtime/presence.py): sockets of several processes add up, one that leaves is
away from then on, and the sockets of a process that stops renewing leave by expiry alone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection, Iterator, Mapping

import pytest
import redis

from accordion_site.tasks import stop_task
from realtime import presence
from realtime.presence import TTL_S, LocalStore, Presence, RedisStore, Seen

GROUP = "game.17"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(redis_url: str, clock: Clock) -> Iterator[RedisStore]:
    client = redis.Redis.from_url(redis_url)
    yield RedisStore(client, prefix="test-presence", clock=clock)
    for key in client.scan_iter("test-presence:*"):
        client.delete(key)


def test_sockets_of_two_processes_add_up(store, clock):
    store.write({(GROUP, "watcher"): {"one.1": clock.now + TTL_S, "one.2": clock.now + TTL_S}})
    store.write(
        {(GROUP, "watcher"): {"two.1": clock.now + TTL_S}, ("game.18", "watcher"): {"two.2": clock.now + TTL_S}}
    )

    found = store.seen_many({group: ["watcher"] for group in (GROUP, "game.18", "game.19")})
    assert {group: seen["watcher"].present for group, seen in found.items()} == {GROUP: 3, "game.18": 1, "game.19": 0}


def test_a_socket_that_leaves_is_away_since_it_left(store, clock):
    store.write({(GROUP, "player:5"): {"one.1": clock.now + TTL_S}})
    store.write({(GROUP, "player:5"): {"one.1": clock.now}})

    [seen] = store.seen(GROUP, ["player:5"]).values()
    assert (seen.present, seen.last_seen) == (0, clock.now)
    assert store.seen(GROUP, ["player:6"])["player:6"].last_seen is None  # never came


def test_a_process_that_stops_renewing_stops_counting(store, clock):
    store.write({(GROUP, "watcher"): {"one.1": clock.now + TTL_S, "two.1": clock.now + TTL_S}})
    clock.now += TTL_S / 2
    store.write({(GROUP, "watcher"): {"two.1": clock.now + TTL_S}})  # two renews, one is dead

    clock.now += TTL_S / 2 + 0.1  # past one's expiry, not two's

    assert store.seen(GROUP, ["watcher"])["watcher"].present == 1


class CountingStore(LocalStore):
    """The in-memory store, keeping which groups each read asked about."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[list[str]] = []

    def seen_many(self, asked: Mapping[str, Collection[str]]) -> dict[str, dict[str, Seen]]:
        self.asked.append(sorted(asked))
        return super().seen_many(asked)


class FollowingBus:
    """What presence needs of the process's bus: the groups it follows, and a loop."""

    def __init__(self, groups: list[str]) -> None:
        self.loop = asyncio.get_running_loop()
        self.listeners = {group: {object()} for group in groups}

    def following(self, group: str) -> bool:
        return group in self.listeners

    def put(self, message: object) -> None:
        pass


async def test_renewals_look_again_where_anyone_was_counted_and_see_them_expire(monkeypatch):
    found = CountingStore()
    monkeypatch.setattr(presence, "store", lambda: found)
    monkeypatch.setattr(presence, "REFRESH_S", 0.02)
    told: list[tuple[str, dict[str, int]]] = []

    async def handler(group: str, counts: dict[str, int]) -> None:
        told.append((group, counts))

    watching = Presence(FollowingBus(["game.1", "game.2"]))  # type: ignore[arg-type]
    watching.watch("game.", lambda group: ["watcher"], handler)
    # Another process's watcher of game 1, whose process dies: its entry is not renewed.
    found.write({("game.1", "watcher"): {"other.1": time.time() + 0.2}})
    renewing = asyncio.get_running_loop().create_task(watching._renew())
    async with asyncio.timeout(5):
        while len(told) < 2:  # the watcher, then its expiry
            await asyncio.sleep(0.02)
    reads = len(found.asked)
    await asyncio.sleep(0.2)  # ten renewals more, with nobody counted anywhere
    await stop_task(renewing)

    assert told == [("game.1", {"watcher": 1}), ("game.1", {"watcher": 0})]
    assert found.asked[0] == ["game.1", "game.2"]  # the first look, at both
    assert all(asked == ["game.1"] for asked in found.asked[1:])
    assert len(found.asked) == reads


async def test_a_renewal_looks_for_whoever_a_group_follows_since_the_last_look(monkeypatch):
    found = CountingStore()
    monkeypatch.setattr(presence, "store", lambda: found)
    monkeypatch.setattr(presence, "REFRESH_S", 0.02)
    racers: list[str] = []  # a room's racers, as its relay knows them: none yet
    told: list[dict[str, int]] = []

    async def handler(group: str, counts: dict[str, int]) -> None:
        told.append(counts)

    rooms = Presence(FollowingBus(["race.K7QD2M"]))  # type: ignore[arg-type]
    rooms.watch("race.", lambda group: racers, handler)
    renewing = asyncio.get_running_loop().create_task(rooms._renew())
    async with asyncio.timeout(5):
        while not found.asked:
            await asyncio.sleep(0.02)
        # A racer seated meanwhile, whose socket is on a process that dies (its arrival news already gone).
        found.write({("race.K7QD2M", "player:2"): {"other.1": time.time() + 0.2}})
        racers.append("player:2")
        while len(told) < 2:
            await asyncio.sleep(0.02)
    await stop_task(renewing)

    assert told == [{"player:2": 1}, {"player:2": 0}]
