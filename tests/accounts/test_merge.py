"""A guest logging in: its games join the account, and one date never has two ranked attempts."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client

from accounts.models import Player
from accounts.selectors import player_is_referenced
from games.models import Game
from games.transfers import games_transfer
from tests.api_client import post, start

from .conftest import PASSWORD, me

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 11, 30)


def test_every_game_of_the_guest_moves_to_the_account(player, other_player, finished_game):
    games = [finished_game(player, piles=9), finished_game(player, piles=1, day=DAY)]
    assert games_transfer(source=player, target=other_player) == 2
    assert set(other_player.games.values_list("pk", flat=True)) == {game.pk for game in games}


def test_when_both_played_the_same_daily_the_earlier_attempt_stays_ranked(player, other_player, finished_game):
    later = finished_game(
        player, piles=1, day=DAY, finished_at=datetime.datetime(2026, 11, 30, 18, tzinfo=datetime.UTC)
    )
    earlier = finished_game(other_player, piles=7, day=DAY)
    games_transfer(source=player, target=other_player)
    later.refresh_from_db()
    earlier.refresh_from_db()
    assert earlier.ranked and not later.ranked
    assert later.player_id == other_player.pk and later.status == "finished" and later.score is not None


def test_the_guests_earlier_attempt_stays_ranked_over_the_accounts_later_one(player, other_player, finished_game):
    guest_attempt = finished_game(
        player, piles=3, day=DAY, finished_at=datetime.datetime(2026, 11, 30, 8, tzinfo=datetime.UTC)
    )
    account_attempt = finished_game(other_player, piles=1, day=DAY)
    games_transfer(source=player, target=other_player)
    assert Game.objects.get(pk=guest_attempt.pk).ranked and not Game.objects.get(pk=account_attempt.pk).ranked


def test_dailies_of_different_dates_all_stay_ranked(player, other_player, finished_game):
    finished_game(player, piles=3, day=DAY)
    finished_game(other_player, piles=3, day=DAY - datetime.timedelta(days=1))
    games_transfer(source=player, target=other_player)
    assert other_player.games.filter(ranked=True).count() == 2


def test_logging_in_after_playing_todays_daily_as_a_guest_keeps_one_ranked_attempt():
    """The whole story over the API: the account played today's daily first, then logged out and
    played it again as a guest in another browser, then logged in there."""
    ada = Client()
    post(ada, "/api/accounts/signup", {"nickname": "Ada", "password": PASSWORD})
    first = start(ada, mode="daily")
    post(ada, f"/api/games/{first['id']}/finish", {"moves": []})
    guest = Client()
    second = start(guest, mode="daily")
    assert second["ranked"] is True
    post(guest, f"/api/games/{second['id']}/finish", {"moves": []})

    status, answer = post(guest, "/api/accounts/login", {"nickname": "Ada", "password": PASSWORD})

    assert status == 200 and me(guest)["id"] == answer["id"]
    account = Player.objects.get(nickname="Ada")
    ranked = account.games.filter(ranked=True).values_list("pk", flat=True)
    assert list(ranked) == [first["id"]] and account.games.count() == 2
    assert guest.get(f"/api/games/{second['id']}").json()["ranked"] is False


def test_a_player_is_referenced_while_a_row_names_them(player, other_player, finished_game):
    finished_game(player, piles=9)
    assert player_is_referenced(player=player) and not player_is_referenced(player=other_player)
