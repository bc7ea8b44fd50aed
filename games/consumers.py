"""The player's socket: parse a message, call one service, answer. No rules live here."""

from __future__ import annotations

import json
import logging
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import timezone

from accounts.selectors import player_from_session
from leaderboards.selectors import daily_rank

from . import protocol, services
from .errors import GameError
from .models import Game
from .selectors import game_get_for_player
from .serializers import game_result

logger = logging.getLogger(__name__)

# Close codes (4000-4999 are the application's): the client should not retry these.
CLOSE_NOT_YOUR_GAME = 4403
CLOSE_NO_SUCH_GAME = 4404
CLOSE_FLOODING = 4429
# Refused messages over the rate a socket may send before the server hangs up on it.
FLOOD_STRIKES = 100


class GameConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.player = await database_sync_to_async(player_from_session)(self.scope["session"])
        try:
            await database_sync_to_async(game_get_for_player)(game_id=self.game_id, player=self.player)
        except GameError as error:
            logger.warning("socket for game %s refused: %s", self.game_id, error.message)
            await self.close(code=CLOSE_NO_SUCH_GAME if error.status == 404 else CLOSE_NOT_YOUR_GAME)
            return
        self.rate = protocol.MessageRate()
        self.strikes = 0
        self.group = f"game.{self.game_id}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.rate.allow():
            await self._refuse_flood()
            return
        try:
            message = protocol.parse_client_message(text_data)
        except protocol.ProtocolError as error:
            logger.warning("game %s: bad message refused: %s", self.game_id, error.reason)
            await self._send(protocol.reject(n=error.n, error=error.reason, code=error.code))
            return
        try:
            answer = await database_sync_to_async(self._apply)(message)
        except GameError as error:
            logger.info("game %s: message %s refused (%s): %s", self.game_id, message.n, error.code, error.message)
            await self._send(protocol.reject(n=message.n, error=error.message, code=error.code))
            return
        await self._send(answer)
        # Other sockets on this game (the player's other tabs) hear of the change; the move is stored
        # already, so a lost event only means they resynchronise by version later.
        await self.channel_layer.group_send(
            self.group, {"type": "game.changed", "event": protocol.changed(version=answer["v"], piles=answer["piles"])}
        )

    async def _refuse_flood(self) -> None:
        self.strikes += 1
        if self.strikes >= FLOOD_STRIKES:
            logger.warning("game %s: socket closed for flooding", self.game_id)
            await self.close(code=CLOSE_FLOODING)
            return
        await self._send(protocol.reject(n=None, error="too many messages: slow down", code="rate_limited"))

    async def game_changed(self, message: dict[str, Any]) -> None:
        await self._send(message["event"])

    def _apply(self, message: protocol.ClientMessage) -> dict[str, Any]:
        assert self.player is not None  # connect() refused sockets without a player
        if isinstance(message, protocol.MoveMessage):
            game = services.game_move(game_id=self.game_id, player=self.player, move=message.move, now=timezone.now())
        else:
            game = services.game_undo(game_id=self.game_id, player=self.player)
        return protocol.ack(
            n=message.n,
            version=game.version,
            piles=game.piles,
            status=game.status,
            result=game_result(game, rank=daily_rank(game=game)) if game.status == Game.Status.FINISHED else None,
        )

    async def _send(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content))
