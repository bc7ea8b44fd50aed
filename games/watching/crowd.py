"""How many are watching each game, across every web process.

Each process counts its own watcher sockets per game in memory — exactly, since it sees every
connect and disconnect — and writes those counts, as absolute numbers, to a store every process can
read; a game's count is the sum over the processes still alive.

- With Redis: one hash per process (`<prefix>:watchers:<process>`, game → count) and a sorted set of
  the processes (`<prefix>:watchers`) scored by when their counts expire, both renewed by a heartbeat.
  A count of zero deletes its field, so closed sockets leave nothing behind; a process that dies stops
  counting once its entry expires (EXPIRY_S), and its hash expires with it.
- Without Redis (`make run`: one process, in-memory channel layer) the store is this process's memory.

After writing, a process announces the games it changed to every process (the `watch.crowd` group);
each re-reads the totals of the games its sockets follow and tells those sockets the new count if it
changed. Re-reading on receipt, rather than trusting a number in the announcement, keeps the last word
right whatever order announcements from different processes arrive in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, Protocol

import redis
from django.conf import settings

from accordion_site.errors import log_background_failure
from games import events
from realtime.bus import Bus, Message

from . import protocol

logger = logging.getLogger(__name__)

# A process writes the counts that changed at most this often (a burst of connects is one write).
FLUSH_S = 0.5
# A process renews its counts this often, and they stop counting this long after the last renewal.
HEARTBEAT_S = 10.0
EXPIRY_S = 30.0

# Every process hears every announcement: the group.
CROWD_GROUP = "watch.crowd"


class CrowdStore(Protocol):
    def write(self, counts: Mapping[int, int]) -> None:
        """Store this process's watcher counts for these games (0: none left here); this process is
        alive, so its counts keep counting."""

    def totals(self, game_ids: Collection[int]) -> dict[int, int]:
        """Each game's watchers over every live process."""

    def forget(self) -> None:
        """This process stops: drop its counts."""


class RedisCrowdStore:
    def __init__(
        self,
        client: redis.Redis,
        *,
        prefix: str,
        process: str,
        expiry: float = EXPIRY_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.process = process
        self.expiry = expiry
        self.clock = clock
        self.processes_key = f"{prefix}:watchers"

    def counts_key(self, process: str) -> str:
        return f"{self.prefix}:watchers:{process}"

    def write(self, counts: Mapping[int, int]) -> None:
        present = {game: count for game, count in counts.items() if count > 0}
        absent = [game for game, count in counts.items() if count <= 0]
        pipe = self.client.pipeline(transaction=False)
        if present:
            pipe.hset(self.counts_key(self.process), mapping=present)  # type: ignore[arg-type]
        if absent:
            pipe.hdel(self.counts_key(self.process), *absent)  # type: ignore[arg-type]
        pipe.zadd(self.processes_key, {self.process: self.clock() + self.expiry})
        pipe.expire(self.counts_key(self.process), math.ceil(self.expiry))
        pipe.execute()

    def totals(self, game_ids: Collection[int]) -> dict[int, int]:
        totals = dict.fromkeys(game_ids, 0)
        if not totals:
            return totals
        now = self.clock()
        self.client.zremrangebyscore(self.processes_key, "-inf", now)
        live: list[bytes] = self.client.zrangebyscore(self.processes_key, now, "+inf")  # type: ignore[assignment]
        processes = [name.decode() for name in live]
        pipe = self.client.pipeline(transaction=False)
        ids = list(totals)
        for process in processes:
            pipe.hmget(self.counts_key(process), ids)
        for counts in pipe.execute():
            for game, count in zip(ids, counts, strict=True):
                if count is not None:
                    totals[game] += int(count)
        return totals

    def forget(self) -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.delete(self.counts_key(self.process))
        pipe.zrem(self.processes_key, self.process)
        pipe.execute()


class LocalCrowdStore:
    """One process and no Redis: the counts are this process's own."""

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}
        self.lock = threading.Lock()

    def write(self, counts: Mapping[int, int]) -> None:
        with self.lock:
            for game, count in counts.items():
                if count > 0:
                    self.counts[game] = count
                else:
                    self.counts.pop(game, None)

    def totals(self, game_ids: Collection[int]) -> dict[int, int]:
        with self.lock:
            return {game: self.counts.get(game, 0) for game in game_ids}

    def forget(self) -> None:
        with self.lock:
            self.counts.clear()


_clients_lock = threading.Lock()
_clients: dict[str, redis.Redis] = {}
_local = LocalCrowdStore()


def _redis(url: str) -> redis.Redis:
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = _clients[url] = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        return client


