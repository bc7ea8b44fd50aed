"""Reads of the boards, from the read model (leaderboards.models): the day's counts by score give the
board's size, ranks, where a page starts and the summary; the entries' index gives a page's rows. No
read counts a day's entries one by one: docs/architecture.md says which index serves which query, and
bench/leaderboard.py times them."""

from __future__ import annotations

import dataclasses
import datetime
import math

from django.core.cache import cache
from django.db import connection
from django.db.models import Avg, Count, QuerySet
from django.utils.translation import gettext

from accounts.models import Player
from games.models import Game
from games.selectors import result_provisional

from .models import DailyEntry, DailyRecord, DailyScoreCount

# A board row's own columns (the rest of a page's rows come from the player and the game).
_ENTRY_FIELDS = ("game_id", "date", "player_id", "score", "seconds", "piles", "finished_at")
# Best first: higher score, then fewer seconds, then whoever finished first (the game id settles the rest).
BOARD_ORDER = ("-score", "seconds", "finished_at", "game_id")
ALL_TIME_SIZE = 20
AVERAGE_DAYS = 30
# Fewer days than this in the window and a player is not on the best-average board: one lucky day is not
# an average.
AVERAGE_MIN_DAYS = 10
# The best-average board reads a month of rows: it is computed once per day and kept this long.
AVERAGE_CACHE_SECONDS = 10 * 60
# "The board around you": this many rows on each side of the reader's own.
AROUND = 2


class PastLastPage(Exception):
    """A page number beyond the board's last page."""


@dataclasses.dataclass(frozen=True, slots=True)
class BoardRow:
    rank: int
    player: str
    score: int
    piles: int
    seconds: int
    won: bool
    game: int
    provisional: bool


@dataclasses.dataclass(frozen=True, slots=True)
class BoardPage:
    date: datetime.date
    page: int
    pages: int
    count: int
    rows: list[BoardRow]


class _Scores:
    """A date's board by score, best first, from its DailyScoreCount rows (a few hundred): how many
    rows each score has, and how many come before it."""

    def __init__(self, date: datetime.date) -> None:
        self.date = date
        self.buckets = list(
            DailyScoreCount.objects.filter(date=date, players__gt=0)
            .order_by("-score")
            .values_list("score", "piles", "players")
        )
        self.before: dict[int, int] = {}
        total = 0
        for score, _, players in self.buckets:
            self.before[score] = total
            total += players
        self.count = total

    def bucket_at(self, position: int) -> tuple[int, int]:
        """(score, rows of that score before it) of the row at 0-based `position` in board order."""
        for score, _, players in self.buckets:
            if position < self.before[score] + players:
                return score, position - self.before[score]
        raise IndexError(position)

    def ahead(self, score: int) -> int:
        """Rows with a higher score."""
        return sum(players for bucket_score, _, players in self.buckets if bucket_score > score)


def _board(date: datetime.date) -> QuerySet[DailyEntry]:
    return DailyEntry.objects.filter(date=date, on_board=True)


def _rank(scores: _Scores, *, score: int, seconds: int) -> int:
    """1 + the rows ahead: those with a higher score (counted by score), and those of the same score in
    fewer seconds (a short range of the board's index). Equal score and seconds share a rank."""
    return 1 + scores.ahead(score) + _board(scores.date).filter(score=score, seconds__lt=seconds).count()


def _row(entry: DailyEntry, rank: int, now: datetime.datetime) -> BoardRow:
    return BoardRow(
        rank=rank,
        player=entry.player.nickname,
        score=entry.score,
        piles=entry.piles,
        seconds=entry.seconds,
        won=entry.won,
        game=entry.game_id,
        provisional=result_provisional(game=entry.game, rank=rank, now=now),
    )


