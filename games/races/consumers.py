"""The race room socket: parse a message, call one service, answer. What a command changed is
announced by the services once stored, and reaches the sockets through the room's bus group."""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from accordion_site.db import db_call
from accordion_site.errors import OUTAGES, ServiceError
from accounts.models import Player
from realtime.bus import Message, bus
from realtime.consumer import LiveSocket
from realtime.presence import presence

from . import protocol, services
from .broadcast import ROOM, group_name, racer_who, room_message
from .errors import NotStarted, RoomNotFound, SpoilerWithheld
from .models import Room
from .relay import rooms
from .selectors import normalize_room_code, race_abandoned_at, room_check_readable, room_get

logger = logging.getLogger(__name__)


class RaceConsumer(LiveSocket):
    async def connect(self) -> None:
        await self.accept()
        self.requested = self.scope["url_route"]["kwargs"]["code"][:20]  # for the log
        self.code = normalize_room_code(self.requested) or ""
        self.player: Player | None = self.scope.get("player")
        self.present: str | None = None  # this socket's presence entry
        self.entered = False
        self.refused = False  # the room is withheld from this socket's player: it hears nothing more
        self.start_sent = -1  # the room version whose `start` this socket sent last
        self.hold()
        try:
            if not self.code:
                raise RoomNotFound(_("there is no such race room"))
            # Enter the room before reading it, so that nothing stored in between is missed.
            relay = await (await rooms()).enter(self.code, self)
            self.entered = True
            if self.player is not None:
                # Present before joining, so the join stores the racer as connected.
                self.present = await (await presence()).enter(
                    group_name(self.code), racer_who(self.player.pk), written=True
                )
            await db_call(services.race_join)(code=self.code, player=self.player, now=timezone.now())
            message = await db_call(room_message)(code=self.code, kinds=(), now=timezone.now(), starts=True)
        except ServiceError as error:
            await self.refuse(error)
            return
        await self.send_content(protocol.welcome(player=self.player.pk if self.player else None))
        # `?v=`: a client that has the room's version missed nothing, unless the room races (progress).
        resumed = self.since == message["version"] and message["state"] != Room.State.RACING
        await self._write_room(message, again=True, frames=not resumed)
        await self.release()
        await relay.catch_up(message)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "entered", False):
            await (await rooms()).exit(self.code, self)
        entry = getattr(self, "present", None)
        if entry is None:
            return
        self.present = None
        process_presence = await presence()
        process_presence.leave(entry)  # at once: a socket being torn down may not get another turn
        try:
            await process_presence.flushed()
            await db_call(services.race_presence)(code=self.code, now=timezone.now())
            # The last racer present gone from a race under way: it ends unless one is back in time.
            abandoned_at = await db_call(_abandoned_at)(self.code)
            if abandoned_at is not None:
                (await rooms()).advance_later(self.code, abandoned_at)
        except RoomNotFound:
            pass  # refused, or deleted since: no seat to show
        except OUTAGES as error:
            # The relays of the room's other sockets store it once they can.
            logger.warning("race %s: a socket left in an outage, stored later: %r", self.code, error)

    @property
    def described(self) -> str:
        return f"race {self.code or self.requested!r}"

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if await self.over_rate():
            return
        try:
            message = protocol.parse_client_message(text_data)
        except protocol.ProtocolError as error:
            await self.send_content(protocol.reject(n=error.n, error=error.reason, code=error.code))
            return
        failures = bus().failures
        try:
            await db_call(self._apply)(message)
        except ServiceError as error:
            logger.info("race %s: %s refused (%s): %s", self.code, message.kind, error.code, error.message)
            await self.send_content(protocol.reject(n=message.n, error=error.message, code=error.code))
            return
        except OUTAGES as error:
            await self.answer_outage(message.n, error)
            return
        if message.kind == "sync":
            fresh = await db_call(room_message)(code=self.code, kinds=(), now=timezone.now(), starts=True)
            await self._write_room(fresh, again=True)
        await self.send_content(protocol.ack(n=message.n))
        if not await bus().published(since=failures):
            # Stored, but the news could not be sent: the client comes back for it, as after any 3503.
            await self.refuse_outage()

    async def on_message(self, message: Message) -> None:
        if message.kind == ROOM:
            assert message.data is not None
            await self._write_room(message.data, again=False)
        elif message.kind == "progress" and not self.refused:
            await self.send(text_data=message.frame)

    def _apply(self, message: protocol.RoomCommand) -> None:
        now, code, player, kind = timezone.now(), self.code, self.player, message.kind
        if kind == "ready":
            services.race_ready(code=code, player=player, ready=message.ready, now=now)
        elif kind == "start":
            services.race_start(code=code, player=player, now=now)
        elif kind == "kick":
            services.race_kick(code=code, player=player, target=message.player, now=now)
        elif kind == "leave":
            services.race_leave(code=code, player=player, now=now)
        elif kind == "rematch":
            services.race_rematch(code=code, player=player, confirm=message.confirm, now=now)
        elif kind == "settings":
            services.race_settings(code=code, player=player, time_limit=message.time_limit, deal_code=message.code)
        elif kind == "ghost":
            services.race_ghost(code=code, player=player, game_id=message.game, now=now)
        elif kind == "sync":
            services.race_advance(code=code, now=now)
        elif room_get(code=code).state in (Room.State.LOBBY, Room.State.COUNTDOWN):
            raise NotStarted(_("the race has not started: no moves before the start signal"))
        else:
            raise ServiceError(
                _("moves go to your game's own socket (the game's `ws`), not to the room"), code="wrong_socket"
            )

    async def _write_room(self, message: dict[str, Any], *, again: bool, frames: bool = True) -> None:
        """The message's frames unless this socket has a newer room (`again`: even if not newer; `frames`:
        none, for a client that has this version), and the racer's own `start`, even from a room a newer
        one overtook: rooms changed in two processes (a start, a racer's presence) may arrive out of
        order. A room now withheld from this socket's player is refused instead, and the socket closed."""
        if self.refused:
            return
        newer = again or message["version"] > self.version_sent
        start = message["starts"].get(str(self.player.pk)) if self.player is not None else None
        start_unsent = start is not None and (again or message["version"] > self.start_sent)
        if not (newer or start_unsent):
            return
        try:
            room_check_readable(readers=message["readers"], player=self.player)
        except SpoilerWithheld as error:
            self.refused = True
            await self.refuse(error)
            return
        if newer:
            self.version_sent = max(self.version_sent, message["version"])
            for frame in message["frames"] if frames else ():
                await self.send(text_data=frame)
        if start_unsent:
            self.start_sent = max(self.start_sent, message["version"])
            await self.send(text_data=start)


def _abandoned_at(code: str) -> datetime.datetime | None:
    return race_abandoned_at(room=room_get(code=code))
