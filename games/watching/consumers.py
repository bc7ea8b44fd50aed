"""The watcher's socket (/ws/watch/<id>/) and the live list's socket (/ws/live/): they only listen,
fed by this process's watching machinery (runtime.py) through the bus."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import serializers

from accordion_site.db import db_call
from accounts.models import Player
from games import events
from games.errors import GameError, GameFinished
from games.models import Game
from games.serializers import game_payload
from realtime.consumer import MAX_CATCH_UP_EVENTS, LiveSocket
from realtime.edges import CLOSE_NOT_FOUND

from . import protocol
from .badge import latest_badge
from .runtime import Watching, crowd_count, watching
from .selectors import WATCHER, watch_admit

# Normal closure: a watcher caught up on a game that has ended has nothing more to hear.
CLOSE_GAME_OVER = 1000
# How many (game, version) `state` payloads are kept, the least recently used leaving first.
KEPT_STATES = 256
_clock = serializers.DateTimeField()


@functools.lru_cache(maxsize=KEPT_STATES)
def _kept_state(game: Game, version: int) -> dict[str, Any]:
    """`game_payload`, serialised once per version, so a crowd arriving pays for it once (a model instance
    hashes by its primary key: the version makes the key one position of the game)."""
    return game_payload(game, now=timezone.now())


@dataclass(frozen=True, slots=True)
class CatchUp:
    version: int
    frames: list[str]
    owner: bool
    finished: bool
    badge: str | None


class ListenOnly(LiveSocket):
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not await self.over_rate():
            await self.send(text_data=protocol.read_only())


class WatchConsumer(ListenOnly):
    async def connect(self) -> None:
        # Accept first: a close before accepting reaches a browser as a bare HTTP 403, without the code.
        await self.accept()
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.viewer: Player | None = self.scope.get("player")
        self.hold()
        self.is_owner = False  # the game's own player gets no still-winnable badge (it would be a hint)
        self.entry: str | None = None  # this watcher's presence entry, once it counts
        self.watching: Watching = await watching()
        # Join the audience before reading the game, so that nothing committed in between is missed.
        await self.watching.join(self.game_id, self)
        # A watcher who leaves while being brought up to date is taken out by its disconnect, which
        # follows: what is written to it meanwhile is dropped (LiveSocket.send).
        try:
            await self._watch()
        except BaseException:  # cancelled or failed half-way
            self._leave()
            raise

    async def _watch(self) -> None:
        try:
            caught_up = await db_call(self._catch_up)(since=self.since)
        except GameError as error:
            self._leave()
            over = isinstance(error, GameFinished)  # nothing left to watch: its replay shows it all
            await self.refuse(error, close_code=CLOSE_NOT_FOUND if over else None)
            return
        self.is_owner = caught_up.owner
        assert self.watching.presence is not None
        self.entry = await self.watching.presence.enter(events.group_name(self.game_id), WATCHER)
        await self.caught_up(caught_up.version, caught_up.frames)
        await self.send(text_data=protocol.crowd(await crowd_count(self.game_id)))
        if caught_up.badge is not None:
            await self.send(text_data=caught_up.badge)
        elif not caught_up.owner and not caught_up.finished:  # nobody asked for this position's yet
            self.watching.badge.position_changed(self.game_id, caught_up.version)
        if caught_up.finished:
            await self.close(code=CLOSE_GAME_OVER)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "watching"):
            self._leave()

    def _leave(self) -> None:
        """No await: a socket being torn down may not get another turn."""
        self.watching.leave(self.game_id, self)
        if self.entry is not None:
            self.watching.presence.leave(self.entry)  # type: ignore[union-attr]
            self.entry = None

    def _catch_up(self, *, since: int | None) -> CatchUp:
        """The events after version `since`, or else the whole game (none once it has ended: its replay)."""
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
            payload = {**_kept_state(game, game.version), "server_now": _clock.to_representation(now)}
            frames = [protocol.state(game=payload, version=game.version, player=player, race=game.race_code or None)]
        badge = None if owner or finished else latest_badge(game)
        return CatchUp(version=game.version, frames=frames, owner=owner, finished=finished, badge=badge)


class LiveConsumer(ListenOnly):
    async def connect(self) -> None:
        await self.accept()
        self.watching: Watching = await watching()
        await self.watching.live.join(self)  # a socket gone by then is left by its disconnect

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "watching"):
            await self.watching.live.leave(self)
