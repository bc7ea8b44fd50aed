"""TV in real Chromium against a real Daphne: the home page shows the featured live game as a live
miniature, with its player's name; each move appears on it; when the game ends it switches to another
game being played; /tv shows the same full screen, on a phone and in Persian too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import player_page
from .player import PILE, end_game, fits_the_width, play, server_shell, start_code_game, visitor_page

pytestmark = pytest.mark.e2e

WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
TV_PILES = f'[data-testid="tv-board"] {PILE}'
# Persian: "Live now".
LIVE_NOW_FA = "اکنون زنده"


@pytest.fixture(autouse=True)
def only_this_tests_games_on_tv(site_database_url: str) -> None:
    """Games other tests left in play stop being watchable, so the featured game is one of this test's."""
    server_shell(site_database_url, "from accounts.models import Player; Player.objects.update(watchable=False)")


def nickname(page: Page) -> str:
    return page.get_by_test_id("nav-profile").locator("bdi").inner_text()


def test_the_home_page_shows_a_live_game_and_switches_to_another_when_it_ends(
    page: Page, other_player_page: Page, browser: Browser, site_url: str
) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    for move in WINNING_GAME["moves"][:3]:
        play(page, move)
    visitor = other_player_page

    visitor.goto("/")

    tv = visitor.get_by_test_id("tv")
    expect(tv).to_have_attribute("data-game", str(game))
    expect(tv.get_by_test_id("tv-player")).to_have_text(nickname(page))
    expect(visitor.locator(TV_PILES)).to_have_count(49)
    play(page, WINNING_GAME["moves"][3])
    expect(visitor.locator(TV_PILES)).to_have_count(48)
    expect(tv.get_by_test_id("tv-piles")).to_have_text("48")

    with player_page(browser, site_url) as second:
        other_game = start_code_game(second, WINNING_GAME["deal_code"])
        play(second, WINNING_GAME["moves"][0])
        end_game(page)

        expect(tv).to_have_attribute("data-game", str(other_game))
        expect(tv.get_by_test_id("tv-player")).to_have_text(nickname(second))
        expect(visitor.locator(TV_PILES)).to_have_count(51)

        tv.get_by_test_id("tv-full-screen").click()
        visitor.wait_for_url("**/tv")
        expect(visitor.get_by_test_id("tv")).to_have_attribute("data-game", str(other_game))
        expect(visitor.get_by_role("heading", level=1)).to_contain_text(nickname(second))
        play(second, WINNING_GAME["moves"][1])
        expect(visitor.locator(TV_PILES)).to_have_count(50)


def test_tv_says_so_when_no_game_is_live(other_player_page: Page) -> None:
    other_player_page.goto("/tv")

    expect(other_player_page.get_by_test_id("tv")).to_have_attribute("data-state", "empty")
    expect(other_player_page.get_by_test_id("tv-status")).to_contain_text("No game is being played right now")


def test_a_persian_phone_shows_the_featured_game_within_the_screen(page: Page, browser: Browser, site_url: str) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    play(page, WINNING_GAME["moves"][0])

    with visitor_page(browser, site_url, language="fa", size="phone") as phone:
        phone.goto("/")
        expect(phone.locator("html")).to_have_attribute("dir", "rtl")
        tv = phone.get_by_test_id("tv")
        expect(tv.get_by_role("heading")).to_have_text(LIVE_NOW_FA)
        expect(tv).to_have_attribute("data-game", str(game))
        expect(phone.locator(TV_PILES)).to_have_count(51)
        assert fits_the_width(phone)

        phone.goto("/tv")
        expect(phone.locator(TV_PILES)).to_have_count(51)
        assert fits_the_width(phone)
