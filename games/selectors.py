"""Reads about deals and games."""

from __future__ import annotations

import datetime

from accounts.models import Player

from .errors import GameNotFound, NotYourGame
from .models import Game


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
