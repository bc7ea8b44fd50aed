"""Players in real Chromium: a guest plays, signs up, logs out, logs in from another browser and finds
the same history on their profile; a guest names themselves for the leaderboard without signing up; an
account is deleted from its account page."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from .player import api_game, end_game, play, start_code_game
from .test_languages_in_browser import serious_violations

pytestmark = pytest.mark.e2e

WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
PASSWORD = "correct horse battery"


def unique_nickname(stem: str) -> str:
    """Every test of the session shares the server's database: each picks a name of its own."""
    return f"{stem}_{uuid.uuid4().hex[:6]}"


def play_a_short_game(page: Page) -> int:
    """Start the shared deal, play two moves, end the game; return its id."""
    game = start_code_game(page, WINNING_GAME["deal_code"])
    for move in WINNING_GAME["moves"][:2]:
        play(page, move)
    end_game(page)
    expect(page.get_by_test_id("final-score")).to_have_text("20")
    return game


def recent_game(page: Page, game: int) -> Locator:
    return page.locator(f'[data-testid="recent-game"][data-game="{game}"]')


def test_a_guest_signs_up_logs_out_and_finds_the_same_history_in_another_browser(
    page: Page, other_player_page: Page
) -> None:
    game = play_a_short_game(page)
    nickname = unique_nickname("Ada")

    page.get_by_test_id("nav-account").click()
    page.get_by_test_id("signup-nickname").fill(nickname)
    page.get_by_test_id("signup-password").fill(PASSWORD)
    page.get_by_test_id("signup-submit").click()
    page.wait_for_url(re.compile(rf"/players/{nickname}$"))
    expect(page.get_by_test_id("profile-nickname")).to_have_text(nickname)
    expect(recent_game(page, game)).to_be_visible()

    page.get_by_test_id("nav-account").click()
    page.get_by_test_id("logout").click()
    expect(page.get_by_test_id("login-submit")).to_be_visible()
    expect(page.get_by_test_id("nav-profile")).to_have_count(0)
    assert page.request.get("/api/me").status == 404

    elsewhere = other_player_page
    elsewhere.goto("/account")
    elsewhere.get_by_test_id("login-nickname").fill(nickname.upper())
    elsewhere.get_by_test_id("login-password").fill(PASSWORD)
    elsewhere.get_by_test_id("login-submit").click()
    elsewhere.wait_for_url(re.compile(rf"/players/{nickname}$"))
    expect(recent_game(elsewhere, game)).to_be_visible()
    expect(elsewhere.locator('[data-stat="games"]')).to_have_text("1")
    expect(elsewhere.get_by_test_id("nav-profile")).to_contain_text(nickname)
    assert api_game(elsewhere, game)["result"]["score"] == 20

    recent_game(elsewhere, game).get_by_role("link").click()
    elsewhere.wait_for_url(re.compile(rf"/games/{game}$"))


def test_a_password_typed_before_the_page_script_runs_never_reaches_a_url(page: Page) -> None:
    """A slow phone can show the form before its module has loaded: Enter then must not send the form
    the browser's way (a GET with the password in the address, the history and the proxy's log)."""
    page.route("**/js/pages/account.js", lambda route: route.abort())
    page.goto("/account")
    expect(page.get_by_test_id("signup-submit")).to_be_disabled()
    page.get_by_test_id("signup-nickname").fill(unique_nickname("Slow"))
    page.get_by_test_id("signup-password").fill(PASSWORD)
    page.get_by_test_id("signup-password").press("Enter")
    page.wait_for_load_state()
    assert "password" not in page.url
    assert page.url.endswith("/account")
    assert page.request.get("/api/me").status == 404


def test_a_wrong_password_is_told_on_the_login_form(page: Page) -> None:
    page.goto("/account")
    page.get_by_test_id("login-nickname").fill(unique_nickname("Nobody"))
    page.get_by_test_id("login-password").fill("not it")
    page.get_by_test_id("login-submit").click()
    expect(page.locator('[data-form="login"] [role="alert"]')).to_have_text("wrong nickname or password")


def test_a_guest_picks_a_name_for_the_leaderboard_after_a_game(page: Page) -> None:
    """The result panel offers a guest who still has the generated nickname to pick one."""
    play_a_short_game(page)
    nickname = unique_nickname("Zed")
    offer = page.get_by_test_id("result").get_by_test_id("name-offer")
    expect(offer).to_be_visible()
    # A game that counts on no leaderboard: the offer does not speak of one beside the note that says so.
    expect(offer.locator("label")).to_have_text("Pick the name others see")
    offer.get_by_test_id("name-offer-input").fill("<script>")
    offer.get_by_test_id("name-offer-save").click()
    expect(offer.get_by_test_id("name-offer-message")).to_contain_text("letters, digits")
    offer.get_by_test_id("name-offer-input").fill(nickname)
    offer.get_by_test_id("name-offer-save").click()
    expect(offer.get_by_test_id("name-offer-message")).to_contain_text(nickname)
    expect(offer.get_by_test_id("name-offer-message")).to_be_focused()  # not lost with the hidden button
    expect(page.get_by_test_id("nav-profile")).to_contain_text(nickname)  # the header has the new name
    assert page.request.get("/api/me").json()["nickname"] == nickname
    offered_again = page.evaluate(
        """async () => {
            const { offerNickname } = await import("/static/js/name_offer.js");
            return offerNickname(document.createElement("div"));
        }"""
    )
    assert offered_again is False  # a chosen name is not offered again


def test_a_player_deletes_their_account_and_is_back_home_as_a_visitor(page: Page) -> None:
    game = play_a_short_game(page)
    nickname = unique_nickname("Gone")
    page.get_by_test_id("nav-account").click()
    page.get_by_test_id("signup-nickname").fill(nickname)
    page.get_by_test_id("signup-password").fill(PASSWORD)
    page.get_by_test_id("signup-submit").click()
    page.wait_for_url(re.compile(rf"/players/{nickname}$"))
    page.get_by_test_id("nav-account").click()
    section = page.get_by_role("form", name="Delete account")
    password = section.get_by_label("Current password")
    assert serious_violations(page) == []

    # A wrong password is told in the form's alert, and the keyboard is back in the field.
    password.fill("not it")
    page.get_by_test_id("delete-submit").click()
    expect(page.get_by_test_id("ask-no")).to_be_focused()  # the safe answer is the default
    page.get_by_test_id("ask-yes").click()
    expect(section.get_by_role("alert")).to_have_text("the current password is wrong")
    expect(password).to_be_focused()

    # "Keep my account" leaves everything as it was.
    password.fill(PASSWORD)
    page.get_by_test_id("delete-submit").click()
    page.get_by_test_id("ask-no").click()
    expect(page.get_by_test_id("delete-submit")).to_be_focused()
    assert page.request.get("/api/me").status == 200

    page.get_by_test_id("delete-submit").click()
    page.get_by_test_id("ask-yes").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.get_by_test_id("nav-profile")).to_have_count(0)
    assert page.request.get("/api/me").status == 404
    assert page.request.get(f"/api/games/{game}").status == 404
    assert page.request.get(f"/api/players/{nickname}").status == 404
