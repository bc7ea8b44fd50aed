"""The shared cache under ASGI: the requests and sockets of a process reach Redis through one
connection pool, not one each (accordion_site/cache.py)."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
import redis
from asgiref.sync import sync_to_async
from django.core.cache import cache

SOCKETS = 60
# What a process may open at most: a connection per thread that reads the cache at the same time.
FEW_CONNECTIONS = 10


def connected_clients(url: str) -> int:
    with redis.Redis.from_url(url) as probe:
        return int(probe.info("clients")["connected_clients"]) - 1  # less the probe itself


async def test_open_sockets_that_read_the_cache_share_a_few_redis_connections(redis_url: str) -> None:
    """Each task stands for an open socket that read the cache on a database thread when it connected
    (as the watch socket reads the game's badge), in a fresh context as the server gives each
    connection: none has touched the cache before."""
    before = await sync_to_async(connected_clients)(redis_url)
    connected = 0
    all_connected = asyncio.Event()
    closing = asyncio.Event()

    async def socket(index: int) -> object:
        nonlocal connected
        found = await sync_to_async(cache.get, thread_sensitive=False)(f"test:badge:{index}")
        connected += 1
        if connected == SOCKETS:
            all_connected.set()
        await closing.wait()
        return found

    sockets = [asyncio.create_task(socket(index), context=contextvars.Context()) for index in range(SOCKETS)]
    await asyncio.wait_for(all_connected.wait(), timeout=30)
    while_open = await sync_to_async(connected_clients)(redis_url)
    closing.set()
    assert await asyncio.gather(*sockets) == [None] * SOCKETS
    assert while_open - before <= FEW_CONNECTIONS, f"{while_open - before} Redis connections for {SOCKETS} sockets"


@pytest.mark.usefixtures("redis_url")
def test_the_shared_client_still_reads_and_writes_the_cache() -> None:
    cache.set("test:shared", {"v": 3}, timeout=60)
    assert cache.get("test:shared") == {"v": 3}
    assert cache.add("test:shared", "other") is False
    cache.delete("test:shared")
    assert cache.get("test:shared") is None
