from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Player
from accounts.nicknames import nickname_clean
from games.models import Game
from tests.api_client import start

pytestmark = pytest.mark.django_db


def start_daily(client: Client) -> dict:
    return start(client, mode="daily")


def test_a_first_game_makes_the_visitor_a_guest_player_with_a_nickname():
    visitor = Client()
    game = start_daily(visitor)
    player = Game.objects.get(pk=game["id"]).player
    assert player.nickname.startswith("Guest-") and player.user is None and not player.nickname_chosen


def test_a_generated_guest_nickname_follows_the_nickname_rule():
    start(Client(), mode="new")
    nickname = Player.objects.get().nickname
    assert nickname_clean(nickname) == nickname


def test_a_persian_visitor_is_named_in_persian_words_and_digits():
    start(Client(HTTP_ACCEPT_LANGUAGE="fa-IR,fa;q=0.9"), mode="new")
    nickname = Player.objects.get().nickname
    word, _, number = nickname.partition("-")
    assert word == "مهمان" and len(number) == 4 and all("\u06f0" <= digit <= "\u06f9" for digit in number)
    assert nickname_clean(nickname) == nickname


def test_the_same_browser_stays_the_same_player_across_games():
    visitor = Client()
    start_daily(visitor)
    start(visitor, mode="new")
    assert Player.objects.count() == 1 and Game.objects.filter(player=Player.objects.get()).count() == 2


def test_two_browsers_are_two_players():
    start_daily(Client())
    start_daily(Client())
    assert Player.objects.count() == 2
