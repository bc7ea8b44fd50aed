"""This process's watching machinery, one service of its bus: the games' audiences, the watcher counts,
the still-winnable badge (badge.py) and the live list.

An audience writes to its watchers once per AUDIENCE_TICK_S at most: a burst of events goes as one
frame, the same bytes to every watcher, and the watcher count and the still-winnable badge ride in the
events' frame (which waits up to BADGE_WAIT_S for its position's badge) instead of coming alone. The
player's own sockets get every event at once (games/consumers.py). Watcher counts come from presence
(realtime/presence.py) and reach the game's sockets here as one `crowd` message. The live list is read
once every LIVE_TICK_S while a /ws/live/ socket is open, and only what changed is sent, so it costs the
same for one socket or a thousand.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import math
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from accordion_site.db import db_call
from accordion_site.errors import log_background_failure
from accordion_site.tasks import raise_if_stopping, stop_task
from games import events
from games.models import GameEvent
from realtime.bus import Bus, Message, bus, deliver_to_one_of_many
from realtime.consumer import LiveSocket
from realtime.frame_costs import shared
from realtime.presence import Presence, presence

from . import protocol
from .badge import Badge
from .selectors import WATCHER, crowd_totals, live_games
from .serializers import LiveGameSerializer

if TYPE_CHECKING:
    from .consumers import WatchConsumer as Watcher

logger = logging.getLogger(__name__)

# Events that arrive within this long of the previous frame are sent together.
AUDIENCE_TICK_S = 0.05
# A frame whose newest position's still-winnable badge is on its way waits this long at most for it, so
# that the badge rides in the frame instead of costing every watcher a frame of its own.
BADGE_WAIT_S = 0.025
# A watcher count waits this long at most for a frame to ride in.
CROWD_WAIT_S = 1.0
# A frame for a large audience pauses after this many watchers, for the loop to write what it queued.
SENDS_BETWEEN_PAUSES = 64
# The events after which the still-winnable badge may change.
POSITION_KINDS = frozenset({GameEvent.Kind.START, GameEvent.Kind.MOVE, GameEvent.Kind.UNDO})
# How often the live list is read while a `/ws/live/` socket is open.
LIVE_TICK_S = 1.0


class Audience:
    """A game's watchers in this process: at most one frame a tick each, the events of the tick with the
    watcher count and the badge riding in it (one frame an event, however many messages it brings)."""

    def __init__(self, game_id: int, *, on_position: Callable[[int, int], bool]) -> None:
        self.game_id = game_id
        self.watchers: set[Watcher] = set()
        self.on_position = on_position  # asks for a position's badge; whether one may come
        self.pending: list[tuple[int, str]] = []
        self.crowd: str | None = None  # the newest watcher count, not sent yet
        self.badge: Message | None = None  # the badge of the newest position, not sent yet
        self.newest = 0  # the newest version heard
        # The position whose badge the due frame waits for, and when it was heard; whether the last
        # badge came within BADGE_WAIT_S of its position (else the next frame does not wait for one).
        self.position: tuple[int, float] = (0, -math.inf)
        self.awaiting: int | None = None
        self.badges_come = True
        self.last_frame_at = -math.inf
        self.timer: asyncio.TimerHandle | None = None
        self.flushing: asyncio.Task[None] | None = None
        self.sending = asyncio.Lock()

    async def hear(self, message: Message) -> None:
        """Each message of the game's group: its events, its watcher count and its badge (not to the player)."""
        if message.kind == events.EVENT:
            await self._event(message)
        elif message.kind == "winnable":
            await self._badge(message)
        else:  # "crowd"
            self.crowd = message.frame
            await self._flush_within(CROWD_WAIT_S)

    async def _event(self, message: Message) -> None:
        v = message.v
        for watcher in self.watchers:
            if watcher.held is not None:
                watcher.held.append(message)
        self.pending.append((v, message.frame))
        self.newest = max(self.newest, v)
        if self.badge is not None and self.badge.v < v:
            self.badge = None  # the board has moved on
        assert message.data is not None
        wait = 0.0
        if message.data["kind"] in POSITION_KINDS and any(not watcher.is_owner for watcher in self.watchers):
            self.position = (v, asyncio.get_running_loop().time())
            if self.on_position(self.game_id, v) and self.badges_come:
                self.awaiting, wait = v, BADGE_WAIT_S
        await self._flush_within(wait)

    async def _badge(self, message: Message) -> None:
        if message.v < self.newest:
            return  # the board has moved on: a watcher would not show it
        v, heard_at = self.position
        self.badges_come = message.v == v and asyncio.get_running_loop().time() - heard_at <= BADGE_WAIT_S
        self.badge = message
        await self._flush_within(0.0)

    async def _flush_within(self, delay: float) -> None:
        """Send what is pending `delay` from now, but not within a tick of the last frame, nor later than
        a frame already due."""
        loop = asyncio.get_running_loop()
        at = max(self.last_frame_at + AUDIENCE_TICK_S, loop.time() + delay)
        if self.timer is not None:
            if self.timer.when() <= at:
                return
            self.timer.cancel()
            self.timer = None
        if at <= loop.time():
            await self.flush()
        else:
            self.timer = loop.call_at(at, self._flush_later)

    def _flush_later(self) -> None:
        self.timer = None
        self.flushing = asyncio.get_running_loop().create_task(self.flush())

    async def flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        pending, self.pending = sorted(self.pending), []
        also = [self.crowd] if self.crowd is not None else []
        badge = [self.badge.frame] if self.badge is not None else []
        if self.awaiting is not None and (self.badge is None or self.badge.v != self.awaiting):
            self.badges_come = False  # it did not come in time
        self.crowd = self.badge = self.awaiting = None
        if not pending and not also and not badge:
            return
        self.last_frame_at = asyncio.get_running_loop().time()
        frames = [frame for _, frame in pending]
        together = shared(protocol.events(frames, also + badge))
        # No badge to the game's player watching it (it would be a hint): nothing at all, if that was all.
        players_own: dict[str, Any] | None = together
        if badge and any(watcher.is_owner for watcher in self.watchers):
            players_own = shared(protocol.events(frames, also)) if frames or also else None
        oldest = pending[0][0] if pending else math.inf
        async with self.sending:  # frames go out in order, even across the pauses below
            for sent, watcher in enumerate(tuple(self.watchers), start=1):
                if watcher.held is not None:
                    continue  # it sends what it holds itself once caught up
                if watcher.version_sent < oldest:
                    message = players_own if watcher.is_owner else together
                    if message is None:
                        continue
                else:  # it joined while these were on their way: only what its catch-up did not cover
                    missed = [frame for v, frame in pending if v > watcher.version_sent]
                    riding = also if watcher.is_owner else also + badge
                    if not missed and not riding:
                        continue
                    message = {"type": "websocket.send", "text": protocol.events(missed, riding)}
                await deliver_to_one_of_many(watcher.send_frame(message), "game %s: a frame", self.game_id)
                if sent % SENDS_BETWEEN_PAUSES == 0:
                    # Let the server write what is queued (Daphne writes a frame on the loop's next
                    # turn), so the first watchers need not wait for the last to be served.
                    await asyncio.sleep(0)

    async def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.flushing is not None:
            await stop_task(self.flushing)


