from __future__ import annotations

import datetime
import json
import re

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games import engine, services
from games.engine import solver
from games.engine.deals import CODE_ALPHABET
from games.models import Game
from games.services import game_finish, game_start
from tests.api_client import post, start

pytestmark = pytest.mark.django_db

CHECKED_CODE = re.compile(r"[23456789A-HJ-NP-Z]{4}-[23456789A-HJ-NP-Z]{4}-[23456789A-HJ-NP-Z]")


def test_a_visitor_starts_the_daily_deal_as_a_guest_and_gets_the_game():
    visitor = Client()
    status, game = post(visitor, "/api/games", {"mode": "daily"})
    assert status == 201
    assert game["mode"] == "daily" and game["ranked"] is True
    today = timezone.now().date()
    assert game["deal"] == engine.daily_deal(today, engine.daily_seed(today, secret=settings.DAILY_SECRET))
    assert game["piles"] == 52 and game["moves"] == [] and game["status"] == "playing"
    assert game["ws"] == f"/ws/games/{game['id']}/" and game["result"] is None


def test_reopening_the_daily_resumes_the_same_game(client):
    first = start(client, mode="daily")
    status, again = post(client, "/api/games", {"mode": "daily"})
    assert status == 200 and again["id"] == first["id"] and again["started_at"] == first["started_at"]


def test_a_new_game_shows_its_deal_code_and_the_code_deals_the_same_cards(client, other_client):
    mine = start(client, mode="new")
    theirs = start(other_client, mode="code", code=mine["deal_code"])
    assert theirs["deal"] == mine["deal"] and theirs["deal_code"] == mine["deal_code"]
    assert CHECKED_CODE.fullmatch(mine["deal_code"]), mine["deal_code"]


def slip(code: str, place: int) -> str:
    """`code` with the symbol at `place` (of its 9, dashes aside) mistyped as the next one of the alphabet."""
    symbols = code.replace("-", "")
    mistyped = CODE_ALPHABET[(CODE_ALPHABET.index(symbols[place]) + 1) % len(CODE_ALPHABET)]
    return symbols[:place] + mistyped + symbols[place + 1 :]


@pytest.mark.parametrize("place", [0, 5, 8], ids=["first symbol", "a middle symbol", "the check symbol"])
def test_a_slip_in_a_friends_code_is_refused_and_the_friends_code_is_suggested(client, other_client, place):
    mine = start(client, mode="new")
    status, error = post(other_client, "/api/games", {"mode": "code", "code": slip(mine["deal_code"], place)})
    assert status == 400 and error["code"] == "deal_code_typo"
    assert error["suggestion"] == mine["deal_code"]
    assert f"Did you mean {mine['deal_code']}?" in error["error"]
    assert not Game.objects.exclude(pk=mine["id"]).exists()


def test_a_slip_that_is_near_no_deal_ever_dealt_is_refused_without_a_suggestion(client):
    status, error = post(client, "/api/games", {"mode": "code", "code": slip("K7QD-M2XP-X", 2)})
    assert status == 400 and error["code"] == "deal_code_typo" and "suggestion" not in error
    assert "mistyped" in error["error"]


def test_a_persian_player_reads_the_slip_in_persian(client):
    response = client.post(
        "/api/games",
        data=json.dumps({"mode": "code", "code": "K7QD-M2XP-Y"}),
        content_type="application/json",
        headers={"accept-language": "fa"},
    )
    assert response.status_code == 400 and response.json()["code"] == "deal_code_typo"
    assert "اشتباه" in response.json()["error"]


def test_a_code_shared_before_check_symbols_opens_the_same_deal_and_shows_its_checked_form(client, other_client):
    old = start(client, mode="code", code="2222-2222")
    checked = start(other_client, mode="code", code="2222-2222-Z")
    assert old["deal"] == checked["deal"]
    assert old["deal_code"] == checked["deal_code"] == "2222-2222-Z"


