"""The player's socket: parse a message, call one service, answer. No rules live here.

Events reach the socket through the process's hub (games/hub.py), never through a channel-layer
group of its own. A plain move or undo is stored from the event loop on connections of the loop's own
(accordion_site/loop_db.py); other database work runs on the database threads (accordion_site/db.py),
so no socket waits behind another's query.
"""

from __future__ import annotations

import json
import logging
from functools import cached_property
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accordion_site.db import db_call
from accordion_site.errors import OUTAGES, ServiceError
from accordion_site.languages import socket_language
from accordion_site.sockets import CLOSE_TRY_AGAIN, SiteSocket
from accounts.models import Player

from . import events, protocol, selectors, services
from .errors import GameError
from .hub import hub
from .models import Game
from .serializers import game_payload, game_result_of
from .watching.runtime import crowd_frame

logger = logging.getLogger(__name__)

# Close codes (4000-4999 are the application's): the client should not retry these.
CLOSE_NOT_YOUR_GAME = 4403
CLOSE_NO_SUCH_GAME = 4404
CLOSE_FLOODING = 4429
UNAVAILABLE = "the service is briefly unavailable: try again"
# Refused messages over the rate a socket may send before the server hangs up on it.
FLOOD_STRIKES = 100
# A client further behind than this gets the whole game instead of the events it missed.
MAX_CATCH_UP_EVENTS = 50
# The acks a socket remembers by `n`, so that a message sent twice is answered twice but applied once.
REMEMBERED_ACKS = 64


class ServiceSocket(SiteSocket):
    """What the game and race sockets share: handlers run in the handshake's language, frames are JSON,
    a refusal is sent before the close, and a socket over its message rate is told to slow down, then
    closed. A subclass sets `rate` and `strikes` on connect and names itself in `described`."""

    rate: protocol.MessageRate
    strikes: int

    @property
    def described(self) -> str:
        """What this socket serves, for the log ("game 12")."""
        raise NotImplementedError

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels closes stale connections on its shared database thread before every message; these
        # consumers' database calls manage their own connections, so that hop is skipped.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        with translation.override(self.language):
            await handler(message)

    @cached_property
    def language(self) -> str:
        """The language of this socket's refusals, chosen once from its handshake."""
        return socket_language(self.scope)

    async def _over_rate(self) -> bool:
        """Whether the message just received is over the rate (and so refused, or the socket closed)."""
        if self.rate.allow():
            return False
        self.strikes += 1
        if self.strikes >= FLOOD_STRIKES:
            logger.warning("%s: socket closed for flooding", self.described)
            await self.close(code=CLOSE_FLOODING)
        else:
            await self._send(protocol.reject(n=None, error=_("too many messages: slow down"), code="rate_limited"))
        return True

    async def _refuse(self, error: ServiceError) -> None:
        logger.warning("socket for %s refused: %s", self.described, error.message)
        await self._send(protocol.refused(error=error.message, code=error.code))
        await self.close(code=CLOSE_NO_SUCH_GAME if error.status == 404 else CLOSE_NOT_YOUR_GAME)

    async def _send(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content))


