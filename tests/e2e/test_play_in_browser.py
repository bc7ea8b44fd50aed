"""A player in real Chromium against a real Daphne: start games from the home page, play by clicking
piles, reload, end the game, and see the score the server verified."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games.engine import legal_moves, replay

from .player import (
    PILE,
    api_game,
    end_game,
    open_board,
    pile,
    play,
    play_any_move,
    server_shell,
    start_code_game,
)

pytestmark = pytest.mark.e2e

WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
API_POLL_TIMEOUT_S = 10
ADDRESS_LIMIT_NOTE = (
    "Practice game: the day's ranked attempts from your network are used up; an account a day old or more "
    "keeps a ranked attempt of its own."
)


# ---------------------------------------------------------------- what a player does


def board(page: Page) -> list[tuple[str | None, str | None]]:
    """Every pile, left to right, as (top card, height)."""
    return [(p.get_attribute("data-top"), p.get_attribute("data-height")) for p in page.locator(PILE).all()]


def timer_seconds(page: Page) -> int:
    *hours, minutes, seconds = (int(part) for part in page.get_by_test_id("timer").inner_text().split(":"))
    return (hours[0] if hours else 0) * 3600 + minutes * 60 + seconds


# ---------------------------------------------------------------- what the server says


def wait_for_server_moves(page: Page, game: int, count: int) -> dict[str, Any]:
    """Poll the API until the server has stored `count` moves (they travel over the socket)."""
    deadline = time.monotonic() + API_POLL_TIMEOUT_S
    while True:
        stored = api_game(page, game)
        if len(stored["moves"]) == count or time.monotonic() > deadline:
            return stored
        page.wait_for_timeout(100)


# ---------------------------------------------------------------- tests


def test_a_player_wins_a_whole_game_by_clicking_and_sees_the_servers_score(page: Page) -> None:
    # 51 animated moves take three times as long; the other tests play with the animations on.
    page.emulate_media(reduced_motion="reduce")
    game = start_code_game(page, WINNING_GAME["deal_code"])

    for move in WINNING_GAME["moves"]:
        play(page, move)

    expect(page.get_by_test_id("result")).to_contain_text("You won!")
    shown = page.get_by_test_id("final-score")
    expect(shown).to_have_text(re.compile(r"^\d+$"))
    stored = api_game(page, game)
    assert (stored["status"], stored["result"]["won"], stored["result"]["piles"]) == ("finished", True, 1)
    assert int(shown.inner_text()) == stored["result"]["score"]
    assert stored["moves"] == WINNING_GAME["moves"]


def test_after_a_win_the_score_bar_shows_the_final_score(page: Page) -> None:
    page.emulate_media(reduced_motion="reduce")
    start_code_game(page, WINNING_GAME["deal_code"])
    for move in WINNING_GAME["moves"]:
        play(page, move)

    final = page.get_by_test_id("final-score")
    expect(final).to_have_text(re.compile(r"^\d+$"))
    expect(page.get_by_test_id("score")).to_have_text(final.inner_text())


def test_a_reload_mid_game_shows_the_same_board_and_a_clock_that_kept_running(page: Page) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    line = WINNING_GAME["moves"][:10]
    for move in line:
        play(page, move)
    before = board(page)
    stored = wait_for_server_moves(page, game, len(line))
    assert stored["moves"] == line
    expect(page.get_by_test_id("timer")).not_to_have_text("0:00")
    seconds_before = timer_seconds(page)

    page.reload()

    expect(page.locator(PILE)).to_have_count(52 - len(line))
    assert board(page) == before
    expect(page.get_by_test_id("piles-count")).to_have_text(str(52 - len(line)))
    assert timer_seconds(page) >= seconds_before >= 1
    assert api_game(page, game)["started_at"] == stored["started_at"]


def test_the_daily_deal_ends_with_the_verified_score_and_reopens_as_practice(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    ranked = open_board(page)
    expect(page.locator('[data-role="ranked"]')).to_have_text("Ranked")
    play_any_move(page)
    play_any_move(page)

    end_game(page)

    stored = api_game(page, ranked)
    assert (stored["ranked"], stored["status"]) == (True, "finished")
    assert (stored["result"]["piles"], stored["result"]["score"]) == (50, 20)
    expect(page.get_by_test_id("final-score")).to_have_text(str(stored["result"]["score"]))

    # docs/api.md: once the ranked attempt is finished, the daily deal comes back as a practice game,
    # offered beside the player's result.
    page.goto("/")
    page.get_by_test_id("daily").click()
    page.get_by_test_id("practice-daily").click()
    page.wait_for_url(re.compile(rf"/games/(?!{ranked}$)\d+$"))
    practice = open_board(page)
    expect(page.locator('[data-role="ranked"]')).to_have_text("Practice")
    expect(page.locator(PILE)).to_have_count(52)
    again = api_game(page, practice)
    assert (again["mode"], again["ranked"], again["status"], again["moves"]) == ("daily", False, "playing", [])
    assert again["deal"] == stored["deal"]


# Run in the e2e server's database: the day's ranked attempts from 127.0.0.1, where every browser of the
# suite comes from, are all taken (or, with TAKEN = False, given back).
ADDRESS_SLOTS = """
import datetime
from django.conf import settings
from games import fair_play
from games.models import RankedSlot
from games.services import deal_for_date
TAKEN = {taken}
now = datetime.datetime.now(datetime.UTC)
deal = deal_for_date(date=now.date())
key = fair_play.address_key("127.0.0.1")
if TAKEN:
    slots = (RankedSlot(deal=deal, address_key=key, taken_at=now) for _ in range(settings.RANKED_ATTEMPTS_PER_ADDRESS))
    RankedSlot.objects.bulk_create(slots)
else:
    RankedSlot.objects.filter(deal=deal, address_key=key, player=None, game=None).delete()
"""


def test_past_the_networks_ranked_attempts_the_daily_is_practice_and_the_page_says_why(
    page: Page, site_database_url: str
) -> None:
    server_shell(site_database_url, ADDRESS_SLOTS.format(taken=True))
    try:
        page.goto("/")
        page.get_by_test_id("daily").click()
        open_board(page)
        chip = page.locator('[data-role="ranked"]')
        expect(chip).to_have_text("Practice")
        expect(chip).to_have_attribute("title", ADDRESS_LIMIT_NOTE)
        end_game(page)
        expect(page.locator('[data-role="result-note"]')).to_have_text(ADDRESS_LIMIT_NOTE)
    finally:
        server_shell(site_database_url, ADDRESS_SLOTS.format(taken=False))


def test_clicking_a_pile_that_cannot_move_changes_nothing(page: Page) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    movable = {source for source, _ in legal_moves(replay(WINNING_GAME["deal"], []))}
    stuck = max(set(range(52)) - movable)
    expect(pile(page, stuck)).not_to_have_class(re.compile(r"\bmovable\b"))

    pile(page, stuck).click()

    expect(page.get_by_test_id("status")).to_contain_text("That pile cannot move")
    expect(page.locator(PILE)).to_have_count(52)
    expect(page.get_by_test_id("piles-count")).to_have_text("52")
    expect(page.locator(f"{PILE}.selected, {PILE}.target")).to_have_count(0)
    assert api_game(page, game)["moves"] == []
