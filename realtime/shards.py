"""The bus's own connections to the channel layer's Redis shards: on Redis the bus publishes and
subscribes here, not through channels_redis's client.

The publisher writes everything committed since its last send at once, one write per shard, and reads
the replies after: one PUBLISH per round trip caps the events a busy process can publish. The subscriber
keeps one connection per shard in subscribe mode and a task that hands each message to the bus as it
arrives. redis-py's pooled client and pub/sub object check, retry and arm a timer for every command and
message, and channels_redis queues each message once more: more CPU than the sends and reads themselves
(docs/performance.md, "The bus's own Redis connections"). The layer still names the shards, the group
channels and the serialization, from channels_redis's internals, so pyproject.toml pins the releases this
is written against and tests/realtime/test_shards.py goes through the real Redis to catch a change.
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
Hear = Callable[[dict[str, Any]], Awaitable[None]]

# A batch not answered within this long fails, and its connection with it (the next batch opens another):
# the connections have no socket timeout of their own, which would arm a timer for every command.
SEND_TIMEOUT_S = 5.0
# After Redis drops a subscribing connection (a restart), the first wait before subscribing again, and
# the longest between tries.
RESUBSCRIBE_S = (0.05, 1.0)


def _shard_of(layer: RedisPubSubChannelLayer, group: str) -> tuple[int, str, dict[str, Any]]:
    """The shard index, channel name and host of `group`, as channels_redis places it."""
    loop_layer = layer._get_layer()
    channel = loop_layer._get_group_channel_name(group)
    index = _consistent_hash(channel, len(loop_layer._shards))
    return index, channel, loop_layer._shards[index].host


def _connection(host: dict[str, Any], **options: Any) -> Connection:
    """A connection of the bus's own to a shard, without a socket timeout (see SEND_TIMEOUT_S)."""
    pool = create_pool(host)  # channels_redis's reading of a host: an address, host and port, a sentinel
    pool.connection_kwargs.update(socket_timeout=None, **options)
    connection: Connection = pool.make_connection()
    return connection


class ShardPublisher:
    """Sends each batch as one write per shard on that shard's connection, its replies read after."""

    def __init__(self, layer: RedisPubSubChannelLayer) -> None:
        self.layer = layer
        self.connections: dict[int, Connection] = {}  # shard index → its connection

    async def group_send_many(self, messages: Sequence[GroupMessage]) -> None:
        by_shard: dict[int, tuple[dict[str, Any], list[tuple[str, str, bytes]]]] = {}
        for group, message in messages:
            index, channel, host = _shard_of(self.layer, group)
            by_shard.setdefault(index, (host, []))[1].append(("PUBLISH", channel, self.layer.serialize(message)))
        for index, (host, commands) in by_shard.items():
            connection = self.connections.get(index)
            if connection is None:
                connection = self.connections[index] = _connection(host)
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


class ShardSubscriber:
    """Follows groups on one subscribing connection per shard. A message published while Redis had
    dropped the connection (a restart) is lost, as with any pub/sub, and sockets catch up by version;
    the shard's task connects again and subscribes to every group again."""

    def __init__(self, layer: RedisPubSubChannelLayer, hear: Hear) -> None:
        self.layer = layer
        self.hear = hear
        self.shards: dict[int, _Subscriptions] = {}

    def _shard(self, group: str) -> tuple[_Subscriptions, str]:
        index, channel, host = _shard_of(self.layer, group)
        shard = self.shards.get(index)
        if shard is None:
            shard = self.shards[index] = _Subscriptions(host, self._heard)
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
    """One shard's subscribing connection, the channels it follows, and the task that reads it."""

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
            command = self.connection.pack_command("UNSUBSCRIBE", channel)
            await self.connection.send_packed_command(command, check_health=False)

    async def _connected(self) -> Connection:
        """The connection, made and subscribed to every channel followed if there is none."""
        async with self.connecting:
            if self.connection is None:
                connection = _connection(self.host, protocol=2)  # messages as plain replies, not pushes
                try:
                    await connection.connect()
                    if self.channels:
                        command = connection.pack_command("SUBSCRIBE", *self.channels)
                        await connection.send_packed_command(command, check_health=False)
                except BaseException:
                    await connection.disconnect(nowait=True)
                    raise
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
                log_background_failure(logger, "bus: Redis dropped the subscriptions at %s", self.host)
                await self._reconnect(connection)
                continue
            if isinstance(reply, list) and reply[0] == b"message":
                try:
                    await self.heard(reply[2])
                except Exception:
                    raise_if_stopping()
                    logger.exception("bus: a message on %s could not be handed on", reply[1])

    async def _reconnect(self, lost: Connection) -> None:
        """Forget `lost` and wait until a new connection is subscribed, longer between each try."""
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