class GameConsumer(ServiceSocket):
    # No channel of its own per socket: the hub subscribes once per game for the whole process.
    channel_layer_alias = "none: events arrive through games.hub"

    async def connect(self) -> None:
        # Accept first: a close before accepting reaches a browser as a bare HTTP 403, without the code.
        await self.accept()
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.player: Player | None = self.scope.get("player")
        self.rate = protocol.MessageRate()
        self.strikes = 0
        self.acks: dict[int, dict[str, Any]] = {}
        # The game as this socket's last change left it: the next move is checked against it and stored
        # on condition that the game is still so (games.services.game_move_async), without a read of its
        # own. Kept from the first change on, so that sockets that only listen hold no game.
        self.known: services.KnownGame | None = None
        # The newest version this socket has been sent (events, acks, a state): older events are skipped,
        # but for those an ack jumped over (changes stored elsewhere just before this socket's own, whose
        # events had not come yet): they are sent when they come, so the client need not ask with `sync`.
        self.version_sent = -1
        self.jumped: set[int] = set()
        # Events that arrive while this socket's own request is being answered wait here, so that the
        # socket hears everything in version order.
        self.held: list[tuple[int, str]] | None = []
        # Follow before catching up, so that nothing committed in between is missed.
        await hub().follow(self.game_id, self)
        try:
            version, frames = await db_call(self._catch_up)(since=_since(self.scope))
        except GameError as error:
            await self._refuse(error)
            return
        except OUTAGES:
            logger.warning("socket for game %s refused: outage", self.game_id)
            await self._send(protocol.refused(error=UNAVAILABLE, code="unavailable"))
            await self.close(code=CLOSE_TRY_AGAIN)
            return
        await self._send_caught_up(version, frames)
        # How many are watching (games/watching), when anyone is; changes come through deliver_crowd.
        crowd = await crowd_frame(self.game_id)
        if crowd is not None:
            await self.send(text_data=crowd)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "held"):
            await hub().unfollow(self.game_id, self)

    @property
    def described(self) -> str:
        return f"game {self.game_id}"

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if await self._over_rate():
            return
        try:
            message = protocol.parse_client_message(text_data)
        except protocol.ProtocolError as error:
            logger.warning("game %s: bad message refused: %s", self.game_id, error.reason)
            await self._send(protocol.reject(n=error.n, error=error.reason, code=error.code))
            return
        self.held = []
        try:
            if isinstance(message, protocol.SyncMessage):
                version, frames = await db_call(self._catch_up)(since=message.v)
                await self._send_caught_up(version, frames)
            elif message.n in self.acks:
                # A replayed message (a client's retry, or an attacker's): the first answer again.
                await self._flush_held(below=None)
                await self._send(self.acks[message.n])
            else:
                ack = await self._apply(message)
                self._remember(ack)
                await self._send_ack(ack)
        except GameError as error:
            logger.info("game %s: message %s refused (%s): %s", self.game_id, message.n, error.code, error.message)
            await self._flush_held(below=None)
            await self._send(protocol.reject(n=message.n, error=error.message, code=error.code))
        except OUTAGES as error:
            # Nothing was stored (each change is one transaction): the client may send it again.
            logger.warning("game %s: message %s failed, outage: %r", self.game_id, message.n, error)
            await self._flush_held(below=None)
            await self._send(protocol.reject(n=message.n, error=UNAVAILABLE, code="unavailable"))

    async def deliver_event(self, v: int, frame: str) -> None:
        """Called by the hub with each event of the game, already encoded."""
        if self.held is not None:
            self.held.append((v, frame))
        else:
            await self._send_event(v, frame)

    async def _send_event(self, v: int, frame: str) -> None:
        if v > self.version_sent:
            self.version_sent = v
            await self.send(text_data=frame)
        elif v in self.jumped:
            self.jumped.discard(v)
            await self.send(text_data=frame)

    async def deliver_crowd(self, frame: str) -> None:
        """Called by the watcher counts (games/watching/crowd.py) when the number watching changes."""
        if self.version_sent >= 0:  # once caught up: the game comes first
            await self.send(text_data=frame)

    def _remember(self, ack: dict[str, Any]) -> None:
        self.acks[ack["n"]] = ack
        if len(self.acks) > REMEMBERED_ACKS:
            del self.acks[next(iter(self.acks))]  # the oldest: dicts keep insertion order

    async def _send_ack(self, ack: dict[str, Any]) -> None:
        # Others' events stored before this change come first; this change's own event is not echoed.
        await self._flush_held(below=ack["v"])
        await self._send(ack)
        if 0 <= self.version_sent < ack["v"] - 1 and ack["v"] - self.version_sent <= MAX_CATCH_UP_EVENTS:
            self.jumped.update(range(self.version_sent + 1, ack["v"]))
        self.version_sent = max(self.version_sent, ack["v"])
        await self._flush_held(below=None)

    async def _send_caught_up(self, version: int, frames: list[str]) -> None:
        for frame in frames:
            await self.send(text_data=frame)
        self.version_sent = max(self.version_sent, version)
        self.jumped.clear()  # all older than `version`: the frames covered them
        await self._flush_held(below=None)

    async def _flush_held(self, *, below: int | None) -> None:
        """Send the held events under version `below` in order, and keep holding the rest; with no
        bound, send them all and stop holding. Events that arrive meanwhile join the queue."""
        while self.held:
            self.held.sort()
            v, frame = self.held[0]
            if below is not None and v >= below:
                return
            del self.held[0]
            await self._send_event(v, frame)
        if below is None:
            self.held = None

    def _catch_up(self, *, since: int | None) -> tuple[int, list[str]]:
        """The game's version, and the frames that bring a client that has version `since` up to it:
        the events it missed, or the whole game (`state`) when it has none, is too far behind, or is
        ahead of the server."""
        game = selectors.game_get_for_player(game_id=self.game_id, player=self.player)
        missed = None if since is None else events.events_after(game=game, v=since, limit=MAX_CATCH_UP_EVENTS)
        if missed is None:
            payload = game_payload(game, now=timezone.now())
            return game.version, [json.dumps(protocol.state(game=payload, version=game.version), cls=DjangoJSONEncoder)]
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


def _since(scope: dict[str, Any]) -> int | None:
    """The `?v=` a reconnecting client sends: the last version it has."""
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("v", [])
    return int(values[0]) if values and values[0].isdigit() and len(values[0]) < 10 else None
