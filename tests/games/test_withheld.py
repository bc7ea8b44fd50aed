"""The one rule every exit asks (games/withheld.py): until its UTC day is over, a game on a daily deal,
finished or not, reaches nobody but its player; any other game reaches anyone."""

from __future__ import annotations

import datetime

import pytest

from accounts.models import Player
from games import services, withheld
from games.models import Game

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 11, 30)
NEXT_DAY = DAY + datetime.timedelta(days=1)
NOON = datetime.datetime.combine(DAY, datetime.time(12), tzinfo=datetime.UTC)


def daily(player: Player, *, finished: bool) -> Game:
    game, _ = services.game_start(player=player, mode="daily", now=NOON)
    if finished:
        game = services.game_finish(game_id=game.pk, player=player, moves=[], now=NOON)
    return game


@pytest.mark.parametrize("finished", [False, True])
def test_a_daily_game_reaches_only_its_player_until_midnight_utc(player, other_player, finished):
    game = daily(player, finished=finished)

    assert not withheld.line_withheld(game=game, viewer=player, today=DAY)
    assert withheld.line_withheld(game=game, viewer=other_player, today=DAY)
    assert withheld.line_withheld(game=game, viewer=None, today=DAY)
    assert not withheld.line_withheld(game=game, viewer=None, today=NEXT_DAY)


def test_finishing_your_own_attempt_opens_nobody_elses_line(player, other_player):
    game = daily(player, finished=True)
    daily(other_player, finished=True)

    assert withheld.line_withheld(game=game, viewer=other_player, today=DAY)


def test_a_game_on_a_deal_code_reaches_anyone(player, winning_game):
    game, _ = services.game_start(player=player, mode="code", code=winning_game["deal_code"], now=NOON)

    assert withheld.readers_of(games=[game], today=DAY) is None
    assert not withheld.line_withheld(game=game, viewer=None, today=DAY)


def test_what_is_made_of_several_players_daily_games_reaches_nobody(player, other_player):
    games = [daily(player, finished=True), daily(other_player, finished=True)]

    assert withheld.readers_of(games=games, today=DAY) == []
    assert withheld.readers_of(games=games[:1], today=DAY) == [player.pk]
    assert withheld.readers_of(games=games, today=NEXT_DAY) is None
