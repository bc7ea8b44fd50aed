"""The live list (`GET /api/live`, `/ws/live/`): the games being played that may be watched, the most
interesting first, updated at most once a tick; and a player's "let others watch my games" setting."""

from __future__ import annotations

import datetime

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games import services

from ..sockets import refusal
from .sockets import HEAR_S, heard, live_socket, watch_socket


def live(client: Client) -> dict:
    response = client.get("/api/live")
    assert response.status_code == 200
    return response.json()


@pytest.mark.django_db
def test_a_game_being_played_is_listed_with_who_plays_it(client, player, start):
    game = start(player, moves=2)

    [entry] = live(client)["games"]

    assert entry == {
        "id": game.pk,
        "player": "Ada",
        "mode": "code",
        "piles": 50,
        "seconds": entry["seconds"],
        "started_at": entry["started_at"],
        "watchers": 0,
        "race": None,
        "daily_date": None,
        "withheld": False,
        "ws": f"/ws/watch/{game.pk}/",
    }


@pytest.mark.django_db
def test_finished_games_are_not_listed(client, player, start):
    game = start(player)
    services.game_finish(game_id=game.pk, player=player, moves=[], now=timezone.now())

    assert live(client)["games"] == []


@pytest.mark.django_db
def test_a_game_left_alone_for_a_quarter_of_an_hour_is_not_live(client, player, start):
    start(player, moves=1, at=timezone.now() - datetime.timedelta(minutes=15))

    assert live(client)["games"] == []


@pytest.mark.django_db
def test_the_games_of_a_player_who_does_not_let_others_watch_are_not_listed(client, player, other_player, start):
    start(player)
    start(other_player)

    response = client.put("/api/me/watching", {"watchable": False}, content_type="application/json")

    assert response.status_code == 200 and response.json() == {"watchable": False}
    assert [entry["player"] for entry in live(client)["games"]] == ["Grace"]


@pytest.mark.django_db
def test_the_most_watched_then_the_closest_to_a_win_come_first(client, player, other_player, start, watchers_of):
    third = Player.objects.create(nickname="Hedy")
    few_piles = start(player, moves=6)
    watched = start(other_player, moves=1)
    many_piles = start(third, moves=3)
    watchers_of({watched.pk: 4})

    order = [(entry["id"], entry["watchers"]) for entry in live(client)["games"]]

    assert order == [(watched.pk, 4), (few_piles.pk, 0), (many_piles.pk, 0)]


@pytest.mark.django_db
def test_todays_daily_is_listed_with_its_piles_and_time_but_withheld_from_watching(
    client, other_client, player, other_player
):
    game, _ = services.game_start(player=player, mode="daily", now=timezone.now())
    assert game.deal.solution  # a daily deal is certified winnable, with its winning line
    services.game_move(game_id=game.pk, player=player, move=game.deal.solution[0], now=timezone.now())
    # Finishing one's own attempt opens nothing: the day's lines stay hidden until it is over.
    own, _ = services.game_start(player=other_player, mode="daily", now=timezone.now())
    services.game_finish(game_id=own.pk, player=other_player, moves=[], now=timezone.now())

    [entry] = live(other_client)["games"]

    assert (entry["id"], entry["piles"], entry["daily_date"]) == (game.pk, 51, timezone.now().date().isoformat())
    assert entry["withheld"] is True
    assert "deal" not in entry and "moves" not in entry


@pytest.mark.django_db
def test_a_visitor_can_read_the_live_list_but_has_no_setting(player, start):
    start(player)
    visitor = Client()

    assert len(live(visitor)["games"]) == 1
    assert visitor.get("/api/me/watching").status_code == 404


@pytest.mark.django_db
def test_the_setting_is_on_until_the_player_turns_it_off(client):
    assert client.get("/api/me/watching").json() == {"watchable": True}


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["perhaps", "no", 0, "true"])
def test_the_setting_must_be_a_json_boolean(client, value):
    response = client.put("/api/me/watching", {"watchable": value}, content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert client.get("/api/me/watching").json() == {"watchable": True}  # unchanged


@pytest.mark.django_db(transaction=True)
async def test_turning_watching_off_refuses_new_watchers(client, player, watcher, start):
    game = await sync_to_async(start)(player)
    await sync_to_async(client.put)("/api/me/watching", {"watchable": False}, content_type="application/json")

    code, message = await refusal(await watch_socket(game.pk, watcher))

    assert code == 4403 and message is not None and message["code"] == "not_watchable"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("quick_live_list")
async def test_the_live_socket_sends_the_whole_list_then_what_changes(player, other_player, start, winning_game):
    first = await sync_to_async(start)(player)
    socket = await live_socket(None)
    assert (await socket.connect())[0]

    whole = await heard(socket, "live")
    assert whole["full"] is True and [entry["id"] for entry in whole["games"]] == [first.pk]

    second = await sync_to_async(start)(other_player)
    await sync_to_async(services.game_move)(
        game_id=first.pk, player=player, move=winning_game["moves"][0], now=timezone.now()
    )
    changes: dict[int, dict] = {}
    while len(changes) < 2:
        update = await heard(socket, "live")
        assert update["full"] is False and update["gone"] == []
        changes.update({entry["id"]: entry for entry in update["games"]})
    assert changes[first.pk]["piles"] == 51 and changes[second.pk]["player"] == "Grace"

    await sync_to_async(services.game_finish)(game_id=first.pk, player=player, moves=[], now=timezone.now())
    while not (update := await heard(socket, "live"))["gone"]:
        pass
    assert update["gone"] == [first.pk]
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("quick_live_list")
async def test_the_live_socket_says_nothing_while_nothing_changes(player, start):
    await sync_to_async(start)(player)
    socket = await live_socket(None)
    assert (await socket.connect())[0]
    await heard(socket, "live")

    assert await socket.receive_nothing(timeout=0.5)  # five ticks, and the clock alone is no news
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_live_socket_takes_no_messages(player):
    socket = await live_socket(player)
    assert (await socket.connect())[0]
    await heard(socket, "live")

    await socket.send_to(text_data='{"t": "move", "move": [1, 0], "n": 1}')

    assert (await socket.receive_json_from(timeout=HEAR_S))["code"] == "read_only"
    await socket.disconnect()
