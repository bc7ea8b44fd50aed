"""The midnight case: once a day is over its seed and winning lines are published, so a ranked attempt
still in play is closed where it stands, by the daily command or at its next use, and never finished
with the published line."""

from __future__ import annotations

import datetime
import io

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games.errors import AttemptDayOver
from games.models import Game
from games.services import KnownGame, game_finish, game_move, game_start, game_undo
from leaderboards.models import DailyEntry
from tests.api_client import post
from tests.conftest import player_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def midnight() -> datetime.datetime:
    """The midnight (UTC) that ended yesterday."""
    return timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)


def attempt_in_play(player: Player, *, started: datetime.datetime, moves: int = 2) -> Game:
    game, _ = game_start(player=player, mode="daily", now=started)
    for index, move in enumerate(game.deal.solution[:moves], start=1):
        game = game_move(game_id=game.pk, player=player, move=move, now=started + datetime.timedelta(seconds=index))
    return game


def test_a_finish_after_midnight_with_the_published_line_is_refused_and_the_attempt_closed(player, midnight):
    game = attempt_in_play(player, started=midnight - datetime.timedelta(minutes=2))
    with pytest.raises(AttemptDayOver, match="that day is over"):
        game_finish(
            game_id=game.pk, player=player, moves=game.deal.solution, now=midnight + datetime.timedelta(minutes=1)
        )
    closed = Game.objects.get(pk=game.pk)
    assert (closed.status, closed.piles, closed.moves) == ("finished", 50, game.moves)
    assert (closed.finished_at, closed.seconds, closed.score) == (midnight, 120, 20)
    assert DailyEntry.objects.get(game=game).score == 20


def test_a_move_after_midnight_is_refused_and_closes_the_attempt_where_it_stood(player, midnight):
    game = attempt_in_play(player, started=midnight - datetime.timedelta(minutes=5))
    with pytest.raises(AttemptDayOver):
        game_move(
            game_id=game.pk, player=player, move=game.deal.solution[2], now=midnight + datetime.timedelta(seconds=1)
        )
    assert Game.objects.get(pk=game.pk).piles == 50


def test_a_sockets_move_after_midnight_on_the_attempt_as_it_knew_it_closes_the_attempt_too(
    player, midnight, move_on_known
):
    game = attempt_in_play(player, started=midnight - datetime.timedelta(minutes=5))
    with pytest.raises(AttemptDayOver):
        move_on_known(
            known=KnownGame.of(game),
            player=player,
            move=game.deal.solution[2],
            now=midnight + datetime.timedelta(seconds=1),
        )
    closed = Game.objects.get(pk=game.pk)
    assert (closed.status, closed.piles, closed.finished_at) == ("finished", 50, midnight)


def test_an_undo_after_midnight_is_refused_too(player, midnight):
    game = attempt_in_play(player, started=midnight - datetime.timedelta(minutes=5))
    with pytest.raises(AttemptDayOver):
        game_undo(game_id=game.pk, player=player, now=midnight + datetime.timedelta(seconds=1))
    assert Game.objects.get(pk=game.pk).moves == game.moves


def test_over_the_api_the_late_finish_gets_a_409_and_the_game_shows_its_closed_result(player, midnight):
    game = attempt_in_play(player, started=midnight - datetime.timedelta(minutes=2))
    client = player_client(player)
    status, error = post(client, f"/api/games/{game.pk}/finish", {"moves": game.deal.solution})
    assert status == 409 and error["code"] == "game_finished"
    shown = client.get(f"/api/games/{game.pk}").json()
    assert shown["status"] == "finished" and shown["result"]["piles"] == 50 and shown["result"]["rank"] == 1


def test_reading_an_attempt_whose_day_is_over_closes_it(player, midnight):
    game = attempt_in_play(player, started=midnight - datetime.timedelta(hours=3))
    assert player_client(player).get(f"/api/games/{game.pk}").json()["status"] == "finished"
    assert DailyEntry.objects.filter(game=game).exists()


def test_anyones_read_of_an_attempt_whose_day_is_over_closes_it_and_shows_the_replay(player, midnight):
    game = attempt_in_play(player, started=midnight - datetime.timedelta(hours=3))
    shown = Client().get(f"/api/games/{game.pk}")  # a visitor, not the attempt's player
    assert shown.status_code == 200 and shown.json()["status"] == "finished"
    assert DailyEntry.objects.filter(game=game).exists()


def test_the_daily_command_closes_every_ranked_attempt_of_a_past_day_and_nothing_else(player, other_player, midnight):
    yesterday_evening = midnight - datetime.timedelta(hours=1)
    late = [attempt_in_play(p, started=yesterday_evening) for p in (player, other_player)]
    practice_player = Player.objects.create(nickname="practice")
    done = game_start(player=practice_player, mode="daily", now=yesterday_evening)[0]
    game_finish(game_id=done.pk, player=practice_player, moves=[], now=yesterday_evening)
    practice = game_start(player=practice_player, mode="daily", now=yesterday_evening)[0]
    todays = attempt_in_play(Player.objects.create(nickname="today"), started=midnight + datetime.timedelta(seconds=1))
    output = io.StringIO()
    call_command("close_daily_attempts", stdout=output)
    assert "Closed 2 ranked attempts" in output.getvalue()
    statuses = dict(Game.objects.values_list("pk", "status"))
    assert [statuses[game.pk] for game in late] == ["finished", "finished"]
    assert (statuses[practice.pk], statuses[todays.pk]) == ("playing", "playing")


def test_an_attempt_started_just_before_midnight_can_still_be_finished_before_it(player, midnight):
    game = attempt_in_play(player, started=midnight - datetime.timedelta(minutes=1), moves=0)
    finished = game_finish(game_id=game.pk, player=player, moves=[], now=midnight - datetime.timedelta(seconds=1))
    assert finished.status == "finished" and finished.seconds == 59
