"""The channel layer on Redis, able to send many group messages in one round trip, and the bus's own
connections to its shards.

channels_redis's pub/sub layer sends each message with a PUBLISH of its own, one round trip each, and
each waits for a turn of a busy event loop: near capacity that chain, not the CPU, limits what a process
publishes (docs/performance.md, "Publishing in batches"). `group_send_many` sends everything queued as
one pipeline per shard; channels_redis has no batch send. The bus itself publishes and subscribes on
connections of its own, one of each per shard (`ShardPublisher`, `ShardSubscriber`): redis-py's pooled
pipeline and pub/sub object check, retry and arm a timer for every command and message, which costs a
busy process more than the sends and reads themselves. All of it leans on channels_redis's internals
(the per-loop layer, its shards, their hosts, its group names and serializer), so pyproject.toml pins
the releases it is written against and tests/realtime/test_channel_layers.py goes through the real
Redis to catch a change.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer
from channels_redis.utils import _consistent_hash, create_pool
from redis.asyncio import Connection

from accordion_site.errors import log_background_failure
from accordion_site.tasks import raise_if_stopping, stop_task

logger = logging.getLogger(__name__)

GroupMessage = tuple[str, dict[str, Any]]

# A batch not answered within this long fails, and its connection with it (the next batch opens another):
# the connections have no socket timeout of their own, which would arm a timer for every command.
SEND_TIMEOUT_S = 5.0
# After Redis drops a subscribing connection (a restart), tries to subscribe again this often at most.
RESUBSCRIBE_S = (0.05, 1.0)  # the first wait, and the longest


class BatchingPubSubChannelLayer(RedisPubSubChannelLayer):  # type: ignore[misc]
    async def group_send_many(self, messages: Sequence[GroupMessage]) -> None:
        """Send each (group, message) as `group_send` would, in order, in one round trip per shard."""
        layer = self._get_layer()
        by_shard: dict[Any, list[tuple[str, bytes]]] = {}
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            by_shard.setdefault(layer._get_shard(channel), []).append((channel, self.serialize(message)))
        for shard, published in by_shard.items():
            async with shard._lock:  # the shard makes its client on first use, under its lock
                shard._ensure_redis()
            async with shard._redis.pipeline(transaction=False) as pipeline:
                for channel, data in published:
                    pipeline.publish(channel, data)
                await pipeline.execute()


class ShardPublisher:
    """The bus's sender: each batch as one write per shard on that shard's connection, its replies read
    after. redis-py's pipeline checks a connection out of the pool, tests it and arms a timer per
    command, which costs a busy process more than the send itself (docs/performance.md)."""

    def __init__(self, layer: BatchingPubSubChannelLayer) -> None:
        self.layer = layer
        self.connections: dict[int, Connection] = {}  # shard index → its connection

    async def group_send_many(self, messages: Sequence[GroupMessage]) -> None:
        layer = self.layer._get_layer()
        by_shard: dict[int, list[tuple[str, str, bytes]]] = {}
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            index = _consistent_hash(channel, len(layer._shards))
            by_shard.setdefault(index, []).append(("PUBLISH", channel, self.layer.serialize(message)))
        for index, commands in by_shard.items():
            connection = self.connections.get(index)
            if connection is None:
                connection = self.connections[index] = _connection(layer._shards[index].host)
            try:
                async with asyncio.timeout(SEND_TIMEOUT_S):
                    await connection.send_packed_command(connection.pack_commands(commands), check_health=False)
                    for _ in commands:
                        await connection.read_response()
            except BaseException:
                del self.connections[index]  # in an unknown state: replies may still be on their way
                await connection.disconnect(nowait=True)
                raise

    async def close(self) -> None:
        connections, self.connections = list(self.connections.values()), {}
        for connection in connections:
            await connection.disconnect(nowait=True)


Hear = Callable[[dict[str, Any]], Awaitable[None]]


class ShardSubscriber:
    """The bus's subscriptions to group channels: per shard, one connection in subscribe mode and a task
    that reads it, handing each message to `hear` as it arrives, with no queue in between. A message
    published while Redis had dropped the connection (a restart) is lost, as with any pub/sub: sockets
    catch up by version; the task connects again and subscribes to every group again."""

    def __init__(self, layer: BatchingPubSubChannelLayer, hear: Hear) -> None:
        self.layer = layer
        self.hear = hear
        self.shards: dict[int, _Subscriptions] = {}

    def _shard(self, group: str) -> tuple[_Subscriptions, str]:
        layer = self.layer._get_layer()
        channel = layer._get_group_channel_name(group)
        index = _consistent_hash(channel, len(layer._shards))
        shard = self.shards.get(index)
        if shard is None:
            shard = self.shards[index] = _Subscriptions(layer._shards[index].host, self._heard)
        return shard, channel

    async def subscribe(self, group: str) -> None:
        """Subscribed once this returns; a Redis out of reach raises (the socket is told to try again)."""
        shard, channel = self._shard(group)
        await shard.subscribe(channel)

    async def unsubscribe(self, group: str) -> None:
        shard, channel = self._shard(group)
        await shard.unsubscribe(channel)

    async def _heard(self, data: bytes) -> None:
        await self.hear(self.layer.deserialize(data))

    async def close(self) -> None:
        for shard in self.shards.values():
            await shard.close()
        self.shards.clear()


class _Subscriptions:
    """One shard's subscribing connection, the channels it is to follow, and the task that reads it."""

    def __init__(self, host: dict[str, Any], heard: Callable[[bytes], Awaitable[None]]) -> None:
        self.host = host
        self.heard = heard
        self.channels: set[str] = set()
        self.connection: Connection | None = None
        self.connecting = asyncio.Lock()
        self.reader: asyncio.Task[None] | None = None

    async def subscribe(self, channel: str) -> None:
        connection = await self._connected()
        await connection.send_packed_command(connection.pack_command("SUBSCRIBE", channel), check_health=False)
        self.channels.add(channel)

    async def unsubscribe(self, channel: str) -> None:
        self.channels.discard(channel)
        if self.connection is not None:
            await self.connection.send_packed_command(
                self.connection.pack_command("UNSUBSCRIBE", channel), check_health=False
            )

    async def _connected(self) -> Connection:
        """The connection, made (and subscribed to every channel followed) if Redis had dropped it."""
        async with self.connecting:
            if self.connection is None:
                connection = _connection(self.host, protocol=2)  # messages as plain replies, not pushes
                await connection.connect()
                if self.channels:
                    command = connection.pack_command("SUBSCRIBE", *self.channels)
                    await connection.send_packed_command(command, check_health=False)
                self.connection = connection
            if self.reader is None:
                self.reader = asyncio.get_running_loop().create_task(self._read())
            return self.connection

    async def _read(self) -> None:
        while True:
            connection = self.connection or await self._connected()
            try:
                reply = await connection.read_response()
            except Exception:
                raise_if_stopping()
                log_background_failure(logger, "bus: Redis dropped the subscriptions at %s", connection)
                await self._reconnect(connection)
                continue
            if isinstance(reply, list) and reply[0] == b"message":
                try:
                    await self.heard(reply[2])
                except Exception:
                    raise_if_stopping()
                    logger.exception("bus: a message on %s could not be handed on", reply[1])

    async def _reconnect(self, lost: Connection) -> None:
        """Forget `lost` and wait until a new connection is subscribed, waiting longer between tries."""
        if self.connection is lost:
            self.connection = None
        await lost.disconnect(nowait=True)
        wait, longest = RESUBSCRIBE_S
        while True:
            await asyncio.sleep(wait)
            try:
                await self._connected()
                return
            except Exception:
                raise_if_stopping()
                log_background_failure(logger, "bus: cannot subscribe again at %s yet", self.host)
                wait = min(2 * wait, longest)

    async def close(self) -> None:
        if self.reader is not None:
            await stop_task(self.reader)
            self.reader = None
        if self.connection is not None:
            await self.connection.disconnect(nowait=True)
            self.connection = None


def _connection(host: dict[str, Any], **options: Any) -> Connection:
    """A connection of the bus's own to a shard, without a socket timeout (see SEND_TIMEOUT_S)."""
    pool = create_pool(host)  # channels_redis's reading of a host: an address, host and port, a sentinel
    pool.connection_kwargs.update(socket_timeout=None, **options)
    connection: Connection = pool.make_connection()
    return connection


async def group_send_many(layer: Any, messages: Sequence[GroupMessage]) -> None:
    """Send the messages through `layer` (or the bus's `ShardPublisher`) in order: in batches where it
    can (on Redis), one by one where it cannot (the in-memory layer of the embedded default)."""
    if isinstance(layer, BatchingPubSubChannelLayer | ShardPublisher):
        await layer.group_send_many(messages)
        return
    for group, message in messages:
        await layer.group_send(group, message)
