"""The bus's own Redis connections (realtime/shards.py) and the publisher that uses them
(realtime/bus.py): what goes out in one round trip arrives, in order, at every process that follows the
group; a connection Redis drops costs what was sent meanwhile and nothing after; a failed batch is
logged by name and publishing goes on."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any

import pytest
import redis
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from redis.asyncio import Redis

from games import events
from realtime import bus as bus_module
from realtime.bus import LayerLink, bus
from realtime.shards import ShardPublisher, ShardSubscriber

MESSAGES = 300


def redis_layer(url: str, prefix: str) -> RedisPubSubChannelLayer:
    return RedisPubSubChannelLayer(hosts=[{"address": url}], prefix=prefix)


async def heard(layer: Any, channel: str, count: int) -> list[dict[str, Any]]:
    return [await asyncio.wait_for(layer.receive(channel), timeout=5) for _ in range(count)]


async def taken(queue: asyncio.Queue[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    return [await asyncio.wait_for(queue.get(), timeout=5) for _ in range(count)]


async def test_a_batch_reaches_each_process_following_its_groups_in_order(redis_url: str) -> None:
    """Two subscribers stand for two processes, each following one of the groups; a publisher sends."""
    layer = redis_layer(redis_url, "test-batch")
    first_heard: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    second_heard: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    first, second = ShardSubscriber(layer, first_heard.put), ShardSubscriber(layer, second_heard.put)
    publisher = ShardPublisher(layer)
    try:
        await first.subscribe("game.1")
        await second.subscribe("game.2")
        messages = [(f"game.{1 + n % 2}", {"type": "game.event", "n": n}) for n in range(MESSAGES)]

        await publisher.group_send_many(messages)

        assert [m["n"] for m in await taken(first_heard, MESSAGES // 2)] == list(range(0, MESSAGES, 2))
        assert [m["n"] for m in await taken(second_heard, MESSAGES // 2)] == list(range(1, MESSAGES, 2))
    finally:
        for closing in (publisher, first, second):
            await closing.close()


async def test_the_bus_sender_fails_one_batch_when_redis_drops_its_connection_then_sends_on_a_new_one(
    redis_url: str,
) -> None:
    sender, follower = redis_layer(redis_url, "test-sender"), redis_layer(redis_url, "test-sender")
    publisher = ShardPublisher(sender)
    try:
        channel = await follower.new_channel()
        await follower.group_add("game.1", channel)
        await publisher.group_send_many([("game.1", {"type": "game.event", "n": 1})])
        (connection,) = publisher.connections.values()
        await connection.send_command("CLIENT", "ID")
        own_id = await connection.read_response()
        admin = Redis.from_url(redis_url)
        await admin.client_kill_filter(_id=own_id)
        await admin.aclose()

        with pytest.raises(redis.ConnectionError):
            await publisher.group_send_many([("game.1", {"type": "game.event", "n": 2})])
        await publisher.group_send_many([("game.1", {"type": "game.event", "n": 3})])

        assert [m["n"] for m in await heard(follower, channel, 2)] == [1, 3]
    finally:
        await publisher.close()
        for layer in (sender, follower):
            await layer.flush()


async def test_the_bus_follows_its_groups_again_once_redis_drops_its_subscribing_connection(redis_url: str) -> None:
    sender = redis_layer(redis_url, "test-follower")
    heard: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    subscriber = ShardSubscriber(sender, heard.put)
    try:
        await subscriber.subscribe("game.1")
        await sender.group_send("game.1", {"type": "game.event", "n": 1})  # as a process with no bus sends
        assert (await asyncio.wait_for(heard.get(), timeout=5))["n"] == 1
        (shard,) = subscriber.shards.values()
        dropped = shard.connection
        assert dropped is not None
        host, port = dropped._writer.get_extra_info("sockname")[:2]
        admin = Redis.from_url(redis_url)
        await admin.client_kill(f"{host}:{port}")
        await admin.aclose()

        # What is published while the bus subscribes again is lost; then every message arrives again.
        again = None
        for n in range(2, 200):
            await sender.group_send("game.1", {"type": "game.event", "n": n})
            with contextlib.suppress(TimeoutError):
                again = await asyncio.wait_for(heard.get(), timeout=0.05)
                break
        assert again is not None and shard.connection is not dropped
        await sender.group_send("game.1", {"type": "game.event", "n": 1000})
        assert (await asyncio.wait_for(heard.get(), timeout=5))["n"] == 1000
    finally:
        await subscriber.close()
        await sender.flush()


async def test_without_redis_the_messages_go_one_by_one_in_order() -> None:
    layer = InMemoryChannelLayer()
    channel = await layer.new_channel()
    await layer.group_add("game.1", channel)
    await LayerLink(layer).group_send_many([("game.1", {"type": "game.event", "n": n}) for n in range(5)])
    assert [m["n"] for m in await heard(layer, channel, 5)] == [0, 1, 2, 3, 4]


async def stop_publisher() -> None:
    await bus().stop()


def event(game: int, v: int) -> events.GameEventOut:
    return events.GameEventOut(game=game, v=v, kind="move", frame=f'{{"t": "event", "v": {v}}}', data={})


async def test_events_committed_faster_than_one_round_trip_each_all_arrive_in_order(
    redis_url: str, settings: Any
) -> None:
    """Committing threads hand events to the publisher faster than Redis answers one PUBLISH at a time;
    they queue and go out in batches, none lost, each game's in version order."""
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": redis_url}], "prefix": "test-publisher"},
        }
    }
    follower = redis_layer(redis_url, "test-publisher")
    channel = await follower.new_channel()
    for game in (1, 2):
        await follower.group_add(events.group_name(game), channel)
    bus()

    def commit_events() -> None:
        for v in range(1, MESSAGES + 1):
            events.publish(event(1 + v % 2, v))

    try:
        committer = threading.Thread(target=commit_events)
        committer.start()
        received = await heard(follower, channel, MESSAGES)
        committer.join()
    finally:
        await stop_publisher()
        await follower.flush()

    assert sorted(m["v"] for m in received) == list(range(1, MESSAGES + 1))
    for game in (1, 2):
        versions = [m["v"] for m in received if m["group"] == events.group_name(game)]
        assert versions == sorted(versions)


