"""This process's side of the race rooms that have sockets here: one relay per room, a listener of the
room's bus group `race.<code>` (room messages, encoded once where the change was made).

While a room races, its relay follows each racer's game and turns each event into one `progress` frame
for all the room's local sockets; it replays ghosts at their original offsets; it asks
`services.race_advance` at the room's due times (start, time limit, a host away), so a race starts
and ends without any message; and when the racers present (realtime/presence.py) differ from those
the room shows as connected, it asks `services.race_presence` to store it.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
from typing import Any

from django.utils import timezone

from accordion_site.db import db_call
from accordion_site.tasks import stop_task
from games import events
from games.models import Game
from realtime.bus import Bus, Listener, Message, bus
from realtime.presence import presence

from . import protocol, services
from .broadcast import ROOM, group_name
from .models import Room
from .selectors import GhostStep, ghost_timeline

logger = logging.getLogger(__name__)


async def advance_at(code: str, at: datetime.datetime) -> None:
    await asyncio.sleep(max(0.0, (at - timezone.now()).total_seconds()))
    await db_call(services.race_advance)(code=code, now=timezone.now())


def _when(text: str | None) -> datetime.datetime | None:
    return datetime.datetime.fromisoformat(text) if text else None


class RoomRelay:
    def __init__(self, bus: Bus, code: str) -> None:
        self.bus = bus
        self.code = code
        self.group = group_name(code)
        self.sockets = 0  # this process's sockets of the room
        self.racers: dict[str, bool] = {}  # racer_who → shown as connected, as the newest room has it
        self.version = 0  # the newest room version this process has acted on
        self.followed: dict[str, tuple[int, int]] = {}  # a racer's game's bus group → (racer id, player id)
        self.tasks: dict[str, tuple[datetime.datetime, asyncio.Task[None]]] = {}

    async def hear(self, message: Message) -> None:
        if message.kind == ROOM:
            assert message.data is not None
            await self.catch_up(message.data)
        elif message.kind == events.EVENT and (racer := self.followed.get(message.group)) is not None:
            assert message.data is not None
            await self._progress(*racer, {**message.data, "v": message.v})

    async def catch_up(self, message: dict[str, Any]) -> None:
        """Act on a room message newer than any acted on (a new socket brings the room to a new relay)."""
        if message["version"] > self.version:
            self.version = message["version"]
            self.racers = message["racers"]
            await self._track(message)

    async def close(self) -> None:
        running = [task for _, task in self.tasks.values()]
        self.tasks.clear()
        for task in running:
            await stop_task(task)
        await self._unfollow_all()

    async def _progress(self, racer: int, player: int, event: dict[str, Any]) -> None:
        progress = protocol.progress_from_event(racer=racer, player=player, event=event)
        await self.bus.deliver(Message(self.group, "progress", event["v"], protocol.encode(progress)))

    async def _track(self, message: dict[str, Any]) -> None:
        state = message["state"]
        if state == Room.State.RACING:
            for game_id, racer_id, player_id in message["games"]:
                group = events.group_name(game_id)
                if group not in self.followed:
                    self.followed[group] = (racer_id, player_id)
                    await self.bus.subscribe(group, self)
        else:
            await self._unfollow_all()
        starts_at, ends_at = _when(message["starts_at"]), _when(message["ends_at"])
        if state == Room.State.COUNTDOWN and starts_at is not None:
            self._run("clock", starts_at, advance_at(self.code, starts_at))
        elif state == Room.State.RACING and ends_at is not None and starts_at is not None:
            self._run("clock", ends_at, advance_at(self.code, ends_at))
            for racer_id, game_id, player_id in message["ghosts"]:
                play = self._replay_ghost(racer_id, player_id, game_id, starts_at, message["time_limit"])
                self._run(f"ghost {racer_id}", starts_at, play)
        else:
            self._cancel(*[name for name in self.tasks if name != "host"])
        host_away_until = _when(message["host_away_until"])
        if host_away_until is not None:
            self._run("host", host_away_until, advance_at(self.code, host_away_until))
        else:
            self._cancel("host")

    def _run(self, name: str, at: datetime.datetime, work: Any) -> None:
        """Run `work` as the task `name`, unless it is already set for the same time."""
        current = self.tasks.get(name)
        if current is not None and current[0] == at and not current[1].done():
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
        for group in followed:
            await self.bus.unsubscribe(group, self)

    async def _replay_ghost(
        self, racer_id: int, player_id: int, game_id: int, starts_at: datetime.datetime, time_limit: int
    ) -> None:
        """The ghost's events still to come, each at its offset from the start signal."""
        steps = await db_call(_ghost_steps)(game_id)
        for step in steps:
            if step.offset > time_limit:
                return
            due = starts_at + datetime.timedelta(seconds=step.offset)
            delay = (due - timezone.now()).total_seconds()
            if delay < 0:
                continue
            await asyncio.sleep(delay)
            await self._progress(racer_id, player_id, {**step.event, "at": due.isoformat()})


def _ghost_steps(game_id: int) -> list[GhostStep]:
    return ghost_timeline(game=Game.objects.get(pk=game_id))


class Rooms:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self.relays: dict[str, RoomRelay] = {}
        self.ready = asyncio.Lock()
        self.due: set[asyncio.Task[None]] = set()  # rooms' clocks kept after their last socket here left

    async def start(self) -> None:
        (await presence()).watch(group_name(""), self._racers, self._presence_changed)

    def _racers(self, group: str) -> list[str]:
        relay = self.relays.get(group.removeprefix(group_name("")))
        return list(relay.racers) if relay is not None else []

    async def _presence_changed(self, group: str, counts: dict[str, int]) -> None:
        relay = self.relays.get(group.removeprefix(group_name("")))
        if relay is None:
            return
        if any(bool(counts.get(who, 0)) != connected for who, connected in relay.racers.items()):
            await db_call(services.race_presence)(code=relay.code, now=timezone.now())

    async def enter(self, code: str, socket: Listener) -> RoomRelay:
        async with self.ready:
            relay = self.relays.get(code)
            if relay is None:
                relay = RoomRelay(self.bus, code)
                await self.bus.subscribe(relay.group, relay)
                self.relays[code] = relay
            await self.bus.subscribe(relay.group, socket)
            relay.sockets += 1
            return relay

    async def exit(self, code: str, socket: Listener) -> None:
        async with self.ready:
            relay = self.relays.get(code)
            if relay is None:
                return
            await self.bus.unsubscribe(relay.group, socket)
            relay.sockets -= 1
            if relay.sockets:
                return
            del self.relays[code]
            await self.bus.unsubscribe(relay.group, relay)
        await relay.close()

    def advance_later(self, code: str, at: datetime.datetime) -> None:
        """`services.race_advance` at `at`, though no socket of the room may be left here by then."""
        task = asyncio.get_running_loop().create_task(advance_at(code, at), name=f"race {code} due")
        self.due.add(task)
        task.add_done_callback(self.due.discard)

    async def stop(self) -> None:
        for relay in list(self.relays.values()):
            await relay.close()
        self.relays.clear()
        for task in list(self.due):
            await stop_task(task)


async def rooms() -> Rooms:
    return await bus().service("rooms", Rooms, Rooms.start)
