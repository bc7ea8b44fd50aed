"""The boards' rows follow the games they are made from: finishes, staff reviews, games changing hands."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from accounts.models import Player
from games.services import games_review
from games.transfers import games_transfer
from leaderboards.models import DailyEntry, DailyRecord

pytestmark = pytest.mark.django_db


def board_rows(day: datetime.date) -> list[tuple[str, int]]:
    entries = DailyEntry.objects.filter(date=day, on_board=True).order_by("-score")
    return [(entry.player.nickname, entry.game_id) for entry in entries]


def test_a_finished_attempt_has_its_row_as_soon_as_the_finish_commits(finish_daily, day):
    game = finish_daily("ada", moves=3, seconds=90)
    entry = DailyEntry.objects.get(game=game)
    assert (entry.date, entry.score, entry.seconds, entry.piles, entry.on_board) == (day, 30, 90, 49, True)


def test_confirming_the_flags_keeps_a_result_off_the_board_for_good(finish_daily, day):
    scripted = finish_daily("script", won=True, seconds=2)
    games_review(game_ids=[scripted.pk], decision="confirmed", reason="checked", reviewer=None, now=timezone.now())
    assert board_rows(day) == [] and not DailyRecord.objects.filter(player=scripted.player).exists()


def test_a_review_leaves_results_that_were_never_flagged_alone(finish_daily):
    honest = finish_daily("honest", moves=2)
    assert games_review(game_ids=[honest.pk], decision="confirmed", reason="x", reviewer=None, now=timezone.now()) == 0
    assert DailyEntry.objects.get(game=honest).on_board


def test_a_guests_row_goes_with_their_games_to_the_account_they_log_in_to(finish_daily, day):
    guest_attempt = finish_daily("guest", moves=3)
    account = Player.objects.create(nickname="account")
    games_transfer(source=guest_attempt.player, target=account)
    assert board_rows(day) == [("account", guest_attempt.pk)]
    assert DailyRecord.objects.get(player=account).days == 1


def test_when_both_played_the_day_only_the_attempt_started_first_stays_on_the_board(finish_daily, day):
    account_attempt = finish_daily("account", moves=1, started=datetime.time(8))
    guest_attempt = finish_daily("guest", moves=5, started=datetime.time(9))
    games_transfer(source=guest_attempt.player, target=account_attempt.player)
    assert board_rows(day) == [("account", account_attempt.pk)]
