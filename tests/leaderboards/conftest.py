"""Fixtures for the board tests: ranked daily attempts finished by the services, as players would
finish them, on dates the tests choose (the server's clock is a parameter of every service)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.models import Player
from games import engine
from games.models import Game
from games.services import game_finish, game_move, game_start
from tests.conftest import player_client

Finisher = Callable[..., Game]


def first_legal_line(deal: list[str], moves: int) -> list[list[int]]:
    """The first `moves` moves of the line that always plays the first legal move."""
    position = engine.Position.from_deal(deal)
    line: list[list[int]] = []
    for _ in range(moves):
        move = engine.legal_moves(position)[0]
        line.append(list(move))
        position = engine.apply_move(position, move)
    return line


@pytest.fixture
def day() -> datetime.date:
    """A day that is over: its board is complete and its replays are open."""
    return datetime.datetime.now(datetime.UTC).date() - datetime.timedelta(days=1)


@pytest.fixture
def finish_daily(db: None, day: datetime.date) -> Finisher:
    """finish_daily("ada", moves=3, seconds=90) → a new player's ranked attempt at `day`'s deal: the first
    `moves` (at most 50) moves of its winning line played one by one, evenly over `seconds`, then ended (optionally
    on=another date, player=an existing player, won=True to play the deal's winning line)."""

    def finish(
        nickname: str = "",
        *,
        moves: int = 0,
        seconds: int = 60,
        won: bool = False,
        on: datetime.date | None = None,
        player: Player | None = None,
        started: datetime.time = datetime.time(12),
    ) -> Game:
        player = player or Player.objects.create(nickname=nickname)
        start = datetime.datetime.combine(on or day, started, tzinfo=datetime.UTC)
        game, _ = game_start(player=player, mode="daily", now=start)
        # A lost game plays the start of the winning line: a greedy line can run out of moves before
        # `moves` on some days' deals, and the day is the test run's yesterday.
        line = game.deal.solution if won else game.deal.solution[:moves]
        # A win ends with its last move, at `seconds`; any other game is ended after its last move.
        steps = len(line) if won else len(line) + 1
        for number, move in enumerate(line, start=1):
            at = start + datetime.timedelta(seconds=seconds) * number / steps
            game = game_move(game_id=game.pk, player=player, move=move, now=at)
        if game.status == Game.Status.FINISHED:
            return game
        return game_finish(game_id=game.pk, player=player, moves=line, now=start + datetime.timedelta(seconds=seconds))

    return finish


@pytest.fixture
def visitor() -> Client:
    return Client()


def get(client: Client, path: str) -> tuple[int, Any]:
    response = client.get(path)
    return response.status_code, response.json()


def own_client(game: Game) -> Client:
    """The browser session of the game's owner."""
    return player_client(game.player)
