"""Playing on a phone, measured from the elements' rectangles in real Chromium: at 360x740 and 390x844,
in English and Persian, the whole row of piles, the time, the score and Undo are on the first screen,
nothing is pinned over a pile, every pile is a finger's tap target, and the cards grow as piles go.
Also the keyboard's side of the board on a desktop: the two-target prompt names the keys, and the focus
ring on a pile that cannot move stands out from the felt and from the card."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from .conftest import player_page
from .phone import PHONES, assert_whole_row_on_first_screen, layout, phone_page
from .player import CARDS_HAVE_LANDED, LANGUAGES, PILE, open_board, pile, play, start_code_game

pytestmark = pytest.mark.e2e

WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
TWO_TARGETS = 12  # on WINNING_GAME's deal, pile 12 can go onto pile 11 or pile 9
CANNOT_MOVE = 0  # and pile 0 cannot move


@pytest.fixture(
    params=[(size, language) for size in PHONES for language in LANGUAGES], ids=lambda p: f"{p[0][0]}x{p[0][1]}-{p[1]}"
)
def phone(request: pytest.FixtureRequest, browser: Browser, site_url: str) -> Iterator[Page]:
    """A new visitor on a touch phone of the given size, the browser speaking Persian or English."""
    size, language = request.param
    with phone_page(browser, site_url, size, language) as page:
        yield page


@pytest.mark.parametrize("start", ["new-game", "daily"])
def test_on_a_phone_the_whole_row_the_time_score_and_undo_are_on_the_first_screen(phone: Page, start: str) -> None:
    phone.goto("/")
    phone.get_by_test_id(start).click()
    open_board(phone)
    expect(phone.locator(PILE)).to_have_count(52)
    measured = layout(phone)
    assert_whole_row_on_first_screen(measured)
    # Whether the attempt counts reads whole, and so does a new game's title (a daily's may end in "…").
    assert reads_whole(phone.locator('[data-role="ranked"]'))
    if start == "new-game":
        assert reads_whole(phone.get_by_test_id("game-title"))
    # Scrolled down to the footer, the piles still on the screen are not under anything.
    phone.mouse.wheel(0, 400)
    phone.wait_for_function("window.scrollY > 0")
    scrolled = layout(phone)
    assert all(hit for hit in scrolled["hit"] if hit is not None)
    assert [pinned["name"] for pinned in scrolled["pinned"]] == []


def reads_whole(chip: Locator) -> bool:
    """Whether the chip's words fit its box, with no "…" in their place: the words' own width against the
    box's, to a fraction of a pixel (an ellipsis shows for a fraction short)."""
    return bool(
        chip.evaluate(
            """(chip) => {
                const words = document.createRange();
                words.selectNodeContents(chip);
                const style = getComputedStyle(chip);
                const edges = ["paddingLeft", "paddingRight", "borderLeftWidth", "borderRightWidth"];
                const box = chip.getBoundingClientRect().width;
                const room = edges.reduce((width, edge) => width - parseFloat(style[edge]), box);
                return words.getBoundingClientRect().width <= room + 0.05;
            }"""
        )
    )


def tap(page: Page, index: int) -> None:
    """A finger on pile `index`, where it is on the screen (a click would first scroll it into view)."""
    box = pile(page, index).bounding_box()
    assert box
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def tap_move(page: Page, move: list[int]) -> None:
    """Tap pile `from`; if it has two places to go, tap pile `to`."""
    source, target = move
    count = page.locator(PILE).count()
    page.wait_for_function(CARDS_HAVE_LANDED)
    tap(page, source)
    if page.locator(f"{PILE}.target").count() == 2:
        tap(page, target)
    expect(page.locator(PILE)).to_have_count(count - 1)


@pytest.mark.parametrize(
    ("size", "language"), [((360, 740), "fa"), ((390, 844), "en")], ids=["360x740-fa", "390x844-en"]
)
def test_on_a_phone_the_cards_grow_as_piles_go(
    browser: Browser, site_url: str, size: tuple[int, int], language: str
) -> None:
    with phone_page(browser, site_url, size, language) as page:
        start_code_game(page, WINNING_GAME["deal_code"])
        first = layout(page)["piles"][0]
        for move in WINNING_GAME["moves"][:24]:
            tap_move(page, move)
        expect(page.locator(PILE)).to_have_count(28)
        measured = layout(page)
        assert_whole_row_on_first_screen(measured)
        later = measured["piles"][0]
        assert later["width"] >= first["width"] * 1.2 and later["height"] > first["height"]


