"""What a player does on the board, and what the server says, for the browser tests."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Locator, Page, expect

PILE = '[data-testid="pile"]'
# The board slides piles and flies the moved card over its neighbours (about 0.2 s); a player waits
# for the cards to land before the next tap. Only endless effects (the glow of a lit target) may run.
CARDS_HAVE_LANDED = """() => document.getAnimations().every(
    (a) => a.playState !== "running" || a.effect.getComputedTiming().iterations === Infinity)"""


def pile(page: Page, index: int) -> Locator:
    return page.locator(f'{PILE}[data-index="{index}"]')


def game_id(page: Page) -> int:
    found = re.search(r"/games/(\d+)$", page.url)
    assert found, f"not on a game page: {page.url}"
    return int(found.group(1))


def open_board(page: Page) -> int:
    """Wait for a game page to draw its board; return the game's id."""
    page.wait_for_url(re.compile(r"/games/\d+$"))
    expect(page.locator(PILE).first).to_be_visible()
    return game_id(page)


def start_code_game(page: Page, code: str) -> int:
    page.goto("/")
    page.get_by_test_id("code-input").fill(code)
    page.get_by_test_id("code-submit").click()
    game = open_board(page)
    expect(page.locator(PILE)).to_have_count(52)
    return game


def play(page: Page, move: list[int] | tuple[int, int]) -> None:
    """Click pile `from`; if it has two places to go (both lit as targets), click pile `to`."""
    source, target = move
    count = page.locator(PILE).count()
    page.wait_for_function(CARDS_HAVE_LANDED)
    pile(page, source).click()
    if page.locator(f"{PILE}.target").count() == 2:
        expect(pile(page, target)).to_have_class(re.compile(r"\btarget\b"))
        pile(page, target).click()
    expect(page.locator(PILE)).to_have_count(count - 1)


def play_any_move(page: Page) -> None:
    """Click the first bright (movable) pile, and the first lit target if it asks where to go."""
    count = page.locator(PILE).count()
    page.wait_for_function(CARDS_HAVE_LANDED)
    page.locator(f"{PILE}.movable").first.click()
    targets = page.locator(f"{PILE}.target")
    if targets.count():
        targets.first.click()
    expect(page.locator(PILE)).to_have_count(count - 1)


def end_game(page: Page) -> None:
    """End game, and say yes in the page's own dialog."""
    page.get_by_test_id("end-game").click()
    page.get_by_test_id("ask-yes").click()
    expect(page.get_by_test_id("result")).to_be_visible()


def api_game(page: Page, game: int) -> dict[str, Any]:
    """GET /api/games/<id> in the page's own session (page.request shares the context's cookies)."""
    response = page.request.get(f"/api/games/{game}")
    assert response.ok, f"GET /api/games/{game}: {response.status} {response.text()}"
    return response.json()  # type: ignore[no-any-return]
