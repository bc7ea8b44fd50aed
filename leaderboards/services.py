"""Writes to the boards' read model. Called by the receivers of games' signals, inside the transaction
of the change they follow, so the boards commit or roll back with it."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import Count, F

from games.models import Game
from games.profiles import daily_streaks
from games.selectors import game_on_daily_board

from .models import DailyEntry, DailyRecord, DailyScoreCount


def _entry_fields(game: Game) -> dict[str, object]:
    return {
        "date": game.deal.daily_date,
        "player_id": game.player_id,
        "score": game.score,
        "seconds": game.seconds,
        "piles": game.piles,
        "finished_at": game.finished_at,
        "on_board": game_on_daily_board(game=game),
    }


def _score_count_add(entry: DailyEntry, by: int) -> None:
    """Count an entry on its board in (+1) or out (-1). Increments in place, so finishes that commit at
    the same time never lose each other's counts."""
    if not entry.on_board:
        return
    counts = DailyScoreCount.objects.filter(date=entry.date, score=entry.score)
    if counts.update(players=F("players") + by) or by < 0:
        return
    try:
        with transaction.atomic():  # a savepoint: another finish may create the same score's row first
            DailyScoreCount.objects.create(date=entry.date, score=entry.score, piles=entry.piles, players=by)
    except IntegrityError:
        counts.update(players=F("players") + by)


def entry_add(*, game: Game) -> DailyEntry:
    """The board's row for a ranked daily attempt that has just finished (held off the board when its
    timing was flagged)."""
    entry = DailyEntry.objects.create(game=game, **_entry_fields(game))
    _score_count_add(entry, +1)
    records_refresh(player_ids=[game.player_id])
    return entry


def entries_reread(*, game_ids: Iterable[int]) -> None:
    """Bring the rows of these games in line with the games: a review puts a row on the board or keeps
    it off, a transfer gives it to another player, a game no longer ranked leaves."""
    games = list(Game.objects.filter(pk__in=list(game_ids)).select_related("deal"))
    before = list(DailyEntry.objects.filter(game__in=games))
    for entry in before:
        _score_count_add(entry, -1)
    kept = [game for game in games if game.ranked and game.status == Game.Status.FINISHED and game.deal.daily_date]
    # Rows leave first, so a player's row may move in without two rows of one day meeting.
    DailyEntry.objects.filter(game__in=games).exclude(game__in=kept).delete()
    for game in kept:
        entry, _ = DailyEntry.objects.update_or_create(game=game, defaults=_entry_fields(game))
        _score_count_add(entry, +1)
    records_refresh(player_ids={entry.player_id for entry in before} | {game.player_id for game in kept})


def score_counts_recount(*, date: datetime.date) -> None:
    """Count a date's board again from its rows (for rows written in bulk, as a migration does)."""
    DailyScoreCount.objects.filter(date=date).delete()
    rows = DailyEntry.objects.filter(date=date, on_board=True).values_list("score", "piles").order_by()
    DailyScoreCount.objects.bulk_create(
        DailyScoreCount(date=date, score=score, piles=piles, players=players)
        for score, piles, players in rows.annotate(players=Count("pk"))
    )


def records_refresh(*, player_ids: Iterable[int]) -> None:
    """Recount these players' all-time records from their rows on the boards (a few hundred a year)."""
    for player_id in player_ids:
        days = list(
            DailyEntry.objects.filter(player_id=player_id, on_board=True).order_by("date").values_list("date", "piles")
        )
        if not days:
            DailyRecord.objects.filter(player_id=player_id).delete()
            continue
        dates = [date for date, _ in days]
        # The run "current on the last date" is the current streak as that date saw it.
        current, longest = daily_streaks(dates, today=dates[-1])
        DailyRecord.objects.update_or_create(
            player_id=player_id,
            defaults={
                "days": len(days),
                "wins": sum(1 for _, piles in days if piles == 1),
                "longest_streak": longest,
                "current_streak": current,
                "last_date": dates[-1],
            },
        )
