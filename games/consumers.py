"""The player's socket: parse a message, call one service, answer. No rules live here.

Events reach the socket through the process's bus (realtime/bus.py). A plain move or undo is stored
from the event loop on connections of the loop's own (realtime/loop_db.py); other database work runs
on the database threads (accordion_site/db.py), so no socket waits behind another's query.
"""

from __future__ import annotations

import logging
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from accordion_site.db import db_call
from accordion_site.errors import OUTAGES
from accounts.models import Player
from realtime.bus import Message, bus
from realtime.consumer import MAX_CATCH_UP_EVENTS, LiveSocket
from realtime.protocol import encode, reject

from . import events, protocol, selectors, services
from .errors import GameError
from .models import Game
from .serializers import game_payload, game_result_of
from .watching.runtime import crowd_frame

logger = logging.getLogger(__name__)

# The acks a socket remembers by `n`, so that a message sent twice is answered twice but applied once.
REMEMBERED_ACKS = 64


class GameConsumer(LiveSocket):
    async def connect(self) -> None:
        await self.accept()
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.group = events.group_name(self.game_id)
        self.player: Player | None = self.scope.get("player")
        self.acks: dict[int, dict[str, Any]] = {}
        # The game as this socket's last change left it: the next move is checked against it and stored
        # on condition that the game is still so (games.services.game_move_async), without a read of its
        # own. Kept from the first change on, so that sockets that only listen hold no game.
        self.known: services.KnownGame | None = None
        # Follow before catching up, so that nothing committed in between is missed.
        self.hold()
        await bus().subscribe(self.group, self)
        try:
            version, frames = await db_call(self._catch_up)(since=self.since)
        except GameError as error:
            await self.refuse(error)
            return
        except OUTAGES:
            await self.refuse_outage()
            return
        await self.caught_up(version, frames)
        # How many are watching (games/watching), when anyone is; changes come as `crowd` messages.
        if crowd := await crowd_frame(self.game_id):
            await self.send(text_data=crowd)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await bus().unsubscribe(self.group, self)

    @property
    def described(self) -> str:
        return f"game {self.game_id}"

    async def on_message(self, message: Message) -> None:
        if message.kind == events.EVENT:
            await super().on_message(message)
        elif message.kind == "crowd" and self.version_sent >= 0:  # once caught up: the game comes first
            await self.send(text_data=message.frame)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if await self.over_rate():
            return
        try:
            message = protocol.parse_client_message(text_data)
        except protocol.ProtocolError as error:
            logger.warning("game %s: bad message refused: %s", self.game_id, error.reason)
            await self.send_content(reject(n=error.n, error=error.reason, code=error.code))
            return
        self.hold()
        try:
            if isinstance(message, protocol.SyncMessage):
                version, frames = await db_call(self._catch_up)(since=message.v)
                await self.caught_up(version, frames)
            elif message.n in self.acks:
                # A replayed message (a client's retry, or an attacker's): the first answer again.
                await self.release()
                await self.send_content(self.acks[message.n])
            else:
                ack = await self._apply(message)
                self._remember(ack)
                await self.acknowledged(ack)
        except GameError as error:
            logger.info("game %s: message %s refused (%s): %s", self.game_id, message.n, error.code, error.message)
            await self.release()
            await self.send_content(reject(n=message.n, error=error.message, code=error.code))
        except OUTAGES as error:
            await self.answer_outage(message.n, error)

    def _remember(self, ack: dict[str, Any]) -> None:
        self.acks[ack["n"]] = ack
        if len(self.acks) > REMEMBERED_ACKS:
            del self.acks[next(iter(self.acks))]  # the oldest: dicts keep insertion order

    def _catch_up(self, *, since: int | None) -> tuple[int, list[str]]:
        """The game's version, and the frames that bring a client that has version `since` up to it:
        the events it missed, or the whole game (`state`) when it has none, is too far behind, or is
        ahead of the server."""
        game = selectors.game_get_for_player(game_id=self.game_id, player=self.player)
        missed = None if since is None else events.events_after(game=game, v=since, limit=MAX_CATCH_UP_EVENTS)
        if missed is None:
            payload = game_payload(game, now=timezone.now())
            return game.version, [encode(protocol.state(game=payload, version=game.version))]
        return game.version, [event.frame for event in missed]

    async def _apply(self, message: protocol.MoveMessage | protocol.UndoMessage) -> dict[str, Any]:
        if self.player is None:
            raise GameError(_("this socket has no player"))
        now = timezone.now()
        if isinstance(message, protocol.MoveMessage):
            self.known = await services.game_move_async(
                game_id=self.game_id, player=self.player, move=message.move, now=now, known=self.known
            )
        else:
            self.known = await services.game_undo_async(
                game_id=self.game_id, player=self.player, now=now, known=self.known
            )
        known = self.known
        # A finished game's result carries its standing on the day's board: a read, so on a thread.
        finished = known.status == Game.Status.FINISHED
        result = await db_call(game_result_of)(game_id=known.game_id) if finished else None
        return protocol.ack(n=message.n, version=known.version, piles=known.piles, status=known.status, result=result)
