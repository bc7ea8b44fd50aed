"""The channel layer on Redis, able to send many group messages in one round trip, and the bus's own
connections to send them on.

channels_redis's pub/sub layer sends each message with a PUBLISH of its own, one round trip each, and
each waits for a turn of a busy event loop: near capacity that chain, not the CPU, limits what a process
publishes (docs/performance.md, "Publishing in batches"). `group_send_many` sends everything queued as
one pipeline per shard; channels_redis has no batch send. `ShardPublisher` sends the bus's batches on a
connection per shard of its own, without the pool's checkout, health check and per-command timers. Both
lean on channels_redis's internals (the per-loop layer, its shards and their hosts), so pyproject.toml
pins the releases they are written against and tests/realtime/test_channel_layers.py sends through the
real Redis to catch a change.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer
from channels_redis.utils import _consistent_hash, create_pool
from redis.asyncio import Connection

GroupMessage = tuple[str, dict[str, Any]]

# A batch not answered within this long fails, and its connection with it (the next batch opens another):
# the connections have no socket timeout of their own, which would arm a timer for every command.
SEND_TIMEOUT_S = 5.0


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
            connection = self.connections.get(index) or self._connect(index, layer._shards[index].host)
            try:
                async with asyncio.timeout(SEND_TIMEOUT_S):
                    await connection.send_packed_command(connection.pack_commands(commands), check_health=False)
                    for _ in commands:
                        await connection.read_response()
            except BaseException:
                del self.connections[index]  # in an unknown state: replies may still be on their way
                await connection.disconnect(nowait=True)
                raise

    def _connect(self, index: int, host: dict[str, Any]) -> Connection:
        pool = create_pool(host)  # channels_redis's reading of a host: an address, host and port, a sentinel
        pool.connection_kwargs["socket_timeout"] = None
        connection: Connection = pool.make_connection()
        self.connections[index] = connection
        return connection

    async def close(self) -> None:
        connections, self.connections = list(self.connections.values()), {}
        for connection in connections:
            await connection.disconnect(nowait=True)


async def group_send_many(layer: Any, messages: Sequence[GroupMessage]) -> None:
    """Send the messages through `layer` (or the bus's `ShardPublisher`) in order: in batches where it
    can (on Redis), one by one where it cannot (the in-memory layer of the embedded default)."""
    if isinstance(layer, BatchingPubSubChannelLayer | ShardPublisher):
        await layer.group_send_many(messages)
        return
    for group, message in messages:
        await layer.group_send(group, message)