def crowd_store(*, process: str) -> CrowdStore:
    """The store of watcher counts: Redis when the site has it (every process shares it), else memory."""
    if not settings.REDIS_URL:
        return _local
    layer: dict[str, Any] = settings.CHANNEL_LAYERS["default"]
    prefix = layer.get("CONFIG", {}).get("prefix", "accordion")
    return RedisCrowdStore(_redis(settings.REDIS_URL), prefix=prefix, process=process)


def crowd_totals(game_ids: Collection[int]) -> dict[int, int]:
    """Each game's watchers over every process (for reads outside the sockets: the live list)."""
    return crowd_store(process="reader").totals(game_ids)


class Crowd:
    """This process's side of the counts: counts its watcher sockets, writes them, and tells the local
    sockets following a game (the player's and the watchers') when the game's count changes."""

    def __init__(self, bus: Bus, store: CrowdStore) -> None:
        self.bus = bus
        self.store = store
        self.local: Counter[int] = Counter()
        self.changed: set[int] = set()
        self.to_retell: set[int] = set()
        # The count last told to this process's sockets, per game they follow.
        self.told: dict[int, int] = {}
        self.wake_writer = asyncio.Event()
        self.wake_reteller = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        self.stopping = False

    async def start(self) -> None:
        await self.bus.subscribe(CROWD_GROUP, self)
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._write_changes()), loop.create_task(self._retell_changes())]

    async def stop(self) -> None:
        # The loops also end on their own once woken: a cancellation that races a wake-up can be lost.
        self.stopping = True
        self.wake_writer.set()
        self.wake_reteller.set()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.to_thread(self.store.forget)

    def add(self, game_id: int) -> None:
        self.local[game_id] += 1
        self._changed(game_id)

    def remove(self, game_id: int) -> None:
        self.local[game_id] -= 1
        if self.local[game_id] <= 0:
            del self.local[game_id]
        self._changed(game_id)

    async def total(self, game_id: int) -> int:
        """The game's count as the store has it now (for a socket that has just arrived)."""
        totals = await asyncio.to_thread(self.store.totals, [game_id])
        return totals[game_id]

    def _changed(self, game_id: int) -> None:
        self.changed.add(game_id)
        self.wake_writer.set()

    async def _write_changes(self) -> None:
        loop = asyncio.get_running_loop()
        renew_at = loop.time() + HEARTBEAT_S
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, renew_at - loop.time())):
                    await self.wake_writer.wait()
            if self.stopping:
                return
            try:
                if self.changed:
                    await self._write()
                    await asyncio.sleep(FLUSH_S)  # what changes meanwhile goes in the next write
                if loop.time() >= renew_at:
                    # All of this process's counts, not only a renewal: they come back after a
                    # Redis restart too.
                    await asyncio.to_thread(self.store.write, dict(self.local))
                    renew_at = loop.time() + HEARTBEAT_S
                    # A process that died stops counting without announcing it: look again.
                    self._retell(self.told)
            except Exception:
                log_background_failure(logger, "watcher counts could not be written; trying again")
                await asyncio.sleep(FLUSH_S)

    async def _write(self) -> None:
        self.wake_writer.clear()
        counts = {game: self.local.get(game, 0) for game in self.changed}
        self.changed.clear()
        try:
            await asyncio.to_thread(self.store.write, counts)
        except Exception:
            self.changed.update(counts)  # written in full next time: counts are absolute
            raise
        self.bus.put(Message(CROWD_GROUP, "changed", data={"games": list(counts)}))

    async def hear(self, message: Message) -> None:
        assert message.data is not None
        self._retell(message.data["games"])

    def _following(self, game_id: int) -> bool:
        return bool(self.bus.following(events.group_name(game_id)))

    def _retell(self, games: Iterable[int]) -> None:
        followed = [game for game in games if self._following(game)]
        if followed:
            self.to_retell.update(followed)
            self.wake_reteller.set()

    async def _retell_changes(self) -> None:
        while True:
            await self.wake_reteller.wait()
            if self.stopping:
                return
            self.wake_reteller.clear()
            games, self.to_retell = self.to_retell, set()
            try:
                totals = await asyncio.to_thread(self.store.totals, games)
            except Exception:
                log_background_failure(logger, "watcher counts could not be read")
                continue
            for game, count in totals.items():
                await self._tell(game, count)
            for game in [game for game in self.told if not self._following(game)]:
                del self.told[game]

    async def _tell(self, game_id: int, count: int) -> None:
        if self.told.get(game_id) == count or not self._following(game_id):
            return
        self.told[game_id] = count
        await self.bus.deliver(Message(events.group_name(game_id), "crowd", frame=protocol.crowd(count)))
