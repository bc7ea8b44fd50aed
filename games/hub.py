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
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from channels.layers import get_channel_layer

from accordion_site.loop_db import close_loop_connections
from accordion_site.sockets import deliver_to_one_of_many
from accordion_site.tasks import raise_if_stopping

from . import events

logger = logging.getLogger(__name__)


class Follower(Protocol):
    async def deliver_event(self, v: int, frame: str) -> None:
        """Write one event (version `v`, encoded as `frame`) to the socket."""


class Companion(Protocol):
    """A per-process service that lives as long as the hub (games/watching: counts, lists, badges)."""

    async def stop(self) -> None: ...


# A handler for the other messages that reach the hub's channel (not events): watcher counts, badges.
MessageHandler = Callable[[dict[str, Any]], Awaitable[None]]


class Hub:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.layer: Any = get_channel_layer()
        self.followers: dict[int, set[Follower]] = {}
        self.channel: str | None = None
        self.reader: asyncio.Task[None] | None = None
        self.ready = asyncio.Lock()
        self.handlers: dict[str, MessageHandler] = {}
        self.companions: list[Companion] = []
        events.start_publisher(loop)

    async def _open(self) -> str:
        """This process's channel, opened (and read) on first use; call with `ready` held."""
        if self.channel is None:
            self.channel = await self.layer.new_channel(prefix="hub.")
            self.reader = asyncio.get_running_loop().create_task(self._read(self.channel))
        return self.channel

    async def follow(self, game_id: int, follower: Follower) -> None:
        async with self.ready:
            await self._open()
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

    async def listen(self, message_type: str, handler: MessageHandler, *, group: str | None = None) -> None:
        """Hand the messages of `message_type` that reach this process's channel to `handler`; with
        `group`, also subscribe the channel to that group (one every process hears)."""
        async with self.ready:
            channel = await self._open()
            self.handlers[message_type] = handler
            if group is not None:
                await self.layer.group_add(group, channel)

    def attach(self, companion: Companion) -> None:
        """Stop `companion` when the hub stops."""
        self.companions.append(companion)

    async def stop(self) -> None:
        """Stop reading and publishing (for an event loop that is about to close)."""
        for companion in self.companions:
            await companion.stop()
        for task in (self.reader, events.stop_publisher()):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await close_loop_connections()

    def following(self, game_id: int) -> int:
        """How many local sockets follow the game."""
        return len(self.followers.get(game_id, ()))

    async def _read(self, channel: str) -> None:
        while True:
            message = await self.layer.receive(channel)
            if message.get("type") != events.EVENT_MESSAGE:
                await self._handle(message)
                continue
            game, v, frame = message["game"], message["v"], message["frame"]
            for follower in tuple(self.followers.get(game, ())):
                await deliver_to_one_of_many(follower.deliver_event(v, frame), "game %s: event v%s", game, v)

    async def _handle(self, message: dict[str, Any]) -> None:
        handler = self.handlers.get(message.get("type", ""))
        if handler is None:
            return
        try:
            await handler(message)
        except Exception:
            raise_if_stopping()
            logger.exception("hub: a %s message was not handled", message.get("type"))


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
