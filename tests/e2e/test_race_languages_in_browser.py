"""A race between a Persian and an English browser, one on a phone and one on a desktop: each page speaks
its own language and digits, the card rows still read left to right, and each sees the other's moves live."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from .player import MY_PILES, me, play_any_move, racer_card, say_end_game, visitor_page

pytestmark = pytest.mark.e2e


def expect_the_pages_direction(page: Page, language: str) -> None:
    """The page runs right to left in Persian, left to right in English; every card row left to right."""
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if language == "fa" else "ltr")
    rows = page.get_by_test_id("row")
    expect(rows.first).to_be_visible()
    assert rows.evaluate_all("rows => rows.map(row => row.dir)") == ["ltr"] * rows.count()
    first, second = page.locator(MY_PILES).nth(0).bounding_box(), page.locator(MY_PILES).nth(1).bounding_box()
    assert first and second and first["x"] < second["x"]


@pytest.mark.parametrize(
    ("host_browser", "friend_browser"),
    [(("fa", "phone"), ("en", "desktop")), (("en", "phone"), ("fa", "desktop"))],
    ids=lambda browser: "-".join(browser),
)
def test_racers_in_persian_and_english_each_see_the_others_progress_live(
    browser: Browser, site_url: str, host_browser: tuple[str, str], friend_browser: tuple[str, str]
) -> None:
    (host_language, host_size), (friend_language, friend_size) = host_browser, friend_browser
    with (
        visitor_page(browser, site_url, language=host_language, size=host_size) as host,
        visitor_page(browser, site_url, language=friend_language, size=friend_size) as friend,
    ):
        host.goto("/")
        host.get_by_test_id("race-a-friend").click()
        host.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
        friend.goto(host.get_by_test_id("invite-link").input_value())
        expect(friend.get_by_test_id("racer")).to_have_count(2)
        host_id, friend_id = me(host), me(friend)
        expect(host.get_by_test_id("settings-form")).to_be_visible()
        for page in (host, friend):  # the host's lobby, with its settings, fits a phone too
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

        friend.get_by_test_id("ready").click()  # everyone present is ready: the race starts by itself
        expect(host.locator(MY_PILES)).to_have_count(52, timeout=15_000)
        expect(friend.locator(MY_PILES)).to_have_count(52)

        play_any_move(host, MY_PILES)
        expect(racer_card(friend, host_id)).to_have_attribute("data-piles", "51")
        play_any_move(friend, MY_PILES)
        expect(racer_card(host, friend_id)).to_have_attribute("data-piles", "51")

        for page, language, other_racer in ((host, host_language, friend_id), (friend, friend_language, host_id)):
            expect_the_pages_direction(page, language)
            piles_shown = racer_card(page, other_racer).get_by_test_id("racer-piles")
            expect(piles_shown).to_have_text("\u06f5\u06f1" if language == "fa" else "51")  # 51 in Persian digits

        for page in (host, friend):
            say_end_game(page)
        for page, language in ((host, host_language), (friend, friend_language)):
            first = page.get_by_test_id("standing").first
            expect(first).to_be_visible()
            digits = first.locator("td").evaluate_all("cells => [cells[0].textContent, cells[3].textContent]")
            assert digits == (["\u06f1", "\u06f5\u06f1"] if language == "fa" else ["1", "51"])  # place, piles left