async def test_a_batch_that_cannot_be_sent_is_logged_by_name_and_the_next_one_goes_out(
    caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    sent: list[int] = []
    failing = True

    async def send_or_fail(layer: Any, batch: list[bus_module.Message]) -> None:
        if failing:
            raise ConnectionError("Redis is away")
        sent.extend(e.v for e in batch)

    bus()
    try:
        with pytest.MonkeyPatch.context() as patch, caplog.at_level(logging.ERROR, logger="realtime.bus"):
            patch.setattr(bus_module, "send", send_or_fail)
            events.publish(event(7, 3))
            await asyncio.sleep(0.05)
            failing = False
            events.publish(event(7, 4))
            await asyncio.sleep(0.05)
    finally:
        await stop_publisher()

    assert "could not be published: game.7 event v3" in caplog.text
    assert sent == [4]


@pytest.mark.parametrize("cancel_becomes", ["an error", "nothing"])
async def test_the_publisher_stops_when_cancelled_mid_send_whatever_the_library_makes_of_the_cancel(
    settings: Any, cancel_becomes: str
) -> None:
    """As redis-py can when giving a connection back fails while a cancel is on its way up: an error
    replaces the CancelledError (or nothing is raised at all). The publisher must still end, or
    `Bus.stop` waits for it forever."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    sending = asyncio.Event()

    async def send_then_fail_on_cancel(layer: Any, batch: list[bus_module.Message]) -> None:
        sending.set()
        try:
            await asyncio.Event().wait()  # a publish that has not been answered yet
        except asyncio.CancelledError:
            if cancel_becomes == "an error":
                raise ValueError("the connection is not in the pool") from None

    task = bus().publisher
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bus_module, "send", send_then_fail_on_cancel)
        events.publish(event(7, 3))
        await asyncio.wait_for(sending.wait(), timeout=5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=5)