def _rows(scores: _Scores, *, offset: int, limit: int, now: datetime.datetime) -> list[BoardRow]:
    """Up to `limit` rows of the board in order from the 0-based `offset`, each with its rank."""
    if not scores.count or offset >= scores.count:
        return []
    # The rows start inside one score's rows: the index is read from there, not from the top.
    first_score, skip = scores.bucket_at(offset)
    in_order = _board(scores.date).filter(score__lte=first_score).order_by(*BOARD_ORDER)
    # One statement: the page's keys, an index-only scan, as a subquery; then their rows with the player
    # and the game (only for its review and assessment, provisional: not its line or the solver's verdicts).
    entries = (
        DailyEntry.objects.filter(game_id__in=in_order.values("game_id")[skip : skip + limit])
        .select_related("player", "game")
        .only(*_ENTRY_FIELDS, "player__nickname", "game__review", "game__assessed_at", "game__finished_at")
        .order_by(*BOARD_ORDER)
    )
    rows: list[BoardRow] = []
    for position, entry in enumerate(entries, start=offset + 1):
        previous = rows[-1] if rows else None
        if previous is not None and (previous.score, previous.seconds) == (entry.score, entry.seconds):
            rank = previous.rank
        elif previous is None and offset > 0:
            rank = _rank(scores, score=entry.score, seconds=entry.seconds)  # its tie may begin earlier
        else:
            rank = position
        rows.append(_row(entry, rank, now))
    return rows


def daily_board_page(*, date: datetime.date, page: int, page_size: int, now: datetime.datetime) -> BoardPage:
    """One page of a date's board, best first, each row with its rank and whether it is provisional at
    `now` (games.selectors.result_provisional); PastLastPage beyond the end (an empty board has one
    empty page)."""
    scores = _Scores(date)
    pages = max(1, math.ceil(scores.count / page_size))
    if page > pages:
        raise PastLastPage(gettext("page %(page)s is past the last page, %(pages)s") % {"page": page, "pages": pages})
    rows = _rows(scores, offset=(page - 1) * page_size, limit=page_size, now=now)
    return BoardPage(date=date, page=page, pages=pages, count=scores.count, rows=rows)


@dataclasses.dataclass(frozen=True, slots=True)
class MyStanding:
    """The reader's own ranked attempt on a date: `status` is on_board, under_review (held until staff
    decide), off_board (staff confirmed it was not played by hand) or none (no finished ranked attempt
    that day)."""

    status: str
    row: BoardRow | None
    page: int | None
    around: list[BoardRow] = dataclasses.field(default_factory=list)


