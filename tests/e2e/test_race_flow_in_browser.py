"""The race's flow in two browsers: the lobby names whom it waits for and starts by itself when everyone
is ready (the host has Start now instead of I'm ready), a finisher sees their place at once while the
other races on, every racer gets Race again, New race and Leave, and a rematch starts once both agree
or when the host confirms it; the host may start before everyone is ready, and who is not watches.
Racing on a phone: test_phone_race_in_browser.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import player_page
from .player import MY_PILES, open_a_room, play_any_move, racer_card, say_end_game

pytestmark = pytest.mark.e2e


def nickname(page: Page) -> str:
    return str(page.request.get("/api/me").json()["nickname"])


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
    board_before = host.get_by_test_id("my-board").bounding_box()
    say_end_game(friend)
    # The friend's place at once, while the host still races; the host sees it too, below their board,
    # which stays where it was under the host's finger.
    expect(friend.get_by_test_id("my-place")).to_have_text("Your place so far: 1 of 2.")
    expect(host.get_by_test_id("standing")).to_have_count(1)
    expect(host.get_by_test_id("standings-title")).to_have_text("Standings so far")
    board_after = host.get_by_test_id("my-board").bounding_box()
    standings = host.get_by_test_id("standings-panel").bounding_box()
    assert board_before and board_after and standings
    assert board_after["y"] == board_before["y"]
    assert standings["y"] > board_after["y"] + board_after["height"]
    expect(host.get_by_test_id("race-state")).to_have_attribute("data-state", "racing")
    expect(host.get_by_test_id("my-place")).to_be_hidden()
    expect(host.get_by_test_id("end-game")).to_be_enabled()

    say_end_game(host)
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
        say_end_game(racer)
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


def test_the_host_starts_before_a_third_racer_is_ready_and_that_racer_watches_the_round(
    browser: Browser, site_url: str, page: Page, other_player_page: Page
) -> None:
    host, friend = page, other_player_page
    host_id, friend_id = open_a_room(host, friend)
    with player_page(browser, site_url) as third:
        third.goto(host.url)
        expect(third.get_by_test_id("racer")).to_have_count(3)
        friend.get_by_test_id("ready").click()
        expect(host.get_by_test_id("waiting")).to_contain_text(nickname(third))
        host.get_by_test_id("start").click()  # two are ready; the third has not said so
        expect(host.locator(MY_PILES)).to_have_count(52, timeout=15_000)
        expect(friend.locator(MY_PILES)).to_have_count(52)
        expect(third.get_by_test_id("race-message")).to_contain_text("You are watching this round")
        expect(third.get_by_test_id("my-race")).to_be_hidden()
        expect(third.get_by_test_id("racer")).to_have_count(2)
        play_any_move(host, MY_PILES)
        expect(racer_card(third, host_id)).to_have_attribute("data-piles", "51")
        expect(racer_card(third, friend_id)).to_have_attribute("data-piles", "52")


def test_the_host_confirms_a_rematch_a_racer_asked_for(page: Page, other_player_page: Page) -> None:
    host, friend = page, other_player_page
    open_a_room(host, friend)
    friend.get_by_test_id("ready").click()
    for racer in (host, friend):
        expect(racer.locator(MY_PILES)).to_have_count(52, timeout=15_000)
        say_end_game(racer)
    expect(host.get_by_test_id("rematch")).to_be_visible()
    friend.get_by_test_id("rematch").click()
    host.get_by_test_id("rematch-confirm").click()  # the host does not ask: they confirm the friend's wish
    for racer in (host, friend):
        expect(racer.get_by_test_id("countdown")).to_contain_text(re.compile(r"\d"))
        expect(racer.locator(MY_PILES)).to_have_count(52, timeout=15_000)
