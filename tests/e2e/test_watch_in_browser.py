"""Watching in real Chromium against a real Daphne: one browser plays, another finds the game in the
live list (or opens the game's own page, which says why it will not open and offers to watch it),
watches it, and sees each move appear; the player sees that someone is watching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import player_page
from .player import PILE, end_game, open_board, play, start_code_game
from .test_languages_in_browser import AXE, serious_violations

pytestmark = pytest.mark.e2e

WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
# Persian: "is playing this game", and "which nobody else can watch".
PLAYING_FA = (
    "\u062f\u0631 \u062d\u0627\u0644 \u0627\u0646\u062c\u0627\u0645 "
    "\u0627\u06cc\u0646 \u0628\u0627\u0632\u06cc \u0627\u0633\u062a"
)
NOBODY_ELSE_CAN_WATCH_FA = (
    "\u0647\u06cc\u0686\u200c\u06a9\u0633 \u062f\u06cc\u06af\u0631\u06cc "
    "\u0646\u0645\u06cc\u200c\u062a\u0648\u0627\u0646\u062f "
    "\u062a\u0645\u0627\u0634\u0627\u06cc\u0634 \u06a9\u0646\u062f"
)


def board(page: Page) -> list[tuple[str | None, str | None]]:
    return [(p.get_attribute("data-top"), p.get_attribute("data-height")) for p in page.locator(PILE).all()]


def watch_from_the_live_list(watcher: Page, game: int) -> None:
    watcher.goto("/live")
    entry = watcher.locator(f'[data-testid="live-game"][data-game="{game}"]')
    entry.get_by_test_id("watch-link").click()
    watcher.wait_for_url(f"**/watch/{game}")
    expect(watcher.locator(PILE)).to_have_count(52)


def test_a_watcher_sees_each_move_appear_as_it_is_played(page: Page, other_player_page: Page) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    watcher = other_player_page

    watch_from_the_live_list(watcher, game)
    expect(page.get_by_test_id("crowd")).to_have_text("1 watching")
    expect(watcher.get_by_test_id("watchers")).to_have_text("1")

    for played, move in enumerate(WINNING_GAME["moves"][:4], start=1):
        play(page, move)
        expect(watcher.locator(PILE)).to_have_count(52 - played)
        expect(watcher.get_by_test_id("piles-count")).to_have_text(str(52 - played))
        assert board(watcher) == board(page)
    expect(watcher.get_by_test_id("score")).to_have_text("40")


def test_a_watcher_sees_the_result_with_a_link_to_the_replay(page: Page, other_player_page: Page) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    watcher = other_player_page
    watch_from_the_live_list(watcher, game)
    play(page, WINNING_GAME["moves"][0])
    expect(watcher.locator(PILE)).to_have_count(51)

    end_game(page)

    expect(watcher.get_by_test_id("result")).to_be_visible()
    expect(watcher.get_by_test_id("final-score")).to_have_text("10")
    expect(watcher.get_by_test_id("replay-link")).to_have_attribute("href", f"/games/{game}/replay")


def test_opening_the_watch_page_of_a_game_already_over_shows_its_end(page: Page, other_player_page: Page) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    play(page, WINNING_GAME["moves"][0])
    end_game(page)

    other_player_page.goto(f"/watch/{game}")

    expect(other_player_page.get_by_test_id("final-score")).to_have_text("10")
    expect(other_player_page.locator('[data-role="mode"]')).to_have_text("Shared deal")  # no longer "Loading…"


def test_someone_elses_game_in_play_says_why_it_will_not_open_and_leads_to_watching_it(
    page: Page, other_player_page: Page
) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    nickname = page.get_by_test_id("nav-profile").locator("bdi").inner_text()
    stranger = other_player_page

    stranger.goto(f"/games/{game}")

    panel = stranger.get_by_test_id("unavailable")
    expect(panel).to_be_focused()
    expect(panel.get_by_role("heading")).to_have_text(f"{nickname} is playing this game")
    expect(panel).to_contain_text("Only its player can open a game in play, but you can watch it live")
    expect(stranger.get_by_test_id("hint")).to_be_hidden()  # no score bar or empty board around it
    stranger.get_by_test_id("unavailable-watch").click()
    stranger.wait_for_url(f"**/watch/{game}")
    expect(stranger.locator(PILE)).to_have_count(52)
    play(page, WINNING_GAME["moves"][0])
    expect(stranger.locator(PILE)).to_have_count(51)


def test_todays_daily_in_play_tells_a_persian_visitor_nobody_else_can_watch_it_and_leads_to_the_board(
    page: Page, browser: Browser, site_url: str
) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    game = open_board(page)

    with player_page(browser, site_url, locale="fa-IR") as stranger:
        stranger.goto(f"/games/{game}")

        panel = stranger.get_by_test_id("unavailable")
        expect(panel.get_by_role("heading")).to_contain_text(PLAYING_FA)
        expect(panel).to_contain_text(NOBODY_ELSE_CAN_WATCH_FA)
        expect(stranger.get_by_test_id("unavailable-watch")).to_have_count(0)
        stranger.get_by_test_id("unavailable-board").click()
        stranger.wait_for_url("**/daily")


def test_the_live_list_shows_todays_daily_with_its_piles_but_no_way_to_watch_it(
    page: Page, other_player_page: Page
) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    game = open_board(page)

    other_player_page.goto("/live")

    entry = other_player_page.locator(f'[data-testid="live-game"][data-game="{game}"]')
    expect(entry).to_contain_text("52 piles")
    expect(entry).to_contain_text("Today's daily deal: nobody can watch it until the day ends (midnight UTC).")
    expect(entry.get_by_test_id("watch-link")).to_have_count(0)


def test_a_player_who_turns_watching_off_leaves_the_live_list(page: Page, other_player_page: Page) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    page.goto("/live")
    toggle = page.get_by_test_id("watchable-toggle")
    expect(toggle).to_have_attribute("aria-checked", "true")

    toggle.click()

    expect(toggle).to_have_attribute("aria-checked", "false")
    other_player_page.goto("/live")
    expect(other_player_page.get_by_test_id("live-list")).to_have_attribute("data-loaded", "true")
    expect(other_player_page.locator(f'[data-testid="live-game"][data-game="{game}"]')).to_have_count(0)


def test_the_watch_page_has_no_serious_accessibility_violations(page: Page, other_player_page: Page) -> None:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: `make test` installs it with npm (package.json)")
    game = start_code_game(page, WINNING_GAME["deal_code"])
    watcher = other_player_page
    watch_from_the_live_list(watcher, game)
    play(page, WINNING_GAME["moves"][0])
    expect(watcher.locator(PILE)).to_have_count(51)

    assert serious_violations(watcher) == []


def test_a_player_who_turns_watching_off_on_the_account_page_cannot_be_watched(
    page: Page, other_player_page: Page
) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    page.goto("/account")
    toggle = page.get_by_test_id("watchable-toggle")
    expect(toggle).to_have_attribute("aria-checked", "true")

    toggle.click()

    expect(toggle).to_have_attribute("aria-checked", "false")
    other_player_page.goto(f"/watch/{game}")
    expect(other_player_page.get_by_test_id("status")).to_contain_text("does not let others watch their games")


def test_a_visitor_opens_the_live_list_without_a_failed_request(other_player_page: Page) -> None:
    visitor = other_player_page  # no cookies yet: not a player
    failed: list[str] = []
    visitor.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    visitor.goto("/live")
    expect(visitor.get_by_test_id("connection")).to_have_attribute("data-state", "live")
    visitor.wait_for_load_state("networkidle")
    expect(visitor.get_by_test_id("watchable-toggle")).to_be_hidden()  # a visitor has no setting
    assert failed == []
