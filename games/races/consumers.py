"""The race room socket: parse a message, call one service, answer, announce. No rules live here.

Room messages and progress reach the socket through this process's relay (games/races/relay.py),
never through a channel-layer group of its own. Database work runs on the database threads.
"""

from __future__ import annotations

import logging
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from accordion_site.db import db_call
from accordion_site.errors import OUTAGES, ServiceError
from accordion_site.sockets import UNAVAILABLE
from accounts.models import Player
from games.consumers import FLOOD_STRIKES, ServiceSocket
from games.protocol import MessageRate

from . import protocol, services
from .broadcast import announce, room_message
from .errors import NotStarted, RoomNotFound, SpoilerWithheld
from .models import Room
from .relay import PROCESS, rooms
from .selectors import normalize_room_code, room_check_readable, room_get

logger = logging.getLogger(__name__)

__all__ = ["FLOOD_STRIKES", "RaceConsumer"]


class RaceConsumer(ServiceSocket):
    # No channel of its own per socket: the process's relay hears the room once for all its sockets.
    channel_layer_alias = "none: room messages arrive through games.races.relay"

    async def connect(self) -> None:
        # Accept first: a close before accepting reaches a browser as a bare HTTP 403, without the code.
        await self.accept()
        self.requested = self.scope["url_route"]["kwargs"]["code"][:20]  # as asked for, for the log
        self.code = normalize_room_code(self.requested) or ""
        self.player: Player | None = self.scope.get("player")
        self.rate = MessageRate()
        self.strikes = 0
        self.counted = False  # this socket counts as one of its racer's open sockets
        self.room_version = 0  # the newest room version this socket has been sent
        # Messages that arrive while the socket is being brought up to date wait here.
        self.held: list[tuple[str, Any]] | None = []
        self.entered = False
        self.refused = False  # the room is withheld from this socket's player: it hears nothing more
        try:
            if not self.code:
                raise RoomNotFound(_("there is no such race room"))
            # Enter the relay before reading the room, so that nothing stored in between is missed.
            relay = await rooms().enter(self.code, self)
            self.entered = True
            joined = await db_call(services.race_join)(
                code=self.code, player=self.player, process=PROCESS, now=timezone.now()
            )
            self.counted = joined.seat is not None
            message = await db_call(room_message)(code=self.code, kinds=(), now=timezone.now(), starts=True)
        except ServiceError as error:
            await self._refuse(error)
            return
        await self._send(protocol.welcome(player=self.player.pk if self.player else None))
        await self._write_room(message, again=True)
        await self._flush_held()
        await relay.catch_up(message)
        await announce(joined.news)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "entered", False):
            await rooms().exit(self.code, self)
        if getattr(self, "counted", False) and self.player is not None:
            try:
                news = await db_call(services.race_disconnect)(
                    code=self.code, player=self.player, process=PROCESS, now=timezone.now()
                )
            except OUTAGES as error:
                # Else the racer would show as connected for good: the process's beat tries again.
                logger.warning("race %s: socket closed in an outage, counted off later: %r", self.code, error)
                rooms().count_off_later(self.code, self.player)
                return
            await announce(news)

    @property
    def described(self) -> str:
        return f"race {self.code or self.requested!r}"

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if await self._over_rate():
            return
        try:
            message = protocol.parse_client_message(text_data)
        except protocol.ProtocolError as error:
            await self._send(protocol.reject(n=error.n, error=error.reason, code=error.code))
            return
        try:
            news = await db_call(self._apply)(message)
        except ServiceError as error:
            logger.info("race %s: %s refused (%s): %s", self.code, type(message).__name__, error.code, error.message)
            await self._send(protocol.reject(n=message.n, error=error.message, code=error.code))
            return
        except OUTAGES as error:
            # Nothing was stored (each command is one transaction): the client may send it again.
            logger.warning("race %s: %s failed, outage: %r", self.code, type(message).__name__, error)
            await self._send(protocol.reject(n=message.n, error=UNAVAILABLE, code="unavailable"))
            return
        if isinstance(message, protocol.LeaveMessage):
            self.counted = False  # the seat is given up: this socket watches now
        if isinstance(message, protocol.SyncMessage):
            fresh = await db_call(room_message)(code=self.code, kinds=(), now=timezone.now(), starts=True)
            await self._write_room(fresh, again=True)
        await self._send(protocol.ack(n=message.n))
        await announce(news)

    # --- what the relay calls ---

    async def deliver_room(self, message: dict[str, Any]) -> None:
        if self.held is not None:
            self.held.append(("room", message))
        else:
            await self._write_room(message, again=False)

    async def deliver_progress(self, frame: str) -> None:
        if self.held is not None:
            self.held.append(("progress", frame))
        elif not self.refused:
            await self.send(text_data=frame)

    # --- internals ---

    def _apply(self, message: protocol.ClientMessage) -> services.RoomNews:
        now = timezone.now()
        code, player = self.code, self.player
        if isinstance(message, protocol.ReadyMessage):
            return services.race_ready(code=code, player=player, ready=message.ready)
        if isinstance(message, protocol.StartMessage):
            return services.race_start(code=code, player=player, now=now)
        if isinstance(message, protocol.KickMessage):
            return services.race_kick(code=code, player=player, target=message.player)
        if isinstance(message, protocol.LeaveMessage):
            return services.race_leave(code=code, player=player, now=now, process=PROCESS if self.counted else None)
        if isinstance(message, protocol.RematchMessage):
            return services.race_rematch(code=code, player=player)
        if isinstance(message, protocol.SettingsMessage):
            return services.race_settings(
                code=code, player=player, time_limit=message.time_limit, deal_code=message.code
            )
        if isinstance(message, protocol.GhostMessage):
            return services.race_ghost(code=code, player=player, game_id=message.game, now=now)
        if isinstance(message, protocol.SyncMessage):
            return services.race_advance(code=code, now=now)
        room = room_get(code=code)
        if room.state in (Room.State.LOBBY, Room.State.COUNTDOWN):
            raise NotStarted(_("the race has not started: no moves before the start signal"))
        raise ServiceError(
            _("moves go to your game's own socket (the game's `ws`), not to the room"), code="wrong_socket"
        )

    async def _write_room(self, message: dict[str, Any], *, again: bool) -> None:
        """The message's frames, unless this socket has a newer room already (`again`: send it even if
        it is not newer, as on connect or a sync); a racer's own `start` when the message has one. A
        room withheld from this socket's player (a ghost of today's daily chosen since it opened) is
        refused instead, and the socket closed: it hears nothing of the room from then on."""
        if self.refused or (message["version"] <= self.room_version and not again):
            return
        try:
            room_check_readable(readers=message["readers"], player=self.player)
        except SpoilerWithheld as error:
            self.refused = True
            await self._refuse(error)
            return
        self.room_version = max(self.room_version, message["version"])
        for frame in message["frames"]:
            await self.send(text_data=frame)
        start = message["starts"].get(str(self.player.pk)) if self.player is not None else None
        if start is not None:
            await self.send(text_data=start)

    async def _flush_held(self) -> None:
        while self.held and not self.refused:
            kind, item = self.held.pop(0)
            if kind == "room":
                await self._write_room(item, again=False)
            else:
                await self.send(text_data=item)
        self.held = None
