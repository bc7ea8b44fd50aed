"""Finished ranked results assessed from their stored events (games.services.game_assess, run after a
finish and by `manage.py assess_games`): scripted players held for review, simulated people on the
board, each result assessed once, and what the player is told."""

from __future__ import annotations

import datetime
import json
import random
import time

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings

from accounts.models import Player
from games.engine.risk import FINISH, MOVE, UNDO
from games.models import Game
from games.services import game_assess, game_finish, game_move, game_start, game_undo, games_review
from tests.conftest import player_client
from tests.simulated_players import ATTACKERS, Play, human, judge_for, random_pauses, scripted, steady

NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)
LATER = NOON + datetime.timedelta(hours=1)


def ranked_game(nickname: str) -> tuple[Player, Game]:
    player = Player.objects.create(nickname=nickname)
    game, _ = game_start(player=player, mode="daily", now=NOON)
    assert game.ranked
    return player, game


def played(player: Player, game: Game, play: Play) -> Game:
    """`play`'s events sent to the services one by one at their times, as the socket and REST would."""
    for event in play.events:
        at = game.started_at + datetime.timedelta(seconds=event.seconds)
        if event.kind == UNDO:
            game_undo(game_id=game.pk, player=player, now=at)
        elif event.move is not None:
            game_move(game_id=game.pk, player=player, move=list(event.move), now=at)
        else:
            assert event.kind == FINISH
            line = event.line if event.line is not None else Game.objects.get(pk=game.pk).moves
            game_finish(game_id=game.pk, player=player, moves=[list(move) for move in line], now=at)
    return Game.objects.get(pk=game.pk)


def board(date: datetime.date) -> list[int]:
    return [entry["game"] for entry in Client().get(f"/api/leaderboards/daily/{date}").json()["entries"]]


@pytest.mark.django_db
@pytest.mark.parametrize("attacker", ["steady pace", "random pauses", "winnable decoys and undos"])
def test_a_solver_line_played_one_move_at_a_time_is_held_once_assessed(attacker):
    player, game = ranked_game("Script")
    play = ATTACKERS[attacker](game.deal.cards, random.Random(1), judge_for(game.deal.cards))

    finished = played(player, game, play)
    assessed = game_assess(game_id=game.pk, now=LATER)

    assert finished.won and assessed is not None and assessed.review == "pending"
    assert "perfect_line" in {reason["code"] for reason in assessed.risk_reasons}
    assert len(assessed.verdicts) == len(play.events) and assessed.assessed_at == LATER
    assert board(NOON.date()) == []


@pytest.mark.django_db
def test_a_partly_scripted_line_finished_over_rest_is_held_at_the_finish():
    """20 moves one by one, then the whole line in a REST finish (the view's own service call, at a
    time the test sets): held at once, and the game's API says so."""
    player, game = ranked_game("Half")
    solution = game.deal.solution
    assert solution is not None
    rng = random.Random(2)
    play = scripted(game.deal.cards, rng, judge_for(game.deal.cards), pace=random_pauses(rng), line=solution)
    for event in play.events[:20]:
        assert event.kind == MOVE and event.move is not None
        at = NOON + datetime.timedelta(seconds=event.seconds)
        game_move(game_id=game.pk, player=player, move=list(event.move), now=at)

    finished = game_finish(game_id=game.pk, player=player, moves=solution, now=NOON + datetime.timedelta(minutes=2))

    assert finished.won and finished.review == "pending"
    assert "unseen_moves" in {reason["code"] for reason in finished.risk_reasons}
    result = player_client(player).get(f"/api/games/{game.pk}").json()["result"]
    assert (result["review"], result["rank"]) == ("pending", None)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2])
def test_a_simulated_person_playing_through_the_services_is_not_held(seed):
    player, game = ranked_game("Person")
    player.created_at = NOON - datetime.timedelta(days=90)
    player.save()
    play = human(game.deal.cards, random.Random(seed), judge_for(game.deal.cards))

    played(player, game, play)
    assessed = game_assess(game_id=game.pk, now=LATER)

    assert assessed is not None and assessed.risk is not None
    assert assessed.review == "" and assessed.risk < 50, assessed.risk_reasons
    assert board(NOON.date()) == [game.pk]


@pytest.mark.django_db
def test_fresh_guests_replaying_one_line_are_each_held_and_the_later_ones_share_it():
    held = []
    for number in range(3):
        player, game = ranked_game(f"Guest-{9000 + number}")
        rng = random.Random(number)
        play = scripted(game.deal.cards, rng, judge_for(game.deal.cards), pace=steady(rng), line=game.deal.solution)
        played(player, game, play)
        held.append(game_assess(game_id=game.pk, now=LATER))
    assert all(game is not None and game.review == "pending" for game in held)
    codes = [{reason["code"] for reason in game.risk_reasons} for game in held if game is not None]
    assert ["same_line" in found for found in codes] == [False, True, True]