def _without_clock(entry: dict[str, Any]) -> dict[str, Any]:
    # `seconds` grows every second for every game: a change worth a message is in the other fields.
    return {name: value for name, value in entry.items() if name != "seconds"}


def live_entries() -> tuple[datetime.datetime, dict[int, dict[str, Any]]]:
    now = timezone.now()
    games = live_games(now=now)
    return now, {game.id: LiveGameSerializer(game, context={"now": now}).data for game in games}


class LiveBoard:
    def __init__(self) -> None:
        self.sockets: set[LiveSocket] = set()
        self.entries: dict[int, dict[str, Any]] | None = None
        self.task: asyncio.Task[None] | None = None

    async def join(self, socket: LiveSocket) -> None:
        self.sockets.add(socket)
        if self.entries is None:
            now, self.entries = await db_call(live_entries)()
        else:
            now = timezone.now()
        frame = protocol.live(games=list(self.entries.values()), gone=[], full=True, server_now=now)
        await socket.send(text_data=frame)
        if self.task is None and socket in self.sockets:
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def leave(self, socket: LiveSocket) -> None:
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
            await asyncio.sleep(LIVE_TICK_S)
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
        message = shared(protocol.live(games=changed, gone=gone, full=False, server_now=now))
        for socket in tuple(self.sockets):
            await deliver_to_one_of_many(socket.send_frame(message), "the live list")


class Watching:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.audiences: dict[int, Audience] = {}
        self.presence: Presence | None = None  # once started
        self.badge = Badge(process=uuid.uuid4().hex)
        self.live = LiveBoard()
        # Joining and leaving an audience take turns, so that no watcher reads the game before its
        # audience follows the game's stream.
        self.turns = asyncio.Lock()
        self.closing: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self.presence = await presence()
        self.presence.watch("game.", lambda group: [WATCHER], self._crowd_changed)
        await self.badge.start()

    async def _crowd_changed(self, group: str, counts: dict[str, int]) -> None:
        await self.bus.deliver(Message(group, "crowd", frame=protocol.crowd(counts[WATCHER])))

    async def stop(self) -> None:
        await asyncio.gather(*self.closing, return_exceptions=True)
        await self.live.stop()
        await self.badge.stop()
        for audience in self.audiences.values():
            await audience.stop()

    async def join(self, game_id: int, watcher: Watcher) -> None:
        async with self.turns:
            audience = self.audiences.get(game_id)
            if audience is not None:
                audience.watchers.add(watcher)
                return
            audience = Audience(game_id, on_position=self.badge.position_changed)
            await self.bus.subscribe(events.group_name(game_id), audience)  # kept by the bus only once subscribed
            self.audiences[game_id] = audience
            audience.watchers.add(watcher)

    def leave(self, game_id: int, watcher: Watcher) -> None:
        """No await: a socket being torn down may not get another turn. The last one out closes the audience."""
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
    return await bus().service("watching", Watching, Watching.start)


async def crowd_count(game_id: int) -> int:
    await watching()  # from now on, this process's sockets of the game hear the count change
    return (await asyncio.to_thread(crowd_totals, [game_id]))[game_id]


async def crowd_frame(game_id: int) -> str | None:
    """The `crowd` message for a socket that has just arrived on the game, when anyone is watching."""
    count = await crowd_count(game_id)
    return protocol.crowd(count) if count else None
