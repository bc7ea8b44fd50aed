"""The races app hears every game's events through games.signals (games never imports races)."""

from __future__ import annotations

import datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.dispatch import receiver

from accounts.models import Player
from games.models import Game, GameEvent
from games.signals import game_event_appended, player_games_erasing

from .broadcast import announce_from_sync
from .services import race_game_finished, races_hand_over


@receiver(game_event_appended, dispatch_uid="races.game_finished")
def on_game_event(sender: Any, *, game: Game, event: GameEvent, **kwargs: Any) -> None:
    if game.mode == Game.Mode.RACE and event.kind == GameEvent.Kind.FINISH:
        race_game_finished(game=game, now=event.at)


@receiver(player_games_erasing, dispatch_uid="races.player_games_erasing")
def on_player_games_erasing(
    sender: Any, *, player: Player, stand_in: Player, now: datetime.datetime, **kwargs: Any
) -> None:
    # robust: the account is deleted whatever happens to a room's announcement (it is logged).
    for news in races_hand_over(player=player, stand_in=stand_in, now=now):
        transaction.on_commit(partial(announce_from_sync, news), robust=True)
