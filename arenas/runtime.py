"""The arenas of this process's sockets: one room per arena per process, the bus's only listener of the
arena's group for all its sockets here.

Standings are pushed in batches: whatever changes (finishes, joins, reviews, spectators coming and
going) only marks the room dirty; at most once a second the room reads the standings once (one query)
and writes them to each socket whose view changed (the top ten, its own row, the players and spectators)
and whose last standings frame is a second old or more: the top ten encoded once, each row once. A
socket whose view did not change gets nothing. Spectators (the sockets of anyone not taking part) are
counted in the arena's presence group (realtime/presence.py), as a game's watchers are. A participant
whose game ended gets the next one at once ("next"), and at the end every socket gets "ended" after the
games in play were counted (services.arena_end, which any process may run: it acts once).
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
from games.serializers import game_payload
from realtime.bus import Bus, Message, bus, deliver_to_one_of_many
from realtime.presence import Presence, presence

from . import protocol, selectors, services
from .errors import ArenaError, GameInPlay
from .models import Arena, Participant
from .selectors import TOP, Standings
from .serializers import arena_fields

logger = logging.getLogger(__name__)

# A socket gets at most one standings frame a second; the room looks for due work this often (a
# change waits for the next look, on top of the second).
STANDINGS_EVERY_S = 1.0
TICK_S = 0.05
# How a spectator's socket counts in its arena's presence group.
SPECTATOR = "spectator"


class ArenaSocket(Protocol):
    player_id: int | None

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None: ...


def next_game_payload(*, code: str, player_id: int) -> dict[str, Any] | None:
    """The participant's next game (or the current one, if another socket or process has just started
    it); None when there is none to give (not a participant, the arena over)."""
    now = timezone.now()
    try:
        game = services.arena_next(code=code, player=player_id, now=now)
    except GameInPlay:
        current = Participant.objects.select_related("game__deal").get(arena__code=code, player=player_id).game
        assert current is not None
        game = current
    except ArenaError:
        return None
    return game_payload(game, now=now)  # type: ignore[no-any-return]


# What a socket's standings frame shows, but for the clock: the top ten and its own row (both as encoded),
# the players and the spectators. A socket is sent a frame only when this changed.
View = tuple[str, str, int, int]


class ArenaRoom:
    def __init__(self, code: str, arena: Arena, spectating: Presence) -> None:
        self.code = code
        self.arena = arena
        self.presence = spectating
        self.sockets: dict[ArenaSocket, float] = {}  # → when its last standings (or first) frame went
        # Each player's sockets here (their tabs): a finish looks its player up, not through every socket.
        self.by_player: dict[int, set[ArenaSocket]] = {}
        self.views: dict[ArenaSocket, View] = {}  # → what its last frame showed
        self.entries: dict[ArenaSocket, str] = {}  # a spectator's presence entry
        self.spectators = 0
        self.table: Standings | None = None
        self.top = "[]"  # the table's top ten, encoded
        self.rows: dict[int, str] = {}  # the table's rows encoded so far, by player
        # When the latest read was made, then when its push began (monotonic): the next read is due a
        # second later, when every socket it reached is due too.
        self.cycle_began = 0.0
        self.read_wall = 0.0
        self.serial = 0  # how many reads the room made
        self.pushed = 0  # the read the last push went through
        self.waiting = False  # a socket's changed view waits for its second to pass
        self.stale = False  # the standings or the spectators changed since the last read
        self.started = False
        self.ended = arena.ended_at is not None
        self.lock = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.handing: set[asyncio.Task[None]] = set()

    def now(self) -> datetime.datetime:
        return timezone.now()

    async def _read(self) -> Standings:
        async with self.lock:
            if self.table is None or (self.stale and time.monotonic() - self.cycle_began >= STANDINGS_EVERY_S):
                self.stale = False
                self.cycle_began = time.monotonic()
                self.read_wall = time.time()
                self._hold(await db_call(selectors.standings)(arena_id=self.arena.pk))
            assert self.table is not None
            return self.table

    def _hold(self, table: Standings) -> None:
        self.table = table
        self.serial += 1
        self.top = protocol.encode(table.rows[:TOP])
        self.rows = {}

    def _row(self, table: Standings, player_id: int | None) -> str:
        """A socket's own row as encoded (null for a spectator), once per read for all its sockets."""
        if player_id is None or player_id not in table.by_player:
            return "null"
        encoded = self.rows.get(player_id)
        if encoded is None:
            encoded = self.rows[player_id] = protocol.encode(table.by_player[player_id])
        return encoded

    def _arena_json(self, table: Standings) -> dict[str, Any]:
        return arena_fields(self.arena, now=self.now(), players=table.players)

    async def join(self, socket: ArenaSocket) -> None:
        table = await self._read()
        self.sockets[socket] = time.monotonic()
        if socket.player_id is not None:
            self.by_player.setdefault(socket.player_id, set()).add(socket)
        self.views[socket] = (self.top, self._row(table, socket.player_id), table.players, self.spectators)
        # The standings read may be a second old: a player who has just joined is no spectator.
        if socket.player_id not in table.by_player and not await db_call(selectors.takes_part)(
            arena_id=self.arena.pk, player_id=socket.player_id
        ):
            self.entries[socket] = await self.presence.enter(services.group(self.code), SPECTATOR)
        me = table.by_player.get(socket.player_id) if socket.player_id is not None else None
        await socket.send(
            text_data=protocol.arena(
                arena=self._arena_json(table), standings=table.rows[:TOP], me=me, spectators=self.spectators
            )
        )
        if self.task is None:
            self.started = self.arena.starts_at <= self.now()
            self.task = asyncio.get_running_loop().create_task(self._run())

    def leave(self, socket: ArenaSocket) -> None:
        self.sockets.pop(socket, None)
        if socket.player_id is not None:
            tabs = self.by_player.get(socket.player_id, set())
            tabs.discard(socket)
            if not tabs:
                self.by_player.pop(socket.player_id, None)
        self.views.pop(socket, None)
        entry = self.entries.pop(socket, None)
        if entry is not None:
            self.presence.leave(entry)

    def spectators_counted(self, count: int) -> None:
        if count != self.spectators:
            self.spectators = count
            # Read again too, so that the frame's `at` is when it was made, a second after the last one.
            self.stale = True

    async def stop(self) -> None:
        task, self.task = self.task, None
        for running in [*self.handing, *([task] if task is not None else [])]:
            await stop_task(running)

    async def hear(self, message: Message) -> None:
        if message.kind == "finished" and message.data:
            self.stale = True
            player_id = message.data.get("player")
            if isinstance(player_id, int) and player_id in self.by_player:
                handing = asyncio.get_running_loop().create_task(self._send_next(player_id))
                # The loop keeps only a weak reference to a task: the room holds it until it is done.
                self.handing.add(handing)
                handing.add_done_callback(self.handing.discard)
        elif message.kind == "ended":
            self.stale = True
            await self._end()
        else:
            self.stale = True

    async def _send_next(self, player_id: int) -> None:
        try:
            game = await db_call(next_game_payload)(code=self.code, player_id=player_id)
        except Exception:
            log_background_failure(logger, "arena %s: the next game of player %s", self.code, player_id)
            return
        if game is None:
            return
        frame = protocol.next_game(game=game)
        for socket in tuple(self.by_player.get(player_id, ())):
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
            for player_id in [player_id for player_id in self.by_player if player_id in table.by_player]:
                await self._send_next(player_id)
        if not self.ended and self.arena.ends_at <= now:
            await db_call(services.arena_end)(code=self.code, now=now)
            await self._end()
            return
        await self._push()

    async def _push(self) -> None:
        table = await self._read()  # a change marked stale is read here, at most once a second
        # Nothing to send unless a read (this one, or one made for a socket that opened) is not pushed
        # yet, or a socket's frame waits for its second to pass.
        if self.serial == self.pushed and not self.waiting:
            return
        moment = time.monotonic()
        if self.serial != self.pushed:
            self.pushed = self.serial
            self.cycle_began = moment
        self.waiting = False
        for socket, last in tuple(self.sockets.items()):
            view = (self.top, self._row(table, socket.player_id), table.players, self.spectators)
            if self.views.get(socket) == view:
                continue
            if moment - last < STANDINGS_EVERY_S:
                self.waiting = True  # it had a frame under a second ago: this one goes next time
                continue
            self.sockets[socket] = moment
            self.views[socket] = view
            frame = protocol.standings(
                top=view[0], me=view[1], players=table.players, spectators=self.spectators, at=self.read_wall
            )
            await deliver_to_one_of_many(socket.send(text_data=frame), "arena %s standings", self.code)

    async def _end(self) -> None:
        if self.ended and self.arena.ended_at is not None:
            return
        self.ended = True
        self.arena = await db_call(selectors.arena_get)(code=self.code)
        async with self.lock:
            table = await db_call(selectors.standings)(arena_id=self.arena.pk)
            self._hold(table)
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
        self.presence: Presence | None = None  # once started

    async def start(self) -> None:
        self.presence = await presence()
        self.presence.watch(services.group(""), lambda group: [SPECTATOR], self._spectators_changed)

    async def _spectators_changed(self, group: str, counts: dict[str, int]) -> None:
        room = self.rooms.get(group.removeprefix(services.group("")))
        if room is not None:
            room.spectators_counted(counts[SPECTATOR])

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
                assert self.presence is not None
                room = self.rooms[arena.code] = ArenaRoom(arena.code, arena, self.presence)
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
