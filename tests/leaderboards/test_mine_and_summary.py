"""A reader's own row ("my rank"), and a day's summary against hand-computed numbers."""

from __future__ import annotations

import datetime

import pytest

from leaderboards import api
from tests.leaderboards.conftest import get, own_client

pytestmark = pytest.mark.django_db


def mine(client, day: datetime.date) -> dict:
    status, answer = get(client, f"/api/leaderboards/daily/{day.isoformat()}/me")
    assert status == 200, answer
    return answer


def summary(client, day: datetime.date) -> dict:
    status, answer = get(client, f"/api/leaderboards/daily/{day.isoformat()}/summary")
    assert status == 200, answer
    return answer


def test_my_rank_gives_my_row_and_the_page_it_is_on(finish_daily, day, monkeypatch):
    monkeypatch.setattr(api, "PAGE_SIZE", 2)
    games = [finish_daily(f"p{index}", moves=index) for index in range(5)]
    answer = mine(own_client(games[1]), day)
    assert answer["status"] == "on_board" and answer["page"] == 2
    assert answer["entry"] == {
        "rank": 4, "player": "p1", "score": 10, "piles": 51, "seconds": 60, "won": False, "game": games[1].pk,
        "provisional": True,
    }  # fmt: skip


def test_in_a_tie_my_page_follows_the_finish_order(finish_daily, day, monkeypatch):
    monkeypatch.setattr(api, "PAGE_SIZE", 1)
    finish_daily("top", moves=5)
    finish_daily("tied early", moves=3, started=datetime.time(9))
    late = finish_daily("tied late", moves=3, started=datetime.time(18))
    answer = mine(own_client(late), day)
    assert (answer["entry"]["rank"], answer["page"]) == (2, 3)


def test_my_rank_comes_with_the_board_around_me(finish_daily, day):
    games = [finish_daily(f"p{index}", moves=index) for index in range(7)]  # p6 first … p0 last
    around = mine(own_client(games[3]), day)["around"]
    assert [(row["rank"], row["player"]) for row in around] == [(2, "p5"), (3, "p4"), (4, "p3"), (5, "p2"), (6, "p1")]


def test_at_the_top_or_the_bottom_the_board_around_me_is_what_there_is(finish_daily, day):
    games = [finish_daily(f"p{index}", moves=index) for index in range(4)]
    assert [row["player"] for row in mine(own_client(games[3]), day)["around"]] == ["p3", "p2", "p1"]
    assert [row["player"] for row in mine(own_client(games[0]), day)["around"]] == ["p2", "p1", "p0"]


def test_tied_rows_around_me_share_their_rank(finish_daily, day):
    finish_daily("top", moves=5)
    early = finish_daily("tied early", moves=3, started=datetime.time(9))
    finish_daily("tied late", moves=3, started=datetime.time(18))
    around = mine(own_client(early), day)["around"]
    assert [(row["rank"], row["player"]) for row in around] == [(1, "top"), (2, "tied early"), (2, "tied late")]


def test_rows_above_me_keep_the_rank_of_a_tie_that_begins_above_them(finish_daily, day):
    finish_daily("top", moves=5)
    for hour in (9, 10, 11):
        finish_daily(f"tied {hour}", moves=3, started=datetime.time(hour))
    me = finish_daily("me", moves=1)
    finish_daily("last", moves=0)
    around = mine(own_client(me), day)["around"]
    assert [(row["rank"], row["player"]) for row in around] == [(2, "tied 10"), (2, "tied 11"), (5, "me"), (6, "last")]


def test_equal_finish_times_are_listed_by_game_and_share_a_rank(finish_daily, day, monkeypatch):
    monkeypatch.setattr(api, "PAGE_SIZE", 1)
    first, second = finish_daily("first", moves=3), finish_daily("second", moves=3)
    assert first.finished_at == second.finished_at
    answers = [mine(own_client(game), day) for game in (first, second)]
    assert [(answer["entry"]["rank"], answer["page"]) for answer in answers] == [(1, 1), (1, 2)]
    assert [row["player"] for row in answers[1]["around"]] == ["first", "second"]


def test_a_result_held_for_review_is_neither_around_me_nor_ahead_of_me(finish_daily, day):
    finish_daily("top", moves=5)
    finish_daily("script", won=True, seconds=2)
    me = finish_daily("me", moves=3)
    answer = mine(own_client(me), day)
    assert answer["entry"]["rank"] == 2
    assert [row["player"] for row in answer["around"]] == ["top", "me"]


def test_a_visitor_or_a_player_without_an_attempt_has_no_row(finish_daily, visitor, client, day):
    finish_daily("someone")
    for reader in (visitor, client):
        assert mine(reader, day) == {
            "date": day.isoformat(), "status": "none", "entry": None, "page": None, "around": [],
        }  # fmt: skip


def test_a_flagged_player_sees_their_result_is_under_review(finish_daily, day):
    scripted = finish_daily("script", won=True, seconds=2)
    assert mine(own_client(scripted), day)["status"] == "under_review"


def test_the_summary_counts_players_wins_the_win_rate_the_median_and_the_final_piles(finish_daily, visitor, day):
    finish_daily("w1", won=True, seconds=100)  # 510 + 500 + 1100 = 2110
    finish_daily("w2", won=True, seconds=200)  # 2010
    finish_daily("l1", moves=5)  # 47 piles, 50
    finish_daily("l2", moves=3)  # 49 piles, 30
    finish_daily("l3", moves=0)  # 52 piles, 0
    answer = summary(visitor, day)
    assert (answer["players"], answer["wins"], answer["win_rate"], answer["median_score"]) == (5, 2, 0.4, 50.0)
    counts = {row["piles"]: row["players"] for row in answer["piles"]}
    assert sorted(counts) == list(range(1, 53))
    assert {piles: players for piles, players in counts.items() if players} == {1: 2, 47: 1, 49: 1, 52: 1}


def test_with_an_even_number_of_players_the_median_is_the_mean_of_the_middle_two(finish_daily, visitor, day):
    for index, moves in enumerate([0, 1, 3, 5]):  # scores 0, 10, 30, 50
        finish_daily(f"p{index}", moves=moves)
    assert summary(visitor, day)["median_score"] == 20.0


def test_flagged_results_are_left_out_of_the_summary(finish_daily, visitor, day):
    finish_daily("honest", moves=3)
    finish_daily("script", won=True, seconds=2)
    answer = summary(visitor, day)
    assert (answer["players"], answer["wins"]) == (1, 0)


def test_a_day_nobody_played_has_an_empty_summary(visitor, day):
    answer = summary(visitor, day)
    assert (answer["players"], answer["wins"], answer["win_rate"], answer["median_score"]) == (0, 0, None, None)
    assert sum(row["players"] for row in answer["piles"]) == 0
