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
