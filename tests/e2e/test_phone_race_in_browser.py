"""Racing on a phone, measured from the elements' rectangles in real Chromium: at 360x740 and 390x844, in
English and Persian, the player's whole row at the start is on the first screen with the time, the score
and Undo, as on the solo board (phone.py), and the other racers are a compact strip (name, piles, place,
a small bar) on that same screen, never over the row, each opening to its miniature."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import player_page, save_screenshot
from .phone import PHONES, assert_whole_row_on_first_screen, layout, on_first_screen, overlap, phone_page
from .player import LANGUAGES, MY_PILES, SIZES, open_a_room, play_any_move, racer_card, say_end_game

pytestmark = pytest.mark.e2e

Phone = tuple[Page, str, tuple[int, int]]  # the page, its language, its size
STRIP_HEIGHT = 60  # CSS px: a racer's line and its bar, so that the row keeps the screen

# The other racers' cards as shown, with the rectangles of their name, piles, place and bar.
STRIP = """() => {
    const box = (element) => {
        const r = element.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};
    };
    const shown = (element) => element.getClientRects().length > 0;
    return [...document.querySelectorAll('[data-testid="racer"]')].filter(shown).map((card) => ({
        player: card.dataset.player,
        box: box(card),
        parts: Object.fromEntries(["racer-name", "racer-piles", "racer-place", "racer-bar"].map((id) => {
            const part = card.querySelector(`[data-testid="${id}"]`);
            return [id, part && shown(part) ? box(part) : null];
        })),
    }));
}"""


@pytest.fixture(
    params=[(size, language) for size in PHONES for language in LANGUAGES], ids=lambda p: f"{p[0][0]}x{p[0][1]}-{p[1]}"
)
def on_a_phone(request: pytest.FixtureRequest, browser: Browser, site_url: str) -> Iterator[Phone]:
    """A touch phone of the given size, the browser speaking Persian or English: the page, its language
    and its size."""
    size, language = request.param
    with phone_page(browser, site_url, size, language) as page:
        yield page, language, size


def strip(page: Page) -> list[dict[str, Any]]:
    measured: list[dict[str, Any]] = page.evaluate(STRIP)
    return measured


def test_on_a_phone_the_whole_row_and_the_strip_of_the_other_racers_share_the_first_screen(
    on_a_phone: Phone, other_player_page: Page
) -> None:
    phone, language, size = on_a_phone
    friend = other_player_page
    _, friend_id = open_a_room(phone, friend)
    friend.get_by_test_id("ready").click()
    expect(phone.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    expect(friend.locator(MY_PILES)).to_have_count(52)
    play_any_move(friend, MY_PILES)
    expect(racer_card(phone, friend_id)).to_have_attribute("data-piles", "51")

    measured = layout(phone, MY_PILES)
    assert len(measured["piles"]) == 52
    assert_whole_row_on_first_screen(measured)
    assert_strip_beside_the_row(phone, measured, str(friend_id))
    if size == SIZES["phone"]:  # the README's phone
        save_screenshot(phone, f"race-{language}-phone.png")

    # Opened, the strip shows the friend's miniature board, never over the row; closed, it is compact again.
    expand = racer_card(phone, friend_id).get_by_test_id("racer-expand")
    expand.click()
    expect(racer_card(phone, friend_id).get_by_test_id("pile")).to_have_count(51)
    expect(racer_card(phone, friend_id).get_by_test_id("pile").first).to_be_visible()
    opened = layout(phone, MY_PILES)
    assert not any(overlap(pile, strip(phone)[0]["box"]) for pile in opened["piles"])
    expand.click()
    expect(racer_card(phone, friend_id).get_by_test_id("pile").first).to_be_hidden()

    # The friend finishes: their place shows in the strip at once, and the standings so far wait below
    # the row, which keeps the first screen.
    say_end_game(friend)
    expect(racer_card(phone, friend_id).get_by_test_id("racer-place")).to_have_text(re.compile(r"^#(1|\u06f1)$"))
    expect(phone.get_by_test_id("standings-title")).to_have_text(re.compile(r"."))
    finished = layout(phone, MY_PILES)
    assert_whole_row_on_first_screen(finished)
    assert_strip_beside_the_row(phone, finished, str(friend_id), place=True)


def assert_strip_beside_the_row(page: Page, measured: dict[str, Any], friend: str, *, place: bool = False) -> None:
    """The other racer's line on the first screen (its name, piles, bar, and `place` once they have one),
    one line and a bar high, over none of the player's piles."""
    cards = strip(page)
    assert [card["player"] for card in cards] == [friend]  # the others, not the player
    card = cards[0]
    assert on_first_screen(card["box"], measured["viewport"]), card
    parts = ["racer-name", "racer-piles", "racer-bar"] + (["racer-place"] if place else [])
    for part in parts:
        box = card["parts"][part]
        assert box is not None and box["width"] > 0 and on_first_screen(box, measured["viewport"]), (part, box)
    assert card["box"]["height"] <= STRIP_HEIGHT, card
    assert not any(overlap(pile, card["box"]) for pile in measured["piles"])


def test_with_three_other_racers_the_strip_stays_one_line_and_the_row_keeps_the_first_screen(
    browser: Browser, site_url: str
) -> None:
    """More racers than the phone's width holds scroll sideways in the strip instead of wrapping it onto
    a second line that would push the row off the first screen."""
    with ExitStack() as pages:
        phone = pages.enter_context(phone_page(browser, site_url, PHONES[0], "en"))
        friends = [pages.enter_context(player_page(browser, site_url)) for _ in range(3)]
        open_a_room(phone, friends[0])
        for friend in friends[1:]:
            friend.goto(phone.get_by_test_id("invite-link").input_value())
        expect(phone.get_by_test_id("racer")).to_have_count(4)
        for friend in friends:
            friend.get_by_test_id("ready").click()
        expect(phone.locator(MY_PILES)).to_have_count(52, timeout=15_000)

        measured = layout(phone, MY_PILES)
        assert_whole_row_on_first_screen(measured)
        cards = strip(phone)
        assert len(cards) == 3
        assert len({round(card["box"]["top"]) for card in cards}) == 1, cards  # one line
        first = cards[0]["box"]
        assert on_first_screen(first, measured["viewport"]) and first["height"] <= STRIP_HEIGHT, first
        assert not any(overlap(pile, card["box"]) for pile in measured["piles"] for card in cards)
