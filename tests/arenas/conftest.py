"""Arenas for the tests: one live now, its participants' games won or lost on demand."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Player
from arenas import services
from arenas.models import Arena, Participant
from games import services as game_services
from games.models import Game


@pytest.fixture(autouse=True)
def results_not_held(settings: Any) -> None:
    """Finishes posted whole in a test look like a script to the fair-play assessment: the tests that
    are about review hold a game themselves."""
    settings.FAIR_PLAY_REVIEW_RISK = 101


@pytest.fixture
def live_arena(player: Player) -> Arena:
    """A ten-minute arena that started a second ago."""
    arena = services.arena_create(created_by=player, minutes=10, starts_in=0, now=timezone.now())
    Arena.objects.filter(pk=arena.pk).update(starts_at=arena.starts_at - datetime.timedelta(seconds=1))
    arena.refresh_from_db()
    return arena


def first_games(arena: Arena, *players: Player) -> list[Game]:
    """Each player joins `arena` (live), in order; their first games."""
    for who in players:
        services.arena_join(code=arena.code, player=who, now=timezone.now())
    return [current_game(arena, who) for who in players]


def current_game(arena: Arena, player: Player) -> Game:
    game = Participant.objects.get(arena=arena, player=player).game
    assert game is not None
    return game


def win(game: Game, *, at: datetime.datetime) -> Game:
    """Finish `game` with its deal's winning line."""
    assert game.deal.solution is not None
    return game_services.game_finish(game_id=game.pk, player=game.player, moves=game.deal.solution, now=at)


def lose(game: Game, *, at: datetime.datetime, moves: int = 0) -> Game:
    """Finish `game` after the first `moves` moves of its deal's winning line."""
    assert game.deal.solution is not None
    return game_services.game_finish(game_id=game.pk, player=game.player, moves=game.deal.solution[:moves], now=at)
