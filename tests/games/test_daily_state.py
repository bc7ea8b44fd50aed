"""Where a player stands with today's daily deal, as the home page's Daily button shows it: not begun,
in play (resumed), or finished (it leads to the result; a start now is practice)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.models import Player
from games.selectors import daily_state
from games.services import game_finish, game_start
from tests.conftest import player_client

pytestmark = pytest.mark.django_db


def state(player: Player | None) -> str:
    return daily_state(player=player, today=timezone.now().date())


def test_the_daily_is_new_then_in_play_then_finished_and_practice_is_in_play_again():
    ada = Player.objects.create(nickname="Ada")
    assert state(None) == state(ada) == "new"
    attempt, _ = game_start(player=ada, mode="daily", now=timezone.now())
    assert state(ada) == "playing"
    game_finish(game_id=attempt.pk, player=ada, moves=[], now=timezone.now())
    assert state(ada) == "finished"
    practice, _ = game_start(player=ada, mode="daily", now=timezone.now())
    assert not practice.ranked and state(ada) == "playing"


def test_other_games_are_not_the_daily():
    ada = Player.objects.create(nickname="Ada")
    game_start(player=ada, mode="new", now=timezone.now())
    assert state(ada) == "new"


def test_after_the_attempt_the_home_pages_daily_button_leads_to_the_result():
    ada = Player.objects.create(nickname="Ada")
    attempt, _ = game_start(player=ada, mode="daily", now=timezone.now())
    game_finish(game_id=attempt.pk, player=ada, moves=[], now=timezone.now())
    page = player_client(ada).get("/").content.decode()
    assert 'href="/daily#my-day"' in page and "daily-clock-note" not in page
    assert 'data-testid="my-day"' in player_client(ada).get("/daily").content.decode()
