from __future__ import annotations

import datetime

import pytest
from django.test import Client

from accounts.models import Player
from games import engine
from games.models import Game
from games.services import game_finish, game_start
from leaderboards import api

DAY = datetime.date(2026, 11, 30)
NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)

pytestmark = pytest.mark.django_db


def finished_daily(nickname: str, *, moves: int, seconds: int) -> Game:
    """A ranked daily game on DAY finished with the first `moves` moves of a legal line."""
    player = Player.objects.create(nickname=nickname)
    game, _ = game_start(player=player, mode="daily", now=NOON)
    position = engine.Position.from_deal(game.deal.cards)
    line: list[list[int]] = []
    for _ in range(moves):
        move = engine.legal_moves(position)[0]
        line.append(list(move))
        position = engine.apply_move(position, move)
    return game_finish(game_id=game.pk, player=player, moves=line, now=NOON + datetime.timedelta(seconds=seconds))


def board(page: int = 1) -> dict:
    response = Client().get(f"/api/leaderboards/daily/{DAY.isoformat()}?page={page}")
    assert response.status_code == 200, response.content
    return response.json()


def test_entries_are_ranked_by_score_then_by_time():
    finished_daily("slow", moves=3, seconds=300)
    finished_daily("fast", moves=3, seconds=100)
    finished_daily("best", moves=5, seconds=900)
    entries = board()["entries"]
    assert [(entry["rank"], entry["player"]) for entry in entries] == [(1, "best"), (2, "fast"), (3, "slow")]
    assert entries[0] == {
        "rank": 1, "player": "best", "score": 50, "piles": 47, "seconds": 900, "won": False,
        "game": entries[0]["game"],
    }  # fmt: skip


def test_practice_and_unfinished_games_are_not_ranked():
    ranked = finished_daily("ada", moves=2, seconds=60)
    practice, _ = game_start(player=ranked.player, mode="daily", now=NOON)
    game_finish(game_id=practice.pk, player=ranked.player, moves=[], now=NOON)
    game_start(player=Player.objects.create(nickname="still playing"), mode="daily", now=NOON)
    assert [entry["player"] for entry in board()["entries"]] == ["ada"]


def test_the_board_is_paged(monkeypatch):
    monkeypatch.setattr(api, "PAGE_SIZE", 2)
    for index in range(5):
        finished_daily(f"p{index}", moves=index, seconds=60)
    second = board(page=2)
    assert second["pages"] == 3 and second["count"] == 5
    assert [entry["rank"] for entry in second["entries"]] == [3, 4]


@pytest.mark.parametrize(("path", "status"), [("2026-13-01", 400), ("yesterday", 400), ("2026-11-30?page=0", 400),
                                              ("2026-11-30?page=x", 400), ("2026-11-30?page=9", 404)])  # fmt: skip
def test_bad_dates_and_pages_get_a_clear_error(path, status):
    response = Client().get(f"/api/leaderboards/daily/{path}")
    assert response.status_code == status and response.json()["error"]


def test_a_day_nobody_played_is_an_empty_board():
    assert board() == {"date": "2026-11-30", "page": 1, "pages": 1, "count": 0, "entries": []}
