"""Reads about deals and games."""

from __future__ import annotations

import dataclasses
import datetime

from django.conf import settings
from django.db.models import Q, QuerySet

from accounts.models import Player

from .engine import analysis
from .errors import GameError, GameFinished, GameNotFound, NotYourGame
from .models import Deal, Game
from .solver_pool import solver_run

# Best first: higher score, then fewer seconds, then whoever finished first.
RANKING_ORDER = ("-score", "seconds", "finished_at", "pk")


def game_get(*, game_id: int) -> Game:
    """The game with its deal and player, or GameNotFound."""
    game = Game.objects.select_related("deal", "player").filter(pk=game_id).first()
    if game is None:
        raise GameNotFound(f"there is no game {game_id}")
    return game


def game_get_for_player(*, game_id: int, player: Player | None) -> Game:
    """The game, if `player` owns it; GameNotFound or NotYourGame otherwise."""
    game = game_get(game_id=game_id)
    if player is None or game.player_id != player.pk:
        raise NotYourGame(f"game {game_id} belongs to another player")
    return game


def game_visible_to(*, game: Game, player: Player | None, today: datetime.date) -> bool:
    """Anyone may read a finished game (a replay), except one on today's daily deal before the
    reader has finished their own attempt at it: that would spoil the day's ranking."""
    if player is not None and game.player_id == player.pk:
        return True
    if game.status != Game.Status.FINISHED:
        return False
    if game.deal.daily_date != today:
        return True
    return (
        player is not None
        and Game.objects.filter(player=player, deal=game.deal, ranked=True, status=Game.Status.FINISHED).exists()
    )


def game_winnable(*, game_id: int, player: Player) -> tuple[Game, str]:
    """("win" | "lost" | "unknown") for the player's unranked game in progress. Ranked games have no
    such indicator: it would be a hint."""
    game = game_get_for_player(game_id=game_id, player=player)
    if game.ranked:
        raise GameError("the still-winnable indicator is for unranked games only")
    if game.status != Game.Status.PLAYING:
        raise GameFinished(f"game {game_id} is finished: see its analysis instead")
    time_limit = settings.SOLVER_TIME_LIMIT
    status = solver_run(analysis.position_status, game.deal.cards, game.moves, time_limit, time_limit=time_limit)
    return game, status


def winning_lines_withheld(*, game: Game, today: datetime.date) -> bool:
    """A daily deal's winning lines reach no client before its date is over (UTC)."""
    return game.deal.daily_date is not None and game.deal.daily_date >= today


def game_analysis(*, game_id: int, player: Player | None, today: datetime.date) -> tuple[Game, analysis.LineAnalysis]:
    """The after-game analysis of a finished game the reader may see. Winning lines of a daily deal are
    withheld (None) until that date is over."""
    game = game_get(game_id=game_id)
    if not game_visible_to(game=game, player=player, today=today):
        raise GameNotFound(f"there is no game {game_id} you can see")
    if game.status != Game.Status.FINISHED:
        raise GameError(f"game {game_id} is still being played: the analysis comes after the game")
    time_limit = settings.SOLVER_TIME_LIMIT
    found = solver_run(
        analysis.analyse_line, game.deal.cards, game.moves, time_limit, game.deal.solution, time_limit=3 * time_limit
    )
    if winning_lines_withheld(game=game, today=today):
        found = dataclasses.replace(found, deal_line=None, line_from_there=None)
    return game, found


def daily_deal_exists(*, date: datetime.date) -> bool:
    """Whether the daily deal of `date` is already derived, certified and stored."""
    return Deal.objects.filter(daily_date=date).exists()


def daily_ranked_games(*, date: datetime.date) -> QuerySet[Game]:
    """The ranked, finished games of a date's daily deal, best first: its leaderboard."""
    return (
        Game.objects.filter(deal__daily_date=date, ranked=True, status=Game.Status.FINISHED)
        .select_related("player")
        .order_by(*RANKING_ORDER)
    )


def game_daily_rank(*, game: Game) -> int | None:
    """The game's place on its day's leaderboard (1 is best), or None for a game that is not on one."""
    if not game.ranked or game.status != Game.Status.FINISHED or game.deal.daily_date is None:
        return None
    ahead = daily_ranked_games(date=game.deal.daily_date).filter(
        Q(score__gt=game.score)
        | Q(score=game.score, seconds__lt=game.seconds)
        | Q(score=game.score, seconds=game.seconds, finished_at__lt=game.finished_at)
        | Q(score=game.score, seconds=game.seconds, finished_at=game.finished_at, pk__lt=game.pk)
    )
    return ahead.count() + 1
