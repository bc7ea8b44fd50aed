"""Arenas follow the games: an arena game's finish is counted in the finish's own transaction, and a
review or transfer that changes a game's standing has its participant counted again. A guest who logs
in hands its seats to the account, as its games are."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.models import Player
from accounts.signals import guest_merging
from games.models import Game, GameEvent
from games.signals import game_event_appended, game_standing_changed

from . import services


@receiver(game_event_appended, dispatch_uid="arenas.finished_game")
def count_finished_game(sender: type[Game], *, game: Game, event: GameEvent, **kwargs: Any) -> None:
    if event.kind == GameEvent.Kind.FINISH and game.mode == Game.Mode.ARENA:
        services.arena_game_finished(game=game)


@receiver(game_standing_changed, dispatch_uid="arenas.standing_changed")
def recount_games(sender: type[Game], *, game_ids: list[int], **kwargs: Any) -> None:
    services.arena_games_restanded(game_ids=game_ids)


@receiver(guest_merging, dispatch_uid="arenas.guest_merging")
def guest_seats_transfer(sender: Any, *, guest: Player, account: Player, **kwargs: Any) -> int:
    services.seats_transfer(source=guest, target=account)
    return 0  # the answer counts games moved, and seats are not games
