"""Moving games from one player to another: a guest's games joining the account they log in to."""

from __future__ import annotations

from django.db import transaction

from accounts.models import Player

from .models import Game
from .signals import game_standing_changed


@transaction.atomic
def games_transfer(*, source: Player, target: Player) -> int:
    """Give every game of `source` to `target`; return how many moved.

    A player has one ranked attempt per daily deal. When both played the same daily date, the attempt
    started first stays ranked and the other becomes practice (its result and line are kept).
    """
    # Lock both players, in id order (no deadlock with a transfer the other way): game_start locks the
    # player too, so no ranked attempt can begin on either side while the games change hands.
    list(Player.objects.select_for_update().filter(pk__in=[source.pk, target.pk]).order_by("pk"))
    source_attempts = {game.deal_id: game for game in Game.objects.filter(player=source, ranked=True)}
    demoted = [
        max(target_attempt, source_attempts[target_attempt.deal_id], key=lambda game: (game.started_at, game.pk)).pk
        for target_attempt in Game.objects.filter(player=target, ranked=True, deal_id__in=source_attempts)
    ]
    Game.objects.filter(pk__in=demoted).update(ranked=False)
    moved_ranked = list(Game.objects.filter(player=source, ranked=True).values_list("pk", flat=True))
    moved = Game.objects.filter(player=source).update(player=target)
    # The boards' read model follows: the demoted attempts leave it, the moved ones change hands.
    game_standing_changed.send(sender=Game, game_ids=[*demoted, *moved_ranked])
    return moved
