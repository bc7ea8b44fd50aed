"""The races app hears every game's events through games.signals (games never imports races)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.models import Game, GameEvent
from games.signals import game_event_appended

from .services import race_game_finished


@receiver(game_event_appended, dispatch_uid="races.game_finished")
def on_game_event(sender: Any, *, game: Game, event: GameEvent, **kwargs: Any) -> None:
    if game.mode == Game.Mode.RACE and event.kind == GameEvent.Kind.FINISH:
        race_game_finished(game=game, now=event.at)
