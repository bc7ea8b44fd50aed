"""Who is here: the live sockets present in a group (a game's watchers, a room's racers), kept in Redis
with expiry, so the sockets of a process that dies leave by expiry alone.

Each socket is an entry in the sorted set `<prefix>:presence:<group>:<who>`, scored by when it expires
("now" once it left, so the set also says since when someone is away). A process writes what its
sockets did at most every FLUSH_S and renews its entries every REFRESH_S, then tells every process
which groups changed (bus group `presence`); each re-reads the groups it follows on that news, and at
every renewal those where a count may have dropped unannounced (by expiry), and hands changes to the
handler of the group's kind. Without Redis: memory.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass

import redis
from django.conf import settings

from accordion_site.errors import log_background_failure
from accordion_site.tasks import raise_if_stopping, stop_task

from .bus import Bus, Message, bus

logger = logging.getLogger(__name__)

# An entry not renewed for TTL_S is gone; a process renews its entries, and re-reads the groups it
# follows, every REFRESH_S: a killed process's sockets leave everyone's counts within TTL_S + REFRESH_S.
TTL_S = 6.0
REFRESH_S = 2.0
# What sockets do is written at most this often (a burst of connects is one write).
FLUSH_S = 0.1
# How long a group remembers who left, and when.
REMEMBER_S = 86400
# Every process hears which groups changed.
PRESENCE_GROUP = "presence"

Scores = Mapping[tuple[str, str], Mapping[str, float]]  # (group, who) → entry → expiry


@dataclass(frozen=True, slots=True)
class Seen:
    present: int  # live entries
    last_seen: float | None  # when the newest entry expires or expired (None: never seen)


class RedisStore:
    def __init__(self, client: redis.Redis, *, prefix: str, clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.prefix = prefix
        self.clock = clock

    def key(self, group: str, who: str) -> str:
        return f"{self.prefix}:presence:{group}:{who}"

    def write(self, scores: Scores) -> None:
        pipe = self.client.pipeline(transaction=False)
        for (group, who), entries in scores.items():
            key = self.key(group, who)
            pipe.zadd(key, dict(entries))
            pipe.zremrangebyscore(key, "-inf", self.clock() - REMEMBER_S)
            pipe.expire(key, REMEMBER_S)
        pipe.execute()

    def seen(self, group: str, whos: Collection[str]) -> dict[str, Seen]:
        return self.seen_many({group: whos})[group]

    def seen_many(self, asked: Mapping[str, Collection[str]]) -> dict[str, dict[str, Seen]]:
        """For each group, who of its `whos` is present, and when each was last (one round trip)."""
        pairs = [(group, who) for group, whos in asked.items() for who in whos]
        pipe = self.client.pipeline(transaction=False)
        for group, who in pairs:
            pipe.zcount(self.key(group, who), f"({self.clock()}", "+inf")
            pipe.zrevrange(self.key(group, who), 0, 0, withscores=True)
        answers = pipe.execute() if pairs else []
        found: dict[str, dict[str, Seen]] = {group: {} for group in asked}
        for (group, who), count, newest in zip(pairs, answers[::2], answers[1::2], strict=True):
            found[group][who] = Seen(present=count, last_seen=newest[0][1] if newest else None)
        return found


class LocalStore:
    """One process and no Redis: the entries are this process's own."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.entries: dict[tuple[str, str], dict[str, float]] = {}
        self.lock = threading.Lock()
        self.clock = clock

    def write(self, scores: Scores) -> None:
        with self.lock:
            for key, entries in scores.items():
                self.entries.setdefault(key, {}).update(entries)

    def seen_many(self, asked: Mapping[str, Collection[str]]) -> dict[str, dict[str, Seen]]:
        return {group: self.seen(group, whos) for group, whos in asked.items()}

    def seen(self, group: str, whos: Collection[str]) -> dict[str, Seen]:
        now = self.clock()
        with self.lock:
            found = {who: list(self.entries.get((group, who), {}).values()) for who in whos}
        return {
            who: Seen(present=sum(1 for score in scores if score > now), last_seen=max(scores, default=None))
            for who, scores in found.items()
        }


_stores_lock = threading.Lock()
_stores: dict[str, RedisStore | LocalStore] = {}


def store() -> RedisStore | LocalStore:
    """Redis when the site has it (every process shares it), else memory."""
    url = settings.REDIS_URL
    with _stores_lock:
        found = _stores.get(url)
        if found is None:
            if url:
                client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
                found = _stores[url] = RedisStore(client, prefix=settings.REDIS_PREFIX)
            else:
                found = _stores[url] = LocalStore()
        return found


# What a kind of group does when its presence changes: given the group and each watched `who`'s count.
Handler = Callable[[str, dict[str, int]], Awaitable[None]]