# The reader's row and up to AROUND rows on each side in board order, in one statement. Each side is the
# nearest rows of two short ranges of daily_entry_board_idx that start from the reader's key: the rows of
# their own score before (or from) it, and those of the scores beyond. Each row comes with its rank (1 + the
# rows of higher scores, from the day's counts by score, + those of its score in fewer seconds) and its place
# in board order (the same, counting the rows of its score listed before it), each a short index range too.
# Read as games (Game.objects.raw) for what result_provisional needs, with the entry's own columns.
_NEAR_SQL = """
SELECT id, nickname, score, seconds, piles, review, assessed_at, finished_at,
    1 + ahead + quicker AS rank, 1 + ahead + listed_before AS position
FROM (
    SELECT near.game_id AS id, player.nickname, near.score, near.seconds, near.piles,
        game.review, game.assessed_at, game.finished_at,
        (SELECT coalesce(sum(counted.players), 0) FROM leaderboards_dailyscorecount counted
            WHERE counted.date = %(date)s AND counted.score > near.score) AS ahead,
        (SELECT count(*) FROM leaderboards_dailyentry tie
            WHERE tie.date = %(date)s AND tie.on_board AND tie.score = near.score
            AND tie.seconds < near.seconds) AS quicker,
        (SELECT count(*) FROM leaderboards_dailyentry tie
            WHERE tie.date = %(date)s AND tie.on_board AND tie.score = near.score
            AND (tie.seconds, tie.finished_at, tie.game_id) < (near.seconds, near.finished_at, near.game_id)
        ) AS listed_before
    FROM (
        SELECT * FROM (
            SELECT * FROM (
                SELECT game_id, player_id, score, seconds, piles, finished_at FROM leaderboards_dailyentry
                WHERE date = %(date)s AND on_board AND score = %(score)s
                AND (seconds, finished_at, game_id) < (%(seconds)s, %(finished_at)s, %(game)s)
                ORDER BY seconds DESC, finished_at DESC, game_id DESC LIMIT %(before)s
            ) AS tied
            UNION ALL
            SELECT * FROM (
                SELECT game_id, player_id, score, seconds, piles, finished_at FROM leaderboards_dailyentry
                WHERE date = %(date)s AND on_board AND score > %(score)s
                ORDER BY score, seconds DESC, finished_at DESC, game_id DESC LIMIT %(before)s
            ) AS higher
            ORDER BY score, seconds DESC, finished_at DESC, game_id DESC LIMIT %(before)s
        ) AS above
        UNION ALL
        SELECT * FROM (
            SELECT * FROM (
                SELECT game_id, player_id, score, seconds, piles, finished_at FROM leaderboards_dailyentry
                WHERE date = %(date)s AND on_board AND score = %(score)s
                AND (seconds, finished_at, game_id) >= (%(seconds)s, %(finished_at)s, %(game)s)
                ORDER BY seconds, finished_at, game_id LIMIT %(from)s
            ) AS tied
            UNION ALL
            SELECT * FROM (
                SELECT game_id, player_id, score, seconds, piles, finished_at FROM leaderboards_dailyentry
                WHERE date = %(date)s AND on_board AND score < %(score)s
                ORDER BY score DESC, seconds, finished_at, game_id LIMIT %(from)s
            ) AS lower
            ORDER BY score DESC, seconds, finished_at, game_id LIMIT %(from)s
        ) AS below
    ) AS near
    JOIN accounts_player player ON player.id = near.player_id
    JOIN games_game game ON game.id = near.game_id
) AS ranked
ORDER BY position
"""


def _near_row(near: Game, now: datetime.datetime) -> BoardRow:
    """A row of _NEAR_SQL: a game with its entry's columns, the player's nickname and its rank."""
    rank: int = near.rank  # type: ignore[attr-defined]
    assert near.score is not None and near.seconds is not None  # a board row's game is finished
    return BoardRow(
        rank=rank,
        player=near.nickname,  # type: ignore[attr-defined]
        score=near.score,
        piles=near.piles,
        seconds=near.seconds,
        won=near.piles == 1,
        game=near.pk,
        provisional=result_provisional(game=near, rank=rank, now=now),
    )


def daily_board_mine(
    *, date: datetime.date, player: Player | None, page_size: int, now: datetime.datetime
) -> MyStanding:
    """The reader's row on a date's board with its rank, the page it is on ("my rank") and the board around
    it: up to AROUND rows on each side. Two queries: the reader's entry, then the rows near it (_NEAR_SQL)."""
    entry = (
        DailyEntry.objects.filter(date=date, player=player)
        .select_related("game")
        .only("game", "score", "seconds", "finished_at", "on_board", "game__review")
        .first()
        if player is not None
        else None
    )
    if entry is None:
        return MyStanding(status="none", row=None, page=None)
    if not entry.on_board:
        status = "off_board" if entry.game.review == Game.Review.CONFIRMED else "under_review"
        return MyStanding(status=status, row=None, page=None)
    near = list(
        Game.objects.raw(
            _NEAR_SQL,
            {
                # As the columns store them (SQLite compares the text).
                "date": connection.ops.adapt_datefield_value(date),
                "score": entry.score,
                "seconds": entry.seconds,
                "finished_at": connection.ops.adapt_datetimefield_value(entry.finished_at),
                "game": entry.game_id,
                "before": AROUND,
                "from": AROUND + 1,
            },
        )
    )
    around = [_near_row(game, now) for game in near]
    mine = next(index for index, game in enumerate(near) if game.pk == entry.game_id)
    position: int = near[mine].position  # type: ignore[attr-defined]
    return MyStanding(status="on_board", row=around[mine], page=math.ceil(position / page_size), around=around)