def test_on_a_desktop_the_cards_keep_their_size_as_piles_go(page: Page) -> None:
    start_code_game(page, WINNING_GAME["deal_code"])
    first = layout(page)["piles"][0]
    for move in WINNING_GAME["moves"][:4]:
        play(page, move)
    later = layout(page)["piles"][0]
    assert (later["width"], later["height"]) == (first["width"], first["height"])


@pytest.mark.parametrize(
    ("touch", "words", "choice"),
    [
        (False, "press 1 for the neighbour or 3 for the pile three places left", "key"),
        (True, "tap the lit pile to move onto", "tap"),
    ],
    ids=["desktop", "phone"],
)
def test_the_two_target_prompt_names_the_keys_where_a_keyboard_is_at_hand(
    browser: Browser, site_url: str, touch: bool, words: str, choice: str
) -> None:
    width, height = PHONES[1] if touch else (1280, 800)
    with player_page(browser, site_url, width=width, height=height, touch=touch) as page:
        start_code_game(page, WINNING_GAME["deal_code"])
        moved = pile(page, TWO_TARGETS).get_attribute("data-top")
        pile(page, TWO_TARGETS).click()
        expect(page.locator(f"{PILE}.target")).to_have_count(2)
        expect(page.get_by_test_id("status")).to_contain_text(words)
        if choice == "key":
            page.keyboard.press("3")  # the pile three places left
        else:
            pile(page, TWO_TARGETS - 3).click()
        expect(page.locator(PILE)).to_have_count(51)
        expect(pile(page, TWO_TARGETS - 3)).to_have_attribute("data-top", moved or "")


def luminance(rgb: tuple[int, int, int]) -> float:
    """Relative luminance (WCAG 2)."""
    channels = [c / 255 for c in rgb]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def strip(page: Page, x: float, y: float, width: int) -> list[tuple[int, int, int]]:
    """The colours on the screen from (x, y) rightwards, `width` pixels, read from a screenshot."""
    png = page.screenshot(clip={"x": x, "y": y, "width": width, "height": 1}, animations="disabled")
    rgba = page.evaluate(
        """async (data) => {
            const image = await createImageBitmap(await (await fetch(`data:image/png;base64,${data}`)).blob());
            const canvas = new OffscreenCanvas(image.width, 1);
            const context = canvas.getContext("2d");
            context.drawImage(image, 0, 0);
            return [...context.getImageData(0, 0, image.width, 1).data];
        }""",
        base64.b64encode(png).decode(),
    )
    return [(rgba[i], rgba[i + 1], rgba[i + 2]) for i in range(0, len(rgba), 4)]


def test_the_focus_ring_on_a_pile_that_cannot_move_stands_out_from_the_felt_and_the_card(page: Page) -> None:
    """A ring counts as seen when part of it has 3:1 against the felt it is drawn on and part of it
    3:1 against the pile's own (dimmed) card face: WCAG 1.4.11 for a ring of two colours."""
    start_code_game(page, WINNING_GAME["deal_code"])
    expect(pile(page, CANNOT_MOVE)).not_to_have_class("movable")
    page.wait_for_function(CARDS_HAVE_LANDED)
    box = pile(page, CANNOT_MOVE).bounding_box()
    assert box
    # Across the pile's left side at mid-height: the felt's padding, where the ring is drawn, then the card.
    left, y = box["x"] - 12, box["y"] + box["height"] / 2
    before = strip(page, left, y, 20)
    felt, card = before[4], before[18]  # 8 px left of the card; 6 px into it
    for _ in range(40):  # Tab through the header and the bars until the row takes the focus: pile 0
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement?.dataset?.index") == str(CANNOT_MOVE):
            break
    assert page.evaluate("document.activeElement?.dataset?.index") == str(CANNOT_MOVE)
    # The ring: what the focus changed, up to the card's edge.
    ring = [after for after, unfocused in zip(strip(page, left, y, 12), before, strict=False) if after != unfocused]
    assert ring, "no focus ring drawn"
    assert max(contrast(colour, felt) for colour in ring) >= 3, f"ring {ring} on felt {felt}"
    assert max(contrast(colour, card) for colour in ring) >= 3, f"ring {ring} by the card {card}"
