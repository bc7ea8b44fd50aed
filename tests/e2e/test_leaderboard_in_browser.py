"""Two players finish today's daily in real Chromium, each finds the day's board from their result and
sees both in the right order; once the day is over, one replays the other's game step by step."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from .conftest import player_page
from .player import LANGUAGES, PILE, end_game, open_board, server_shell
from .test_play_in_browser import play_any_move

pytestmark = pytest.mark.e2e

# Run in the e2e server's database: today's daily deal and its board become yesterday's, as if
# the server's clock had passed midnight (the server itself cannot be made to wait for one).
END_THE_DAY = """
import datetime
from games.models import Deal
from leaderboards.models import DailyEntry, DailyScoreCount
today = datetime.datetime.now(datetime.UTC).date()
yesterday = today - datetime.timedelta(days=1)
Deal.objects.filter(daily_date=today).update(daily_date=yesterday)
DailyEntry.objects.filter(date=today).update(date=yesterday)
DailyScoreCount.objects.filter(date=today).update(date=yesterday)
print(yesterday.isoformat())
"""


def end_the_day(database_url: str) -> str:
    """Move today's daily into the past in the server's database; return the date it now has."""
    return server_shell(database_url, END_THE_DAY)


def nickname(page: Page) -> str:
    answer = page.request.get("/api/me")
    assert answer.ok, answer.text()
    return str(answer.json()["nickname"])


def finish_todays_daily(page: Page, *, moves: int) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    open_board(page)
    expect(page.locator('[data-role="ranked"]')).to_have_text("Ranked")
    for _ in range(moves):
        play_any_move(page)
    end_game(page)


def board_row(page: Page, player: str) -> Locator:
    rows = page.get_by_test_id("board").locator("tbody tr")
    return rows.filter(has=page.get_by_role("link", name=player, exact=True))


def rank_of(page: Page, player: str) -> int:
    return int(board_row(page, player).locator("td").first.inner_text())


def test_two_players_see_the_days_board_in_order_then_one_replays_the_others_game(
    page: Page, other_player_page: Page, site_database_url: str
) -> None:
    finish_todays_daily(page, moves=0)
    finish_todays_daily(other_player_page, moves=2)
    ada, grace = nickname(page), nickname(other_player_page)

    # The result panel says the rank and leads to the board, where the player's own row is lit.
    expect(page.get_by_test_id("result")).to_contain_text("You are number")
    page.get_by_test_id("result-board-link").click()
    page.wait_for_url(re.compile(r"/daily/\d{4}-\d{2}-\d{2}#me$"))
    for viewer, me in ((page, ada), (other_player_page, grace)):
        if viewer is other_player_page:
            viewer.goto("/")
            viewer.get_by_test_id("todays-board").click()
            # Until the board has loaded, its first drawing would replace a row focused earlier.
            expect(viewer.locator("#daily-page")).to_have_attribute("aria-busy", "false")
            viewer.get_by_test_id("my-rank").click()
        expect(viewer.get_by_test_id("my-row")).to_contain_text(me)
        expect(viewer.get_by_test_id("my-row")).to_be_focused()
        assert rank_of(viewer, grace) < rank_of(viewer, ada)
        # A day's first places are provisional until reviewed or a day has passed: the row says so.
        expect(board_row(viewer, grace).get_by_test_id("provisional")).to_be_visible()
        # Today's games cannot be replayed by others yet: only the player's own row links to a replay.
        expect(
            board_row(viewer, ada if viewer is other_player_page else grace).get_by_test_id("replay-link")
        ).to_have_count(0)

    day = end_the_day(site_database_url)
    page.goto(f"/daily/{day}")
    expect(board_row(page, grace)).to_be_visible()
    board_row(page, grace).get_by_test_id("replay-link").click()

    page.wait_for_url(re.compile(r"/games/\d+/replay$"))
    expect(page.get_by_test_id("replay-title")).to_have_text(f"{grace}\u2019s game")
    expect(page.get_by_test_id("replay-summary")).to_contain_text(f"{grace} ended with 50 piles")
    expect(page.get_by_test_id("replay-position")).to_have_text("Step 0 of 3")
    expect(page.locator(PILE)).to_have_count(52)
    page.get_by_test_id("replay-forward").click()
    expect(page.locator(PILE)).to_have_count(51)
    expect(page.get_by_test_id("replay-event")).to_contain_text("They moved the")
    page.get_by_test_id("replay-forward").click()
    expect(page.locator(PILE)).to_have_count(50)
    page.get_by_test_id("replay-back").click()
    expect(page.locator(PILE)).to_have_count(51)
    expect(page.get_by_test_id("replay-position")).to_have_text("Step 1 of 3")
    page.get_by_test_id("replay-last").click()
    expect(page.get_by_test_id("replay-event")).to_have_text("The game ended with 50 piles.")
    # Played back at the speed it was played (here 4 times faster), to the end.
    page.get_by_test_id("replay-first").click()
    page.get_by_test_id("replay-speed").click()
    page.get_by_test_id("replay-speed").click()
    # Its name holds what it shows, so a voice command that says what is on it finds it.
    expect(page.get_by_test_id("replay-speed")).to_have_accessible_name("Speed 4\u00d7")  # 4 times
    page.get_by_test_id("replay-play").click()
    expect(page.get_by_test_id("replay-controls")).to_have_attribute("data-state", "done", timeout=20_000)
    expect(page.locator(PILE)).to_have_count(50)

    # Grace's game, read by Ada: its notes speak of Grace, and nothing calls today's deal practice.
    graces_game = re.search(r"/games/(\d+)/replay$", page.url)
    assert graces_game is not None
    page.goto(f"/games/{graces_game[1]}")
    # Other tests of the suite play the same day: the rank and count are whatever the board says.
    result_note = re.compile(re.escape(grace) + r" is number \d+ of \d+ on the day's leaderboard\.")
    expect(page.locator('[data-role="result-note"]')).to_have_text(result_note)
    expect(page.locator('[data-role="play-again"]')).to_have_text("Play today's daily deal")


@pytest.mark.parametrize("language", ["en", "fa"])
def test_on_a_phone_the_days_commitment_reads_as_lines_not_a_column(
    browser: Browser, site_url: str, language: str
) -> None:
    with player_page(browser, site_url, width=360, height=740, locale=LANGUAGES[language], touch=True) as phone:
        phone.goto("/daily")
        commitment = phone.locator('[data-seed="commitment"]')
        expect(commitment).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
        # An inline element has one client rectangle per line it takes: the 64-character hash in at most three.
        assert commitment.evaluate("(code) => code.getClientRects().length") <= 3
        seed = phone.locator('[data-seed="seed"]')
        assert seed.evaluate("(code) => code.getClientRects().length") <= 2
        # Not published yet, the seed is a sentence in the page's font and direction, not a code.
        assert seed.evaluate(
            "(code) => getComputedStyle(code).fontFamily === getComputedStyle(document.body).fontFamily"
            " && getComputedStyle(code).direction === getComputedStyle(document.body).direction"
        )
        assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
