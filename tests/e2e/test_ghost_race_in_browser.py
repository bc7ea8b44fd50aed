"""A finished game raced as a ghost from where it is shown: its after-game panel, its replay and its
player's profile offer "Race this game as a ghost", which opens a race room with the game's player as a
ghost racer moving at the game's own pace; someone else's daily before its day is over is offered to
nobody but its player; a ghost race whose racer closed the tab ends and leaves the live list."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Locator, Page, expect

from .player import MY_PILES, PILE, end_game, game_id, me, open_board, play_any_move, racer_card

pytestmark = pytest.mark.e2e


def finish_a_game(page: Page, mode: str, *, moves: int) -> int:
    """Start a game from the home page ("new-game" or "daily"), play `moves` moves, end it; its id."""
    page.goto("/")
    page.get_by_test_id(mode).click()
    open_board(page)
    for _ in range(moves):
        play_any_move(page)
    end_game(page)
    return game_id(page)


def nickname(page: Page) -> str:
    answer = page.request.get("/api/me")
    assert answer.ok, answer.text()
    return str(answer.json()["nickname"])


def profile_row(page: Page, player: str, game: int) -> Locator:
    """The row of `game` in the recent games of `player`'s profile, once the page has drawn them."""
    page.goto(f"/players/{quote(player)}")
    expect(page.locator("#profile-page")).to_have_attribute("aria-busy", "false")
    return page.locator(f'[data-testid="recent-game"][data-game="{game}"]')


def test_a_finished_game_is_raced_as_a_ghost_from_its_page(page: Page, other_player_page: Page) -> None:
    racer, player = page, other_player_page
    game = finish_a_game(player, "new-game", moves=3)
    expect(player.get_by_test_id("result").get_by_test_id("race-ghost")).to_be_visible()  # their own, too
    player_id = me(player)

    row = profile_row(racer, nickname(player), game)
    expect(row.get_by_role("link", name="Replay")).to_be_visible()
    expect(row.get_by_test_id("race-ghost")).to_be_visible()
    racer.goto(f"/games/{game}/replay")
    expect(racer.get_by_test_id("race-ghost")).to_be_visible()

    racer.goto(f"/games/{game}")
    after_game = racer.get_by_test_id("result")
    expect(after_game).to_be_visible()
    after_game.get_by_test_id("race-ghost").click()
    racer.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
    ghost = racer_card(racer, player_id)
    expect(racer.get_by_test_id("racer")).to_have_count(2)
    expect(ghost).to_contain_text("ghost")
    expect(ghost).to_have_attribute("data-ready", "true")

    racer.get_by_test_id("start").click()  # a host alone with a ghost may start
    expect(racer.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    # The ghost plays its three moves at the pace they were played, then ends where its game ended.
    expect(ghost).to_have_attribute("data-piles", "49", timeout=20_000)
    expect(ghost.locator(PILE)).to_have_count(49)
    expect(ghost).to_have_attribute("data-status", "finished", timeout=20_000)


def test_someone_elses_daily_is_no_ghost_before_its_day_is_over(page: Page, other_player_page: Page) -> None:
    reader, player = page, other_player_page
    daily = finish_a_game(player, "daily", moves=1)
    expect(player.get_by_test_id("result").get_by_test_id("race-ghost")).to_be_visible()  # its player may
    name = nickname(player)
    expect(profile_row(player, name, daily).get_by_test_id("race-ghost")).to_be_visible()

    row = profile_row(reader, name, daily)
    expect(row.get_by_role("link", name="Replay")).to_be_visible()
    expect(row.get_by_test_id("race-ghost")).to_have_count(0)
    reader.goto(f"/games/{daily}/replay")
    expect(reader.get_by_test_id("replay-error")).to_be_visible()
    expect(reader.get_by_test_id("race-ghost")).to_have_count(0)


def test_a_ghost_race_whose_racer_closed_the_tab_leaves_the_live_list(page: Page, other_player_page: Page) -> None:
    racer, watcher = page, other_player_page
    finish_a_game(racer, "new-game", moves=2)
    racer.get_by_test_id("result").get_by_test_id("race-ghost").click()  # their own game, as a ghost
    racer.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
    code = racer.url.rsplit("/", 1)[1]
    expect(racer.get_by_test_id("racer")).to_have_count(2)
    racer.get_by_test_id("start").click()
    expect(racer.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    watcher.goto("/live")
    race = watcher.locator(f'[data-testid="live-race"][data-race="{code}"]')
    expect(race).to_be_visible()

    racer.close()  # nobody races it any more: it ends as it stands (after RACE_AWAY_SECONDS, 30 s)
    expect(race).to_have_count(0, timeout=60_000)
