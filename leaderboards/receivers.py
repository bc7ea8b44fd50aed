"""The boards follow the games: every finish of a ranked daily attempt adds its row in the finish's
own transaction, and reviews and transfers reread the rows they touch."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.models import Game, GameEvent
from games.signals import game_event_appended, game_standing_changed

from . import services


@receiver(game_event_appended, dispatch_uid="leaderboards.finished_attempt")
def add_finished_attempt(sender: type[Game], *, game: Game, event: GameEvent, **kwargs: Any) -> None:
    if event.kind == GameEvent.Kind.FINISH and game.ranked and game.deal.daily_date is not None:
        services.entry_add(game=game)


@receiver(game_standing_changed, dispatch_uid="leaderboards.standing_changed")
def reread_standings(sender: type[Game], *, game_ids: list[int], **kwargs: Any) -> None:
    services.entries_reread(game_ids=game_ids)
