"""A player's profile: statistics from their verified games, daily calendar, score chart and recent games."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Sequence

from django.db.models import Avg, Count, Max, Min, Q

from accounts.models import Player

from .models import Game

RECENT_GAMES = 20
SCORE_CHART_GAMES = 100
CALENDAR_MONTHS = 6


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerStats:
    games: int
    wins: int
    win_rate: float | None
    best_score: int | None
    fastest_win: int | None
    average_win_seconds: float | None
    average_piles: float | None
    current_streak: int
    longest_streak: int


@dataclasses.dataclass(frozen=True, slots=True)
class DailyResult:
    date: datetime.date
    won: bool
    piles: int
    score: int
    game: int


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerProfile:
    player: Player
    stats: PlayerStats
    recent: list[Game]  # the newest finished games, newest first
    scores: list[Game]  # the games of the score chart, oldest first
    calendar_from: datetime.date
    calendar: list[DailyResult]  # ranked daily results since calendar_from, oldest first


def daily_streaks(dates: Sequence[datetime.date], *, today: datetime.date) -> tuple[int, int]:
    """(current, longest) runs of consecutive dates in `dates` (sorted, no repeats). The current run
    ends today, or yesterday while today's daily is still to be played."""
    longest = run = 0
    previous: datetime.date | None = None
    for date in dates:
        run = run + 1 if previous is not None and date - previous == datetime.timedelta(days=1) else 1
        longest = max(longest, run)
        previous = date
    yesterday = today - datetime.timedelta(days=1)
    current = run if previous in (today, yesterday) else 0
    return current, longest


def _months_before(today: datetime.date, months: int) -> datetime.date:
    """The first day of the month `months` months before today's month."""
    month_index = today.year * 12 + today.month - 1 - months
    return datetime.date(month_index // 12, month_index % 12 + 1, 1)


def player_profile(*, player: Player, today: datetime.date) -> PlayerProfile:
    """The statistics of a player's verified (finished, server-replayed) games, in four queries that
    each read only this player's rows (see docs/architecture.md for the indexes they use)."""
    finished = Game.objects.filter(player=player, status=Game.Status.FINISHED)
    won = Q(piles=1)
    totals = finished.aggregate(
        games=Count("pk"),
        wins=Count("pk", filter=won),
        best_score=Max("score"),
        fastest_win=Min("seconds", filter=won),
        average_win_seconds=Avg("seconds", filter=won),
        average_piles=Avg("piles"),
    )
    dailies = [
        # A finished game always has its score; a ranked game is always on a daily deal.
        DailyResult(date=date, won=piles == 1, piles=piles, score=score or 0, game=game_id)
        for date, piles, score, game_id in finished.filter(ranked=True, deal__daily_date__isnull=False)
        .order_by("deal__daily_date")
        .values_list("deal__daily_date", "piles", "score", "pk")
        if date is not None
    ]
    current_streak, longest_streak = daily_streaks([daily.date for daily in dailies], today=today)
    newest = list(
        finished.select_related("deal")
        .only("mode", "ranked", "status", "piles", "score", "seconds", "finished_at", "deal__code", "deal__daily_date")
        .order_by("-finished_at", "-pk")[:SCORE_CHART_GAMES]
    )
    calendar_from = _months_before(today, CALENDAR_MONTHS - 1)
    stats = PlayerStats(
        games=totals["games"],
        wins=totals["wins"],
        win_rate=totals["wins"] / totals["games"] if totals["games"] else None,
        best_score=totals["best_score"],
        fastest_win=totals["fastest_win"],
        average_win_seconds=totals["average_win_seconds"],
        average_piles=totals["average_piles"],
        current_streak=current_streak,
        longest_streak=longest_streak,
    )
    return PlayerProfile(
        player=player,
        stats=stats,
        recent=newest[:RECENT_GAMES],
        scores=newest[::-1],
        calendar_from=calendar_from,
        calendar=[daily for daily in dailies if daily.date >= calendar_from],
    )
