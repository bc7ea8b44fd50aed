"""Daily rankings, built only from ranked games whose result the server verified by replay."""

from __future__ import annotations

import datetime

from django.db.models import Q, QuerySet

from games.models import Game

# Best first: higher score, then fewer seconds, then whoever finished first.
RANKING_ORDER = ("-score", "seconds", "finished_at", "pk")


def daily_ranked_games(*, date: datetime.date) -> QuerySet[Game]:
    return (
        Game.objects.filter(deal__daily_date=date, ranked=True, status=Game.Status.FINISHED)
        .select_related("player")
        .order_by(*RANKING_ORDER)
    )


def daily_rank(*, game: Game) -> int | None:
    """The game's place on its day's leaderboard (1 is best), or None for an unranked game."""
    if not game.ranked or game.status != Game.Status.FINISHED or game.deal.daily_date is None:
        return None
    ahead = daily_ranked_games(date=game.deal.daily_date).filter(
        Q(score__gt=game.score)
        | Q(score=game.score, seconds__lt=game.seconds)
        | Q(score=game.score, seconds=game.seconds, finished_at__lt=game.finished_at)
        | Q(score=game.score, seconds=game.seconds, finished_at=game.finished_at, pk__lt=game.pk)
    )
    return ahead.count() + 1
