"""The solver's help in real Chromium against a real Daphne: a hint lights a move that keeps the game
winnable, a ranked daily game asks before a hint makes it unranked, and after the game the result
panel tells whether the deal could be won and replays a winning line on the board."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .player import PILE, api_game, end_game, open_board, play, start_code_game

pytestmark = pytest.mark.e2e

HINTED = f"{PILE}.hinted"
CODE = "2222-2222"
# The solver runs in a process pool that starts on first use: the first answer may take a while.
SOLVER_TIMEOUT_MS = 20_000


def hinted_move(page: Page) -> tuple[int, int]:
    """The lit move, read off the board: the pile to move and the pile it goes onto."""
    expect(page.locator(HINTED)).to_have_count(2, timeout=SOLVER_TIMEOUT_MS)
    source = page.locator(f'{HINTED}[data-hint="from"]').get_attribute("data-index")
    target = page.locator(f'{HINTED}[data-hint="to"]').get_attribute("data-index")
    assert source is not None and target is not None
    return int(source), int(target)


def test_a_hint_lights_a_move_and_playing_it_keeps_the_game_winnable(page: Page) -> None:
    start_code_game(page, CODE)
    # Only the daily deal is ranked: a shared deal says so before any hint, and a hint changes nothing.
    expect(page.locator('[data-role="ranked"]')).to_have_text("Unranked")
    page.get_by_test_id("hint").click()

    source, target = hinted_move(page)
    assert target in (source - 1, source - 3)
    expect(page.get_by_test_id("hint-confirm")).to_be_hidden()  # a shared deal is never ranked
    expect(page.get_by_test_id("hint-message")).to_contain_text("Try moving the")
    expect(page.locator('[data-role="ranked"]')).to_have_text("Unranked")

    play(page, (source, target))

    expect(page.locator(HINTED)).to_have_count(0)
    expect(page.get_by_test_id("hint-message")).to_be_hidden()
    page.get_by_test_id("winnable-toggle").click()
    expect(page.get_by_test_id("winnable")).to_have_attribute("data-state", "win", timeout=SOLVER_TIMEOUT_MS)
    expect(page.get_by_test_id("winnable")).to_have_text("Still winnable")


def test_a_hint_in_the_ranked_daily_game_asks_first_then_makes_it_unranked(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    game = open_board(page)
    ranked_chip = page.locator('[data-role="ranked"]')
    expect(ranked_chip).to_have_text("Ranked")
    expect(page.get_by_test_id("winnable-toggle")).to_be_hidden()  # in a ranked game it would be a hint

    page.get_by_test_id("hint").click()

    expect(page.get_by_test_id("hint-confirm")).to_be_visible()
    expect(page.get_by_test_id("hint-confirm")).to_contain_text("unranked")
    expect(page.locator(HINTED)).to_have_count(0)
    assert api_game(page, game)["ranked"] is True

    page.get_by_test_id("hint-confirm-yes").click()

    expect(page.get_by_test_id("hint-confirm")).to_be_hidden()
    hinted_move(page)
    expect(ranked_chip).to_have_text("Unranked")
    assert api_game(page, game)["ranked"] is False
    expect(page.get_by_test_id("winnable-toggle")).to_be_visible()


def test_after_ending_early_the_result_shows_the_analysis_and_replays_a_winning_line(page: Page) -> None:
    start_code_game(page, CODE)
    for source, target in ([2, 1], [4, 1], [6, 3]):
        play(page, (source, target))
    end_game(page)

    analysis = page.get_by_test_id("analysis")
    expect(analysis).to_contain_text("This deal could be won.", timeout=SOLVER_TIMEOUT_MS)
    expect(analysis).to_contain_text("Your last position could still have been won.")
    expect(page.get_by_test_id("replay-from-there")).to_be_hidden()  # the game was never lost
    expect(page.locator(PILE)).to_have_count(49)

    page.get_by_test_id("replay-deal").click()

    replay_bar = page.get_by_test_id("replay")
    expect(replay_bar).to_be_visible()
    expect(replay_bar).to_contain_text("A winning line from the deal")
    page.get_by_test_id("replay-speed").click()
    page.get_by_test_id("replay-speed").click()  # four times as fast: about 0.1 s a move
    expect(page.locator(f"{PILE}.movable")).to_have_count(0)  # the board is read-only
    expect(replay_bar).to_have_attribute("data-state", "done", timeout=20_000)
    expect(page.locator(PILE)).to_have_count(1)
    expect(page.get_by_test_id("replay-progress")).to_contain_text("one pile left")


def test_a_practice_game_of_todays_daily_offers_no_help_it_cannot_give(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    ranked = open_board(page)
    end_game(page)
    # Nothing of the day's analysis either: it would let practice games probe the winning line.
    expect(page.get_by_test_id("analysis")).to_contain_text(
        "Whether this deal could be won is told after the day ends", timeout=SOLVER_TIMEOUT_MS
    )
    page.locator('[data-role="play-again"]').click()  # "Replay today's deal (practice)"
    page.wait_for_url(lambda url: not url.endswith(f"/games/{ranked}"))
    practice = open_board(page)
    assert api_game(page, practice)["ranked"] is False
    hint = page.get_by_test_id("hint")
    expect(hint).to_have_attribute("aria-disabled", "true")
    expect(hint).to_have_attribute("title", re.compile("before its day is over"))
    expect(page.get_by_test_id("winnable-toggle")).to_be_hidden()
    # Pressing it says why, where a tooltip never shows (a touch screen), and lights nothing.
    hint.click(force=True)  # Playwright waits for an aria-disabled button to be enabled; a finger does not
    expect(page.get_by_test_id("hint-message")).to_contain_text("No hints on a practice game of a daily deal")
    expect(page.locator(HINTED)).to_have_count(0)
