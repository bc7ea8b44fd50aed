"""Hints, the still-winnable indicator and the after-game analysis, over the API."""

from __future__ import annotations

import json
import logging
import os
import threading

import pytest
from django.test import Client

from games import engine, solver_pool
from games.engine import solver
from games.models import Game
from tests.api_client import post, start

pytestmark = pytest.mark.django_db


def store_line(game_id: int, moves: list[list[int]]) -> None:
    """Put the game where a player who played `moves` would be (the socket's job in real play)."""
    game = Game.objects.get(pk=game_id)
    Game.objects.filter(pk=game_id).update(
        moves=moves, piles=engine.replay(game.deal.cards, moves).piles, version=len(moves)
    )


def stuck_line(deal: list[str]) -> list[list[int]]:
    """Always the leftmost legal move until none is left: a deal is almost never won this way."""
    position, line = engine.Position.from_deal(deal), []
    while moves := engine.legal_moves(position):
        line.append(list(moves[0]))
        position = engine.apply_move(position, moves[0])
    assert position.piles > 1
    return line


def test_a_hint_on_a_ranked_game_first_asks_for_consent(client):
    game = start(client, mode="daily")
    status, error = post(client, f"/api/games/{game['id']}/hint", {})
    assert status == 400 and error["code"] == "confirm_unranked"
    assert Game.objects.get(pk=game["id"]).ranked


def test_an_accepted_hint_gives_a_move_that_keeps_the_game_winnable_and_unranks_it_for_good(client):
    game = start(client, mode="daily")
    status, hint = post(client, f"/api/games/{game['id']}/hint", {"accept_unranked": True})
    assert status == 200 and hint["status"] == "move" and hint["ranked"] is False and hint["hints"] == 1
    reloaded = client.get(f"/api/games/{game['id']}").json()
    assert reloaded["hints"] == 1 and reloaded["ranked"] is False
    assert hint["version"] == reloaded["version"]  # the advice is about the game as it stands
    after = engine.apply_move(engine.Position.from_deal(game["deal"]), hint["move"])
    assert solver.solve(after, time_limit=5).status == "win"
    post(client, f"/api/games/{game['id']}/finish", {"moves": [hint["move"]]})
    assert start(client, mode="daily")["ranked"] is False  # the day's ranked attempt was spent


def test_a_hinted_daily_game_stays_off_the_leaderboard(client):
    game = start(client, mode="daily")
    _, hint = post(client, f"/api/games/{game['id']}/hint", {"accept_unranked": True})
    _, finished = post(client, f"/api/games/{game['id']}/finish", {"moves": [hint["move"]]})
    assert finished["result"]["rank"] is None
    board = client.get(f"/api/leaderboards/daily/{game['daily_date']}").json()
    assert board["entries"] == []


