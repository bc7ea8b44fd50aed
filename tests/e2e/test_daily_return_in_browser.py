"""The daily deal's first minutes and the way back to it: before the deal appears the player is told its
clock starts then; coming back after finishing shows their result, rank, the board around them and a
countdown to the next deal, with practice as a second button."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .player import api_game, end_game, open_board
from .test_leaderboard_in_browser import nickname
from .test_play_in_browser import play_any_move

pytestmark = pytest.mark.e2e

COUNTDOWN = re.compile(r"^Next daily deal in (\d+:)?\d{1,2}:\d{2}$")


def test_the_home_page_says_when_the_daily_clock_starts_and_that_it_runs(page: Page) -> None:
    page.goto("/")
    expect(page.get_by_test_id("daily-clock-note")).to_contain_text("your clock starts when the deal appears")
    page.get_by_test_id("daily").click()
    open_board(page)

    page.goto("/")
    expect(page.get_by_test_id("daily")).to_contain_text("Continue the daily deal")
    expect(page.get_by_test_id("daily-clock-note")).to_contain_text("Your daily clock is running")


def test_back_after_the_daily_the_player_sees_result_rank_neighbours_and_the_next_deal(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    ranked = open_board(page)
    play_any_move(page)
    end_game(page)
    result = api_game(page, ranked)["result"]

    page.goto("/")
    expect(page.get_by_test_id("daily-clock-note")).to_have_count(0)
    expect(page.get_by_test_id("daily")).to_contain_text("Your daily result")
    page.get_by_test_id("daily").click()
    page.wait_for_url(re.compile(r"/daily#my-day$"))

    my_day = page.get_by_test_id("my-day")
    expect(my_day.get_by_test_id("my-day-result")).to_contain_text(f"{result['score']} points")
    expect(my_day.get_by_test_id("my-day-rank")).to_contain_text(re.compile(r"You are number \d+ of \d+"))
    expect(my_day.get_by_test_id("around-me")).to_contain_text(nickname(page))
    countdown = my_day.get_by_test_id("next-deal")
    expect(countdown).to_have_text(COUNTDOWN)
    first = countdown.inner_text()
    expect(countdown).not_to_have_text(first, timeout=3000)  # it counts down, second by second

    my_day.get_by_test_id("practice-daily").click()
    page.wait_for_url(re.compile(rf"/games/(?!{ranked}$)\d+$"))
    open_board(page)
    expect(page.locator('[data-role="ranked"]')).to_have_text("Practice")
