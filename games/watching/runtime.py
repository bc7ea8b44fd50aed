"""This process's watching machinery: the audiences of the games watched here, the watcher counts,
the still-winnable badge and the live list; one service of the process's bus, started with the first
socket that needs it and stopped with the bus."""

from __future__ import annotations

import asyncio
import uuid

from games import events
from realtime.bus import Bus, bus
from realtime.presence import presence

from . import protocol
from .audience import Audience, Watcher
from .badge import Badge
from .crowd import Crowd
from .live import LiveBoard


class Watching:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.audiences: dict[int, Audience] = {}
        self.crowd: Crowd | None = None  # once started
        self.badge = Badge(process=uuid.uuid4().hex)
        self.live = LiveBoard()
        # Joining and leaving an audience take turns, so that no watcher reads the game before its
        # audience follows the game's stream.
        self.turns = asyncio.Lock()
        self.closing: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self.crowd = Crowd(self.bus, await presence())
        await self.badge.start()

    async def stop(self) -> None:
        await asyncio.gather(*self.closing, return_exceptions=True)
        await self.live.stop()
        await self.badge.stop()
        for audience in self.audiences.values():
            await audience.stop()

    async def join(self, game_id: int, watcher: Watcher) -> None:
        """Add `watcher` to the game's audience, following the game's stream first if needed."""
        async with self.turns:
            audience = self.audiences.get(game_id)
            if audience is not None:
                audience.watchers.add(watcher)
                return
            audience = Audience(game_id, on_position=self.badge.position_changed)
            try:
                await self.bus.subscribe(events.group_name(game_id), audience)
            except BaseException:
                await self.bus.unsubscribe(events.group_name(game_id), audience)
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
            await self.bus.unsubscribe(events.group_name(game_id), audience)
            await audience.stop()
            await self.badge.forget(game_id)


async def watching() -> Watching:
    """This process's watching machinery, started on first use."""
    return await bus().service("watching", Watching, Watching.start)


async def crowd_frame(game_id: int) -> str | None:
    """The `crowd` message for a socket that has just arrived on the game, when anyone is watching."""
    crowd = (await watching()).crowd
    assert crowd is not None
    count = await crowd.total(game_id)
    return protocol.crowd(count) if count else None