def test_the_owner_reads_their_game_in_progress(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    response = client.get(f"/api/games/{game['id']}")
    assert response.status_code == 200 and response.json()["deal"] == winning_game["deal"]


def test_someone_else_cannot_read_a_game_in_progress(client, other_client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    response = other_client.get(f"/api/games/{game['id']}")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_anyone_can_read_a_finished_game_that_is_not_todays_daily_as_a_replay(client, other_client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    post(client, f"/api/games/{game['id']}/finish", {"moves": winning_game["moves"]})
    replay = other_client.get(f"/api/games/{game['id']}").json()
    assert replay["moves"] == winning_game["moves"] and replay["result"]["won"] is True


def test_todays_finished_daily_stays_hidden_from_others_even_once_they_have_finished_theirs(client, other_client):
    game = start(client, mode="daily")
    post(client, f"/api/games/{game['id']}/finish", {"moves": []})
    theirs = start(other_client, mode="daily")
    post(other_client, f"/api/games/{theirs['id']}/finish", {"moves": []})
    assert other_client.get(f"/api/games/{game['id']}").status_code == 404
    assert client.get(f"/api/games/{game['id']}").status_code == 200


def test_a_daily_game_of_a_day_that_is_over_is_anyones_replay(player, other_client):
    yesterday = timezone.now() - datetime.timedelta(days=1)
    game, _ = game_start(player=player, mode="daily", now=yesterday)
    game_finish(game_id=game.pk, player=player, moves=[], now=yesterday + datetime.timedelta(seconds=40))
    assert other_client.get(f"/api/games/{game.pk}").json()["result"]["piles"] == 52


def test_finish_refuses_a_score_or_time_claimed_by_the_client_and_stores_nothing(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    status, error = post(
        client,
        f"/api/games/{game['id']}/finish",
        {"moves": winning_game["moves"], "score": 999999, "seconds": 0, "piles": 1},
    )
    assert status == 400 and error["code"] == "invalid" and error["error"].startswith("piles:")
    assert client.get(f"/api/games/{game['id']}").json()["status"] == "playing"


def test_a_ranked_daily_finish_reports_the_players_rank(client, other_client):
    mine = start(client, mode="daily")
    theirs = start(other_client, mode="daily")
    _, mine = post(client, f"/api/games/{mine['id']}/finish", {"moves": []})
    deal = theirs["deal"]
    one_move = next([s, s - 1] for s in range(1, 52) if engine.cards_match(deal[s], deal[s - 1]))
    _, theirs = post(other_client, f"/api/games/{theirs['id']}/finish", {"moves": [one_move]})
    assert theirs["result"]["rank"] == 1 and theirs["result"]["score"] == 10
    assert client.get(f"/api/games/{mine['id']}").json()["result"]["rank"] == 2


def test_finish_with_an_illegal_move_is_a_400_naming_it(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    line = [*winning_game["moves"][:2], [1, 3]]
    status, error = post(client, f"/api/games/{game['id']}/finish", {"moves": line})
    assert status == 400 and error["code"] == "illegal_move" and error["index"] == 2
    assert "move 3" in error["error"] and "left" in error["error"]


@pytest.mark.parametrize(
    "body",
    [{"moves": "1,0"}, {"moves": [[True, 0]]}, {"moves": [[1.0, 0.0]]}, {"moves": [[10**30, 0]]}, {"moves": [None]}],
)
def test_finish_with_junk_moves_is_a_clear_400(client, winning_game, body):
    game = start(client, mode="code", code=winning_game["deal_code"])
    status, error = post(client, f"/api/games/{game['id']}/finish", body)
    assert status == 400 and error["error"]
    assert Game.objects.get(pk=game["id"]).status == "playing"


def test_finish_with_more_than_51_moves_is_refused(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    status, error = post(client, f"/api/games/{game['id']}/finish", {"moves": [[1, 0]] * 52})
    assert status == 400 and "51" in error["error"]


def test_finishing_someone_elses_game_is_forbidden(client, other_client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    status, error = post(other_client, f"/api/games/{game['id']}/finish", {"moves": []})
    assert status == 403 and error["code"] == "not_your_game"
    assert Game.objects.get(pk=game["id"]).status == "playing"


@pytest.mark.parametrize("game_id", ["987654", "9" * 30])
def test_a_game_that_does_not_exist_is_a_404(client, game_id):
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 404 and game_id in response.json()["error"]


def test_malformed_json_is_a_400_with_a_message(client):
    response = client.post("/api/games", data="{mode: daily", content_type="application/json")
    assert response.status_code == 400 and "JSON" in response.json()["error"]


@pytest.mark.parametrize("body", ['{"moves": [[1e999, 0]]}', '{"moves": [[NaN, 0]]}', '{"moves": [[Infinity, 0]]}'])
def test_a_number_json_cannot_hold_is_a_400_parse_error(client, body):
    game = start(client, mode="new")
    response = client.post(f"/api/games/{game['id']}/finish", data=body, content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "parse_error"
    assert response.json()["error"].startswith("the body is not valid JSON")


def test_an_unknown_mode_is_a_400_naming_the_field(client):
    status, error = post(client, "/api/games", {"mode": "speedrun"})
    assert status == 400 and error["error"].startswith("mode:")


def test_a_deal_code_that_is_a_number_is_a_400_naming_the_field(client):
    status, error = post(client, "/api/games", {"mode": "code", "code": 12345678})
    assert status == 400 and error["code"] == "invalid" and error["error"].startswith("code:")


def test_a_huge_body_is_refused_with_413(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    status, error = post(client, f"/api/games/{game['id']}/finish", {"moves": [[1, 0]] * 20000})
    assert status == 413 and error["code"] == "too_large"


def test_a_post_without_the_csrf_token_is_refused(player):
    browser = Client(enforce_csrf_checks=True)
    response = browser.post("/api/games", data=json.dumps({"mode": "daily"}), content_type="application/json")
    assert response.status_code == 403 and "CSRF" in response.json()["error"]
    assert not Game.objects.exists()


def test_the_server_clock_times_the_game(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    Game.objects.filter(pk=game["id"]).update(started_at=timezone.now() - datetime.timedelta(seconds=200))
    _, finished = post(client, f"/api/games/{game['id']}/finish", {"moves": winning_game["moves"]})
    assert 200 <= finished["result"]["seconds"] <= 202


def test_the_openapi_schema_describes_the_games_endpoints(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = json.loads(response.content)
    assert schema["openapi"].startswith("3.")
    assert {"/api/games", "/api/games/{game_id}", "/api/games/{game_id}/finish"} <= set(schema["paths"])


def test_the_api_docs_page_is_served_without_a_cdn(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger-ui" in response.content and b"cdn" not in response.content.lower()


def test_a_visitor_who_never_played_cannot_finish_a_game_and_becomes_no_player(client, winning_game):
    game = start(client, mode="code", code=winning_game["deal_code"])
    players_before = Player.objects.count()
    status, error = post(Client(), f"/api/games/{game['id']}/finish", {"moves": []})
    assert status == 403 and error["code"] == "not_your_game"
    assert Player.objects.count() == players_before


@pytest.mark.django_db(transaction=True)
def test_a_day_not_certified_ahead_is_certified_with_no_transaction_open(client, monkeypatch):
    """A certification can take the solver a second or more: inside a transaction it would hold rows (the
    player's, the deal's unique slot) that other requests wait for."""
    certify, opened_inside = engine.certified_daily_deal, []

    def certified_daily_deal(*args):
        opened_inside.append(connection.in_atomic_block)
        return certify(*args)

    monkeypatch.setattr(engine, "certified_daily_deal", certified_daily_deal)
    game = start(client, mode="daily")
    assert game["mode"] == "daily" and opened_inside == [False]


@pytest.mark.django_db(transaction=True)
def test_a_hints_search_runs_with_no_transaction_open(client, monkeypatch):
    """The game row is not locked while the solver searches: the player's socket keeps playing meanwhile."""
    opened_inside = []

    def solver_run(*args, **kwargs):
        opened_inside.append(connection.in_atomic_block)
        return solver.HintResult(status="move", move=(1, 0))

    monkeypatch.setattr(services, "solver_run", solver_run)
    game = start(client, mode="new")
    status, _ = post(client, f"/api/games/{game['id']}/hint", {"accept_unranked": True})
    assert status == 200 and opened_inside == [False]
