"""Persian and English, phones and desktops, the keyboard and the accessibility check, in real Chromium.
With SCREENSHOTS=1 in the environment (`make screenshots`) the runs save the screenshots the README shows
(docs/screenshots/); otherwise they leave the checkout as it was."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import ROOT, player_page, save_screenshot
from .player import (
    CARDS_HAVE_LANDED,
    LANGUAGES,
    PILE,
    SIZES,
    end_game,
    open_board,
    pile,
    play,
    play_any_move,
    start_code_game,
    visitor_page,
)

pytestmark = pytest.mark.e2e

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
PERSIAN_DIGITS = re.compile("^[\u06f0-\u06f9]+$")  # the Persian digits zero to nine


@pytest.fixture(params=[(language, size) for language in LANGUAGES for size in SIZES], ids=lambda p: "-".join(p))
def visitor(request: pytest.FixtureRequest, browser: Browser, site_url: str) -> Iterator[tuple[Page, str, str]]:
    """A new visitor whose browser speaks Persian or English, on a 360-pixel phone or a desktop."""
    language, size = request.param
    with visitor_page(browser, site_url, language=language, size=size) as page:
        yield page, language, size


def test_the_daily_deal_is_played_to_the_end_in_the_browsers_language(visitor: tuple[Page, str, str]) -> None:
    page, language, size = visitor
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if language == "fa" else "ltr")
    page.get_by_test_id("daily").click()
    open_board(page)
    expect(page.get_by_test_id("undo")).to_contain_text("واگرد" if language == "fa" else "Undo")
    # The card row reads left to right, top to bottom, in both directions.
    expect(page.get_by_test_id("row")).to_have_attribute("dir", "ltr")
    first, second = pile(page, 0).bounding_box(), pile(page, 1).bounding_box()
    assert first and second and first["x"] < second["x"]
    play_any_move(page)
    play_any_move(page)
    piles_shown = page.get_by_test_id("piles-count").inner_text()
    assert piles_shown == ("\u06f5\u06f0" if language == "fa" else "50")  # 50 in Persian digits
    page.wait_for_function(CARDS_HAVE_LANDED)
    save_screenshot(page, f"game-{language}-{size}.png")

    end_game(page)
    final_score = page.get_by_test_id("final-score").inner_text()
    assert PERSIAN_DIGITS.match(final_score) if language == "fa" else final_score.isdigit()
    save_screenshot(page, f"result-{language}-{size}.png", full_page=True)

    page.get_by_test_id("nav-daily").click()
    expect(page.get_by_test_id("board")).to_be_visible()
    # The histogram's axis counts in the page's digits, and the ranking fits the screen's width.
    ticks = page.locator("svg .chart-label").evaluate_all("labels => labels.map(label => label.textContent)")
    assert ticks and all(PERSIAN_DIGITS.match(tick) if language == "fa" else tick.isdigit() for tick in ticks)
    assert tables_fit(page)
    assert chart_labels_inside(page)
    save_screenshot(page, f"leaderboard-{language}-{size}.png", full_page=True)

    page.get_by_test_id("nav-profile").click()
    expect(page.get_by_test_id("recent-games")).to_be_visible()
    assert tables_fit(page)


@pytest.mark.parametrize("locale", ["fa-IR", "en-GB"])
def test_on_a_phone_the_recent_games_fit_the_screen(browser: Browser, site_url: str, locale: str) -> None:
    with player_page(browser, site_url, width=360, height=740, locale=locale) as page:
        for _ in range(2):
            start_code_game(page, WINNING_GAME["deal_code"])
            play_any_move(page)
            end_game(page)
        page.get_by_test_id("nav-profile").click()
        expect(page.get_by_test_id("recent-game")).to_have_count(2)
        assert tables_fit(page)
        assert chart_labels_inside(page)  # the score chart's axis, readable at the phone's own size
        sizes = page.locator("svg .chart-label").evaluate_all(
            "labels => labels.map((label) => label.getBoundingClientRect().height)"
        )
        assert sizes and min(sizes) >= 10
        replay = page.get_by_test_id("recent-game").first.get_by_role("link")
        expect(replay).to_have_accessible_name("بازپخش" if locale == "fa-IR" else "Replay")
        box = replay.bounding_box()
        assert box and box["width"] >= 40 and box["height"] >= 40


def chart_labels_inside(page: Page) -> bool:
    """Whether every chart label is drawn whole inside its chart (in a right-to-left page an SVG
    label's anchor sides swap, which once pushed the axis's end labels out)."""
    return bool(
        page.evaluate(
            """() => [...document.querySelectorAll("svg .chart-label")].every((label) => {
                const chart = label.ownerSVGElement.getBoundingClientRect();
                const box = label.getBoundingClientRect();
                return box.left >= chart.left - 1 && box.right <= chart.right + 1;
            })"""
        )
    )


def tables_fit(page: Page) -> bool:
    """Whether every table is whole on the screen, with no column scrolled out of sight."""
    return bool(
        page.evaluate(
            """() => [...document.querySelectorAll(".table-scroll")]
                .filter((box) => box.offsetParent !== null)
                .every((box) => box.scrollWidth <= box.clientWidth + 1)"""
        )
    )


@pytest.mark.parametrize("width", [360, 390])
def test_on_a_phone_every_pile_fits_and_is_big_enough_to_tap(browser: Browser, site_url: str, width: int) -> None:
    with player_page(browser, site_url, width=width, height=740, locale="fa-IR") as page:
        start_code_game(page, WINNING_GAME["deal_code"])
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        sizes = page.locator(PILE).evaluate_all("piles => piles.map(p => p.getBoundingClientRect().width)")
        assert min(sizes) >= 40
        # The score bar, the status line and the first row of the board are on the first screen.
        for testid in ("score", "status", "undo"):
            box = page.get_by_test_id(testid).bounding_box()
            assert box and box["y"] + box["height"] <= 740
        top_row = pile(page, 0).bounding_box()
        assert top_row and top_row["y"] + top_row["height"] <= 740


@pytest.mark.parametrize(("size", "tall"), [("phone", 44), ("desktop", 16)])
def test_the_replay_slider_is_a_fingers_height_on_a_phone_and_stays_thin_on_a_desktop(
    browser: Browser, site_url: str, size: str, tall: int
) -> None:
    width, height = SIZES[size]
    with player_page(browser, site_url, width=width, height=height, touch=size == "phone") as page:
        game = start_code_game(page, WINNING_GAME["deal_code"])
        for move in WINNING_GAME["moves"][:3]:
            play(page, move)
        end_game(page)
        page.goto(f"/games/{game}/replay")
        slider = page.get_by_test_id("replay-jump")
        expect(slider).to_have_attribute("max", "4")  # the deal, three moves, the end
        box = slider.bounding_box()
        assert box and round(box["height"]) == tall
        if size == "phone":
            # A finger that lands beside the thin track, not on it, still takes the slider: here to the end.
            page.touchscreen.tap(box["x"] + box["width"] - 2, box["y"] + 4)
            expect(page.get_by_test_id("replay-position")).to_have_text("Step 4 of 4")


def focused_pile(page: Page) -> int | None:
    index = page.evaluate(
        "document.activeElement?.dataset?.testid === 'pile' ? document.activeElement.dataset.index : null"
    )
    return None if index is None else int(index)


def test_a_keyboard_only_player_wins_a_whole_game(page: Page) -> None:
    start_code_game(page, WINNING_GAME["deal_code"])
    for _ in range(40):  # Tab through the header and the bar until the row takes the focus
        page.keyboard.press("Tab")
        if focused_pile(page) is not None:
            break
    assert focused_pile(page) == 0
    for source, target in WINNING_GAME["moves"]:
        page.wait_for_function(CARDS_HAVE_LANDED)
        count = page.locator(PILE).count()
        cursor = focused_pile(page)
        assert cursor is not None
        arrow = "ArrowRight" if source > cursor else "ArrowLeft"
        for _ in range(abs(source - cursor)):
            page.keyboard.press(arrow)
        assert focused_pile(page) == source
        page.keyboard.press("Enter")
        if page.locator(f"{PILE}.target").count() == 2:
            page.keyboard.press(str(source - target))
        expect(page.locator(PILE)).to_have_count(count - 1)
    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("final-score")).to_have_text(re.compile(r"^\d+$"))


# A key as a Persian keyboard layout sends it: the character of that script, in the Latin key's place.
PERSIAN_KEY = "key => document.dispatchEvent(new KeyboardEvent('keydown', {...key, bubbles: true, cancelable: true}))"


def test_the_shortcuts_work_on_a_persian_keyboard_layout(page: Page) -> None:
    start_code_game(page, WINNING_GAME["deal_code"])
    play_any_move(page)
    expect(page.locator(PILE)).to_have_count(51)
    page.evaluate(PERSIAN_KEY, {"key": "ع", "code": "KeyU"})  # U: undo
    expect(page.locator(PILE)).to_have_count(52)


def test_the_row_of_piles_is_a_single_tab_stop(page: Page) -> None:
    start_code_game(page, WINNING_GAME["deal_code"])
    pile(page, 3).focus()
    page.keyboard.press("Tab")
    assert focused_pile(page) is None
    page.keyboard.press("Shift+Tab")
    assert focused_pile(page) == 3


def test_a_pile_is_named_for_a_screen_reader(page: Page) -> None:
    start_code_game(page, WINNING_GAME["deal_code"])
    expect(pile(page, 0)).to_have_accessible_name(re.compile(r"^nine of spades, pile 1 of 52, 1 card\b"))


# The words of the game, race and watch pages' headings in each language.
PAGE_WORDS = {
    "en-GB": {"Shared deal": "Shared deal", "Race": "Race", "Watching": "Watching"},
    "fa-IR": {
        "Shared deal": "\u062f\u0633\u062a \u0647\u0645\u200c\u0631\u0633\u0627\u0646\u06cc\u200c\u0634\u062f\u0647",
        "Race": "\u0645\u0633\u0627\u0628\u0642\u0647",
        "Watching": "\u062f\u0631 \u062d\u0627\u0644 \u062a\u0645\u0627\u0634\u0627",
    },
}
# Screen-reader users move from heading to heading: axe rates a page without an <h1> "moderate", but
# here it counts with the serious findings.
REQUIRED_RULES = ("page-has-heading-one",)


def serious_violations(page: Page) -> list[dict[str, Any]]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [
        {"id": found["id"], "nodes": [node["target"] for node in found["nodes"]][:5]}
        for found in result
        if found["impact"] in ("serious", "critical") or found["id"] in REQUIRED_RULES
    ]


@pytest.mark.parametrize("locale", ["en-GB", "fa-IR"])
def test_the_main_pages_have_no_serious_accessibility_violations(browser: Browser, site_url: str, locale: str) -> None:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: `make test` installs it with npm (package.json)")
    with player_page(browser, site_url, locale=locale) as page:
        found: dict[str, Any] = {}
        headings: dict[str, list[str]] = {}

        def audit(where: str) -> None:
            page.wait_for_load_state("networkidle")
            found[where] = serious_violations(page)
            headings[where] = page.locator("h1").all_inner_texts()

        game = start_code_game(page, WINNING_GAME["deal_code"])
        audit("game")
        page.goto(f"/watch/{game}")
        expect(page.locator(PILE)).to_have_count(52)
        audit("watch")
        page.goto(f"/games/{game}")
        end_game(page)
        page.goto(f"/games/{game}/replay")
        expect(page.get_by_test_id("replay-controls")).to_be_visible()
        audit("replay")
        page.goto("/")
        page.get_by_test_id("race-a-friend").click()
        page.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
        code = page.get_by_test_id("room-code").inner_text()
        audit("race")
        for path in ("/", "/how-to-play", "/daily", "/live", "/account"):
            page.goto(path)
            audit(path)
        assert {where: violations for where, violations in found.items() if violations} == {}
        # One heading says what each page is, in the page's language.
        assert all(len(texts) == 1 and texts[0].strip() for texts in headings.values()), headings
        nickname = page.get_by_test_id("nav-profile").locator("bdi").inner_text()
        words = PAGE_WORDS[locale]
        assert headings["game"] == [words["Shared deal"]]
        assert headings["race"] == [f"{words['Race']} {code}"]
        assert headings["watch"] == [f"{words['Watching']} {nickname}"]
