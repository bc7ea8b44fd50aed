"""This process's side of the race rooms that have sockets here.

- One channel-layer subscription per room per process (group `race.<code>`, read from one channel of
  the process): room messages, encoded once where the change was made, are written to each local
  socket of the room.
- Progress comes from the racers' own games: while a room races, its relay follows each racer's game
  through the games hub (one subscription per game per process), and turns each event into one
  `progress` frame for all the room's local sockets, once per process, not once per socket.
- Each relay acts on the room's clock: at the start signal, at the time limit, and when a host who
  closed every socket has been away long enough to hand the room over, it asks
  `services.race_advance`, so the race starts and ends even if no message arrives (every process with
  sockets in the room tries; the room's lock lets one act, and that one announces it). A read or a
  join does the same, so a room whose processes all restarted still starts and ends.
- Ghosts are replayed here: their stored events, at their original offsets from the start signal.
- While it has room sockets, the process beats every RACE_PROCESS_BEAT_S (`ServerProcess.seen_at`)
  and takes the sockets of processes silent for RACE_PROCESS_SILENT_S off their seats: a process
  killed with its sockets open cannot count them off itself. A socket whose count-off failed (the
  database away) is counted off at a later beat; a process taken for dead while alive (its beats could
  not reach the database) closes its counted sockets with 3503, and they count again as they reopen.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import os
import secrets
import weakref
from socket import gethostname
from typing import Any, Protocol

from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone

from accordion_site.db import db_call
from accordion_site.errors import log_background_failure
from accordion_site.sockets import CLOSE_TRY_AGAIN, deliver_to_one_of_many
from accordion_site.tasks import raise_if_stopping
from accounts.models import Player
from games.hub import hub
from games.models import Game

from . import protocol, services
from .broadcast import ROOM_MESSAGE, announce, group_name, room_message
from .models import Room
from .selectors import GhostStep, ghost_timeline

logger = logging.getLogger(__name__)

# This process, as its room sockets' connections name it: unique per run, readable in the admin.
PROCESS = f"{gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"


class RoomSocket(Protocol):
    counted: bool  # one of its racer's open sockets (Racer.sockets)

    async def close(self, code: int | None = None, reason: str | None = None) -> None:
        """Close the socket with `code`."""

    async def deliver_room(self, message: dict[str, Any]) -> None:
        """Write a room message's frames (and this socket's own `start`, if it has one)."""

    async def deliver_progress(self, frame: str) -> None:
        """Write one `progress` frame."""


def _when(text: str | None) -> datetime.datetime | None:
    return datetime.datetime.fromisoformat(text) if text else None


class RoomRelay:
    def __init__(self, code: str) -> None:
        self.code = code
        self.sockets: set[RoomSocket] = set()
        self.version = 0  # the newest room version this process has acted on
        self.followed: dict[int, tuple[int, int]] = {}  # game id → (racer id, player id)
        self.tasks: dict[str, tuple[datetime.datetime | None, asyncio.Task[None]]] = {}

    async def on_room_message(self, message: dict[str, Any]) -> None:
        for socket in tuple(self.sockets):
            await deliver_to_one_of_many(socket.deliver_room(message), "race %s: a room message", self.code)
        await self.catch_up(message)

    async def catch_up(self, message: dict[str, Any]) -> None:
        """Act on a room message newer than any this process has acted on: a socket that arrives in a
        room already racing brings the room here first (nothing else would tell a new relay)."""
        if message["version"] > self.version:
            self.version = message["version"]
            await self._track(message)

    async def deliver_event(self, v: int, frame: str) -> None:
        """Called by the games hub with each event of a followed racer's game."""
        event = json.loads(frame)
        racer = self.followed.get(event["game"])
        if racer is None:
            return
        progress = protocol.encode(protocol.progress_from_event(racer=racer[0], player=racer[1], event=event))
        await self._progress(progress)
        if event["kind"] == "finish":
            # The race may have ended with this finish (stored in the same transaction): look.
            self._run("refresh", None, self._refresh())

    async def close(self) -> None:
        running = [task for _, task in self.tasks.values()]
        self.tasks.clear()
        for task in running:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._unfollow_all()

    # --- internals ---

    async def _progress(self, frame: str) -> None:
        for socket in tuple(self.sockets):
            await deliver_to_one_of_many(socket.deliver_progress(frame), "race %s: progress", self.code)

    async def _track(self, message: dict[str, Any]) -> None:
        """Follow the racers' games and set the timers the room's state calls for."""
        state = message["state"]
        if state == Room.State.RACING:
            for game_id, racer_id, player_id in message["games"]:
                if game_id not in self.followed:
                    self.followed[game_id] = (racer_id, player_id)
                    await hub().follow(game_id, self)
        else:
            await self._unfollow_all()
        starts_at, ends_at = _when(message["starts_at"]), _when(message["ends_at"])
        if state == Room.State.COUNTDOWN and starts_at is not None:
            self._run("clock", starts_at, self._advance_at(starts_at))
        elif state == Room.State.RACING and ends_at is not None and starts_at is not None:
            self._run("clock", ends_at, self._advance_at(ends_at))
            for racer_id, game_id, player_id in message["ghosts"]:
                play = self._replay_ghost(racer_id, player_id, game_id, starts_at, message["time_limit"])
                self._run(f"ghost {racer_id}", starts_at, play)
        else:
            self._cancel(*[name for name in self.tasks if name not in ("refresh", "host")])
        # A host away from the lobby or the result: at the due time the room passes to another racer.
        host_away_until = _when(message["host_away_until"])
        if host_away_until is not None:
            self._run("host", host_away_until, self._advance_at(host_away_until))
        else:
            self._cancel("host")

    def _run(self, name: str, at: datetime.datetime | None, work: Any) -> None:
        """Run `work` as the task `name`, unless the same is already set for the same time."""
        current = self.tasks.get(name)
        if current is not None and current[0] == at and at is not None and not current[1].done():
            work.close()
            return
        self._cancel(name)
        task = asyncio.get_running_loop().create_task(work)
        self.tasks[name] = (at, task)
        task.add_done_callback(lambda done: self._forget(name, done))

    def _forget(self, name: str, task: asyncio.Task[None]) -> None:
        current = self.tasks.get(name)
        if current is not None and current[1] is task:
            del self.tasks[name]
        if not task.cancelled() and task.exception() is not None:
            logger.error("race %s: %s failed", self.code, name, exc_info=task.exception())

    def _cancel(self, *names: str) -> None:
        for name in names:
            entry = self.tasks.pop(name, None)
            if entry is not None:
                entry[1].cancel()

    async def _unfollow_all(self) -> None:
        followed, self.followed = self.followed, {}
        for game_id in followed:
            await hub().unfollow(game_id, self)

    async def _advance_at(self, at: datetime.datetime) -> None:
        await asyncio.sleep(max(0.0, (at - timezone.now()).total_seconds()))
        news = await db_call(services.race_advance)(code=self.code, now=timezone.now())
        await announce(news)

    async def _refresh(self) -> None:
        message = await db_call(room_message)(code=self.code, kinds=("finished",), now=timezone.now(), starts=False)
        await self.on_room_message(message)

    async def _replay_ghost(
        self, racer_id: int, player_id: int, game_id: int, starts_at: datetime.datetime, time_limit: int
    ) -> None:
        """The ghost's events, each at its offset from the start signal (those already past are in the
        room its sockets were sent)."""
        steps = await db_call(_ghost_steps)(game_id)
        for step in steps:
            if step.offset > time_limit:
                return
            due = starts_at + datetime.timedelta(seconds=step.offset)
            delay = (due - timezone.now()).total_seconds()
            if delay < 0:
                continue
            await asyncio.sleep(delay)
            event = {**step.event, "at": due.isoformat()}
            progress = protocol.progress_from_event(racer=racer_id, player=player_id, event=event)
            await self._progress(protocol.encode(progress))


