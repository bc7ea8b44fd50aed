"""The race's flow in two browsers: the lobby names whom it waits for and starts by itself when everyone
is ready (the host has Start now instead of I'm ready), a finisher sees their place at once while the
other races on, every racer gets Race again, New race and Leave, and a rematch starts once both agree.
And racing on a phone: the other racers are a strip that stays on the first screen beside the player's
whole row, never over it, each opening to its miniature, measured from the elements' rectangles."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import player_page
from .player import LANGUAGES, MY_PILES, me, play_any_move, racer_card

pytestmark = pytest.mark.e2e


def open_a_room(host: Page, friend: Page) -> tuple[int, int]:
    """The host opens a room from the home page and the friend follows the invite link; their ids."""
    host.goto("/")
    host.get_by_test_id("race-a-friend").click()
    host.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
    friend.goto(host.get_by_test_id("invite-link").input_value())
    expect(friend.get_by_test_id("racer")).to_have_count(2)
    return me(host), me(friend)


def nickname(page: Page) -> str:
    return str(page.request.get("/api/me").json()["nickname"])


def end_my_game(page: Page) -> None:
    page.get_by_test_id("end-game").click()
    page.get_by_test_id("ask-yes").click()


def test_the_race_starts_when_everyone_is_ready_and_the_standings_fill_in_as_racers_finish(
    page: Page, other_player_page: Page
) -> None:
    host, friend = page, other_player_page
    host_id, friend_id = open_a_room(host, friend)

    # The host is ready by hosting: Start now beside a line naming whom the room waits for.
    expect(host.get_by_test_id("waiting")).to_contain_text(nickname(friend))
    expect(host.get_by_test_id("start")).to_be_visible()
    expect(host.get_by_test_id("ready")).to_be_hidden()
    expect(friend.get_by_test_id("ready")).to_be_visible()
    expect(friend.get_by_test_id("start")).to_be_hidden()

    friend.get_by_test_id("ready").click()  # nobody presses start
    expect(host.get_by_test_id("countdown")).to_contain_text(re.compile(r"\d"))
    expect(host.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    expect(friend.locator(MY_PILES)).to_have_count(52)

    play_any_move(friend, MY_PILES)
    end_my_game(friend)
    # The friend's place at once, while the host still races; the host sees it too, on their board.
    expect(friend.get_by_test_id("my-place")).to_have_text("Your place so far: 1 of 2.")
    expect(host.get_by_test_id("standing")).to_have_count(1)
    expect(host.get_by_test_id("standings-title")).to_have_text("Standings so far")
    expect(host.get_by_test_id("race-state")).to_have_attribute("data-state", "racing")
    expect(host.get_by_test_id("my-place")).to_be_hidden()
    expect(host.get_by_test_id("end-game")).to_be_enabled()

    end_my_game(host)
    for racer in (host, friend):
        expect(racer.get_by_test_id("standings-title")).to_have_text("Standings")
        expect(racer.get_by_test_id("standing")).to_have_count(2)
        for button in ("rematch", "new-race", "leave-room"):  # every racer, not just the host
            expect(racer.get_by_test_id(button)).to_be_visible()
    expect(friend.get_by_test_id("my-place")).to_have_text("Your place: 1 of 2.")
    expect(host.get_by_test_id("my-place")).to_have_text("Your place: 2 of 2.")

    friend.get_by_test_id("rematch").click()  # not the host: asks all the same
    expect(host.get_by_test_id("rematch-line")).to_contain_text(nickname(friend))
    expect(host.get_by_test_id("rematch-confirm")).to_be_visible()
    expect(friend.get_by_test_id("rematch-confirm")).to_be_hidden()
    host.get_by_test_id("rematch").click()  # both agreed: the next race counts down at once
    for racer in (host, friend):
        expect(racer.get_by_test_id("countdown")).to_contain_text(re.compile(r"\d"))
    expect(friend.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    expect(racer_card(friend, host_id)).to_have_attribute("data-piles", "52")
    assert friend_id != host_id


def test_leave_after_the_race_takes_the_racer_home_and_new_race_opens_a_room(
    page: Page, other_player_page: Page
) -> None:
    host, friend = page, other_player_page
    _, friend_id = open_a_room(host, friend)
    friend.get_by_test_id("ready").click()
    for racer in (host, friend):
        expect(racer.locator(MY_PILES)).to_have_count(52, timeout=15_000)
        end_my_game(racer)
    first_room = host.url
    host.get_by_test_id("new-race").click()
    host.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
    assert host.url != first_room
    friend.get_by_test_id("leave-room").click()
    friend.wait_for_url(re.compile(r"/$"))
    friend.goto(first_room)
    expect(friend.get_by_test_id("standing")).to_have_count(2)
    expect(friend.get_by_test_id("after-race")).to_be_hidden()  # gone from the room: watches it
    assert friend_id


@pytest.fixture(params=["en", "fa"])
def phone(request: pytest.FixtureRequest, browser: Browser, site_url: str) -> Iterator[Page]:
    """A touch phone of 360x740 speaking English or Persian."""
    with player_page(browser, site_url, width=360, height=740, locale=LANGUAGES[request.param], touch=True) as page:
        yield page


# The strip of the other racers and the player's own piles, as rectangles.
STRIP = """() => {
    const box = (element) => {
        const r = element.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};
    };
    const shown = (element) => element.getClientRects().length > 0;
    const cards = [...document.querySelectorAll('[data-testid="racer"]')].filter(shown);
    return {
        viewport: {width: window.innerWidth, height: window.innerHeight},
        cards: cards.map((card) => ({
            player: card.dataset.player,
            box: box(card),
            parts: Object.fromEntries(["racer-name", "racer-piles", "racer-bar"].map((id) => {
                const part = card.querySelector(`[data-testid="${id}"]`);
                return [id, part && shown(part) ? box(part) : null];
            })),
        })),
        piles: [...document.querySelectorAll('[data-testid="my-board"] [data-testid="pile"]')].map(box),
        undo: box(document.querySelector('[data-testid="undo"]')),
    };
}"""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def within(box: dict[str, float], viewport: dict[str, float]) -> bool:
    return (
        box["left"] >= 0
        and box["top"] >= 0
        and box["right"] <= viewport["width"]
        and box["bottom"] <= viewport["height"]
    )


def test_on_a_phone_the_other_racers_are_a_strip_beside_the_whole_row_never_over_it(
    phone: Page, other_player_page: Page
) -> None:
    friend = other_player_page
    _, friend_id = open_a_room(phone, friend)
    friend.get_by_test_id("ready").click()
    expect(phone.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    play_any_move(friend, MY_PILES)
    expect(racer_card(phone, friend_id)).to_have_attribute("data-piles", "51")

    measured = phone.evaluate(STRIP)
    assert [card["player"] for card in measured["cards"]] == [str(friend_id)]  # the others, not the player
    strip = measured["cards"][0]
    assert within(strip["box"], measured["viewport"]), strip
    for part, box in strip["parts"].items():
        assert box is not None and within(box, measured["viewport"]), (part, box)
    assert strip["box"]["height"] <= 60, strip  # one line and a bar: the row keeps the screen
    assert len(measured["piles"]) == 52
    for pile in measured["piles"]:
        assert not overlaps(pile, strip["box"]), (pile, strip["box"])
    assert within(measured["undo"], measured["viewport"])

    # Opened, the strip shows the friend's miniature board; closed, it is compact again.
    expand = racer_card(phone, friend_id).get_by_test_id("racer-expand")
    expand.click()
    expect(racer_card(phone, friend_id).get_by_test_id("pile")).to_have_count(51)
    expect(racer_card(phone, friend_id).get_by_test_id("pile").first).to_be_visible()
    opened = phone.evaluate(STRIP)
    for pile in opened["piles"]:
        assert not overlaps(pile, opened["cards"][0]["box"])
    expand.click()
    expect(racer_card(phone, friend_id).get_by_test_id("pile").first).to_be_hidden()
