"""What publishing one event costs a web process: the bus's own connection (realtime/shards.py)
against channels_redis's `group_send`, one message a batch as at a few hundred moves a second.

    .venv/bin/python bench/publish.py [--messages 5000] [--redis redis://127.0.0.1:6379/4] [--rounds 3]

Each way sends --messages messages one batch at a time to the Redis at --redis, waiting for each
reply, and prints this process's CPU per message (user + system, the round trip's own system calls
included) and the wall time per message, alternating the two ways --rounds times. Nothing follows the
group: the figures are the sender's alone. Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from channels_redis.pubsub import RedisPubSubChannelLayer  # noqa: E402

from realtime.shards import ShardPublisher  # noqa: E402

# An event's frame as games/events.py encodes it, in the bus's message.
MESSAGE = {
    "type": "bus.message",
    "group": "game.1",
    "kind": "event",
    "v": 12,
    "frame": '{"t": "event", "v": 12, "kind": "move", "move": [3, 1], "line": null, "piles": 40, '
    '"at": "2026-12-06T05:00:00.000Z", "result": null}',
    "data": None,
}
WARM_UP = 200


async def per_message(send: Callable[[], Awaitable[None]], messages: int) -> tuple[float, float]:
    """CPU and wall microseconds per message."""
    for _ in range(WARM_UP):
        await send()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(messages):
        await send()
    return (time.process_time() - cpu) / messages * 1e6, (time.perf_counter() - wall) / messages * 1e6


async def run(args: argparse.Namespace) -> None:
    layer = RedisPubSubChannelLayer(hosts=[{"address": args.redis}], prefix="bench-publish")
    publisher = ShardPublisher(layer)
    batch: list[tuple[str, dict[str, Any]]] = [("game.1", MESSAGE)]
    ways = {
        "channels_redis group_send": lambda: layer.group_send(*batch[0]),
        "bus's own connection": lambda: publisher.group_send_many(batch),
    }
    try:
        for round_number in range(1, args.rounds + 1):
            for name, send in ways.items():
                cpu, wall = await per_message(send, args.messages)
                print(f"round {round_number}  {name:26}  {cpu:6.1f} µs CPU  {wall:6.1f} µs wall  per message")
    finally:
        await publisher.close()
        await layer.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/4")
    parser.add_argument("--rounds", type=int, default=3)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
