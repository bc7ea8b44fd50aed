"""Moving games from one player to another (a guest's games joining the account they log in to), and
erasing a player's games when their account is deleted."""

from __future__ import annotations

import datetime
from collections.abc import Collection

from django.db import transaction

from accounts.models import Player

from .models import Game
from .signals import game_standing_changed, player_games_erasing


def _lock_players(*players: Player) -> None:
    # In id order (no deadlock with a transfer the other way): game_start locks the player too, so no
    # ranked attempt can begin on either side while the games change hands.
    list(Player.objects.select_for_update().filter(pk__in=[player.pk for player in players]).order_by("pk"))


@transaction.atomic
def games_transfer(*, source: Player, target: Player, games: Collection[int] | None = None) -> int:
    """Give every game of `source` (or only those of `games`) to `target`; return how many moved.

    A player has one ranked attempt per daily deal. When both played the same daily date, the attempt
    started first stays ranked and the other becomes practice (its result and line are kept).
    """
    _lock_players(source, target)
    moving = Game.objects.filter(player=source)
    if games is not None:
        moving = moving.filter(pk__in=list(games))
    source_attempts = {game.deal_id: game for game in moving.filter(ranked=True)}
    demoted = [
        max(target_attempt, source_attempts[target_attempt.deal_id], key=lambda game: (game.started_at, game.pk)).pk
        for target_attempt in Game.objects.filter(player=target, ranked=True, deal_id__in=source_attempts)
    ]
    Game.objects.filter(pk__in=demoted).update(ranked=False)
    moved_ranked = list(moving.filter(ranked=True).values_list("pk", flat=True))
    moved = moving.update(player=target)
    # The boards' read model follows: the demoted attempts leave it, the moved ones change hands.
    game_standing_changed.send(sender=Game, game_ids=[*demoted, *moved_ranked])
    return moved


@transaction.atomic
def games_erase(*, player: Player, stand_in: Player, now: datetime.datetime) -> int:
    """Delete every game of `player` with its events; return how many were deleted.

    Their ranked attempts leave the boards first, demoted as games_transfer demotes a second attempt
    (so the boards' counts, ranks and records are recounted by the same receiver). Then the receivers of
    `player_games_erasing` give `stand_in` what other players still need: the races give it the
    player's seats in races run with others and the games those seats show, so that the other racers'
    standings and replays stay as they were. Every other game of the player is deleted.
    """
    _lock_players(player, stand_in)
    ranked = list(Game.objects.filter(player=player, ranked=True).values_list("pk", flat=True))
    Game.objects.filter(pk__in=ranked).update(ranked=False)
    game_standing_changed.send(sender=Game, game_ids=ranked)
    player_games_erasing.send(sender=Player, player=player, stand_in=stand_in, now=now)
    _, deleted = Game.objects.filter(player=player).delete()
    return deleted.get(Game._meta.label, 0)
