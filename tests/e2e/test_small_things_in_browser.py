"""The small things a phone player met outside the game and race pages: the profile's calendar starts
with this month, the chart's axis does not name one day twice, a long nickname stays whole on the
leaderboard, the replay's speed is in Persian digits, and the Persian date picker is Solar Hijri."""

from __future__ import annotations

import datetime
import json
import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from frontend.jalali import to_jalali

from .player import (
    end_game,
    fits_the_width,
    inside_the_screen,
    open_board,
    play_any_move,
    start_code_game,
    visitor_page,
)

pytestmark = pytest.mark.e2e

WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
LINES_OF = """(element) => { const range = document.createRange(); range.selectNodeContents(element);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size; }"""


def rename(page: Page, nickname: str) -> None:
    page.goto("/account")
    page.get_by_test_id("rename-nickname").fill(nickname)
    page.get_by_test_id("rename-submit").click()
    expect(page.get_by_test_id("nav-profile")).to_contain_text(nickname)


def finish_todays_daily(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    open_board(page)
    play_any_move(page)
    end_game(page)


def test_on_a_phone_a_long_nickname_stays_whole_and_the_calendar_and_chart_read_well(
    browser: Browser, site_url: str
) -> None:
    with visitor_page(browser, site_url, language="fa", size="phone") as page:
        page.goto("/")
        nickname = f"Longname{uuid.uuid4().hex[:12]}"  # 20 characters, the longest a nickname may be
        finish_todays_daily(page)  # a guest's first game makes the player who then takes the name
        rename(page, nickname)

        page.goto("/daily")
        mine = page.get_by_test_id("my-row").locator(".player-name")
        expect(mine).to_have_text(nickname)
        assert mine.evaluate(LINES_OF) == 1  # never broken mid-word
        assert fits_the_width(page)

        page.get_by_test_id("nav-profile").click()
        today = datetime.datetime.now(datetime.UTC).date().isoformat()
        calendar = page.get_by_test_id("calendar")
        expect(calendar.locator(f'[data-date="{today}"]')).to_be_visible()
        # The newest month comes first: today is within sight as soon as the calendar is.
        assert calendar.locator(".month").first.locator(f'[data-date="{today}"]').count() == 1
        calendar.evaluate("(element) => element.scrollIntoView({block: 'start'})")
        assert inside_the_screen(page, calendar.locator(f'[data-date="{today}"]'))
        # All games are today's: the axis names the day once, not at both ends.
        labels = (
            page.get_by_test_id("score-chart")
            .locator(".chart-label")
            .evaluate_all("labels => labels.map(label => label.textContent)")
        )
        days = [label for label in labels if not re.fullmatch("[\u06f0-\u06f9\u066c]+", label)]
        assert len(days) == 1, labels


def test_the_replays_speed_and_next_move_are_written_in_persian_digits(browser: Browser, site_url: str) -> None:
    with visitor_page(browser, site_url, language="fa", size="phone") as page:
        game = start_code_game(page, WINNING_GAME["deal_code"])
        play_any_move(page)
        end_game(page)
        response = page.goto(f"/games/{game}/replay")
        # Already so in the page the server sends, before the page's script has drawn anything.
        assert response is not None and "\u06f1\u00d7" in response.text()
        speed = page.get_by_test_id("replay-speed")
        expect(speed).to_have_text("\u06f1\u00d7")  # one, times, in Persian digits
        speed.click()
        expect(speed).to_have_text("\u06f2\u00d7")
        # The next move's badges, first this pile and then onto that one, count in Persian digits too.
        badges = page.locator('[data-testid="pile"].replay-next').evaluate_all(
            "piles => piles.map((pile) => [pile.dataset.hint, getComputedStyle(pile, '::after').content])"
        )
        assert sorted(badges) == [["from", '"\u06f1"'], ["to", '"\u06f2"']]


def test_the_persian_date_picker_offers_solar_hijri_days_and_opens_the_day_picked(
    browser: Browser, site_url: str
) -> None:
    with visitor_page(browser, site_url, language="fa", size="phone") as page:
        page.goto("/daily")
        expect(page.locator('input[type="date"]')).to_have_count(0)
        yesterday = datetime.datetime.now(datetime.UTC).date() - datetime.timedelta(days=1)
        year, month, day = to_jalali(yesterday)
        picker = page.get_by_test_id("solar-hijri-date")
        assert inside_the_screen(page, picker)
        page.get_by_test_id("date-year").select_option(str(year))
        page.get_by_test_id("date-month").select_option(str(month))
        page.get_by_test_id("date-day").select_option(str(day))
        page.get_by_test_id("date-form").get_by_role("button").click()
        page.wait_for_url(re.compile(rf"/daily/{yesterday.isoformat()}$"))
        expect(page.get_by_test_id("date-day")).to_have_value(str(day))
        assert fits_the_width(page)
