"""The REST side of races: open a room, read it, take a seat; the deal stays secret until the start;
the race page and the home page's button."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games.engine import checked_deal_code
from games.races import services
from games.races.models import Room
from tests.api_client import post
from tests.conftest import player_client

pytestmark = pytest.mark.django_db


def holds_a_deal(value: Any) -> bool:
    if isinstance(value, dict):
        return any(holds_a_deal(item) for item in value.values())
    if isinstance(value, list):
        return (len(value) == 52 and all(isinstance(card, str) for card in value)) or any(map(holds_a_deal, value))
    return False


def test_a_visitor_opens_a_room_and_becomes_its_host_and_first_racer():
    visitor = Client()
    status, room = post(visitor, "/api/races", {})
    assert status == 201
    me = visitor.get("/api/me").json()
    assert room["host"] == me["id"] and [entry["player"] for entry in room["racers"]] == [me["id"]]
    assert room["state"] == "lobby" and room["time_limit"] == 600 and room["deal"] is None
    assert room["url"] == f"/race/{room['code']}" and room["ws"] == f"/ws/races/{room['code']}/"


def test_the_host_picks_the_deal_code_and_the_time_limit(client, winning_game):
    status, room = post(client, "/api/races", {"code": winning_game["deal_code"].lower(), "time_limit": 120})
    assert status == 201 and room["time_limit"] == 120
    assert Room.objects.get(code=room["code"]).deal_code == winning_game["deal_code"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"code": "not a code"}, "code"),
        ({"time_limit": 5}, "time_limit"),
        ({"time_limit": "soon"}, "time_limit"),
        ({"time_limt": 60}, "time_limt"),  # a misspelt field is refused, not silently left at its default
    ],
)
def test_a_bad_room_request_is_a_400_naming_the_field(client, body, field):
    status, answer = post(client, "/api/races", body)
    assert status == 400 and answer["code"] == "invalid" and answer["error"].startswith(field)


def test_before_the_start_neither_the_api_nor_the_page_names_the_deal(client, other_client, winning_game):
    _, room = post(client, "/api/races", {"code": winning_game["deal_code"]})
    post(other_client, f"/api/races/{room['code']}/join", {})
    for reader in (client, other_client, Client()):
        answer = reader.get(f"/api/races/{room['code']}")
        page = reader.get(f"/race/{room['code']}")
        assert answer.status_code == page.status_code == 200
        assert not holds_a_deal(answer.json())
        for text in (answer.content.decode(), page.content.decode()):
            assert winning_game["deal_code"] not in text and json.dumps(winning_game["deal"][:5])[1:-1] not in text


def test_after_the_start_the_room_shows_the_deal(host, winning_game):
    room = services.room_create(host=host, deal_code=winning_game["deal_code"], now=timezone.now())
    services.race_start(code=room.code, player=host, now=timezone.now() - datetime.timedelta(seconds=10))
    answer = Client().get(f"/api/races/{room.code}").json()  # a read acts on the start that is due
    assert answer["state"] == "racing" and answer["deal"] == winning_game["deal"]
    # The code as it is shared, with its check symbol (docs/rules.md), so a typo in it is caught.
    assert answer["deal_code"] == checked_deal_code(winning_game["deal_code"])
    assert answer["racers"][0]["game"] is not None


def test_a_friend_joins_through_the_api_and_a_latecomer_watches(racing, third):
    status, room = post(player_client(third), f"/api/races/{racing.code}/join", {})
    assert status == 200 and third.pk not in [entry["player"] for entry in room["racers"]]


def test_joining_or_reading_a_room_that_does_not_exist_is_a_404(client):
    for answer in (client.get("/api/races/ZZZZZZ"), client.post("/api/races/nope/join", {}, "application/json")):
        assert answer.status_code == 404 and answer.json()["code"] == "not_found"
    assert client.get("/race/ZZZZZZ").status_code == 404


def test_too_many_new_rooms_in_a_minute_get_a_429(client, settings):
    settings.RACE_ROOMS_PER_MINUTE = 1
    assert post(client, "/api/races", {})[0] == 201
    status, answer = post(client, "/api/races", {})
    assert status == 429 and answer["code"] == "rate_limited"


def test_the_home_pages_race_button_opens_a_room_and_its_page(client):
    assert 'data-testid="race-a-friend"' in client.get("/").content.decode()
    response = client.post("/race")
    room = Room.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/race/{room.code}"
    assert room.host == Player.objects.get(nickname="Ada")


def test_the_race_page_answers_to_the_code_in_lower_case_by_its_own_address(room):
    response = Client().get(f"/race/{room.code.lower()}")
    assert response.status_code == 302 and response["Location"] == f"/race/{room.code}"


def test_a_read_after_the_time_limit_ends_the_race(racing):
    Room.objects.filter(pk=racing.pk).update(ends_at=timezone.now() - datetime.timedelta(seconds=1))
    answer = Client().get(f"/api/races/{racing.code}").json()
    assert answer["state"] == "finished" and len(answer["standings"]) == 2


def test_a_finished_games_race_button_opens_a_room_with_it_as_a_ghost(client, other_player, winning_game):
    from games.services import game_finish, game_start

    game, _ = game_start(player=other_player, mode="code", code=winning_game["deal_code"], now=timezone.now())
    game_finish(game_id=game.pk, player=other_player, moves=winning_game["moves"][:5], now=timezone.now())
    response = client.post("/race", {"ghost": str(game.pk)})
    room = Room.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/race/{room.code}"
    ghost = client.get(f"/api/races/{room.code}").json()["racers"][1]
    assert ghost["ghost"] and ghost["player"] == other_player.pk


@pytest.mark.parametrize("ghost", ["nope", "123456789"])
def test_the_race_button_refuses_a_ghost_that_is_no_game_in_plain_text(client, ghost):
    response = client.post("/race", {"ghost": ghost})
    assert response.status_code in (400, 404) and response["Content-Type"].startswith("text/plain")
    assert not Room.objects.exists()


def test_visitors_from_one_address_each_join_and_open_rooms_as_the_first_to_come(room, settings):
    settings.RACE_ROOMS_PER_MINUTE = 1
    assert [Client().post(f"/api/races/{room.code}/join").status_code for _ in range(7)] == [200] * 7
    assert [Client().post("/api/races", {}, "application/json").status_code for _ in range(3)] == [201] * 3
    assert [Client().post("/race").status_code for _ in range(3)] == [302] * 3


def test_joining_a_room_that_does_not_exist_makes_no_guest(db):
    players = Player.objects.count()
    assert Client().post("/api/races/ZZZZZZ/join").status_code == 404
    assert Player.objects.count() == players


def test_a_room_racing_a_ghost_of_todays_daily_is_read_by_nobody_the_spoiler_rule_keeps_out(client, other_client):
    from games.services import game_finish, game_start

    now = timezone.now()
    daily, _ = game_start(player=Player.objects.get(nickname="Ada"), mode="daily", now=now)
    game_finish(game_id=daily.pk, player=daily.player, moves=[], now=now)
    _, room = post(client, "/api/races", {"ghost": daily.pk})
    assert client.get(f"/api/races/{room['code']}").status_code == 200
    for reader in (other_client, Client()):
        answer = reader.get(f"/api/races/{room['code']}")
        assert answer.status_code == 403 and answer.json()["code"] == "spoiler"