def test_in_a_lost_position_the_hint_says_how_many_moves_to_undo(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    line = stuck_line(winning_game["deal"])
    store_line(game["id"], line)
    status, hint = post(client, f"/api/games/{game['id']}/hint", {})
    assert status == 200 and hint["status"] == "undo" and hint["move"] is None
    losing = solver.first_losing_move(winning_game["deal"], line, time_limit=10)
    assert hint["undo"] == len(line) - losing
    back = engine.replay(winning_game["deal"], line[: len(line) - hint["undo"]])
    assert solver.solve(back, time_limit=10).status == "win"


def test_no_hints_for_a_finished_game_or_someone_elses(client, other_client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    assert post(other_client, f"/api/games/{game['id']}/hint", {})[0] == 403
    post(client, f"/api/games/{game['id']}/finish", {"moves": []})
    status, error = post(client, f"/api/games/{game['id']}/hint", {})
    assert status == 409 and error["code"] == "game_finished"


def test_asking_too_often_is_refused_with_429(client, winning_game, settings):
    settings.SOLVER_REQUESTS_PER_MINUTE = 2
    game = start(client, mode="code", code=winning_game["deal_code"])
    answers = [client.get(f"/api/games/{game['id']}/winnable").status_code for _ in range(3)]
    assert answers == [200, 200, 429]
    assert "try again" in client.get(f"/api/games/{game['id']}/winnable").json()["error"]


def test_a_refused_solver_request_says_when_to_try_again(client, winning_game, settings):
    settings.SOLVER_REQUESTS_PER_MINUTE = 1
    game = start(client, mode="code", code=winning_game["deal_code"])
    client.get(f"/api/games/{game['id']}/winnable")
    refused = client.get(f"/api/games/{game['id']}/winnable")
    assert refused.json()["code"] == "rate_limited" and "try again in" in refused.json()["error"]
    assert 0 < int(refused["Retry-After"]) <= 60


def test_a_full_solver_pool_answers_try_again_instead_of_queueing(client, winning_game, monkeypatch, caplog):
    game = start(client, mode="code", code=winning_game["deal_code"])
    full = threading.BoundedSemaphore(1)
    full.acquire()
    monkeypatch.setattr(solver_pool, "_executor", lambda: (None, full))
    status, error = post(client, f"/api/games/{game['id']}/hint", {})
    assert status == 503 and error["code"] == "busy" and "try again" in error["error"]
    assert Game.objects.get(pk=game["id"]).hints == 0
    # A refusal, logged as a warning: not an ERROR line in the operator's log for every busy moment.
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []


def test_the_still_winnable_indicator_follows_the_position(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    assert client.get(f"/api/games/{game['id']}/winnable").json() == {"status": "win", "version": game["version"]}
    line = stuck_line(winning_game["deal"])
    store_line(game["id"], line)
    assert client.get(f"/api/games/{game['id']}/winnable").json() == {"status": "lost", "version": len(line)}


def test_the_still_winnable_indicator_is_not_offered_in_ranked_games(client):
    game = start(client, mode="daily")
    response = client.get(f"/api/games/{game['id']}/winnable")
    assert response.status_code == 400 and "unranked" in response.json()["error"]


def test_after_the_game_the_analysis_shows_where_the_line_was_lost_and_how_to_win(client, winning_game):
    deal = winning_game["deal"]
    game = start(client, mode="code", code=winning_game["deal_code"])
    line = stuck_line(deal)
    post(client, f"/api/games/{game['id']}/finish", {"moves": line})
    found = client.get(f"/api/games/{game['id']}/analysis").json()
    assert found["deal_winnable"] is True and found["withheld"] is False
    assert engine.replay(deal, found["deal_line"]).won
    losing = found["first_losing_move"]
    assert solver.solve(engine.replay(deal, line[:losing]), time_limit=10).status == "win"
    assert solver.solve(engine.replay(deal, line[: losing + 1]), time_limit=10).status == "lost"
    assert engine.replay(deal, line[:losing] + found["line_from_there"]).won


def test_a_won_game_has_nothing_to_regret(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    post(client, f"/api/games/{game['id']}/finish", {"moves": winning_game["moves"]})
    found = client.get(f"/api/games/{game['id']}/analysis").json()
    assert found["first_losing_move"] is None and found["line_from_there"] is None


@pytest.mark.parametrize("consent", ["yes", 1, "true"])
def test_consent_to_an_unranked_hint_is_json_true_only(client, consent):
    game = start(client, mode="daily")
    status, error = post(client, f"/api/games/{game['id']}/hint", {"accept_unranked": consent})
    assert status == 400 and error["code"] == "invalid" and error["error"].startswith("accept_unranked")
    assert client.get(f"/api/games/{game['id']}").json()["ranked"] is True


def test_a_game_says_whether_hints_may_be_asked_for_it(client, winning_game):
    ranked = start(client, mode="daily")
    assert ranked["hints_open"] is True  # with consent: the hint makes it unranked
    post(client, f"/api/games/{ranked['id']}/finish", {"moves": []})
    practice = start(client, mode="daily")
    assert practice["ranked"] is False and practice["hints_open"] is False
    status, refused = post(client, f"/api/games/{practice['id']}/hint", {})
    assert status == 403 and refused["code"] == "withheld"  # as the game said
    assert start(client, mode="code", code=winning_game["deal_code"])["hints_open"] is True


def test_todays_daily_analysis_is_withheld_whole(client):
    # Not even whether the deal can be won, or where a line lost it: finishing practice games and
    # reading their analysis would give the day's winning line away a move at a time.
    game = start(client, mode="daily")
    line = stuck_line(game["deal"])
    post(client, f"/api/games/{game['id']}/finish", {"moves": line})
    practice = start(client, mode="daily")
    post(client, f"/api/games/{practice['id']}/finish", {"moves": line[:3]})
    for finished in (game, practice):
        found = client.get(f"/api/games/{finished['id']}/analysis").json()
        assert found == {
            "deal_winnable": None,
            "deal_line": None,
            "first_losing_move": None,
            "line_from_there": None,
            "withheld": True,
        }
    assert "solution" not in json.dumps(client.get(f"/api/games/{game['id']}").json())


def test_no_analysis_while_the_game_is_being_played(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    response = client.get(f"/api/games/{game['id']}/analysis")
    assert response.status_code == 400 and "after the game" in response.json()["error"]


def test_visitors_without_a_game_are_rate_limited_by_address_on_analyses(client, winning_game, settings):
    settings.SOLVER_REQUESTS_PER_MINUTE = 1
    game = start(client, mode="code", code=winning_game["deal_code"])
    post(client, f"/api/games/{game['id']}/finish", {"moves": winning_game["moves"]})
    visitor = Client()
    assert visitor.get(f"/api/games/{game['id']}/analysis").status_code == 200
    assert visitor.get(f"/api/games/{game['id']}/analysis").status_code == 429
    assert client.get(f"/api/games/{game['id']}/analysis").status_code == 200  # the player's own allowance


def test_solver_searches_run_at_a_lower_cpu_priority_than_the_web_process():
    """A search takes a core for up to its time limit; at the web process's priority, the still-winnable
    badges of watched games held up sockets' acks (docs/performance.md)."""
    from django.conf import settings

    web = os.nice(0)
    worker = solver_pool.solver_run(os.nice, 0, time_limit=1)

    assert worker == min(web + settings.SOLVER_NICENESS, 19)
