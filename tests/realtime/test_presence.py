"""Presence in Redis (realtime/presence.py): sockets of several processes add up, one that leaves is
away from then on, and the sockets of a process that stops renewing leave by expiry alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from realtime.presence import TTL_S, RedisStore

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
