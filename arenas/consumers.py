"""The arena socket (/ws/arenas/<code>/): standings for everyone, the next game for participants.

Anyone may open it (participants and spectators alike); it is fed by this process's arena room
(runtime.py) through the bus. The one command, {"t": "next"}, is a participant's: from anyone else it
is refused with a `not_participant` reject, as the site's sockets refuse what a socket may not do.
"""

from __future__ import annotations

import logging

from django.utils import timezone

from accordion_site.db import db_call
from accordion_site.errors import ServiceError
from accounts.models import Player
from games.serializers import game_payload
from realtime.consumer import LiveSocket
from realtime.protocol import ProtocolError, decode_frame, reject, sequence_number

from . import protocol, services
from .errors import ArenaNotFound, NotParticipant
from .runtime import ArenaRoom, ArenaRooms, arena_rooms

logger = logging.getLogger(__name__)


def _next(*, code: str, player: Player | None) -> str:
    now = timezone.now()
    game = services.arena_next(code=code, player=player, now=now)
    return protocol.next_game(game=game_payload(game, now=now))


class ArenaConsumer(LiveSocket):
    room: ArenaRoom | None = None

    @property
    def described(self) -> str:
        return f"arena {self.scope['url_route']['kwargs']['code']}"

    async def connect(self) -> None:
        # Accept first: a close before accepting reaches a browser as a bare HTTP 403, without the code.
        await self.accept()
        player: Player | None = self.scope.get("player")
        self.player_id = player.pk if player is not None else None
        self.rooms: ArenaRooms = await arena_rooms()
        try:
            self.room = await self.rooms.join(self.scope["url_route"]["kwargs"]["code"], self)
        except ArenaNotFound as error:
            await self.refuse(error)

    async def disconnect(self, code: int) -> None:
        if self.room is not None:
            self.rooms.leave(self.room, self)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.room is None or await self.over_rate():
            return
        n = None
        try:
            content = decode_frame(text_data)
            n = sequence_number(content)
            protocol.parse(content)
        except ProtocolError as error:
            await self.send_content(
                reject(n=error.n if error.n is not None else n, error=error.reason, code=error.code)
            )
            return
        if self.player_id is None:
            await self.send(text_data=protocol.not_participant(n))
            return
        try:
            frame = await db_call(_next)(code=self.room.code, player=self.scope.get("player"))
        except NotParticipant:
            await self.send(text_data=protocol.not_participant(n))
        except ServiceError as error:
            await self.send_content(reject(n=n, error=error.message, code=error.code))
        else:
            await self.send(text_data=frame)
