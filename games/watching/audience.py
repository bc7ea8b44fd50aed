"""One game's watchers in this process, behind one listener of the bus.

The bus hands each message of the game's group to the audience once; the audience writes one frame to each of
its watchers. Events that arrive within TICK_S of the previous frame wait for the tick to end and go
out together, as one frame: the first event after a quiet spell goes at once, a burst costs one
frame per watcher per tick. The frame is built once and the same message handed to every watcher's
socket, with no channel layer and no thread in between. The player's own sockets do not go through an
audience: they get every event at once (games/consumers.py).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any, Protocol

from accordion_site.tasks import stop_task
from games import events
from games.models import GameEvent
from realtime.bus import Message, deliver_to_one_of_many

from . import protocol

# Events that arrive within this long of the previous frame are sent together.
TICK_S = 0.05
# A frame for a large audience pauses after this many watchers, for the loop to write what it queued.
SENDS_BETWEEN_PAUSES = 64
# The events after which the still-winnable badge may change.
POSITION_KINDS = frozenset({GameEvent.Kind.START, GameEvent.Kind.MOVE, GameEvent.Kind.UNDO})


class Watcher(Protocol):
    # Events heard while the socket is still catching up, sent by the socket itself; None once it is live.
    held: list[Message] | None
    # The newest version the socket's catch-up covered: later frames leave out what it already had.
    version_sent: int
    # The game's own player, watching their game: gets no still-winnable badge (it would be a hint).
    is_owner: bool

    async def send_frame(self, message: dict[str, Any]) -> None:
        """Write an ASGI `websocket.send` message to the socket."""


def send_message(text: str) -> dict[str, Any]:
    return {"type": "websocket.send", "text": text}


class Audience:
    def __init__(self, game_id: int, *, on_position: Callable[[int, int], None]) -> None:
        self.game_id = game_id
        self.watchers: set[Watcher] = set()
        self.on_position = on_position
        self.pending: list[tuple[int, str]] = []
        self.last_frame_at = -math.inf
        self.timer: asyncio.TimerHandle | None = None
        self.flushing: asyncio.Task[None] | None = None
        self.sending = asyncio.Lock()

    def has_spectators(self) -> bool:
        return any(not watcher.is_owner for watcher in self.watchers)

    async def hear(self, message: Message) -> None:
        """Called by the bus with each message of the game's group: its events, its watcher count and
        its still-winnable badge (never to the player)."""
        if message.kind != events.EVENT:
            await self._send_live(send_message(message.frame), to_owner=message.kind != "winnable")
            return
        v, frame = message.v, message.frame
        for watcher in self.watchers:
            if watcher.held is not None:
                watcher.held.append(message)
        assert message.data is not None
        if message.data["kind"] in POSITION_KINDS and self.has_spectators():
            self.on_position(self.game_id, v)
        self.pending.append((v, frame))
        if self.timer is not None:
            return  # the tick's frame is already due
        loop = asyncio.get_running_loop()
        wait = self.last_frame_at + TICK_S - loop.time()
        if wait <= 0:
            await self.flush()
        else:
            self.timer = loop.call_later(wait, self._flush_later)

    def _flush_later(self) -> None:
        self.timer = None
        self.flushing = asyncio.get_running_loop().create_task(self.flush())

    async def flush(self) -> None:
        """Send the pending events, as one frame, to every watcher that is live."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        pending, self.pending = sorted(self.pending), []
        if not pending:
            return
        self.last_frame_at = asyncio.get_running_loop().time()
        shared = send_message(protocol.events([frame for _, frame in pending]))
        oldest = pending[0][0]
        async with self.sending:  # frames go out in order, even across the pauses below
            for sent, watcher in enumerate(tuple(self.watchers), start=1):
                if watcher.held is not None:
                    continue  # it sends what it holds itself once caught up
                if watcher.version_sent < oldest:
                    message = shared
                else:  # it joined while these were on their way: only what its catch-up did not cover
                    frames = [frame for v, frame in pending if v > watcher.version_sent]
                    if not frames:
                        continue
                    message = send_message(protocol.events(frames))
                await self._send(watcher, message)
                if sent % SENDS_BETWEEN_PAUSES == 0:
                    # Let the server write what is queued (Daphne writes a frame on the loop's next
                    # turn), so the first watchers need not wait for the last to be served.
                    await asyncio.sleep(0)

    async def _send_live(self, message: dict[str, Any], *, to_owner: bool) -> None:
        for watcher in tuple(self.watchers):
            if watcher.held is None and (to_owner or not watcher.is_owner):
                await self._send(watcher, message)

    async def _send(self, watcher: Watcher, message: dict[str, Any]) -> None:
        await deliver_to_one_of_many(watcher.send_frame(message), "game %s: a frame", self.game_id)

    async def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.flushing is not None:
            await stop_task(self.flushing)
