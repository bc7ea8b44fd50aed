"""The all-time boards: most daily wins, longest daily streaks, best average over the last 30 days."""

from __future__ import annotations

import datetime

import pytest

from accounts.models import Player
from leaderboards import selectors
from tests.leaderboards.conftest import get

pytestmark = pytest.mark.django_db


def boards(client) -> dict:
    status, answer = get(client, "/api/leaderboards/all-time")
    assert status == 200, answer
    return answer


def rows(answer: dict, board: str) -> list[tuple[int, str, float]]:
    return [(row["rank"], row["player"], row["value"]) for row in answer[board]]


@pytest.fixture
def ada(db):
    return Player.objects.create(nickname="Ada")


@pytest.fixture
def grace(db):
    return Player.objects.create(nickname="Grace")


def days_before(day: datetime.date, count: int) -> list[datetime.date]:
    return [day - datetime.timedelta(days=offset) for offset in range(count)]


def test_most_daily_wins_counts_ranked_attempts_won(finish_daily, visitor, day, ada, grace):
    for date in days_before(day, 2):
        finish_daily(player=ada, won=True, seconds=300, on=date)
    finish_daily(player=grace, won=True, seconds=300, on=day)
    finish_daily(player=grace, moves=3, on=day - datetime.timedelta(days=1))
    assert rows(boards(visitor), "wins") == [(1, "Ada", 2), (2, "Grace", 1)]


def test_the_longest_streak_counts_consecutive_days_on_the_board(finish_daily, visitor, day, ada, grace):
    for date in days_before(day, 3):
        finish_daily(player=ada, moves=1, on=date)
    for date in (day, day - datetime.timedelta(days=2)):
        finish_daily(player=grace, moves=1, on=date)
    assert rows(boards(visitor), "streaks") == [(1, "Ada", 3), (2, "Grace", 1)]


def test_equal_values_share_a_rank(finish_daily, visitor, day, ada, grace):
    finish_daily(player=ada, moves=1, on=day)
    finish_daily(player=grace, moves=1, on=day)
    assert [row[0] for row in rows(boards(visitor), "streaks")] == [1, 1]


def test_the_best_average_is_over_the_last_30_finished_days_for_regular_players(
    finish_daily, visitor, day, ada, grace, monkeypatch
):
    monkeypatch.setattr(selectors, "AVERAGE_MIN_DAYS", 2)
    for date in days_before(day, 2):
        finish_daily(player=ada, moves=5, on=date)  # 50 a day
    finish_daily(player=grace, moves=3, on=day)  # 30 and 10: 20 on average
    finish_daily(player=grace, moves=1, on=day - datetime.timedelta(days=1))
    finish_daily(player=Player.objects.create(nickname="once"), moves=9, on=day)  # one day only
    answer = boards(visitor)
    assert rows(answer, "average") == [(1, "Ada", 50.0), (2, "Grace", 20.0)]
    assert (answer["average_from"], answer["average_to"]) == (
        (day - datetime.timedelta(days=29)).isoformat(),
        day.isoformat(),
    )


def test_a_flagged_win_counts_for_nothing_until_cleared(finish_daily, visitor, ada):
    finish_daily(player=ada, won=True, seconds=2)
    answer = boards(visitor)
    assert answer["wins"] == [] and answer["streaks"] == []
