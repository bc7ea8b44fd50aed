"""A day's first places are provisional until staff review them or a set time passes after the finish
without a hold; a result not assessed yet is provisional wherever it stands. The board says which."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone

from games.models import Game
from games.services import games_review
from tests.leaderboards.conftest import get


def provisional(day) -> list[tuple[str, bool]]:
    _, board = get(Client(), f"/api/leaderboards/daily/{day.isoformat()}")
    return [(entry["player"], entry["provisional"]) for entry in board["entries"]]


@pytest.fixture
def three_losses(finish_daily) -> list[Game]:
    """Three ranked attempts that lost, best first: played a few moves, nothing a review would hold."""
    return [finish_daily(name, moves=moves, seconds=200) for name, moves in (("ada", 6), ("bo", 4), ("cy", 2))]


def test_a_result_not_assessed_yet_is_provisional_wherever_it_stands(three_losses, day):
    assert provisional(day) == [("ada", True), ("bo", True), ("cy", True)]


@override_settings(FAIR_PLAY_PROVISIONAL_PLACES=2, FAIR_PLAY_FINAL_AFTER_HOURS=10_000)
def test_once_assessed_only_the_first_places_wait_for_their_time(three_losses, day):
    call_command("assess_games")
    assert [game.review for game in Game.objects.filter(pk__in=[game.pk for game in three_losses])] == [""] * 3
    assert provisional(day) == [("ada", True), ("bo", True), ("cy", False)]


@override_settings(FAIR_PLAY_PROVISIONAL_PLACES=2, FAIR_PLAY_FINAL_AFTER_HOURS=0)
def test_the_first_places_are_final_once_their_time_has_passed_without_a_hold(three_losses, day):
    call_command("assess_games")
    assert provisional(day) == [("ada", False), ("bo", False), ("cy", False)]


@override_settings(FAIR_PLAY_FINAL_AFTER_HOURS=10_000)
def test_a_result_staff_cleared_is_final_at_once(three_losses, day):
    leader = three_losses[0]
    Game.objects.filter(pk=leader.pk).update(review="pending")
    games_review(game_ids=[leader.pk], decision="cleared", reason="watched it live", reviewer=None, now=timezone.now())
    assert provisional(day)[0] == ("ada", False)
