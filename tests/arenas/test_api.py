"""The arenas' REST contract (docs/api.md, "Arenas"): names, states and refusals."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Player
from arenas.models import Arena
from tests.accounts.conftest import PASSWORD, signed_up

from .conftest import current_game, lose

pytestmark = pytest.mark.django_db


def create(client: Client, **body: Any) -> Any:
    return client.post("/api/arenas", body, content_type="application/json")


def test_creating_an_arena_answers_its_code_url_times_and_state(client: Client) -> None:
    answer = create(client, minutes=10, starts_in=60)
    assert answer.status_code == 201
    body = answer.json()
    assert body["state"] == "upcoming"
    assert body["url"] == f"/arenas/{body['code']}"
    starts = datetime.datetime.fromisoformat(body["starts_at"])
    ends = datetime.datetime.fromisoformat(body["ends_at"])
    assert ends - starts == datetime.timedelta(minutes=10)
    assert body["seed"] is None and len(body["commitment"]) == 64


@pytest.mark.parametrize("minutes", [0, 500, -1, "ten"])
def test_an_arena_of_0_or_500_minutes_is_refused(client: Client, minutes: Any) -> None:
    answer = create(client, minutes=minutes, starts_in=0)
    assert answer.status_code == 400
    assert answer.json()["code"] and "minutes" in answer.json()["error"]
    assert not Arena.objects.exists()


@pytest.mark.parametrize("starts_in", [-1, 604801])
def test_a_start_more_than_a_week_away_is_refused(client: Client, starts_in: int) -> None:
    answer = create(client, minutes=5, starts_in=starts_in)
    assert answer.status_code == 400
    assert not Arena.objects.exists()


def test_the_list_sorts_arenas_into_upcoming_live_and_finished(client: Client, live_arena: Arena) -> None:
    upcoming = create(client, minutes=5, starts_in=3600).json()["code"]
    Arena.objects.create(
        code="OVER22", minutes=1, starts_at=timezone.now() - datetime.timedelta(minutes=5),
        ends_at=timezone.now() - datetime.timedelta(minutes=4), seed="a" * 64, commitment="b" * 64,
        created_at=timezone.now(),
    )  # fmt: skip
    client.post(f"/api/arenas/{live_arena.code}/join")
    lists = client.get("/api/arenas").json()
    assert [arena["code"] for arena in lists["upcoming"]] == [upcoming]
    assert [(arena["code"], arena["players"]) for arena in lists["live"]] == [(live_arena.code, 1)]
    assert [arena["code"] for arena in lists["finished"]] == ["OVER22"]
    assert lists["finished"][0]["seed"] == "a" * 64


def test_joining_a_live_arena_gives_the_first_game_on_its_own_socket(client: Client, live_arena: Arena) -> None:
    answer = client.post(f"/api/arenas/{live_arena.code}/join")
    assert answer.status_code == 200
    body = answer.json()
    assert body["state"] == "live" and body["players"] == 1
    game = body["game"]
    assert game["ws"] == f"/ws/games/{game['id']}/" and len(game["deal"]) == 52 and game["mode"] == "arena"
    assert client.get(f"/api/games/{game['id']}").json()["deal"] == game["deal"]
    assert [(row["rank"], row["nickname"], row["points"], row["games"], row["wins"], row["fire"]) for row in
            body["standings"]] == [(1, "Ada", 0, 0, 0, False)]  # fmt: skip


def test_a_visitor_joins_as_a_guest(live_arena: Arena) -> None:
    answer = Client().post(f"/api/arenas/{live_arena.code}/join")
    assert answer.status_code == 200 and answer.json()["me"]["nickname"].startswith("Guest")


def test_joining_an_upcoming_arena_gives_no_game_yet(client: Client) -> None:
    code = create(client, minutes=5, starts_in=600).json()["code"]
    body = client.post(f"/api/arenas/{code}/join").json()
    assert body["state"] == "upcoming" and body["game"] is None and body["me"]["rank"] == 1
    refused = client.post(f"/api/arenas/{code}/next")
    assert refused.status_code == 409 and refused.json()["code"] == "not_started"


def test_joining_a_finished_arena_is_refused(client: Client, live_arena: Arena) -> None:
    Arena.objects.filter(pk=live_arena.pk).update(ends_at=timezone.now() - datetime.timedelta(seconds=1))
    answer = client.post(f"/api/arenas/{live_arena.code}/join")
    assert answer.status_code == 409 and answer.json()["code"] == "arena_finished"


def test_next_is_refused_while_the_current_game_is_in_play(client: Client, live_arena: Arena) -> None:
    client.post(f"/api/arenas/{live_arena.code}/join")
    early = client.post(f"/api/arenas/{live_arena.code}/next")
    assert early.status_code == 409 and early.json()["code"] == "game_in_play"
    assert client.get(f"/api/arenas/{live_arena.code}").json()["me"]["games"] == 0


def test_next_after_a_finish_gives_deal_two(client: Client, player: Player, live_arena: Arena) -> None:
    first = client.post(f"/api/arenas/{live_arena.code}/join").json()["game"]
    lose(current_game(live_arena, player), at=timezone.now(), moves=3)
    with CaptureQueriesContext(connection) as queries:
        answer = client.post(f"/api/arenas/{live_arena.code}/next")
    assert answer.status_code == 200
    # Hundreds ask at once when an arena's games end together: the session's player is read once.
    assert sum('FROM "accounts_player"' in query["sql"] for query in queries.captured_queries) == 1
    second = answer.json()["game"]
    assert second["id"] != first["id"] and second["deal"] != first["deal"] and second["status"] == "playing"
    me = client.get(f"/api/arenas/{live_arena.code}").json()["me"]
    assert (me["games"], me["points"]) == (1, 30)


def test_next_from_someone_who_has_not_joined_is_refused(other_client: Client, live_arena: Arena) -> None:
    answer = other_client.post(f"/api/arenas/{live_arena.code}/next")
    assert answer.status_code == 403 and answer.json()["code"] == "not_participant"
    assert Client().post(f"/api/arenas/{live_arena.code}/next").status_code == 403


def test_an_unknown_arena_is_404(client: Client) -> None:
    assert client.get("/api/arenas/NOSUCH").status_code == 404
    assert client.post("/api/arenas/NOSUCH/join").status_code == 404
    for asking in (client, Client()):  # a player, and a visitor who has not played
        answer = asking.post("/api/arenas/NOSUCH/next")
        assert answer.status_code == 404 and answer.json()["code"] == "not_found"


def test_hints_are_refused_in_an_arena_game(client: Client, live_arena: Arena) -> None:
    game = client.post(f"/api/arenas/{live_arena.code}/join").json()["game"]
    assert game["hints_open"] is False
    answer = client.post(f"/api/games/{game['id']}/hint", {"accept_unranked": True}, content_type="application/json")
    assert answer.status_code == 400


def test_a_players_arenas_list_their_place(client: Client, player: Player, live_arena: Arena) -> None:
    client.post(f"/api/arenas/{live_arena.code}/join")
    lose(current_game(live_arena, player), at=timezone.now(), moves=2)
    [seat] = Client().get("/api/players/Ada/arenas").json()
    assert (seat["code"], seat["rank"], seat["points"], seat["games"], seat["wins"]) == (live_arena.code, 1, 20, 1, 0)
    assert Client().get("/api/players/Nobody/arenas").status_code == 404


def test_the_results_list_every_game_with_its_replay(client: Client, player: Player, live_arena: Arena) -> None:
    client.post(f"/api/arenas/{live_arena.code}/join")
    first = lose(current_game(live_arena, player), at=timezone.now(), moves=2)
    client.post(f"/api/arenas/{live_arena.code}/next")
    [result] = Client().get(f"/api/arenas/{live_arena.code}/results").json()["results"]
    assert result["nickname"] == "Ada"
    assert [(game["k"], game["points"], game["status"]) for game in result["arena_games"]] == [
        (1, 20, "finished"),
        (2, None, "playing"),
    ]
    assert result["arena_games"][0]["replay"] == f"/games/{first.pk}/replay"


def test_creating_arenas_is_throttled_per_player(client: Client, settings: Any) -> None:
    settings.ARENAS_PER_HOUR = 2
    assert [create(client, minutes=5).status_code for _ in range(3)] == [201, 201, 429]
    assert Arena.objects.count() == 2


def test_a_guest_who_logs_in_goes_on_in_the_arena_as_the_account(live_arena: Arena, settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    signed_up("Grace")
    guest = Client()
    game = guest.post(f"/api/arenas/{live_arena.code}/join").json()["game"]
    answer = guest.post(
        "/api/accounts/login", {"nickname": "Grace", "password": PASSWORD}, content_type="application/json"
    )
    assert answer.status_code == 200
    body = guest.get(f"/api/arenas/{live_arena.code}").json()
    assert body["me"]["nickname"] == "Grace" and body["players"] == 1 and body["me"]["game"] == game["id"]
    assert guest.post(f"/api/arenas/{live_arena.code}/next").json()["code"] == "game_in_play"
