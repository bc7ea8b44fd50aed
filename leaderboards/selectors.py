"""Daily rankings, built only from ranked games whose result the server verified by replay. The ranking
itself (its order and a game's rank) lives in games.selectors: games never import leaderboards."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, TypedDict

from django.core.paginator import Page, Paginator
from django.db.models import Window
from django.db.models.functions import RowNumber

from games.models import Game
from games.selectors import RANKING_ORDER, daily_ranked_games

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class Rank(TypedDict):
    rank: int


def daily_leaderboard_page(*, date: datetime.date, page: int, page_size: int) -> Page[WithAnnotations[Game, Rank]]:
    """One page of a date's leaderboard, best first, each game with its `rank` (1 is best); raise
    django.core.paginator.EmptyPage past the last page."""
    ranked = daily_ranked_games(date=date).annotate(rank=Window(RowNumber(), order_by=RANKING_ORDER))
    return Paginator(ranked, page_size).page(page)
