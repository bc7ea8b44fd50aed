"""A friend's deal code typed with a slip is refused, with the friend's code offered; a code shared
before check symbols still opens its deal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from .player import api_game, inside_the_screen, open_board, start_code_game, visitor_page

pytestmark = pytest.mark.e2e

WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"


def with_a_slip(code: str) -> str:
    """`code` with its sixth symbol mistyped as its neighbour in the alphabet, as a hurried thumb does."""
    symbols = code.replace("-", "")
    mistyped = ALPHABET[(ALPHABET.index(symbols[5]) + 1) % len(ALPHABET)]
    return f"{symbols[:4]}-{symbols[4]}{mistyped}{symbols[6:8]}-{symbols[8]}"


@pytest.mark.parametrize("language", ["fa", "en"])
def test_a_slip_in_a_friends_code_on_a_phone_is_refused_and_the_friends_deal_is_one_tap_away(
    browser: Browser, site_url: str, language: str
) -> None:
    with visitor_page(browser, site_url, language="en", size="desktop") as friend:
        friend.goto("/")
        friend.get_by_test_id("new-game").click()
        shared = api_game(friend, open_board(friend))
    with visitor_page(browser, site_url, language=language, size="phone") as page:
        page.goto("/")
        page.get_by_test_id("code-input").fill(with_a_slip(shared["deal_code"]))
        page.get_by_test_id("code-submit").click()
        refusal = page.get_by_test_id("home-error")
        expect(refusal).to_contain_text("اشتباه" if language == "fa" else "mistyped")
        offer = page.get_by_test_id("code-suggestion")
        expect(offer).to_contain_text(shared["deal_code"])
        assert "/games/" not in page.url
        # The refusal and the offer are on screen together, where the player is looking.
        offer.scroll_into_view_if_needed()
        assert inside_the_screen(page, refusal) and inside_the_screen(page, offer)
        offer.click()
        mine = api_game(page, open_board(page))
        assert mine["deal"] == shared["deal"] and mine["deal_code"] == shared["deal_code"]


def test_a_code_shared_before_check_symbols_opens_its_deal_and_shows_the_checked_code(
    browser: Browser, site_url: str
) -> None:
    with visitor_page(browser, site_url, language="en", size="phone") as page:
        game = api_game(page, start_code_game(page, WINNING_GAME["deal_code"]))
        assert game["deal"] == WINNING_GAME["deal"]
        assert game["deal_code"].startswith(WINNING_GAME["deal_code"] + "-")