class Presence:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.process = f"{os.getpid()}.{secrets.token_hex(4)}"
        self.tokens = itertools.count()
        self.entries: dict[str, tuple[str, str]] = {}  # entry → (group, who), for the renewals
        self.pending: dict[tuple[str, str], dict[str, float]] = {}
        self.changed: set[str] = set()  # groups a socket came to or left since the last write
        self.wake = asyncio.Event()
        self.written: asyncio.Future[None] = bus.loop.create_future()
        self.watches: dict[str, tuple[Callable[[str], Collection[str]], Handler]] = {}
        self.told: dict[str, dict[str, int]] = {}
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await self.bus.subscribe(PRESENCE_GROUP, self)
        self.tasks = [self.bus.loop.create_task(self._write()), self.bus.loop.create_task(self._renew())]

    async def stop(self) -> None:
        for task in self.tasks:
            await stop_task(task)
        for entry in list(self.entries):
            self.leave(entry)
        try:
            await asyncio.to_thread(store().write, self.pending)
        except Exception:
            log_background_failure(logger, "presence: this process's sockets are left to expire")

    def watch(self, prefix: str, whos: Callable[[str], Collection[str]], handler: Handler) -> None:
        """Hand the changes in the groups named `prefix…` that this process follows to `handler`."""
        self.watches[prefix] = (whos, handler)

    async def enter(self, group: str, who: str, *, written: bool = False) -> str:
        """Count a socket as `who` in `group` (its entry, to leave with); `written`: once stored."""
        entry = f"{self.process}.{next(self.tokens)}"
        self.entries[entry] = (group, who)
        self._note(entry, (group, who), time.time() + TTL_S)
        if written:
            await self.flushed()
        return entry

    def leave(self, entry: str) -> None:
        """No await: a socket being torn down may not get another turn."""
        key = self.entries.pop(entry, None)
        if key is not None:
            self._note(entry, key, time.time())

    async def flushed(self) -> None:
        await asyncio.shield(self.written)

    def _note(self, entry: str, key: tuple[str, str], expires: float) -> None:
        self.pending.setdefault(key, {})[entry] = expires
        self.changed.add(key[0])
        self.wake.set()

    async def hear(self, message: Message) -> None:
        assert message.data is not None
        await self._reread([group for group in message.data["groups"] if self.bus.following(group)])

    async def _write(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            pending, self.pending = self.pending, {}
            changed, self.changed = self.changed, set()
            written, self.written = self.written, self.bus.loop.create_future()
            try:
                await asyncio.to_thread(store().write, pending)
            except Exception:
                raise_if_stopping()
                for key, entries in pending.items():  # written with the next try, newer news first
                    self.pending[key] = {**entries, **self.pending.get(key, {})}
                self.changed |= changed
                self.wake.set()
                log_background_failure(logger, "presence could not be written; trying again")
            else:
                if changed:  # renewals alone change nobody's count
                    self.bus.put(Message(PRESENCE_GROUP, "changed", data={"groups": sorted(changed)}))
                    await self._reread([group for group in changed if self.bus.following(group)])
            finally:
                written.set_result(None)
            await asyncio.sleep(FLUSH_S)

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            expires = time.time() + TTL_S
            for entry, key in self.entries.items():
                self.pending.setdefault(key, {}).setdefault(entry, expires)
            if self.pending:
                self.wake.set()
            # A process that died stops counting without telling anyone: look again.
            await self._reread([group for group in self.bus.listeners if self._may_have_dropped(group)])

    def _watch_of(self, group: str) -> tuple[Callable[[str], Collection[str]], Handler] | None:
        return next((watch for prefix, watch in self.watches.items() if group.startswith(prefix)), None)

    def _may_have_dropped(self, group: str) -> bool:
        """Whether a count of `group` may have changed unannounced since this process last read it: it
        counted someone, whose entries may have expired, or it has not looked for everyone it follows
        there yet. An arrival is always announced."""
        told, watch = self.told.get(group), self._watch_of(group)
        if watch is None:
            return False
        return told is None or any(told.values()) or set(watch[0](group)) != set(told)

    async def _reread(self, groups: list[str]) -> None:
        watched = {}
        for group in groups:
            watch = self._watch_of(group)
            if watch is not None:
                watched[group] = (watch[0](group), watch[1])
        if not watched:
            return
        try:
            found = await asyncio.to_thread(store().seen_many, {group: whos for group, (whos, _) in watched.items()})
        except Exception:
            raise_if_stopping()
            log_background_failure(logger, "presence could not be read")
            return
        for group, (_, handler) in watched.items():
            counts = {who: each.present for who, each in found[group].items()}
            if self.told.get(group, dict.fromkeys(counts, 0)) == counts:
                self.told.setdefault(group, counts)  # looked at: nobody there to expire
                continue
            try:
                await handler(group, counts)
                self.told[group] = counts  # only once handled: a failed one is tried at the next look
            except Exception:
                raise_if_stopping()
                log_background_failure(logger, "%s: a change of presence was not handled", group)
        for group in [group for group in self.told if not self.bus.following(group)]:
            del self.told[group]


async def presence() -> Presence:
    return await bus().service("presence", Presence, Presence.start)
