"""Staff review held results in the Django admin too: a list with the reasons and a link to the replay,
and actions that clear a result (onto the board) or confirm it (off it for good), through the same
service as the staff review page (tests/games/test_review_page.py)."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.models import Game
from games.services import game_finish, game_start

pytestmark = pytest.mark.django_db

NOON = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.UTC)
CHANGELIST = "/admin/games/game/"


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser(username="referee", password="x" * 20))
    return client


@pytest.fixture
def scripted(player) -> Game:
    """A ranked win posted two seconds after the start: held for review."""
    game, _ = game_start(player=player, mode="daily", now=NOON)
    return game_finish(
        game_id=game.pk, player=player, moves=game.deal.solution, now=NOON + datetime.timedelta(seconds=2)
    )


def test_the_review_list_shows_each_held_result_with_its_reasons_and_replay(staff, scripted):
    page = staff.get(CHANGELIST, {"review__exact": "pending"}).content.decode()
    assert "won in 2 s" in page and "51 moves arrived only in the finish" in page
    assert f'href="/games/{scripted.pk}/replay"' in page


def test_clearing_a_result_puts_it_on_its_board(staff, scripted, client):
    staff.post(CHANGELIST, {"action": "clear_results", "_selected_action": [scripted.pk]})
    cleared = Game.objects.get(pk=scripted.pk)
    assert cleared.review == "cleared" and cleared.reviewed_by.username == "referee" and cleared.review_reason
    entries = client.get("/api/leaderboards/daily/2026-11-29").json()["entries"]
    assert [entry["game"] for entry in entries] == [scripted.pk]


def test_confirming_a_held_result_keeps_it_off(staff, scripted, client):
    staff.post(CHANGELIST, {"action": "confirm_flags", "_selected_action": [scripted.pk]})
    assert Game.objects.get(pk=scripted.pk).review == "confirmed"
    assert client.get("/api/leaderboards/daily/2026-11-29").json()["entries"] == []
