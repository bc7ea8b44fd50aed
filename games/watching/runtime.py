"""This process's watching machinery: the audiences of the games watched here, the watcher counts,
the still-winnable badge and the live list; one per event loop (in a Daphne process, one), started
with the first socket that needs it and stopped with the hub."""

from __future__ import annotations

import asyncio
import uuid
import weakref

from accordion_site.errors import OUTAGES
from games.hub import Hub, hub

from . import protocol
from .audience import Audience, Watcher
from .badge import Badge
from .crowd import Crowd, crowd_store
from .live import LiveBoard


class Watching:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.audiences: dict[int, Audience] = {}
        process = uuid.uuid4().hex
        self.crowd = Crowd(hub, crowd_store(process=process))
        self.badge = Badge(hub, self.audiences, process=process)
        self.live = LiveBoard()
        # Joining and leaving an audience take turns, so that no watcher reads the game before its
        # audience follows the game's stream.
        self.turns = asyncio.Lock()
        self.closing: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        await self.crowd.start()
        await self.badge.start()

    async def stop(self) -> None:
        await asyncio.gather(*self.closing, return_exceptions=True)
        await self.live.stop()
        await self.badge.stop()
        for audience in self.audiences.values():
            await audience.stop()
        await self.crowd.stop()

    async def join(self, game_id: int, watcher: Watcher) -> None:
        """Add `watcher` to the game's audience, following the game's stream first if needed."""
        async with self.turns:
            audience = self.audiences.get(game_id)
            if audience is not None:
                audience.watchers.add(watcher)
                return
            audience = Audience(game_id, on_position=self.badge.position_changed)
            try:
                await self.hub.follow(game_id, audience)
            except BaseException:
                await self.hub.unfollow(game_id, audience)
                raise
            self.audiences[game_id] = audience
            audience.watchers.add(watcher)

    def leave(self, game_id: int, watcher: Watcher) -> None:
        """Take `watcher` out of the game's audience at once (no await: a socket being torn down may not
        get another turn); the last one out closes the audience in a task of its own."""
        audience = self.audiences.get(game_id)
        if audience is None or watcher not in audience.watchers:
            return
        audience.watchers.discard(watcher)
        if not audience.watchers:
            closing = asyncio.get_running_loop().create_task(self._close(game_id, audience))
            self.closing.add(closing)
            closing.add_done_callback(self.closing.discard)

    async def _close(self, game_id: int, audience: Audience) -> None:
        async with self.turns:
            if audience.watchers or self.audiences.get(game_id) is not audience:
                return  # someone joined meanwhile
            del self.audiences[game_id]
            await self.hub.unfollow(game_id, audience)
            await audience.stop()
            await self.badge.forget(game_id)


_runtimes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[Watching, asyncio.Task[None]]] = (
    weakref.WeakKeyDictionary()
)


async def watching() -> Watching:
    """This process's watching machinery, started on first use."""
    loop = asyncio.get_running_loop()
    found = _runtimes.get(loop)
    if found is None:
        process_hub = hub()
        runtime = Watching(process_hub)
        found = _runtimes[loop] = (runtime, loop.create_task(runtime.start()))
        process_hub.attach(runtime)
    runtime, starting = found
    try:
        await asyncio.shield(starting)
    except OUTAGES:
        # Redis was away when the first socket came: forget this start, so a later socket starts afresh
        # instead of every socket of the process failing with the same error until it restarts.
        if _runtimes.get(loop) is found:
            del _runtimes[loop]
        raise
    return runtime


async def crowd_frame(game_id: int) -> str | None:
    """The `crowd` message for a socket that has just arrived on the game, when anyone is watching."""
    runtime = await watching()
    count = await runtime.crowd.total(game_id)
    return protocol.crowd(count) if count else None
