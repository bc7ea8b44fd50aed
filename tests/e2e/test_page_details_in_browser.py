"""The game page's finer points in real Chromium: End game asks in the page, someone else's finished
game names its player, the connection dot follows the browser offline, moves and undos are announced
politely, the after-game buttons do not move as the solver's answer comes in, and a daily result is
shared without spoiling the deal."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import player_page
from .player import CARDS_HAVE_LANDED, PILE, api_game, drag, end_game, game_id, open_board, pile, play, start_code_game

pytestmark = pytest.mark.e2e

CODE = "2222-2222"
# Three legal moves of this deal (see test_hints_in_browser.py).
OPENING = ([2, 1], [4, 1], [6, 3])
SOLVER_TIMEOUT_MS = 20_000
CARD_NAME = re.compile(r"\b(ace|two|three|four|five|six|seven|eight|nine|ten|jack|queen|king) of\b", re.IGNORECASE)


def test_end_game_asks_in_the_page_and_no_keeps_the_game_going(page: Page) -> None:
    start_code_game(page, CODE)
    play(page, OPENING[0])

    page.get_by_test_id("end-game").click()
    dialog = page.get_by_test_id("ask-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("End this game now?")
    page.get_by_test_id("ask-no").click()

    expect(dialog).to_have_count(0)
    expect(page.get_by_test_id("result")).to_be_hidden()
    expect(page.get_by_test_id("end-game")).to_be_enabled()


def test_someone_elses_finished_game_names_its_player(page: Page, other_player_page: Page) -> None:
    game = start_code_game(page, CODE)
    for move in OPENING:
        play(page, move)
    end_game(page)
    page.reload()
    nickname = page.get_by_test_id("nav-profile").locator("bdi").inner_text()

    other_player_page.goto(f"/games/{game}")
    analysis = other_player_page.get_by_test_id("analysis")
    expect(analysis).to_contain_text(f"{nickname}'s last position could still have been won", timeout=SOLVER_TIMEOUT_MS)
    expect(other_player_page.get_by_test_id("result")).not_to_contain_text("Your")


def test_the_connection_dot_goes_offline_with_the_browser_and_back(page: Page) -> None:
    start_code_game(page, CODE)
    connection = page.get_by_test_id("connection")
    expect(connection).to_have_attribute("data-state", "live")

    page.context.set_offline(True)
    expect(connection).to_have_attribute("data-state", "offline")
    page.context.set_offline(False)
    expect(connection).to_have_attribute("data-state", "live", timeout=20_000)


def test_a_move_and_an_undo_are_announced_politely(page: Page) -> None:
    start_code_game(page, CODE)
    announcer = page.get_by_test_id("announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")

    play(page, OPENING[0])
    expect(announcer).to_have_text(re.compile(r" onto .* 51 piles left\.$"))
    page.get_by_test_id("undo").click()
    expect(announcer).to_have_text("Undone. 52 piles left.")


def test_ending_a_game_announces_the_final_score(page: Page) -> None:
    start_code_game(page, CODE)
    play(page, OPENING[0])
    end_game(page)
    final = page.get_by_test_id("final-score").inner_text()
    expect(page.get_by_test_id("announcer")).to_have_text(f"Game over — final score {final}")


def test_the_after_game_buttons_stay_put_while_the_solver_and_the_name_offer_arrive(page: Page) -> None:
    start_code_game(page, CODE)
    play(page, OPENING[0])
    end_game(page)
    result = page.get_by_test_id("result")
    page.wait_for_function("document.querySelector('[data-testid=result]').getAnimations().length === 0")  # risen
    new_game = result.locator('[data-role="new-game"]')
    before = new_game.bounding_box()
    analysis = page.get_by_test_id("analysis")
    expect(analysis).to_have_attribute("aria-busy", "false", timeout=SOLVER_TIMEOUT_MS)
    expect(page.get_by_test_id("replay-deal")).to_be_visible()  # the solver's answer has grown its box
    offer = result.get_by_test_id("name-offer")
    expect(offer).to_be_visible()  # a guest is offered to pick a nickname
    after = new_game.bounding_box()
    assert before is not None and after is not None
    assert (after["x"], after["y"]) == (before["x"], before["y"])
    for late in (offer, analysis):
        box = late.bounding_box()
        assert box is not None and box["y"] > after["y"] + after["height"]


def start_daily_and_end_it(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    open_board(page)
    play(page, _first_movable(page))
    end_game(page)


def _first_movable(page: Page) -> tuple[int, int]:
    index = page.locator(f"{PILE}.movable").first.get_attribute("data-index")
    assert index is not None
    source = int(index)
    return source, source - 1  # play() clicks the lit target only when there are two


def test_share_copies_a_summary_of_the_daily_result_that_gives_no_card_away(page: Page) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    start_daily_and_end_it(page)

    page.get_by_test_id("share").click()
    expect(page.locator('[data-role="share-done"]')).to_contain_text("Copied")
    summary = page.evaluate("navigator.clipboard.readText()")
    # The link leads to that day's board, not the home page.
    assert re.search(r"daily deal of .+: 51 piles left, \d+ points in \d+:\d\d\. \S+/daily/\d{4}-\d\d-\d\d$", summary)
    assert not CARD_NAME.search(summary), summary


def test_without_a_clipboard_share_shows_the_summary_selected(page: Page) -> None:
    page.add_init_script("Object.defineProperty(navigator, 'clipboard', { value: undefined })")
    start_daily_and_end_it(page)

    page.get_by_test_id("share").click()
    text = page.get_by_test_id("share-text")
    expect(text).to_be_visible()
    expect(text).to_have_value(re.compile(r"daily deal of .+: 51 piles left"))
    selected = page.evaluate(
        "() => { const f = document.activeElement; return f.value.slice(f.selectionStart, f.selectionEnd); }"
    )
    assert selected == text.input_value()


def test_dragging_a_pile_onto_its_target_plays_the_move(page: Page) -> None:
    start_code_game(page, CODE)
    source, target = OPENING[0]
    moved = pile(page, source).get_attribute("data-top")

    drag(page, source, target)

    expect(page.locator(PILE)).to_have_count(51)
    expect(pile(page, target)).to_have_attribute("data-top", moved or "")
    expect(page.locator(f"{PILE}.target")).to_have_count(0)  # a drag is not a tap: nothing is left lit


def test_dropping_a_pile_anywhere_else_puts_it_back(page: Page) -> None:
    start_code_game(page, CODE)
    source, _ = OPENING[0]

    drag(page, source, 20)

    expect(page.locator(PILE)).to_have_count(52)
    expect(page.locator(f"{PILE}.dragging")).to_have_count(0)
    assert api_game(page, game_id(page))["moves"] == []


def touch_drag(page: Page, source: int, target: int) -> None:
    """A finger on pile `source`, sliding over pile `target` in small steps, then lifted: real touch
    events through Chromium's input pipeline (CDP), so the page's touch-action decides, as on a phone,
    whether the slide drags the pile or scrolls the page."""
    page.wait_for_function(CARDS_HAVE_LANDED)
    start, end = pile(page, source).bounding_box(), pile(page, target).bounding_box()
    assert start and end
    x0, y0 = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    x1, y1 = end["x"] + end["width"] / 2, end["y"] + end["height"] / 2
    finger = page.context.new_cdp_session(page)
    finger.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for step in range(1, 11):
        x, y = x0 + (x1 - x0) * step / 10, y0 + (y1 - y0) * step / 10
        finger.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    finger.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finger.detach()


@pytest.mark.parametrize("target_of_first_move", [True, False], ids=["onto-its-target", "anywhere-else"])
def test_a_finger_drags_a_pile_on_a_phone(browser: Browser, site_url: str, target_of_first_move: bool) -> None:
    with player_page(browser, site_url, width=390, height=844, touch=True) as phone:
        start_code_game(phone, CODE)
        source, target = OPENING[0]
        moved = pile(phone, source).get_attribute("data-top")
        scrolled = phone.evaluate("window.scrollY")

        touch_drag(phone, source, target if target_of_first_move else 20)

        if target_of_first_move:
            expect(phone.locator(PILE)).to_have_count(51)
            expect(pile(phone, target)).to_have_attribute("data-top", moved or "")
        else:
            expect(phone.locator(f"{PILE}.dragging")).to_have_count(0)
            expect(phone.locator(PILE)).to_have_count(52)
            assert api_game(phone, game_id(phone))["moves"] == []
        assert phone.evaluate("window.scrollY") == scrolled  # the finger dragged the pile, not the page


def colour_of_first(page: Page, suit: str) -> str:
    return page.locator(f'{PILE} .card[data-card$="{suit}"]').first.evaluate("(card) => getComputedStyle(card).color")


def test_the_four_colour_deck_colours_clubs_and_diamonds_and_is_remembered(page: Page) -> None:
    start_code_game(page, CODE)
    hearts, spades = colour_of_first(page, "H"), colour_of_first(page, "S")
    assert (colour_of_first(page, "D"), colour_of_first(page, "C")) == (hearts, spades)

    toggle = page.get_by_test_id("four-colour-toggle")
    toggle.click()
    expect(toggle).to_have_attribute("aria-checked", "true")
    assert len({hearts, spades, colour_of_first(page, "D"), colour_of_first(page, "C")}) == 4

    page.reload()
    expect(page.locator(PILE).first).to_be_visible()
    expect(page.get_by_test_id("four-colour-toggle")).to_have_attribute("aria-checked", "true")
    assert len({hearts, spades, colour_of_first(page, "D"), colour_of_first(page, "C")}) == 4
