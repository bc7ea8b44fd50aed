"""The per-process fan-out hub: one channel-layer subscription per game per process, however many
local sockets follow that game, and the same encoded frame written to each of them.

A consumer registers itself with `follow` and leaves with `unfollow`; it never joins a group of its
own, so a move costs one channel-layer delivery per process, not one per socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from typing import Any, Protocol

from channels.layers import get_channel_layer

from . import events

logger = logging.getLogger(__name__)


class Follower(Protocol):
    async def deliver_event(self, v: int, frame: str) -> None:
        """Write one event (version `v`, encoded as `frame`) to the socket."""


class Hub:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.layer: Any = get_channel_layer()
        self.followers: dict[int, set[Follower]] = {}
        self.channel: str | None = None
        self.reader: asyncio.Task[None] | None = None
        self.ready = asyncio.Lock()
        events.start_publisher(loop)

    async def follow(self, game_id: int, follower: Follower) -> None:
        async with self.ready:
            if self.channel is None:
                self.channel = await self.layer.new_channel(prefix="hub.")
                self.reader = asyncio.get_running_loop().create_task(self._read(self.channel))
            followers = self.followers.setdefault(game_id, set())
            if not followers:
                await self.layer.group_add(events.group_name(game_id), self.channel)
            followers.add(follower)

    async def unfollow(self, game_id: int, follower: Follower) -> None:
        async with self.ready:
            followers = self.followers.get(game_id)
            if followers is None or follower not in followers:
                return
            followers.discard(follower)
            if not followers:
                del self.followers[game_id]
                assert self.channel is not None
                await self.layer.group_discard(events.group_name(game_id), self.channel)

    async def stop(self) -> None:
        """Stop reading and publishing (for an event loop that is about to close)."""
        for task in (self.reader, events.stop_publisher()):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    def following(self, game_id: int) -> int:
        """How many local sockets follow the game."""
        return len(self.followers.get(game_id, ()))

    async def _read(self, channel: str) -> None:
        while True:
            message = await self.layer.receive(channel)
            if message.get("type") != events.EVENT_MESSAGE:
                continue
            for follower in tuple(self.followers.get(message["game"], ())):
                try:
                    await follower.deliver_event(message["v"], message["frame"])
                except Exception:
                    # One broken socket must not starve the others of the event.
                    logger.exception("game %s: event v%s not delivered to a socket", message["game"], message["v"])


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def running_hub() -> Hub | None:
    """The running loop's hub, if a socket has made one."""
    return _hubs.get(asyncio.get_running_loop())


def hub() -> Hub:
    """This process's hub (one per event loop, which in a Daphne process means one)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub(loop)
    return found
