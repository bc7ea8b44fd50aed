"""Two friends race in two browsers: an invite link, ready (the race starts by itself), the countdown,
the same deal on both boards, each seeing the other's progress live, and the standings when both have
ended their games. A racer's board plays like the game page's: drag, the keyboard, and a reload that
resumes moves the server had not heard yet. A racer who wins their game has their moment at once."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from .player import (
    CARDS_HAVE_LANDED,
    MY_PILES,
    PILE,
    api_game,
    drag,
    me,
    pile,
    play,
    play_any_move,
    racer_card,
    say_end_game,
)

pytestmark = pytest.mark.e2e

CODE = "2222-2222"
# Three legal moves of this deal, one after the other (see test_page_details_in_browser.py).
OPENING = ([2, 1], [4, 1], [6, 3])
WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())


def test_two_friends_race_from_an_invite_link_each_seeing_the_other_live(page: Page, other_player_page: Page):
    host, friend = page, other_player_page
    host.goto("/")
    host.get_by_test_id("race-a-friend").click()
    host.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
    invite = host.get_by_test_id("invite-link").input_value()
    assert invite.endswith(host.url.rsplit("/", 1)[1])

    friend.goto(invite)
    expect(friend.get_by_test_id("racer")).to_have_count(2)  # the page took a seat for the friend
    host_id, friend_id = me(host), me(friend)
    expect(racer_card(host, friend_id)).to_be_visible()
    expect(racer_card(friend, host_id)).to_be_visible()
    assert host.get_by_test_id("start").is_visible() and not friend.get_by_test_id("start").is_visible()

    friend.get_by_test_id("ready").click()  # everyone present is ready: the race starts by itself
    expect(friend.get_by_test_id("countdown")).to_contain_text(re.compile(r"\d"))
    assert host.locator(MY_PILES).count() == 0  # nothing is dealt before the start signal

    expect(host.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    expect(friend.locator(MY_PILES)).to_have_count(52)
    tops = host.locator(MY_PILES).evaluate_all("piles => piles.map(p => p.dataset.top)")
    assert friend.locator(MY_PILES).evaluate_all("piles => piles.map(p => p.dataset.top)") == tops

    play_any_move(host, MY_PILES)
    expect(racer_card(friend, host_id)).to_have_attribute("data-piles", "51")
    expect(racer_card(friend, host_id).locator('[data-testid="pile"]')).to_have_count(51)
    play_any_move(friend, MY_PILES)
    play_any_move(friend, MY_PILES)
    expect(racer_card(host, friend_id)).to_have_attribute("data-piles", "50")
    expect(racer_card(host, friend_id).get_by_test_id("racer-moves")).to_have_text("2")

    say_end_game(host)
    expect(racer_card(friend, host_id)).to_have_attribute("data-status", "finished")
    expect(friend.get_by_test_id("announcer")).to_have_text(re.compile(r" finished with 51 piles left\.$"))
    say_end_game(friend)
    for browser_page in (host, friend):
        standings = browser_page.get_by_test_id("standing")
        expect(standings).to_have_count(2)
        expect(standings.first).to_have_attribute("data-player", str(friend_id))  # fewer piles left
    expect(host.get_by_test_id("rematch")).to_be_visible()

    # Each standing's Replay opens that racer's game for the other racer: its line, where it ended.
    for reader, racer, moves in ((friend, host, 1), (host, friend, 2)):
        standing = reader.locator(f'[data-testid="standing"][data-player="{me(racer)}"]')
        link = standing.get_by_role("link", name="Replay")
        href = link.get_attribute("href")
        found = re.fullmatch(r"/games/(\d+)", href or "")
        assert href is not None and found, href
        assert reader.request.get(href).status == 200
        game = api_game(reader, int(found.group(1)))
        assert game["mode"] == "race" and game["status"] == "finished" and len(game["moves"]) == moves
        events = reader.request.get(f"/api/games/{game['id']}/events")
        assert events.ok and events.json()["player"] == racer.request.get("/api/me").json()["nickname"]
        link.click()
        reader.wait_for_url(re.compile(rf"{href}$"))
        expect(reader.get_by_test_id("result")).to_be_visible()
        expect(reader.locator(PILE)).to_have_count(52 - moves)


def test_a_racer_who_left_the_lobby_takes_a_seat_again_without_reloading(page: Page, other_player_page: Page):
    host, friend = page, other_player_page
    host.goto("/")
    host.get_by_test_id("race-a-friend").click()
    host.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
    friend.goto(host.get_by_test_id("invite-link").input_value())
    expect(friend.get_by_test_id("racer")).to_have_count(2)
    friend_id = me(friend)

    friend.get_by_test_id("leave").click()
    expect(host.get_by_test_id("racer")).to_have_count(1)
    friend.get_by_test_id("take-seat").click()

    expect(racer_card(host, friend_id)).to_have_attribute("data-connected", "true")
    expect(friend.get_by_test_id("ready")).to_be_visible()
    expect(friend.get_by_test_id("take-seat")).to_be_hidden()


def start_a_race_alone(page: Page, code: str) -> int:
    """Open a room on the deal `code`, start it alone, and wait for the board; the racer's player id."""
    page.goto("/")
    page.get_by_test_id("race-a-friend").click()
    page.wait_for_url(re.compile(r"/race/[0-9A-Z]{6}$"))
    page.get_by_test_id("deal-code-input").fill(code)
    page.get_by_test_id("settings-save").click()
    expect(page.locator('[data-role="limit"]')).to_contain_text("a deal the host picked")
    page.get_by_test_id("start").click()  # a host alone may start
    expect(page.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    return me(page)


def test_a_racer_drags_a_pile_and_plays_and_undoes_with_the_keyboard(page: Page) -> None:
    racer = start_a_race_alone(page, CODE)
    source, target = OPENING[0]
    moved = pile(page, source, MY_PILES).get_attribute("data-top")

    drag(page, source, target, MY_PILES)

    expect(page.locator(MY_PILES)).to_have_count(51)
    expect(pile(page, target, MY_PILES)).to_have_attribute("data-top", moved or "")
    expect(racer_card(page, racer)).to_have_attribute("data-piles", "51")  # the server has the move

    source, target = OPENING[1]
    page.wait_for_function(CARDS_HAVE_LANDED)
    pile(page, source, MY_PILES).focus()
    page.keyboard.press("Enter")
    if page.locator(f"{MY_PILES}.target").count() == 2:
        page.keyboard.press(str(source - target))  # 1: onto the neighbour, 3: three places left
    expect(page.locator(MY_PILES)).to_have_count(50)
    expect(racer_card(page, racer)).to_have_attribute("data-piles", "50")

    page.keyboard.press("u")
    expect(page.locator(MY_PILES)).to_have_count(51)
    expect(racer_card(page, racer)).to_have_attribute("data-piles", "51")
    expect(racer_card(page, racer).get_by_test_id("racer-moves")).to_have_text("1")


def test_a_reload_mid_race_resumes_moves_the_server_had_not_heard(page: Page) -> None:
    racer = start_a_race_alone(page, CODE)
    # The game socket opens but reaches no server: moves stay on the board, and in the tab's storage.
    cut_off = True

    def game_socket(socket: WebSocketRoute) -> None:
        if not cut_off:
            socket.connect_to_server()

    page.route_web_socket(re.compile(r"/ws/games/\d+/"), game_socket)
    page.reload()
    expect(page.locator(MY_PILES)).to_have_count(52, timeout=15_000)
    for source, target in OPENING[:2]:
        drag(page, source, target, MY_PILES)
    expect(page.locator(MY_PILES)).to_have_count(50)
    page.wait_for_timeout(500)
    expect(racer_card(page, racer)).to_have_attribute("data-piles", "52")  # nothing reached the server

    cut_off = False
    page.reload()

    expect(racer_card(page, racer)).to_have_attribute("data-piles", "50", timeout=15_000)
    expect(page.locator(MY_PILES)).to_have_count(50)
    expect(racer_card(page, racer).get_by_test_id("racer-moves")).to_have_text("2")


def test_a_racer_who_wins_their_game_is_told_the_win_and_their_place_at_once(page: Page) -> None:
    start_a_race_alone(page, WINNING_GAME["deal_code"])
    for move in WINNING_GAME["moves"]:
        play(page, move, MY_PILES)
    place = page.get_by_test_id("my-place")
    expect(place).to_have_text(re.compile(r"^You won in \d+:\d\d! Your place( so far)?: 1 of 1\.$"))
    expect(place).to_have_attribute("data-won", "true")
