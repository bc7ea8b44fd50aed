"""The watcher's socket (/ws/watch/<id>/) and the live list's socket (/ws/live/). They only listen.

Both are fed by this process's watching machinery (runtime.py), never by a channel-layer group of
their own, and skip Channels' per-message hop to its database thread as the player's socket does.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from autobahn.exception import Disconnected
from django.utils import timezone
from django.utils.translation import gettext as _

from accordion_site.db import db_call
from accordion_site.sockets import SiteSocket
from accounts.models import Player
from games import events
from games.consumers import (
    CLOSE_FLOODING,
    CLOSE_NO_SUCH_GAME,
    CLOSE_NOT_YOUR_GAME,
    FLOOD_STRIKES,
    MAX_CATCH_UP_EVENTS,
    GameConsumer,
    _since,
)
from games.errors import GameError, GameFinished
from games.models import Game
from games.protocol import MessageRate

from . import protocol
from .badge import latest_badge
from .runtime import Watching, watching
from .selectors import watch_admit
from .states import game_state

logger = logging.getLogger(__name__)

# Normal closure: a watcher caught up on a game that has ended has nothing more to hear.
CLOSE_GAME_OVER = 1000


@dataclass(frozen=True, slots=True)
class CatchUp:
    version: int
    frames: list[str]
    owner: bool
    finished: bool
    badge: str | None


class ListenOnly(SiteSocket):
    """A socket that only listens: each message it sends is answered with a `read_only` reject, and a
    flood with `rate_limited` rejects, then close 4429."""

    # No channel of its own per socket: the process's watching machinery feeds it.
    channel_layer_alias = "none: fed by games.watching"
    # The player's socket's dispatch: no hop to Channels' database thread before each message.
    dispatch = GameConsumer.dispatch
    language = GameConsumer.language

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rate: MessageRate | None = None  # made on the first message: most watchers never send one
        self.strikes = 0

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.rate is None:
            self.rate = MessageRate()
        if self.rate.allow():
            await self.send(text_data=protocol.read_only())
            return
        self.strikes += 1
        if self.strikes >= FLOOD_STRIKES:
            logger.warning("socket %s: closed for flooding", self.scope.get("path"))
            await self.close(code=CLOSE_FLOODING)
            return
        await self.send(text_data=protocol.rate_limited())

    async def send_frame(self, message: dict[str, Any]) -> None:
        """Write a prepared `websocket.send` message: the one text every socket of the process gets."""
        await self.base_send(message)


class WatchConsumer(ListenOnly):
    async def connect(self) -> None:
        # Accept first: a close before accepting reaches a browser as a bare HTTP 403, without the code.
        await self.accept()
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.viewer: Player | None = self.scope.get("player")
        self.held: list[tuple[int, str]] | None = []
        self.floor = -1
        self.is_owner = False
        self.counted = False
        self.watching: Watching = await watching()
        # Join the audience before reading the game, so that nothing committed in between is missed.
        await self.watching.join(self.game_id, self)
        # A watcher who leaves while being brought up to date is taken out by its disconnect, which
        # follows: what is written to it meanwhile is dropped (SiteSocket).
        try:
            await self._watch()
        except BaseException:
            # Cancelled or failed half-way: leave nothing behind in the audience or the count.
            self._leave()
            raise

    async def _watch(self) -> None:
        try:
            caught_up = await db_call(self._catch_up)(since=_since(self.scope))
        except GameError as error:
            self._leave()
            await self._refuse(error)
            return
        self.is_owner = caught_up.owner
        self.counted = True
        self.watching.crowd.add(self.game_id)
        for frame in caught_up.frames:
            await self.send(text_data=frame)
        await self._go_live(caught_up.version)
        await self.send(text_data=protocol.crowd(await self.watching.crowd.total(self.game_id)))
        if caught_up.badge is not None:
            await self.send(text_data=caught_up.badge)
        elif not caught_up.owner and not caught_up.finished:
            # No badge for this position yet (nobody watched it): ask for one.
            self.watching.badge.position_changed(self.game_id, caught_up.version)
        if caught_up.finished:
            await self.close(code=CLOSE_GAME_OVER)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "watching"):
            self._leave()

    def _leave(self) -> None:
        """Out of the audience and the count, without awaiting anything: this runs as a socket is torn
        down, when it may not get another turn."""
        self.watching.leave(self.game_id, self)
        if self.counted:
            self.counted = False
            self.watching.crowd.remove(self.game_id)

    async def _go_live(self, version: int) -> None:
        """Send the events heard during the catch-up that it did not cover, in order, then take frames
        from the audience."""
        self.floor = version
        while self.held:
            self.held.sort()
            v, frame = self.held.pop(0)
            if v > self.floor:
                self.floor = v
                await self.send(text_data=frame)
        self.held = None

    def _catch_up(self, *, since: int | None) -> CatchUp:
        """What brings this watcher up to date: the events after version `since`, or else the whole game
        (refused once the game has ended: there is nothing left to watch, only its replay)."""
        now = timezone.now()
        game = watch_admit(game_id=self.game_id, viewer=self.viewer, today=now.date())
        owner = self.viewer is not None and game.player_id == self.viewer.pk
        finished = game.status == Game.Status.FINISHED
        missed = None if since is None else events.events_after(game=game, v=since, limit=MAX_CATCH_UP_EVENTS)
        if missed is not None:
            frames = [event.frame for event in missed]
        elif finished:
            raise GameFinished(
                _("game %(game)s has ended: watch its replay at %(replay)s")
                % {"game": game.pk, "replay": f"/games/{game.pk}/replay"}
            )
        else:
            player = {"id": game.player_id, "nickname": game.player.nickname}
            payload = game_state(game, now=now)
            frames = [protocol.state(game=payload, version=game.version, player=player, race=game.race_code or None)]
        badge = None if owner or finished else latest_badge(game)
        return CatchUp(version=game.version, frames=frames, owner=owner, finished=finished, badge=badge)

    async def _refuse(self, error: GameError) -> None:
        logger.info("watch socket for game %s refused: %s", self.game_id, error.message)
        await self.send(text_data=protocol.refused(error=error.message, code=error.code))
        over = error.status == 404 or isinstance(error, GameFinished)
        await self.close(code=CLOSE_NO_SUCH_GAME if over else CLOSE_NOT_YOUR_GAME)


class LiveConsumer(ListenOnly):
    async def connect(self) -> None:
        await self.accept()
        self.watching: Watching = await watching()
        try:
            await self.watching.live.join(self)
        except Disconnected:
            await self.watching.live.leave(self)  # it left before the list reached it

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "watching"):
            await self.watching.live.leave(self)
