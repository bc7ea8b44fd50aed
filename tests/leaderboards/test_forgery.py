"""Attempts to forge a place on a board: each is refused with a clear error, and no row appears."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from games import engine
from games.errors import GameNotStarted
from games.models import Game
from games.services import game_finish, game_start
from leaderboards.models import DailyEntry
from tests.api_client import post, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def attempt(client) -> dict:
    """Today's ranked attempt of the `client` player, just started."""
    game = start(client, mode="daily")
    assert game["ranked"]
    return game


def finish(client, game: dict, body: dict) -> tuple[int, dict]:
    return post(client, f"/api/games/{game['id']}/finish", body)


def test_an_illegal_line_is_refused_naming_its_first_bad_move(client, attempt):
    status, error = finish(client, attempt, {"moves": [[0, 51]]})
    assert status == 400 and error["code"] == "illegal_move" and error["index"] == 0
    assert not DailyEntry.objects.exists()


def test_the_winning_line_of_another_deal_is_refused(client, attempt, winning_game):
    with pytest.raises(engine.IllegalMove) as caught:
        engine.replay(attempt["deal"], winning_game["moves"])
    status, error = finish(client, attempt, {"moves": winning_game["moves"]})
    assert status == 400 and error["code"] == "illegal_move" and error["index"] == caught.value.index
    assert not DailyEntry.objects.exists()


def test_finishing_someone_elses_attempt_is_forbidden(other_client, attempt):
    status, error = finish(other_client, attempt, {"moves": []})
    assert status == 403 and error["code"] == "not_your_game"
    assert not DailyEntry.objects.exists()


def test_a_second_finish_with_a_better_line_is_refused_and_the_first_result_stands(client, attempt):
    finish(client, attempt, {"moves": []})
    better = engine.certified_daily_deal(
        datetime.date.fromisoformat(attempt["daily_date"]), Game.objects.get(pk=attempt["id"]).deal.seed
    ).solution
    status, error = finish(client, attempt, {"moves": [list(move) for move in better]})
    assert status == 409 and error["code"] == "game_finished" and "result stands" in error["error"]
    assert list(DailyEntry.objects.values_list("score", flat=True)) == [0]


@pytest.mark.parametrize("claim", [{"score": 2210}, {"seconds": 0}, {"piles": 1}, {"won": True}])
def test_a_score_time_or_result_sent_by_the_client_is_refused(client, attempt, claim):
    status, error = finish(client, attempt, {"moves": [], **claim})
    assert status == 400 and error["code"] == "invalid" and error["error"].startswith(f"{next(iter(claim))}:")
    assert not DailyEntry.objects.exists()


def test_a_finish_before_the_start_is_refused(player):
    now = timezone.now()
    game, _ = game_start(player=player, mode="daily", now=now)
    with pytest.raises(GameNotStarted):
        game_finish(game_id=game.pk, player=player, moves=[], now=now - datetime.timedelta(seconds=1))
    assert not DailyEntry.objects.exists()


def test_a_daily_game_cannot_be_started_for_another_date(client, today):
    tomorrow = (today + datetime.timedelta(days=1)).isoformat()
    status, error = post(client, "/api/games", {"mode": "daily", "date": tomorrow})
    assert status == 400 and error["error"].startswith("date:")
    assert not Game.objects.exists() and not DailyEntry.objects.exists()
