"""The channel layer on Redis, able to send many group messages in one round trip.

channels_redis's pub/sub layer sends each message with a PUBLISH of its own, one round trip each, and
each waits for a turn of a busy event loop: near capacity that chain, not the CPU, limits what a process
publishes (docs/performance.md, "Publishing in batches"). `group_send_many` sends everything queued as
one pipeline per shard; channels_redis has no batch send. It leans on channels_redis's internals (the
per-loop layer, its shards and their Redis clients), so pyproject.toml pins the releases it is written
against and tests/realtime/test_channel_layers.py sends through the real Redis to catch a change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer

GroupMessage = tuple[str, dict[str, Any]]


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


async def group_send_many(layer: Any, messages: Sequence[GroupMessage]) -> None:
    """Send the messages through `layer` in order: in batches where it can (on Redis), one by one
    where it cannot (the in-memory layer of the embedded default)."""
    if isinstance(layer, BatchingPubSubChannelLayer):
        await layer.group_send_many(messages)
        return
    for group, message in messages:
        await layer.group_send(group, message)
