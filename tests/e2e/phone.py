"""Measuring a board on a phone from the elements' rectangles in real Chromium: the solo game page's and
the race page's own row alike (test_phone_play_in_browser.py, test_phone_race_in_browser.py)."""

from __future__ import annotations

import itertools
from contextlib import AbstractContextManager
from typing import Any

from playwright.sync_api import Browser, Page

from .conftest import player_page
from .player import CARDS_HAVE_LANDED, LANGUAGES, PILE

PHONES = [(360, 740), (390, 844)]
TAP_TARGET = 44  # CSS px, each way
HEADER_WHILE_PLAYING = 56  # CSS px: the site's header keeps to one line (wrapped, it took about 175 px)

# The rectangles of every pile of the player's own row, the clock, the score and Undo, of the header, of
# whatever is pinned (position sticky or fixed) and shown, and which pile is hit at each pile's centre.
LAYOUT = """(selector) => {
    const box = (element) => {
        const r = element.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};
    };
    const piles = [...document.querySelectorAll(selector)];
    const pinned = [...document.querySelectorAll("body *")].filter((element) => {
        const position = getComputedStyle(element).position;
        const r = element.getBoundingClientRect();
        return (position === "sticky" || position === "fixed") && r.width > 0 && r.height > 0;
    });
    const hud = (id) => [...document.querySelectorAll(`[data-testid="${id}"]`)].find(
        (element) => element.getClientRects().length > 0);
    return {
        viewport: {width: window.innerWidth, height: window.innerHeight},
        scroll: {x: window.scrollX, y: window.scrollY},
        pageWidth: document.documentElement.scrollWidth,
        piles: piles.map(box),
        hit: piles.map((element) => {
            const r = element.getBoundingClientRect();
            const x = r.left + r.width / 2;
            const y = r.top + r.height / 2;
            if (y < 0 || y > window.innerHeight) return null;
            return document.elementFromPoint(x, y)?.closest('[data-testid="pile"]') === element;
        }),
        header: box(document.querySelector(".site-header")),
        hud: Object.fromEntries(["timer", "score", "undo"].map((id) => [id, box(hud(id))])),
        pinned: pinned.map((element) => ({name: element.className, ...box(element)})),
    };
}"""


def phone_page(browser: Browser, site_url: str, size: tuple[int, int], language: str) -> AbstractContextManager[Page]:
    """A new visitor on a touch phone of `size`, the browser speaking `language` (a key of LANGUAGES)."""
    width, height = size
    return player_page(browser, site_url, width=width, height=height, locale=LANGUAGES[language], touch=True)


def layout(page: Page, piles: str = PILE) -> dict[str, Any]:
    """The rectangles of LAYOUT, once the cards have landed; `piles` selects the player's own row."""
    page.wait_for_function(CARDS_HAVE_LANDED)
    measured: dict[str, Any] = page.evaluate(LAYOUT, piles)
    return measured


def on_first_screen(box: dict[str, float], viewport: dict[str, float]) -> bool:
    return (
        box["left"] >= 0
        and box["top"] >= 0
        and box["right"] <= viewport["width"]
        and box["bottom"] <= viewport["height"]
    )


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def assert_whole_row_on_first_screen(measured: dict[str, Any]) -> None:
    """Every pile, the clock, the score and Undo whole on the screen, unscrolled; every pile a tap target
    of its own that nothing covers, nothing pinned over any pile, and the header on one line."""
    viewport, piles = measured["viewport"], measured["piles"]
    assert measured["scroll"] == {"x": 0, "y": 0}
    assert measured["pageWidth"] <= viewport["width"]  # nothing to scroll sideways
    off_screen = [index for index, box in enumerate(piles) if not on_first_screen(box, viewport)]
    assert off_screen == [], f"piles off the first screen: {off_screen} ({viewport}, last {piles[-1]})"
    for name, box in measured["hud"].items():
        assert on_first_screen(box, viewport), f"{name} is off the first screen: {box}"
    small = [
        (index, box["width"], box["height"])
        for index, box in enumerate(piles)
        if min(box["width"], box["height"]) < TAP_TARGET
    ]
    assert small == [], f"piles smaller than {TAP_TARGET} px each way: {small}"
    assert not any(overlap(a, b) for a, b in itertools.pairwise(piles)), "piles overlap"
    assert all(measured["hit"]), f"covered piles: {[i for i, hit in enumerate(measured['hit']) if not hit]}"
    covered = [
        (pinned["name"], index)
        for pinned in measured["pinned"]
        for index, box in enumerate(piles)
        if overlap(pinned, box)
    ]
    assert covered == []
    assert measured["header"]["height"] <= HEADER_WHILE_PLAYING
