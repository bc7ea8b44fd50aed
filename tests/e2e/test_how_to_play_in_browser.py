"""How to play, as a reader sees it: the rules, a worked example, seven tips whose pictures are the board's
own cards, drawn, named and fitting a phone's width, the share of deals the solver wins and the game's
history, in Persian and English."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from accordion_site.languages import persian_digits

from .player import LANGUAGES, SIZES, fits_the_width, visitor_page

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("language", "size"), [("fa", "phone"), ("en", "phone"), ("en", "desktop")])
def test_every_tip_has_its_picture_drawn_with_the_sites_cards_within_the_screens_width(
    browser: Browser, site_url: str, language: str, size: str
) -> None:
    assert language in LANGUAGES and size in SIZES
    with visitor_page(browser, site_url, language=language, size=size) as page:
        page.goto("/how-to-play")
        tips = page.get_by_test_id("tip")
        assert tips.count() >= 6  # at least six strategy tips, each with its picture
        width = SIZES[size][0]
        for board in page.get_by_test_id("tip-board").all():
            cards = board.locator(".card[data-card]")
            expected = len((board.get_attribute("data-cards") or "").split())
            expect(cards).to_have_count(expected)
            for card in cards.all():
                box = card.bounding_box()
                assert box is not None and box["width"] >= 30 and box["x"] >= 0 and box["x"] + box["width"] <= width
        for index in range(tips.count()):
            expect(tips.nth(index).get_by_test_id("tip-board").locator(".card")).not_to_have_count(0)
        assert fits_the_width(page)
        # Each picture is named for screen readers, with the cards' names in the page's language.
        label = page.get_by_test_id("tip").first.get_by_test_id("tip-board").get_attribute("aria-label") or ""
        assert ("هشت پیک" if language == "fa" else "eight of spades") in label
        # The rules played out on a row of six, step by step to one pile.
        expect(page.get_by_test_id("worked-example").get_by_test_id("tip-board")).to_have_count(5)
        # The share of deals the solver wins (frontend/odds.py), in the page's digits (10,000 in Persian).
        won = "\u06f1\u06f0\u066c\u06f0\u06f0\u06f0 " if language == "fa" else "10,000 of 10,000 random deals (100.00%)"
        expect(page.get_by_test_id("odds")).to_contain_text(won)
        # The Idle Year is the game's old name, under which its rules were printed in 1883: not a book.
        history = page.get_by_test_id("history")
        expect(history).to_contain_text("۱۸۸۳" if language == "fa" else "1883")
        expect(history).to_contain_text(
            "با نام قدیمی بازی، «سال بیکاری» (The Idle Year)"
            if language == "fa"
            else "under the game's old name, The Idle Year"
        )


@pytest.mark.parametrize("language", ["fa", "en"])
def test_each_step_of_the_worked_example_begins_with_its_number_in_the_pages_digits(
    browser: Browser, site_url: str, language: str
) -> None:
    persian = language == "fa"
    with visitor_page(browser, site_url, language=language, size="phone") as page:
        page.goto("/how-to-play")
        steps = page.get_by_test_id("worked-example").locator("li > p")
        numbers = [f"{step}." for step in range(1, 6)]
        expect(steps.get_by_test_id("step-number")).to_have_text(
            [persian_digits(number) for number in numbers] if persian else numbers
        )
        # The number stands where the sentence begins: at its right in Persian, at its left in English.
        for step in steps.all():
            sentence = step.bounding_box()
            number = step.get_by_test_id("step-number").bounding_box()
            assert sentence and number
            if persian:
                assert sentence["x"] + sentence["width"] - (number["x"] + number["width"]) < 2
            else:
                assert number["x"] - sentence["x"] < 2
        assert fits_the_width(page)
        # The home page numbers its rules in the page's digits too.
        page.goto("/")
        rules = page.locator(".how-to ol")
        assert rules.evaluate("(list) => getComputedStyle(list).listStyleType") == ("persian" if persian else "decimal")
