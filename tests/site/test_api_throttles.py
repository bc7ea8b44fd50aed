"""The whole API's allowances, and the tighter ones for finishes and solver requests: past one, the
answer is `429 rate_limited` with a `Retry-After` header."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.api_client import post, start

pytestmark = pytest.mark.django_db

PUBLIC_PATH = "/api/leaderboards/all-time"
ADDRESS = "203.0.113.7"
OTHER_ADDRESS = "198.51.100.1"


def ask_winnable(client: Client, game: dict[str, Any]) -> int:
    return client.get(f"/api/games/{game['id']}/winnable").status_code


def test_a_visitor_past_the_allowance_is_told_when_to_try_again(settings):
    settings.API_VISITOR_RATE = "2/minute"
    visitor = Client(REMOTE_ADDR=ADDRESS)
    assert [visitor.get(PUBLIC_PATH).status_code for _ in range(2)] == [200, 200]
    response = visitor.get(PUBLIC_PATH)
    assert response.status_code == 429 and response.json()["code"] == "rate_limited"
    assert 0 < int(response["Retry-After"]) <= 60


def test_visitors_from_another_address_are_not_slowed_down_by_the_first(settings):
    settings.API_VISITOR_RATE = "2/minute"
    for _ in range(3):
        Client(REMOTE_ADDR=ADDRESS).get(PUBLIC_PATH)
    assert Client(REMOTE_ADDR=OTHER_ADDRESS).get(PUBLIC_PATH).status_code == 200


def test_a_player_is_not_slowed_down_by_visitors_sharing_their_address(client, settings):
    settings.API_VISITOR_RATE = "2/minute"
    for _ in range(3):
        Client(REMOTE_ADDR=ADDRESS).get(PUBLIC_PATH)
    assert client.get("/api/me", REMOTE_ADDR=ADDRESS).status_code == 200


def test_a_player_past_the_allowance_is_refused_while_another_player_goes_on(client, other_client, settings):
    settings.API_PLAYER_RATE = "2/minute"
    assert [client.get("/api/me").status_code for _ in range(3)] == [200, 200, 429]
    assert other_client.get("/api/me").status_code == 200


def test_behind_a_trusted_proxy_visitors_are_counted_by_their_forwarded_address(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    settings.API_VISITOR_RATE = "2/minute"
    proxy = "10.0.0.1"
    for _ in range(3):
        Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=ADDRESS).get(PUBLIC_PATH)
    assert Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=OTHER_ADDRESS).get(PUBLIC_PATH).status_code == 200


def test_finishing_games_too_often_is_refused(client, settings):
    settings.FINISH_RATE = "1/minute"
    first, second = start(client, mode="new"), start(client, mode="new")
    assert post(client, f"/api/games/{first['id']}/finish", {"moves": []})[0] == 200
    status, error = post(client, f"/api/games/{second['id']}/finish", {"moves": []})
    assert status == 429 and error["code"] == "rate_limited"


def test_fresh_guests_from_one_address_share_its_solver_allowance(winning_game, settings):
    settings.SOLVER_REQUESTS_PER_MINUTE_PER_ADDRESS = 2
    guests = [Client(REMOTE_ADDR=ADDRESS) for _ in range(3)]
    games = [start(guest, mode="code", code=winning_game["deal_code"]) for guest in guests]
    assert [ask_winnable(guest, game) for guest, game in zip(guests, games, strict=True)] == [200, 200, 429]


def test_guests_spending_one_addresss_solver_allowance_leave_another_players_hints_alone(
    client, winning_game, settings
):
    settings.SOLVER_REQUESTS_PER_MINUTE_PER_ADDRESS = 1
    for _ in range(2):
        guest = Client(REMOTE_ADDR=ADDRESS)
        ask_winnable(guest, start(guest, mode="code", code=winning_game["deal_code"]))
    game = start(client, mode="code", code=winning_game["deal_code"])
    status, hint = post(client, f"/api/games/{game['id']}/hint", {})
    assert status == 200 and hint["status"] == "move"


@pytest.mark.parametrize(
    ("path", "reads"),
    # The throttles' one read, plus the view's own: creating a room reads its host again.
    [("/api/races", 2), ("/api/accounts/password", 1)],
)
def test_every_throttle_of_a_request_shares_one_read_of_the_sessions_player(client, path, reads):
    start(client, mode="new")  # the session now has a player
    with CaptureQueriesContext(connection) as queries:
        client.post(path, data="{}", content_type="application/json")
    player_reads = [query["sql"] for query in queries if query["sql"].startswith('SELECT "accounts_player"')]
    assert len(player_reads) == reads
