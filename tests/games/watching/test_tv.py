"""TV (`GET /api/tv`, the page `/tv`): the one featured live game — among the most watched, the closest to
a win; an arena's leader first — never one the viewer could not watch."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Player
from games import services
from games.watching import selectors as watching_selectors
from games.watching.selectors import featured_game


def tv(client: Client) -> dict | None:
    response = client.get("/api/tv")
    assert response.status_code == 200
    return response.json()["game"]


@pytest.mark.django_db
def test_nothing_is_featured_while_no_game_is_live():
    assert tv(Client()) is None


@pytest.mark.django_db
def test_a_visitor_sees_the_game_being_played_with_its_player_and_watch_socket(player, start):
    game = start(player, moves=2)

    shown = tv(Client())

    assert shown is not None
    assert (shown["id"], shown["player"], shown["piles"], shown["ws"]) == (game.pk, "Ada", 50, f"/ws/watch/{game.pk}/")


@pytest.mark.django_db
def test_among_the_most_watched_the_closest_to_a_win_is_featured(player, other_player, start, watchers_of, monkeypatch):
    monkeypatch.setattr(watching_selectors, "MOST_WATCHED", 2)
    most_watched = start(player, moves=1)
    closer = start(other_player, moves=3)
    start(Player.objects.create(nickname="Hedy"), moves=6)  # the closest of all, but watched by nobody
    watchers_of({most_watched.pk: 5, closer.pk: 3})

    shown = tv(Client())

    assert shown is not None and shown["id"] == closer.pk


@pytest.mark.django_db
def test_the_viewers_own_game_and_games_on_a_deal_they_are_playing_are_never_featured(
    client, player, other_player, start
):
    start(player, moves=1)
    start(other_player, moves=4)  # the same deal as the viewer's own game: its watch socket would refuse them

    assert tv(client) is None
    assert tv(Client()) is not None


@pytest.mark.django_db
def test_todays_daily_is_never_featured(player):
    game, _ = services.game_start(player=player, mode="daily", now=timezone.now())
    services.game_move(game_id=game.pk, player=player, move=game.deal.solution[0], now=timezone.now())

    assert tv(Client()) is None


@pytest.mark.django_db
def test_a_finished_game_gives_way_to_another(player, other_player, start):
    first = start(player, moves=5)
    second = start(other_player, moves=1)
    assert tv(Client())["id"] == first.pk  # type: ignore[index]

    services.game_finish(game_id=first.pk, player=player, moves=[], now=timezone.now())

    assert tv(Client())["id"] == second.pk  # type: ignore[index]


@pytest.mark.django_db
def test_a_live_leader_comes_before_the_most_watched(player, other_player, start, watchers_of):
    leader = start(player, moves=1)
    watched = start(other_player, moves=5)
    watchers_of({watched.pk: 9})
    now = timezone.now()

    assert featured_game(now=now, viewer=None, leaders=[999_999, leader.pk]).id == leader.pk  # type: ignore[union-attr]
    assert featured_game(now=now, viewer=None).id == watched.pk  # type: ignore[union-attr]


@pytest.mark.django_db
def test_the_tv_page_is_served_to_anyone():
    response = Client().get("/tv")

    assert response.status_code == 200
    assert b'data-testid="tv-board"' in response.content


@pytest.mark.django_db
def test_choosing_the_featured_game_costs_the_same_queries_however_many_games_are_live(client, player, start):
    def queries() -> int:
        with CaptureQueriesContext(connection) as done:
            tv(client)
        return len(done)

    start(Player.objects.create(nickname="Hedy"), moves=1)
    few = queries()
    for number in range(20):
        start(Player.objects.create(nickname=f"Player{number}"), moves=2)

    assert queries() == few