@dataclasses.dataclass(frozen=True, slots=True)
class DaySummary:
    date: datetime.date
    players: int
    wins: int
    win_rate: float | None
    median_score: float | None
    piles: dict[int, int]  # final pile count → players (every count from 1 to 52)


def daily_summary(*, date: datetime.date) -> DaySummary:
    """Players, wins, win rate, median score and the histogram of final pile counts of a date's board,
    all from its counts by score."""
    scores = _Scores(date)
    histogram = dict.fromkeys(range(1, 53), 0)
    for _, piles, players in scores.buckets:
        histogram[piles] += players
    median: float | None = None
    if scores.count:
        # The middle row's score, or the mean of the middle two.
        low, high = scores.bucket_at((scores.count - 1) // 2)[0], scores.bucket_at(scores.count // 2)[0]
        median = (low + high) / 2
    return DaySummary(
        date=date,
        players=scores.count,
        wins=histogram[1],
        win_rate=histogram[1] / scores.count if scores.count else None,
        median_score=median,
        piles=histogram,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class AllTimeRow:
    rank: int
    player: str
    value: float
    days: int


@dataclasses.dataclass(frozen=True, slots=True)
class AllTimeBoards:
    wins: list[AllTimeRow]
    streaks: list[AllTimeRow]
    average: list[AllTimeRow]
    average_from: datetime.date
    average_to: datetime.date


def _ranked(values: list[tuple[str, float, int]]) -> list[AllTimeRow]:
    """Rows with shared ranks for equal values (1, 2, 2, 4), from (player, value, days) best first."""
    rows: list[AllTimeRow] = []
    for position, (player, value, days) in enumerate(values, start=1):
        rank = rows[-1].rank if rows and rows[-1].value == value else position
        rows.append(AllTimeRow(rank=rank, player=player, value=value, days=days))
    return rows


def _best_averages(*, first: datetime.date, last: datetime.date) -> list[tuple[str, float, int]]:
    key = f"leaderboards:average:{first.isoformat()}:{last.isoformat()}"
    found: list[tuple[str, float, int]] | None = cache.get(key)
    if found is None:
        found = [
            (nickname, float(average), days)
            for nickname, average, days in DailyEntry.objects.filter(on_board=True, date__range=(first, last))
            .values("player")
            .annotate(average=Avg("score"), days=Count("pk"))
            .filter(days__gte=AVERAGE_MIN_DAYS)
            .order_by("-average", "player")
            .values_list("player__nickname", "average", "days")[:ALL_TIME_SIZE]
        ]
        cache.set(key, found, AVERAGE_CACHE_SECONDS)
    return found


def all_time_boards(*, today: datetime.date) -> AllTimeBoards:
    """Most daily wins, longest daily streaks, and the best average score over the last 30 finished days
    (at least 10 of them played)."""
    records = DailyRecord.objects.select_related("player")
    wins = records.filter(wins__gt=0).order_by("-wins", "player_id")[:ALL_TIME_SIZE]
    streaks = records.filter(longest_streak__gt=0).order_by("-longest_streak", "player_id")[:ALL_TIME_SIZE]
    last = today - datetime.timedelta(days=1)
    first = today - datetime.timedelta(days=AVERAGE_DAYS)
    return AllTimeBoards(
        wins=_ranked([(record.player.nickname, record.wins, record.days) for record in wins]),
        streaks=_ranked([(record.player.nickname, record.longest_streak, record.days) for record in streaks]),
        average=_ranked(_best_averages(first=first, last=last)),
        average_from=first,
        average_to=last,
    )
