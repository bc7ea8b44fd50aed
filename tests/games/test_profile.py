"""Profile statistics from verified games, against figures worked out by hand."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client

from games.models import Game
from games.profiles import daily_streaks, player_profile

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 11, 30)


def days(*isodates: str) -> list[datetime.date]:
    return [datetime.date.fromisoformat(text) for text in isodates]


def profile_of(nickname: str) -> dict:
    response = Client().get(f"/api/players/{nickname}")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def ada_played(player, other_player, finished_game):
    """Ada: a 9-pile practice game (200 s), a practice win (100 s), a ranked daily win on the 28th
    (300 s) and a 4-pile ranked daily on the 29th (50 s); one game still going. Grace won once."""
    games = [
        finished_game(player, piles=9, seconds=200),
        finished_game(player, piles=1, seconds=100),
        finished_game(player, piles=1, seconds=300, day=datetime.date(2026, 11, 28)),
        finished_game(player, piles=4, seconds=50, day=datetime.date(2026, 11, 29)),
    ]
    Game.objects.create(player=player, deal=games[0].deal, mode="new", started_at=games[0].started_at)
    finished_game(other_player, piles=1, seconds=20)
    return games


def test_statistics_count_only_the_players_finished_games(player, ada_played):
    stats = player_profile(player=player, today=TODAY).stats
    assert (stats.games, stats.wins, stats.win_rate) == (4, 2, 0.5)
    # Scores: 430 (9 piles), 2110 (won in 100 s), 1910 (won in 300 s), 480 (4 piles).
    assert stats.best_score == 2110
    assert (stats.fastest_win, stats.average_win_seconds) == (100, 200.0)
    assert stats.average_piles == pytest.approx(3.75)


def test_the_daily_streak_counts_up_to_yesterday_while_today_is_still_to_play(player, ada_played):
    stats = player_profile(player=player, today=TODAY).stats
    assert (stats.current_streak, stats.longest_streak) == (2, 2)


def test_a_player_with_no_finished_game_has_empty_statistics(player):
    stats = player_profile(player=player, today=TODAY).stats
    assert (stats.games, stats.wins, stats.win_rate, stats.best_score, stats.fastest_win) == (0, 0, None, None, None)
    assert (stats.average_piles, stats.current_streak, stats.longest_streak) == (None, 0, 0)


@pytest.mark.parametrize(
    ("dates", "today", "current", "longest"),
    [
        (days("2026-01-30", "2026-01-31", "2026-02-01", "2026-02-02"), "2026-02-02", 4, 4),
        (days("2026-02-27", "2026-02-28", "2026-03-01"), "2026-03-01", 3, 3),
        (days("2025-12-30", "2025-12-31", "2026-01-01"), "2026-01-02", 3, 3),
        (days("2026-04-29", "2026-04-30", "2026-05-01", "2026-05-03", "2026-05-04"), "2026-05-04", 2, 3),
        (days("2026-04-29", "2026-04-30", "2026-05-01"), "2026-05-03", 0, 3),
        ([], "2026-05-03", 0, 0),
    ],
    ids=["across-january-end", "across-february-end", "across-year-end", "broken", "lapsed", "none"],
)
def test_streaks_are_runs_of_consecutive_utc_dates(dates, today, current, longest):
    assert daily_streaks(dates, today=datetime.date.fromisoformat(today)) == (current, longest)


def test_a_practice_or_hinted_daily_does_not_keep_a_streak_alive(player, finished_game):
    finished_game(player, piles=2, day=datetime.date(2026, 11, 28))
    finished_game(player, piles=2, day=datetime.date(2026, 11, 29), ranked=False)
    finished_game(player, piles=2, day=TODAY)
    stats = player_profile(player=player, today=TODAY).stats
    assert (stats.current_streak, stats.longest_streak) == (1, 1)


def test_the_calendar_shows_ranked_dailies_of_the_last_six_months(player, finished_game):
    finished_game(player, piles=3, day=datetime.date(2026, 5, 31))
    june = finished_game(player, piles=1, day=datetime.date(2026, 6, 1))
    finished_game(player, piles=5, day=datetime.date(2026, 6, 2), ranked=False)
    profile = player_profile(player=player, today=TODAY)
    assert profile.calendar_from == datetime.date(2026, 6, 1)
    assert [(day.date, day.won, day.piles, day.game) for day in profile.calendar] == [
        (datetime.date(2026, 6, 1), True, 1, june.pk)
    ]
    assert profile.stats.longest_streak == 2  # the calendar is a window; the streak is not


def test_the_profile_api_answers_statistics_recent_games_and_the_chart(player, ada_played):
    profile = profile_of("ada")
    assert profile["nickname"] == "Ada" and profile["account"] is False
    assert profile["stats"]["games"] == 4 and profile["stats"]["best_score"] == 2110
    newest_first = sorted(ada_played, key=lambda game: (game.finished_at, game.pk), reverse=True)
    assert [game["id"] for game in profile["recent"]] == [game.pk for game in newest_first]
    assert profile["recent"][0]["url"] == f"/games/{newest_first[0].pk}"
    assert [point["score"] for point in profile["scores"]] == [game.score for game in reversed(newest_first)]


def test_recent_games_stop_at_twenty_and_the_chart_at_a_hundred(player, finished_game):
    for minute in range(105):
        finished_game(player, piles=10, finished_at=datetime.datetime(2026, 11, 1, 9, minute % 60, tzinfo=datetime.UTC)
                      + datetime.timedelta(hours=minute // 60))  # fmt: skip
    profile = profile_of("Ada")
    assert len(profile["recent"]) == 20 and len(profile["scores"]) == 100
    assert profile["stats"]["games"] == 105


def test_an_unknown_player_is_a_404():
    response = Client().get("/api/players/Nobody")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
