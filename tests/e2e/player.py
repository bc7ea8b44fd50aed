"""What a player does on the board, and what the server says, for the browser tests."""

from __future__ import annotations

import os
import re
import subprocess
from contextlib import AbstractContextManager
from typing import Any

from playwright.sync_api import Browser, Locator, Page, expect

from .conftest import LIFTED_ALLOWANCES, ROOT, player_page

PILE = '[data-testid="pile"]'
MY_PILES = '[data-testid="my-board"] [data-testid="pile"]'  # the racer's own board on the race page
SIZES = {"phone": (360, 740), "desktop": (1280, 800)}
LANGUAGES = {"fa": "fa-IR", "en": "en-GB"}  # the browser's locale for each language the site speaks
# The board slides piles and flies the moved card over its neighbours (about 0.2 s); a player waits
# for the cards to land before the next tap. Only endless effects (the glow of a lit target) may run.
CARDS_HAVE_LANDED = """() => document.getAnimations().every(
    (a) => a.playState !== "running" || a.effect.getComputedTiming().iterations === Infinity)"""


def visitor_page(browser: Browser, site_url: str, *, language: str, size: str) -> AbstractContextManager[Page]:
    """A new visitor's page, its browser speaking `language` (a key of LANGUAGES), of `size` (a key of SIZES)."""
    width, height = SIZES[size]
    return player_page(browser, site_url, width=width, height=height, locale=LANGUAGES[language])


def server_shell(database_url: str, code: str) -> str:
    """Run `code` in `manage.py shell` on the e2e server's database and channel layer, with its settings;
    return what it printed last."""
    env = {
        **os.environ,
        **LIFTED_ALLOWANCES,
        "DEBUG": "1",
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "accordion_site.settings",
        # The e2e server's channel layer (conftest.site_url), so that what the code announces reaches its sockets.
        "CHANNELS_PREFIX": f"e2e-{os.getpid()}",
    }
    done = subprocess.run(
        [ROOT / ".venv" / "bin" / "python", "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return (done.stdout.strip().splitlines() or [""])[-1]


def pile(page: Page, index: int, piles: str = PILE) -> Locator:
    """Pile `index` of `piles` (the game page's row, or MY_PILES on the race page)."""
    return page.locator(f'{piles}[data-index="{index}"]')


def drag(page: Page, source: int, target: int, piles: str = PILE) -> None:
    """Press on pile `source`, move the mouse over pile `target` in small steps, and let go."""
    page.wait_for_function(CARDS_HAVE_LANDED)
    start, end = pile(page, source, piles).bounding_box(), pile(page, target, piles).bounding_box()
    assert start and end
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
    page.mouse.up()


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


def play(page: Page, move: list[int] | tuple[int, int], piles: str = PILE) -> None:
    """Click pile `from` of `piles`; if it has two places to go (both lit as targets), click pile `to`."""
    source, target = move
    count = page.locator(piles).count()
    page.wait_for_function(CARDS_HAVE_LANDED)
    pile(page, source, piles).click()
    if page.locator(f"{piles}.target").count() == 2:
        expect(pile(page, target, piles)).to_have_class(re.compile(r"\btarget\b"))
        pile(page, target, piles).click()
    expect(page.locator(piles)).to_have_count(count - 1)


def play_any_move(page: Page, piles: str = PILE) -> None:
    """Click the first bright (movable) pile of `piles`, and the first lit target if it asks where to go."""
    count = page.locator(piles).count()
    page.wait_for_function(CARDS_HAVE_LANDED)
    page.locator(f"{piles}.movable").first.click()
    targets = page.locator(f"{piles}.target")
    if targets.count():
        targets.first.click()
    expect(page.locator(piles)).to_have_count(count - 1)


def say_end_game(page: Page) -> None:
    """End game, and say yes in the page's own dialog (the game, race and arena pages alike)."""
    page.get_by_test_id("end-game").click()
    page.get_by_test_id("ask-yes").click()


def end_game(page: Page) -> None:
    """End a game on the game page, which then shows its result."""
    say_end_game(page)
    expect(page.get_by_test_id("result")).to_be_visible()


def me(page: Page) -> int:
    """The id of the page's player (GET /api/me in the page's own session)."""
    answer = page.request.get("/api/me")
    assert answer.ok, answer.text()
    return int(answer.json()["id"])


def racer_card(page: Page, player: int) -> Locator:
    """The race page's card that shows `player`'s progress."""
    return page.locator(f'[data-testid="racer"][data-player="{player}"]')


def api_game(page: Page, game: int) -> dict[str, Any]:
    """GET /api/games/<id> in the page's own session (page.request shares the context's cookies)."""
    response = page.request.get(f"/api/games/{game}")
    assert response.ok, f"GET /api/games/{game}: {response.status} {response.text()}"
    return response.json()  # type: ignore[no-any-return]


def inside_the_screen(page: Page, locator: Locator) -> bool:
    """Whether the element's whole rectangle lies within the window as it is scrolled now: seen without
    scrolling, measured from the element's rectangle, not from a picture."""
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def fits_the_width(page: Page) -> bool:
    """Whether the page needs no sideways scrolling."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def open_a_room(host: Page, friend: Page) -> tuple[int, int]:
    """The host opens a room from the home page and the friend follows the invite link; their ids."""
    host.goto("/")
    host.get_by_test_id("race-a-friend").click()
    host.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
    friend.goto(host.get_by_test_id("invite-link").input_value())
    expect(friend.get_by_test_id("racer")).to_have_count(2)
    return me(host), me(friend)
