"""score(piles, seconds): 10 a removed pile; a win adds 500 and max(0, 1200 - seconds)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import GOOD_GAME_PILES, score


@pytest.mark.parametrize(
    ("piles", "seconds", "expected"),
    [
        (52, 0, 0),
        (51, 10, 10),
        (6, 300, 460),
        (5, 300, 470),
        (2, 10, 500),
        (1, 0, 2210),
        (1, 90, 2120),
        (1, 1199, 1011),
        (1, 1200, 1010),
        (1, 10**9, 1010),
    ],
)
def test_the_score_follows_the_design(piles, seconds, expected):
    assert score(piles, seconds) == expected


def test_the_best_possible_score_is_2210():
    assert max(score(piles, seconds) for piles in range(1, 53) for seconds in range(0, 1300, 7)) == 2210


def test_a_win_without_a_server_time_earns_the_win_bonus_but_no_time_bonus():
    assert score(1, None) == 510 + 500


def test_a_game_that_is_not_won_scores_the_same_with_or_without_a_time():
    assert score(7, None) == score(7, 5) == 450


def test_five_piles_or_fewer_is_a_good_game():
    assert GOOD_GAME_PILES == 5


@given(piles=st.integers(2, 52), seconds=st.integers(0, 10**6))
def test_only_a_win_is_rewarded_for_speed(piles, seconds):
    assert score(piles, seconds) == 10 * (52 - piles)


@given(st.integers(0, 5000), st.integers(0, 5000))
def test_a_faster_win_never_scores_less(first, second):
    faster, slower = sorted((first, second))
    assert score(1, faster) >= score(1, slower)


@given(st.integers(2, 52), st.integers(0, 5000))
def test_a_win_always_outscores_any_game_that_is_not_won(piles, seconds):
    assert score(1, seconds) > score(piles, 0)


@pytest.mark.parametrize(
    ("piles", "seconds"),
    [
        (0, 10),
        (53, 10),
        (-1, 10),
        (1.0, 10),
        ("5", 10),
        (True, 10),
        (None, 10),
        pytest.param(10**5000, 10, id="5000-digit piles"),
        (1, -1),
        (1, 1.5),
        (1, "10"),
        (1, False),
        (1, [10]),
    ],
)
def test_impossible_piles_or_seconds_are_a_value_error(piles, seconds):
    with pytest.raises(ValueError) as caught:
        score(piles, seconds)
    assert len(str(caught.value)) < 300
