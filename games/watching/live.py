"""The live list for this process's `/ws/live/` sockets, like a TV guide rather than a firehose.

While any such socket is open, the process reads the list once every TICK_S (one query, and one read
of the watcher counts) and sends what changed since the previous read — the games that are new or
changed and the ids of those that left — as one frame, the same text to every socket. So each game
changes on a socket at most once a tick, however fast it is played, and the list costs the same
whether one or a thousand people keep it open. A socket that arrives gets the whole list at once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from django.utils import timezone

from accordion_site.db import db_call
from accordion_site.errors import log_background_failure
from accordion_site.tasks import raise_if_stopping, stop_task
from realtime.bus import deliver_to_one_of_many

from . import protocol
from .audience import send_message
from .selectors import live_games
from .serializers import LiveGameSerializer

logger = logging.getLogger(__name__)

TICK_S = 1.0


class ListSocket(Protocol):
    async def send_frame(self, message: dict[str, Any]) -> None: ...


def _without_clock(entry: dict[str, Any]) -> dict[str, Any]:
    # `seconds` grows every second for every game: a change worth a message is in the other fields.
    return {name: value for name, value in entry.items() if name != "seconds"}


def live_entries() -> tuple[Any, dict[int, dict[str, Any]]]:
    """The server's clock and the live list's entries, as the API shows them, by game id, best first."""
    now = timezone.now()
    games = live_games(now=now)
    return now, {game.id: LiveGameSerializer(game, context={"now": now}).data for game in games}


class LiveBoard:
    def __init__(self) -> None:
        self.sockets: set[ListSocket] = set()
        self.entries: dict[int, dict[str, Any]] | None = None
        self.task: asyncio.Task[None] | None = None

    async def join(self, socket: ListSocket) -> None:
        self.sockets.add(socket)
        if self.entries is None:
            now, self.entries = await db_call(live_entries)()
        else:
            now = timezone.now()
        frame = protocol.live(games=list(self.entries.values()), gone=[], full=True, server_now=now)
        await socket.send_frame(send_message(frame))
        if self.task is None and socket in self.sockets:
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def leave(self, socket: ListSocket) -> None:
        self.sockets.discard(socket)
        if not self.sockets:
            await self.stop()

    async def stop(self) -> None:
        task, self.task = self.task, None
        self.entries = None
        if task is not None:
            await stop_task(task)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            try:
                await self._tick()
            except Exception:
                raise_if_stopping()
                log_background_failure(logger, "the live list could not be refreshed")

    async def _tick(self) -> None:
        now, fresh = await db_call(live_entries)()
        before = self.entries or {}
        changed = [
            entry for game, entry in fresh.items() if _without_clock(before.get(game, {})) != _without_clock(entry)
        ]
        gone = [game for game in before if game not in fresh]
        self.entries = fresh
        if not changed and not gone:
            return
        message = send_message(protocol.live(games=changed, gone=gone, full=False, server_now=now))
        for socket in tuple(self.sockets):
            await deliver_to_one_of_many(socket.send_frame(message), "the live list")
