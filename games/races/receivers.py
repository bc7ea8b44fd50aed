"""The races app hears every game's events through games.signals (games never imports races)."""

from __future__ import annotations

import datetime
from typing import Any

from django.dispatch import receiver

from accounts.models import Player
from games.models import Game, GameEvent
from games.signals import game_event_appended, player_games_erasing

from .services import race_game_finished, races_hand_over


@receiver(game_event_appended, dispatch_uid="races.game_finished")
def on_game_event(sender: Any, *, game: Game, event: GameEvent, **kwargs: Any) -> None:
    if game.mode == Game.Mode.RACE and event.kind == GameEvent.Kind.FINISH:
        race_game_finished(game=game, now=event.at)


@receiver(player_games_erasing, dispatch_uid="races.player_games_erasing")
def on_player_games_erasing(
    sender: Any, *, player: Player, stand_in: Player, now: datetime.datetime, **kwargs: Any
) -> None:
    # Announced once the deletion commits, robustly: the account goes whatever befalls an announcement.
    races_hand_over(player=player, stand_in=stand_in, now=now)
