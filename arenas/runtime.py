"""The arenas of this process's sockets: one room per arena per process, the bus's only listener of the
arena's group for all its sockets here.

Standings are pushed in batches: whatever changes (finishes, joins, reviews) only marks the room dirty;
at most once a second the room reads the standings once (one query) and writes them to each socket whose
last standings frame is a second old or more: the top ten encoded once, each socket's own row added. A
participant whose game ended gets the next one at once ("next"), and at the end every socket gets
"ended" after the games in play were counted (services.arena_end, which any process may run: it acts once).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from typing import Any, Protocol

from django.utils import timezone

from accordion_site.db import db_call
from accordion_site.errors import log_background_failure
from accordion_site.tasks import raise_if_stopping, stop_task
from games.models import Game
from games.serializers import game_payload
from realtime.bus import Bus, Message, bus, deliver_to_one_of_many

from . import protocol, selectors, services
from .errors import ArenaError, GameInPlay
from .models import Arena, Participant
from .selectors import TOP, Standings
from .serializers import arena_fields

logger = logging.getLogger(__name__)

# A socket gets at most one standings frame a second; the room looks for due work this often.
STANDINGS_EVERY_S = 1.0
TICK_S = 0.25


class ArenaSocket(Protocol):
    player_id: int | None

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None: ...


def _next_game_for(*, code: str, player_id: int) -> dict[str, Any] | None:
    """The participant's next game (or the current one, if another socket or process has just started
    it); None when there is none to give (not a participant, the arena over)."""
    now = timezone.now()
    participant = Participant.objects.select_related("player").filter(arena__code=code, player_id=player_id).first()
    if participant is None:
        return None
    try:
        game = services.arena_next(code=code, player=participant.player, now=now)
    except GameInPlay:
        current = Participant.objects.get(pk=participant.pk).game_id
        assert current is not None
        game = Game.objects.select_related("deal").get(pk=current)
    except ArenaError:
        return None
    return game_payload(game, now=now)  # type: ignore[no-any-return]


class ArenaRoom:
    def __init__(self, code: str, arena: Arena) -> None:
        self.code = code
        self.arena = arena
        self.sockets: dict[ArenaSocket, float] = {}  # → when its last standings (or first) frame went
        self.table: Standings | None = None
        self.read_at = 0.0
        self.read_wall = 0.0
        self.version = 0
        self.sent: dict[ArenaSocket, int] = {}
        self.dirty = False
        self.started = False
        self.ended = arena.ended_at is not None
        self.lock = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.handing: set[asyncio.Task[None]] = set()

    def now(self) -> datetime.datetime:
        return timezone.now()

    async def _read(self) -> Standings:
        async with self.lock:
            if self.table is None or (self.dirty and time.monotonic() - self.read_at >= STANDINGS_EVERY_S):
                self.dirty = False
                self.read_at = time.monotonic()
                self.read_wall = time.time()
                self.table = await db_call(selectors.standings)(arena_id=self.arena.pk)
                self.version += 1
            return self.table

    def _arena_json(self, table: Standings) -> dict[str, Any]:
        return arena_fields(self.arena, now=self.now(), players=table.players)

    async def join(self, socket: ArenaSocket) -> None:
        table = await self._read()
        self.sockets[socket] = time.monotonic()
        self.sent[socket] = self.version
        me = table.by_player.get(socket.player_id) if socket.player_id is not None else None
        await socket.send(text_data=protocol.arena(arena=self._arena_json(table), standings=table.rows[:TOP], me=me))
        if self.task is None:
            self.started = self.arena.starts_at <= self.now()
            self.task = asyncio.get_running_loop().create_task(self._run())

    def leave(self, socket: ArenaSocket) -> None:
        self.sockets.pop(socket, None)
        self.sent.pop(socket, None)

    async def stop(self) -> None:
        task, self.task = self.task, None
        for running in [*self.handing, *([task] if task is not None else [])]:
            await stop_task(running)

    async def hear(self, message: Message) -> None:
        if message.kind == "finished" and message.data:
            self.dirty = True
            player_id = message.data.get("player")
            if isinstance(player_id, int) and any(socket.player_id == player_id for socket in self.sockets):
                handing = asyncio.get_running_loop().create_task(self._send_next(player_id))
                # The loop keeps only a weak reference to a task: the room holds it until it is done.
                self.handing.add(handing)
                handing.add_done_callback(self.handing.discard)
        elif message.kind == "ended":
            self.dirty = True
            await self._end()
        else:
            self.dirty = True

    async def _send_next(self, player_id: int) -> None:
        try:
            game = await db_call(_next_game_for)(code=self.code, player_id=player_id)
        except Exception:
            log_background_failure(logger, "arena %s: the next game of player %s", self.code, player_id)
            return
        if game is None:
            return
        frame = protocol.next_game(game=game)
        for socket in [socket for socket in self.sockets if socket.player_id == player_id]:
            await deliver_to_one_of_many(socket.send(text_data=frame), "arena %s next", self.code)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            try:
                await self._tick()
            except Exception:
                raise_if_stopping()
                log_background_failure(logger, "arena %s: standings could not be sent", self.code)

    async def _tick(self) -> None:
        now = self.now()
        if not self.started and self.arena.starts_at <= now:
            self.started = True
            table = await self._read()
            players = {socket.player_id for socket in self.sockets if socket.player_id in table.by_player}
            for player_id in players:
                assert player_id is not None
                await self._send_next(player_id)
        if not self.ended and self.arena.ends_at <= now:
            await db_call(services.arena_end)(code=self.code, now=now)
            await self._end()
            return
        if self.dirty:
            await self._push()

    async def _push(self) -> None:
        table = await self._read()
        if not any(sent < self.version for sent in self.sent.values()):
            return
        top = protocol.standings_top(table.rows[:TOP])
        moment = time.monotonic()
        for socket, last in tuple(self.sockets.items()):
            if self.sent.get(socket, self.version) >= self.version or moment - last < STANDINGS_EVERY_S:
                continue
            self.sockets[socket] = moment
            self.sent[socket] = self.version
            me = table.by_player.get(socket.player_id) if socket.player_id is not None else None
            frame = protocol.standings(top=top, me=me, players=table.players, at=self.read_wall)
            await deliver_to_one_of_many(socket.send(text_data=frame), "arena %s standings", self.code)
        if any(sent < self.version for sent in self.sent.values()):
            self.dirty = True  # sockets that had a frame under a second ago get this one next time

    async def _end(self) -> None:
        if self.ended and self.arena.ended_at is not None:
            return
        self.ended = True
        self.arena = await db_call(selectors.arena_get)(code=self.code)
        async with self.lock:
            self.table = await db_call(selectors.standings)(arena_id=self.arena.pk)
        table = self.table
        arena = self._arena_json(table)
        for socket in tuple(self.sockets):
            me = table.by_player.get(socket.player_id) if socket.player_id is not None else None
            frame = protocol.ended(arena=arena, standings=table.rows[:TOP], me=me)
            await deliver_to_one_of_many(socket.send(text_data=frame), "arena %s ended", self.code)


class ArenaRooms:
    """The process's arena rooms, by code: a room follows its arena's bus group while it has sockets."""

    def __init__(self, process_bus: Bus) -> None:
        self.bus = process_bus
        self.rooms: dict[str, ArenaRoom] = {}

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        for room in list(self.rooms.values()):
            await room.stop()
        self.rooms.clear()

    async def join(self, code: str, socket: ArenaSocket) -> ArenaRoom:
        room = self.rooms.get(code)
        if room is None:
            arena = await db_call(selectors.arena_get)(code=code)
            room = self.rooms.get(arena.code)
            if room is None:
                room = self.rooms[arena.code] = ArenaRoom(arena.code, arena)
                await self.bus.subscribe(services.group(arena.code), room)
        await room.join(socket)
        return room

    def leave(self, room: ArenaRoom, socket: ArenaSocket) -> None:
        """Out of the room without awaiting anything (a socket being torn down may not get another
        turn); the last socket out closes the room in a task of its own."""
        room.leave(socket)
        if not room.sockets and self.rooms.get(room.code) is room:
            del self.rooms[room.code]
            asyncio.get_running_loop().create_task(self._close(room))

    async def _close(self, room: ArenaRoom) -> None:
        await room.stop()
        await self.bus.unsubscribe(services.group(room.code), room)


async def arena_rooms() -> ArenaRooms:
    """This process's arena rooms, started on first use."""
    return await bus().service("arenas", ArenaRooms, ArenaRooms.start)
