"""This process's side of the race rooms that have sockets here.

- The relay and the room's local sockets hear the room's bus group `race.<code>` (one subscription
  per room per process): room messages, encoded once where the change was made.
- Progress comes from the racers' own games: while a room races, its relay follows each racer's game
  on the bus, and turns each event (its plain `data`, not its frame) into one `progress` frame for all
  the room's local sockets, once per process, not once per socket.
- Each relay acts on the room's clock: at the start signal, at the time limit, and when a host who
  closed every socket has been away long enough to hand the room over, it asks
  `services.race_advance`, so the race starts and ends even if no message arrives (every process with
  sockets in the room tries; the room's lock lets one act). A read or a
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
import logging
import os
import secrets
from socket import gethostname
from typing import Any, Protocol

from django.conf import settings
from django.utils import timezone

from accordion_site.db import db_call
from accordion_site.errors import log_background_failure
from accordion_site.tasks import raise_if_stopping
from accounts.models import Player
from games import events
from games.models import Game
from realtime.bus import Bus, Message, bus
from realtime.edges import CLOSE_TRY_AGAIN

from . import protocol, services
from .broadcast import ROOM, group_name
from .models import Room
from .selectors import GhostStep, ghost_timeline

logger = logging.getLogger(__name__)

# This process, as its room sockets' connections name it: unique per run, readable in the admin.
PROCESS = f"{gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"


class RoomSocket(Protocol):
    counted: bool  # one of its racer's open sockets (Racer.sockets)

    async def close(self, code: int | None = None, reason: str | None = None) -> None:
        """Close the socket with `code`."""


def _when(text: str | None) -> datetime.datetime | None:
    return datetime.datetime.fromisoformat(text) if text else None


class RoomRelay:
    def __init__(self, bus: Bus, code: str) -> None:
        self.bus = bus
        self.code = code
        self.group = group_name(code)
        self.sockets: set[RoomSocket] = set()
        self.version = 0  # the newest room version this process has acted on
        self.followed: dict[int, tuple[int, int]] = {}  # game id → (racer id, player id)
        self.tasks: dict[str, tuple[datetime.datetime | None, asyncio.Task[None]]] = {}

    async def hear(self, message: Message) -> None:
        """Called by the bus with each message of the room's group and of its racers' games."""
        if message.kind == ROOM:
            assert message.data is not None
            await self.catch_up(message.data)
        elif message.kind == events.EVENT and message.group != self.group:
            await self._progress_from(message)

    async def catch_up(self, message: dict[str, Any]) -> None:
        """Act on a room message newer than any this process has acted on: a socket that arrives in a
        room already racing brings the room here first (nothing else would tell a new relay)."""
        if message["version"] > self.version:
            self.version = message["version"]
            await self._track(message)

    async def _progress_from(self, message: Message) -> None:
        assert message.data is not None
        racer = self.followed.get(int(message.group.removeprefix("game.")))
        if racer is None:
            return
        event = {**message.data, "v": message.v}
        await self._progress(message.v, protocol.progress_from_event(racer=racer[0], player=racer[1], event=event))

    async def close(self) -> None:
        running = [task for _, task in self.tasks.values()]
        self.tasks.clear()
        for task in running:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._unfollow_all()

    # --- internals ---

    async def _progress(self, v: int, progress: dict[str, Any]) -> None:
        await self.bus.deliver(Message(self.group, "progress", v, protocol.encode(progress)))

    async def _track(self, message: dict[str, Any]) -> None:
        """Follow the racers' games and set the timers the room's state calls for."""
        state = message["state"]
        if state == Room.State.RACING:
            for game_id, racer_id, player_id in message["games"]:
                if game_id not in self.followed:
                    self.followed[game_id] = (racer_id, player_id)
                    await self.bus.subscribe(events.group_name(game_id), self)
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
            self._cancel(*[name for name in self.tasks if name != "host"])
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
            await self.bus.unsubscribe(events.group_name(game_id), self)

    async def _advance_at(self, at: datetime.datetime) -> None:
        await asyncio.sleep(max(0.0, (at - timezone.now()).total_seconds()))
        await db_call(services.race_advance)(code=self.code, now=timezone.now())

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
            await self._progress(
                step.event["v"], protocol.progress_from_event(racer=racer_id, player=player_id, event=event)
            )


def _ghost_steps(game_id: int) -> list[GhostStep]:
    return ghost_timeline(game=Game.objects.get(pk=game_id))


class Rooms:
    """The relays of this process (a service of its bus), and the presence of their counted sockets."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.relays: dict[str, RoomRelay] = {}
        self.presence: asyncio.Task[None] | None = None
        self.count_off: list[tuple[str, Player]] = []  # sockets closed in an outage, to count off
        self.ready = asyncio.Lock()

    async def start(self) -> None:
        self.presence = self.bus.loop.create_task(self._keep_presence())

    async def enter(self, code: str, socket: RoomSocket) -> RoomRelay:
        """Bring `socket` (a listener of the bus) into the room: it and the room's relay hear the room."""
        async with self.ready:
            relay = self.relays.get(code)
            if relay is None:
                relay = RoomRelay(self.bus, code)
                await self.bus.subscribe(relay.group, relay)
                self.relays[code] = relay
            await self.bus.subscribe(relay.group, socket)  # type: ignore[arg-type]
            relay.sockets.add(socket)
            return relay

    async def exit(self, code: str, socket: RoomSocket) -> None:
        async with self.ready:
            relay = self.relays.get(code)
            if relay is None or socket not in relay.sockets:
                return
            relay.sockets.discard(socket)
            await self.bus.unsubscribe(relay.group, socket)  # type: ignore[arg-type]
            if relay.sockets:
                return
            del self.relays[code]
            await self.bus.unsubscribe(relay.group, relay)
        await relay.close()

    async def stop(self) -> None:
        """Stop every relay and the reader (for an event loop that is about to close)."""
        for relay in list(self.relays.values()):
            await relay.close()
        self.relays.clear()
        if self.presence is not None:
            self.presence.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.presence

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
                    await db_call(services.race_disconnect)(code=code, player=player, process=PROCESS, now=now)
                    del self.count_off[0]
                healthy_since = loop.time() if healthy_since is None else healthy_since
                # Only after beating for as long as a silence must last: after an outage every process
                # has had its turn to beat again, and none is taken for dead for the outage's silence.
                if loop.time() - healthy_since >= silent_s:
                    silent_for = datetime.timedelta(seconds=silent_s)
                    await db_call(services.race_dead_processes_sweep)(now=timezone.now(), silent_for=silent_for)
            except Exception:
                raise_if_stopping()
                healthy_since = None
                log_background_failure(logger, "race rooms: this process's presence could not be kept")
            await asyncio.sleep(beat_s)


async def rooms() -> Rooms:
    """This process's rooms, started on first use."""
    return await bus().service("rooms", Rooms, Rooms.start)