def _ghost_steps(game_id: int) -> list[GhostStep]:
    return ghost_timeline(game=Game.objects.get(pk=game_id))


class Rooms:
    """The relays of this process (one per event loop), and the one channel they hear rooms on."""

    def __init__(self) -> None:
        self.layer: Any = get_channel_layer()
        self.relays: dict[str, RoomRelay] = {}
        self.channel: str | None = None
        self.reader: asyncio.Task[None] | None = None
        self.presence: asyncio.Task[None] | None = None
        self.count_off: list[tuple[str, Player]] = []  # sockets closed in an outage, to count off
        self.ready = asyncio.Lock()

    async def enter(self, code: str, socket: RoomSocket) -> RoomRelay:
        async with self.ready:
            if self.channel is None:
                self.channel = await self.layer.new_channel(prefix="races.")
                self.reader = asyncio.get_running_loop().create_task(self._read(self.channel))
            if self.presence is None:
                self.presence = asyncio.get_running_loop().create_task(self._keep_presence())
            relay = self.relays.get(code)
            if relay is None:
                # Kept only once the room is heard: a relay kept after a failed subscription (Redis
                # away) left every later socket of the room on this process deaf to it.
                await self.layer.group_add(group_name(code), self.channel)
                relay = self.relays[code] = RoomRelay(code)
            relay.sockets.add(socket)
            return relay

    async def exit(self, code: str, socket: RoomSocket) -> None:
        async with self.ready:
            relay = self.relays.get(code)
            if relay is None or socket not in relay.sockets:
                return
            relay.sockets.discard(socket)
            if relay.sockets:
                return
            del self.relays[code]
            assert self.channel is not None
            await self.layer.group_discard(group_name(code), self.channel)
        await relay.close()

    async def stop(self) -> None:
        """Stop every relay and the reader (for an event loop that is about to close)."""
        for relay in list(self.relays.values()):
            await relay.close()
        self.relays.clear()
        for task in (self.reader, self.presence):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    def count_off_later(self, code: str, player: Player) -> None:
        """A socket of `player` in room `code` closed, but could not be counted off its seat."""
        self.count_off.append((code, player))

    async def _keep_presence(self) -> None:
        loop = asyncio.get_running_loop()
        beat_s, silent_s = settings.RACE_PROCESS_BEAT_S, settings.RACE_PROCESS_SILENT_S
        healthy_since: float | None = None
        while True:
            counted = [each for relay in self.relays.values() for each in relay.sockets if each.counted]
            try:
                known = await db_call(services.race_process_beat)(process=PROCESS, now=timezone.now())
                if not known and counted:
                    logger.warning("this process was taken for dead: %s room sockets reopen to count", len(counted))
                    for each in counted:
                        await each.close(code=CLOSE_TRY_AGAIN)
                while self.count_off:
                    code, player = self.count_off[0]
                    now = timezone.now()
                    await announce(
                        await db_call(services.race_disconnect)(code=code, player=player, process=PROCESS, now=now)
                    )
                    del self.count_off[0]
                healthy_since = loop.time() if healthy_since is None else healthy_since
                # Only after beating for as long as a silence must last: after an outage every process
                # has had its turn to beat again, and none is taken for dead for the outage's silence.
                if loop.time() - healthy_since >= silent_s:
                    silent_for = datetime.timedelta(seconds=silent_s)
                    for news in await db_call(services.race_dead_processes_sweep)(
                        now=timezone.now(), silent_for=silent_for
                    ):
                        await announce(news)
            except Exception:
                raise_if_stopping()
                healthy_since = None
                log_background_failure(logger, "race rooms: this process's presence could not be kept")
            await asyncio.sleep(beat_s)

    async def _read(self, channel: str) -> None:
        while True:
            message = await self.layer.receive(channel)
            relay = self.relays.get(message.get("code", ""))
            if message.get("type") != ROOM_MESSAGE or relay is None:
                continue
            try:
                await relay.on_room_message(message)
            except Exception:
                raise_if_stopping()
                logger.exception("race %s: room message v%s not handled", message["code"], message.get("version"))


_rooms: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Rooms] = weakref.WeakKeyDictionary()


def running_rooms() -> Rooms | None:
    return _rooms.get(asyncio.get_running_loop())


def rooms() -> Rooms:
    """This process's rooms (one per event loop, which in a Daphne process means one)."""
    loop = asyncio.get_running_loop()
    found = _rooms.get(loop)
    if found is None:
        found = _rooms[loop] = Rooms()
    return found
