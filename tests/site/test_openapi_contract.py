"""Real answers of every endpoint match the OpenAPI schema the site publishes at /api/schema/, so a
client generated from the schema reads what the server sends."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.api_client import start

pytestmark = pytest.mark.django_db

SCHEMA_URI = "urn:accordion-live:openapi"


def closed(node: Any) -> Any:
    """The schema with every object closed to fields it does not name, so an undocumented field in an
    answer fails validation as a missing or mistyped one does."""
    if isinstance(node, list):
        return [closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    copy = {key: closed(value) for key, value in node.items()}
    if "properties" in node and "additionalProperties" not in node:
        copy["additionalProperties"] = False
    return copy


class Contract:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        resource = Resource.from_contents(closed(document), default_specification=DRAFT202012)
        self.registry: Registry[Any] = Registry().with_resource(SCHEMA_URI, resource)

    def check(self, response: HttpResponse, *, method: str, path: str) -> None:
        """Validate `response` against what the schema says operation `method path` answers with its status."""
        documented = self.document["paths"][path][method]["responses"]
        assert str(response.status_code) in documented, f"{method} {path} answered {response.status_code}"
        escaped = path.replace("~", "~0").replace("/", "~1")
        pointer = f"/paths/{escaped}/{method}/responses/{response.status_code}/content/application~1json/schema"
        validator = Draft202012Validator(
            {"$ref": f"{SCHEMA_URI}#{pointer}"},
            registry=self.registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
        validator.validate(response.json())


@pytest.fixture
def contract(client: Client) -> Contract:
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"] == "3.1.0"
    return Contract(document)


@pytest.fixture
def code_game(client: Client, winning_game: dict[str, Any]) -> dict[str, Any]:
    return start(client, mode="code", code=winning_game["deal_code"])


def finish(client: Client, game: dict[str, Any], moves: list[Any]) -> HttpResponse:
    return client.post(f"/api/games/{game['id']}/finish", {"moves": moves}, content_type="application/json")


def test_starting_a_new_game_answers_as_documented(client, contract):
    response = client.post("/api/games", {"mode": "new"}, content_type="application/json")
    assert response.status_code == 201
    contract.check(response, method="post", path="/api/games")


def test_resuming_the_daily_answers_as_documented(client, contract):
    start(client, mode="daily")
    response = client.post("/api/games", {"mode": "daily"}, content_type="application/json")
    assert response.status_code == 200
    contract.check(response, method="post", path="/api/games")


def test_a_bad_start_answers_with_the_documented_error(client, contract):
    response = client.post("/api/games", {"mode": "sideways"}, content_type="application/json")
    assert response.status_code == 400
    contract.check(response, method="post", path="/api/games")


def test_reading_a_game_in_progress_answers_as_documented(client, contract, code_game):
    response = client.get(f"/api/games/{code_game['id']}")
    assert response.status_code == 200 and response.json()["result"] is None
    contract.check(response, method="get", path="/api/games/{game_id}")


def test_reading_a_game_that_does_not_exist_answers_with_the_documented_404(client, contract):
    response = client.get("/api/games/987654321")
    assert response.status_code == 404
    contract.check(response, method="get", path="/api/games/{game_id}")


def test_finishing_the_ranked_daily_answers_with_the_documented_result(client, contract):
    game = start(client, mode="daily")
    response = finish(client, game, [])
    assert response.status_code == 200 and response.json()["result"]["rank"] == 1
    contract.check(response, method="post", path="/api/games/{game_id}/finish")


def test_finishing_again_with_another_line_answers_with_the_documented_409(client, contract, code_game, winning_game):
    assert finish(client, code_game, []).status_code == 200
    response = finish(client, code_game, winning_game["moves"][:1])
    assert response.status_code == 409 and response.json()["code"] == "game_finished"
    contract.check(response, method="post", path="/api/games/{game_id}/finish")


def test_an_illegal_finish_answers_with_the_documented_error(client, contract, code_game):
    response = finish(client, code_game, [[0, 51]])
    assert response.status_code == 400 and response.json()["index"] == 0
    contract.check(response, method="post", path="/api/games/{game_id}/finish")


def test_a_hint_answers_as_documented(client, contract, code_game):
    response = client.post(f"/api/games/{code_game['id']}/hint", {}, content_type="application/json")
    assert response.status_code == 200 and response.json()["status"] == "move"
    contract.check(response, method="post", path="/api/games/{game_id}/hint")


def test_the_still_winnable_indicator_answers_as_documented(client, contract, code_game):
    response = client.get(f"/api/games/{code_game['id']}/winnable")
    assert response.status_code == 200
    contract.check(response, method="get", path="/api/games/{game_id}/winnable")


def test_too_many_solver_requests_answer_with_the_documented_429(client, contract, code_game, settings):
    settings.SOLVER_REQUESTS_PER_MINUTE = 0
    response = client.get(f"/api/games/{code_game['id']}/winnable")
    assert response.status_code == 429
    contract.check(response, method="get", path="/api/games/{game_id}/winnable")


def test_the_analysis_answers_as_documented(client, contract, code_game, winning_game):
    finish(client, code_game, winning_game["moves"][:10])
    response = client.get(f"/api/games/{code_game['id']}/analysis")
    assert response.status_code == 200 and response.json()["deal_line"] is not None
    contract.check(response, method="get", path="/api/games/{game_id}/analysis")


def test_a_leaderboard_page_answers_as_documented(client, contract):
    game = start(client, mode="daily")
    finish(client, game, [])
    response = client.get(f"/api/leaderboards/daily/{game['daily_date']}")
    assert response.status_code == 200 and len(response.json()["entries"]) == 1
    contract.check(response, method="get", path="/api/leaderboards/daily/{date}")


def test_a_leaderboard_page_past_the_end_answers_with_the_documented_404(client, contract):
    response = client.get("/api/leaderboards/daily/2026-11-30?page=2")
    assert response.status_code == 404
    contract.check(response, method="get", path="/api/leaderboards/daily/{date}")


def test_someone_elses_game_answers_with_the_documented_403(client, other_client, contract, code_game):
    response = finish(other_client, code_game, [])
    assert response.status_code == 403
    contract.check(response, method="post", path="/api/games/{game_id}/finish")


# --- races ---


def test_opening_a_race_room_answers_as_documented(client, contract, winning_game):
    response = client.post("/api/races", {"code": winning_game["deal_code"]}, content_type="application/json")
    assert response.status_code == 201
    contract.check(response, method="post", path="/api/races")


def test_a_bad_race_room_request_answers_with_the_documented_error(client, contract):
    response = client.post("/api/races", {"time_limit": 1}, content_type="application/json")
    assert response.status_code == 400
    contract.check(response, method="post", path="/api/races")


def test_reading_and_joining_a_race_room_answer_as_documented(client, other_client, contract):
    code = client.post("/api/races", {}, content_type="application/json").json()["code"]
    joined = other_client.post(f"/api/races/{code}/join", {}, content_type="application/json")
    assert joined.status_code == 200
    contract.check(joined, method="post", path="/api/races/{code}/join")
    response = client.get(f"/api/races/{code}")
    assert response.status_code == 200 and len(response.json()["racers"]) == 2
    contract.check(response, method="get", path="/api/races/{code}")


def test_a_finished_race_with_its_standings_answers_as_documented(client, contract, player, winning_game):
    import datetime

    from django.utils import timezone

    from games.races import services

    body = {"code": winning_game["deal_code"]}
    code = client.post("/api/races", body, content_type="application/json").json()["code"]
    services.race_start(code=code, player=player, now=timezone.now() - datetime.timedelta(seconds=30))
    game = client.get(f"/api/races/{code}").json()["racers"][0]["game"]  # the read starts the race
    client.post(f"/api/games/{game}/finish", {"moves": winning_game["moves"]}, content_type="application/json")
    response = client.get(f"/api/races/{code}")
    assert response.status_code == 200 and response.json()["standings"][0]["won"] is True
    contract.check(response, method="get", path="/api/races/{code}")


def test_a_race_room_that_does_not_exist_answers_with_the_documented_404(client, contract):
    response = client.get("/api/races/ZZZZZZ")
    assert response.status_code == 404
    contract.check(response, method="get", path="/api/races/{code}")


# --- leaderboards and fair play -----------------------------------------------------------------------


@pytest.fixture
def yesterdays_attempt(player):
    """The `client` player's ranked attempt at yesterday's deal, finished: on a board whose day is over."""
    import datetime

    from django.utils import timezone

    from games.services import game_finish, game_start

    started = timezone.now() - datetime.timedelta(days=1)
    game, _ = game_start(player=player, mode="daily", now=started)
    return game_finish(game_id=game.pk, player=player, moves=[], now=started + datetime.timedelta(seconds=50))


def test_a_finished_ranked_game_with_its_rank_answers_as_documented(client, contract, yesterdays_attempt):
    response = client.get(f"/api/games/{yesterdays_attempt.pk}")
    assert response.json()["result"]["of"] == 1
    contract.check(response, method="get", path="/api/games/{game_id}")


def test_a_games_events_answer_as_documented(other_client, contract, yesterdays_attempt):
    response = other_client.get(f"/api/games/{yesterdays_attempt.pk}/events")
    assert response.status_code == 200 and response.json()["events"][-1]["result"] is not None
    contract.check(response, method="get", path="/api/games/{game_id}/events")


def test_my_standing_summary_seed_and_the_all_time_boards_answer_as_documented(client, contract, yesterdays_attempt):
    base = f"/api/leaderboards/daily/{yesterdays_attempt.deal.daily_date.isoformat()}"
    for path, documented in (
        (f"{base}/me", "/api/leaderboards/daily/{date}/me"),
        (f"{base}/summary", "/api/leaderboards/daily/{date}/summary"),
        (f"{base}/seed", "/api/leaderboards/daily/{date}/seed"),
        ("/api/leaderboards/all-time", "/api/leaderboards/all-time"),
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        contract.check(response, method="get", path=documented)


def test_a_bad_date_answers_with_the_documented_400(client, contract):
    response = client.get("/api/leaderboards/daily/2026-W48-1/summary")
    assert response.status_code == 400
    contract.check(response, method="get", path="/api/leaderboards/daily/{date}/summary")


def test_too_many_starts_from_one_player_answer_with_the_documented_429(client, contract, settings):
    settings.GAME_START_RATE = "0/minute"
    response = client.post("/api/games", {"mode": "new"}, content_type="application/json")
    assert response.status_code == 429
    contract.check(response, method="post", path="/api/games")


def test_a_withheld_hint_answers_with_the_documented_403(client, contract):
    game = start(client, mode="daily")
    finish(client, game, [])
    practice = start(client, mode="daily")
    response = client.post(f"/api/games/{practice['id']}/hint", {}, content_type="application/json")
    assert response.status_code == 403
    contract.check(response, method="post", path="/api/games/{game_id}/hint")


def test_a_visitor_past_the_whole_apis_allowance_gets_the_documented_429(contract, settings):
    settings.API_VISITOR_RATE = "0/minute"
    response = Client().get("/api/leaderboards/all-time")
    assert response.status_code == 429
    contract.check(response, method="get", path="/api/leaderboards/all-time")


def test_finishing_too_often_answers_with_the_documented_429(client, contract, code_game, settings):
    settings.FINISH_RATE = "0/minute"
    response = finish(client, code_game, [])
    assert response.status_code == 429
    contract.check(response, method="post", path="/api/games/{game_id}/finish")


def test_the_live_list_answers_as_documented(client, contract, code_game):
    response = client.get("/api/live")
    assert response.status_code == 200 and [game["id"] for game in response.json()["games"]] == [code_game["id"]]
    contract.check(response, method="get", path="/api/live")


def test_the_watching_setting_answers_as_documented(client, contract):
    response = client.put("/api/me/watching", {"watchable": False}, content_type="application/json")
    assert response.status_code == 200 and response.json() == {"watchable": False}
    contract.check(response, method="put", path="/api/me/watching")
    response = client.get("/api/me/watching")
    assert response.status_code == 200
    contract.check(response, method="get", path="/api/me/watching")


def test_a_bad_watching_setting_answers_with_the_documented_400(client, contract):
    response = client.put("/api/me/watching", {"watchable": "sometimes"}, content_type="application/json")
    assert response.status_code == 400
    contract.check(response, method="put", path="/api/me/watching")


def test_a_visitors_watching_setting_answers_with_the_documented_404(contract):
    response = Client().get("/api/me/watching")
    assert response.status_code == 404
    contract.check(response, method="get", path="/api/me/watching")