@pytest.mark.django_db
def test_a_result_is_on_the_board_as_provisional_until_assessed_then_off_it_if_held():
    player, game = ranked_game("Steady")
    play = scripted(game.deal.cards, random.Random(4), judge_for(game.deal.cards), pace=lambda r: r.uniform(2.0, 2.4))
    played(player, game, play)
    rows = Client().get(f"/api/leaderboards/daily/{NOON.date()}").json()["entries"]
    assert [(row["game"], row["provisional"]) for row in rows] == [(game.pk, True)]

    call_command("assess_games")

    assert board(NOON.date()) == []
    mine = player_client(player).get(f"/api/leaderboards/daily/{NOON.date()}/me").json()
    assert mine["status"] == "under_review"


@pytest.mark.django_db
def test_assess_games_assesses_each_result_once():
    player, game = ranked_game("Once")
    played(player, game, human(game.deal.cards, random.Random(3), judge_for(game.deal.cards)))
    call_command("assess_games")
    first = Game.objects.get(pk=game.pk).assessed_at

    call_command("assess_games")

    assert first is not None and Game.objects.get(pk=game.pk).assessed_at == first
    assert game_assess(game_id=game.pk, now=LATER) is None


def reasons(game: Game) -> dict[str, str]:
    return {reason["code"]: reason["detail"] for reason in game.risk_reasons}


@pytest.mark.django_db
def test_a_confirmed_result_weighs_on_the_players_next_one():
    player, game = ranked_game("Again")
    played(player, game, human(game.deal.cards, random.Random(5), judge_for(game.deal.cards)))
    Game.objects.filter(pk=game.pk).update(review="pending")
    games_review(game_ids=[game.pk], decision="confirmed", reason="a solver's line", reviewer=None, now=LATER)
    tomorrow = NOON + datetime.timedelta(days=1)
    next_game, _ = game_start(player=player, mode="daily", now=tomorrow)

    finished = game_finish(game_id=next_game.pk, player=player, moves=[], now=tomorrow + datetime.timedelta(minutes=1))

    assert "confirmed_before" in reasons(finished)


@pytest.mark.django_db
def test_the_players_past_counts_first_game_and_reviews_once_each():
    player, game = ranked_game("Past")
    first = game_finish(game_id=game.pk, player=player, moves=[], now=NOON + datetime.timedelta(minutes=1))
    assert "first_game" in reasons(first)
    decisions = ["cleared", "cleared", "confirmed"]
    for day, decision in enumerate(decisions, start=1):
        at = NOON + datetime.timedelta(days=day)
        played_game, _ = game_start(player=player, mode="daily", now=at)
        game_finish(game_id=played_game.pk, player=player, moves=[], now=at + datetime.timedelta(minutes=1))
        Game.objects.filter(pk=played_game.pk).update(review="pending")
        games_review(game_ids=[played_game.pk], decision=decision, reason="looked at", reviewer=None, now=at)
    at = NOON + datetime.timedelta(days=len(decisions) + 1)
    last_game, _ = game_start(player=player, mode="daily", now=at)

    last = reasons(game_finish(game_id=last_game.pk, player=player, moves=[], now=at + datetime.timedelta(minutes=1)))

    assert "first_game" not in last
    assert last["confirmed_before"].startswith("1 earlier result(s) confirmed")
    assert last["cleared_before"].startswith("2 earlier result(s) reviewed and cleared")


@pytest.mark.django_db(transaction=True)
@override_settings(FAIR_PLAY_ASSESS_IN_BACKGROUND=True)
def test_after_the_finish_commits_the_assessment_runs_in_the_background(postgres):
    player, game = ranked_game("Background")
    play = scripted(game.deal.cards, random.Random(6), judge_for(game.deal.cards), pace=steady(random.Random(6)))

    played(player, game, play)

    for _ in range(600):  # the background thread and the solver pool answer within seconds
        if Game.objects.get(pk=game.pk).assessed_at is not None:
            break
        time.sleep(0.1)
    assert Game.objects.get(pk=game.pk).review == "pending"


@pytest.mark.django_db
def test_the_player_is_told_kindly_that_the_result_waits_for_a_review():
    """The result's `review` is pending (the game page and the board say so in these words), never why."""
    english = Client().get("/jsi18n/").content.decode()
    reader = Client()
    reader.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"
    persian = reader.get("/jsi18n/").content.decode()
    assert json.dumps("در انتظار یک بررسی کوتاه است")[1:-1] in persian
    assert "too fast" not in english and "too fast" not in persian
