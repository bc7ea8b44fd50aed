"""Reads about players: who a session is, and a player's profile statistics."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.db.models import Avg, Count, Max, Min, Q
from django.utils.crypto import constant_time_compare

from games.models import Game

from .models import Player
from .nicknames import NICKNAME_KEY_MAX_LENGTH, SET_APART, nickname_folded, nickname_key

SESSION_PLAYER_KEY = "player_id"
RECENT_GAMES = 20
SCORE_CHART_GAMES = 100
CALENDAR_MONTHS = 6


def _session_is_logged_in_as(session: Mapping[str, Any], user: Any) -> bool:
    """Whether the session holds a valid Django login of `user` (as django.contrib.auth.get_user decides:
    a password change elsewhere ends the session's login)."""
    if not user.is_active or session.get(SESSION_KEY) != str(user.pk):
        return False
    session_hash = session.get(HASH_SESSION_KEY) or ""
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return any(constant_time_compare(session_hash, known) for known in hashes)


def player_from_session(session: Mapping[str, Any]) -> Player | None:
    """The player this session belongs to, or None for a visitor who has not played yet.

    An account's player belongs only to a session logged in to that account, so logging out, or a
    password change on another device, takes the player away from every other session."""
    player_id = session.get(SESSION_PLAYER_KEY)
    if not isinstance(player_id, int):
        return None
    player = Player.objects.select_related("user").filter(pk=player_id).first()
    if player is not None and player.user is not None and not _session_is_logged_in_as(session, player.user):
        return None
    return player


def player_is_referenced(*, player: Player) -> bool:
    """Whether any row (a game, a race seat, …) still names the player."""
    return any(
        relation.field.model._default_manager.filter(**{relation.field.name: player}).exists()
        for relation in Player._meta.related_objects
    )


def player_by_nickname(*, nickname: str) -> Player | None:
    """The player with this nickname, compared as the nickname rule compares (case, look-alikes).

    Players set apart by migration accounts/0005 share their key with an older player: of those, the one
    whose nickname is spelt as `nickname` (whatever its case) is found, else the key's holder, else the
    first set apart, so a set-apart player still logs in with their nickname and no one else can take it."""
    key = nickname_key(nickname)
    if len(key) > NICKNAME_KEY_MAX_LENGTH:
        return None
    players = Player.objects.filter(Q(nickname_key=key) | Q(nickname_key__startswith=f"{key}{SET_APART}"))
    spelt = nickname_folded(nickname)
    return min(
        players,
        key=lambda player: (nickname_folded(player.nickname) != spelt, player.nickname_key != key, player.pk),
        default=None,
    )


def player_daily_done(*, player: Player, today: datetime.date) -> bool:
    """Whether the player has finished their attempt at today's daily deal (the first daily game of a
    date is the attempt, and a later one can only start once it is finished)."""
    return Game.objects.filter(player=player, deal__daily_date=today, status=Game.Status.FINISHED).exists()


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
