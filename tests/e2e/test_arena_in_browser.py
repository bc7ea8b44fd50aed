"""Arenas in real Chromium against a real Daphne: a player opens an arena from the arenas page, joins
it and plays on its page; a win brings the next deal at once and moves the standings every page shows;
a spectator, counted on the page, follows the standings and the top boards, and opens a player's game
from the standings; the results replay every game; the profile lists the arena. On a Persian phone too."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, WebSocketRoute, expect

from .conftest import player_page
from .player import (
    CARDS_HAVE_LANDED,
    MY_PILES,
    PILE,
    fits_the_width,
    inside_the_screen,
    me,
    play,
    say_end_game,
    server_shell,
    visitor_page,
)
from .test_languages_in_browser import serious_violations

pytestmark = pytest.mark.e2e

SOLUTION = "from games.models import Game; import json; print(json.dumps(Game.objects.get(pk={game}).deal.solution))"
# A POST to the API from the page, with its CSRF token, as the page's own scripts send it: status and body.
API_POST = """async ([url, body]) => {
    const token = document.querySelector('meta[name="csrf-token"]').content;
    const response = await fetch(url, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRFToken": token}, body: JSON.stringify(body),
    });
    return [response.status, await response.json()];
}"""
CLEAR = (
    "from django.utils import timezone; from games.services import games_review; "
    "games_review(game_ids=[{game}], decision='cleared', reason='a browser test', reviewer=None, now=timezone.now())"
)
# Persian: "Join the arena".
JOIN_FA = "به میدان بپیوندید"


def open_arena(page: Page, *, minutes: int = 10) -> str:
    """Open an arena that starts now from the arenas page; return its code once its page is open."""
    page.goto("/arenas")
    page.get_by_test_id("arena-minutes").fill(str(minutes))
    page.get_by_test_id("arena-starts-in").select_option("0")
    page.get_by_test_id("arena-create").click()
    page.wait_for_url(re.compile(r"/arenas/[A-Z0-9]+$"))
    return page.url.rsplit("/", 1)[1]


def join(page: Page) -> int:
    """Join the arena whose page is open; return the id of the game that comes."""
    page.get_by_test_id("arena-join").click()
    expect(page.locator(MY_PILES)).to_have_count(52)
    return current_game(page)


def current_game(page: Page) -> int:
    """The participant's game on the page."""
    return int(page.get_by_test_id("my-arena-game").get_attribute("data-game") or "0")


def next_game_after(page: Page, game: int) -> int:
    """Wait for the next game to come on the page after `game`; return its id."""
    expect(page.get_by_test_id("my-arena-game")).not_to_have_attribute("data-game", str(game))
    expect(page.locator(MY_PILES)).to_have_count(52)
    return current_game(page)


def standing(page: Page, player: int) -> Locator:
    """`player`'s row of the standings on the arena page."""
    return page.locator(f'[data-testid="standing"][data-player="{player}"]')


def nickname(page: Page) -> str:
    answer = page.request.get("/api/me")
    assert answer.ok, answer.text()
    return str(answer.json()["nickname"])


def win(page: Page, site_database_url: str, game: int) -> None:
    """Play the first moves of the deal's winning line on the board, then send the whole line to finish it."""
    line = json.loads(server_shell(site_database_url, SOLUTION.format(game=game)))
    for move in line[:2]:
        play(page, move, MY_PILES)
    page.wait_for_function(CARDS_HAVE_LANDED)
    status, _ = page.evaluate(API_POST, [f"/api/games/{game}/finish", {"moves": line}])
    assert status == 200
    # A whole winning line at once is held for a fair-play review, and counts once staff clear it.
    server_shell(site_database_url, CLEAR.format(game=game))


@pytest.mark.usefixtures("shared_channel_layer")  # the fair-play clearance of `win` is announced from a shell
def test_players_join_play_two_games_and_a_spectator_follows_the_standings_and_a_game(
    page: Page, other_player_page: Page, browser: Browser, site_url: str, site_database_url: str
) -> None:
    code = open_arena(page)
    first = join(page)
    expect(page.get_by_test_id("arena-state")).to_have_text("Live")
    expect(page.get_by_test_id("arena-clock")).to_contain_text("Ends in")
    friend = other_player_page
    friend.goto(f"/arenas/{code}")
    friend_game = join(friend)
    expect(page.get_by_test_id("arena-players")).to_have_text("2 players")

    # A win: the next deal comes at once, and every page's standings put the winner first.
    win(page, site_database_url, first)
    second = next_game_after(page, first)
    leader = standing(friend, me(page))
    expect(leader).to_have_attribute("data-rank", "1")
    expect(leader.locator("td").nth(3)).to_have_text("1")  # games
    expect(leader.locator("td").nth(4)).to_have_text("1")  # wins
    points = leader.get_by_test_id("standing-points").inner_text()
    assert int(points) > 1000  # 510 for the piles, 500 for the win, and the time bonus
    expect(page.get_by_test_id("my-points")).to_have_text(points)

    # A second game, ended early: it counts, and the third deal comes.
    play(page, line_start(page), MY_PILES)
    say_end_game(page)
    third = next_game_after(page, second)
    expect(standing(friend, me(page)).locator("td").nth(3)).to_have_text("2")

    # A spectator: the standings and the top boards live, and a player's game from the standings.
    with player_page(browser, site_url) as spectator:
        spectator.goto(f"/arenas/{code}")
        expect(spectator.get_by_test_id("arena-join")).to_be_visible()
        expect(page.get_by_test_id("arena-spectators")).to_have_text("1 watching")
        expect(spectator.locator('[data-testid="top-board"]')).to_have_count(2)
        expect(spectator.locator(f'[data-testid="top-board"][data-game="{friend_game}"] {PILE}')).to_have_count(52)
        standing(spectator, me(friend)).get_by_test_id("standing-watch").click()
        spectator.wait_for_url(f"**/watch/{friend_game}")
        expect(spectator.locator(PILE)).to_have_count(52)
        expect(spectator.locator('[data-role="mode"]')).to_have_text("Arena")
        play(friend, line_start(friend), MY_PILES)
        expect(spectator.locator(PILE)).to_have_count(51)
        # TV features the arena's leader.
        spectator.goto("/")
        expect(spectator.get_by_test_id("tv")).to_have_attribute("data-game", str(third))

    # The profile lists the arena; the results lead to the arena's games (replayable once it is over).
    page.goto(f"/players/{nickname(page)}")
    expect(page.locator(f'[data-testid="profile-arena"][data-code="{code}"]')).to_be_visible()
    page.goto(f"/arenas/{code}/results")
    expect(page.get_by_test_id("result-row")).to_have_count(2)
    expect(page.get_by_test_id("results-not-over")).to_be_visible()


def test_a_participant_never_watches_the_deal_they_play_among_the_top_boards(
    page: Page, other_player_page: Page
) -> None:
    code = open_arena(page)
    leaders_game = join(page)
    play(page, line_start(page), MY_PILES)
    friend = other_player_page
    friend.goto(f"/arenas/{code}")
    leaders_board = friend.locator(f'[data-testid="top-board"][data-game="{leaders_game}"]')
    expect(friend.get_by_test_id("arena-top")).to_be_visible()
    expect(leaders_board.locator(PILE)).to_have_count(51)  # a spectator watches any deal

    first = join(friend)  # the same deal as the leader's game: its board goes, and says why
    expect(leaders_board.locator(PILE)).to_have_count(0)
    expect(leaders_board).to_contain_text("you are playing this deal yourself: finish your game first")

    play(friend, line_start(friend), MY_PILES)
    say_end_game(friend)
    next_game_after(friend, first)  # the next deal: the leader's game may be watched again
    expect(leaders_board.locator(PILE)).to_have_count(51)


def line_start(page: Page) -> list[int]:
    """A move that can be played on the participant's board: its first bright pile onto its first target."""
    page.wait_for_function(CARDS_HAVE_LANDED)
    source = int(page.locator(f"{MY_PILES}.movable").first.get_attribute("data-index") or "0")
    tops = page.locator(MY_PILES).evaluate_all("piles => piles.map(p => p.dataset.top)")
    target = next(t for t in (source - 1, source - 3) if t >= 0 and same_suit_or_rank(tops[source], tops[t]))
    return [source, target]


def same_suit_or_rank(a: str, b: str) -> bool:
    return a[0] == b[0] or a[1] == b[1]


def test_the_board_stays_put_while_the_next_deal_is_on_its_way(page: Page) -> None:
    # The arena socket's `next` is held back, so the page says the next deal is coming and, after a
    # while, asks for it over HTTP: the board must not move under the player's finger either time.
    def arena_socket(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        server.on_message(lambda message: None if json.loads(message).get("t") == "next" else socket.send(message))

    page.route_web_socket(re.compile(r"/ws/arenas/"), arena_socket)
    open_arena(page)
    first = join(page)
    board = page.get_by_test_id("my-board")
    playing_at = box(board)["y"]
    play(page, line_start(page), MY_PILES)
    say_end_game(page)
    message = page.get_by_test_id("arena-message")
    expect(message).to_have_text("Game over: the next deal is coming…")
    assert box(board)["y"] == playing_at
    assert box(message)["y"] >= playing_at + box(board)["height"]  # said below the board
    next_game_after(page, first)
    assert box(board)["y"] == playing_at


def box(element: Locator) -> dict[str, float]:
    found = element.bounding_box()
    assert found is not None, element
    return dict(found)


def test_a_participant_waits_for_the_countdown_gets_the_first_deal_at_the_start_and_resumes_after_a_reload(
    page: Page,
) -> None:
    page.goto("/arenas")
    status, arena = page.evaluate(API_POST, ["/api/arenas", {"minutes": 1, "starts_in": 6}])
    assert status == 201
    page.goto(arena["url"])
    expect(page.get_by_test_id("arena-clock")).to_contain_text("Starts in")
    expect(page.get_by_test_id("arena-state")).to_have_text("Starts soon")
    expect(page.get_by_test_id("arena-top")).to_be_hidden()

    page.get_by_test_id("arena-join").click()

    expect(page.get_by_test_id("arena-message")).to_contain_text("your first game comes the moment the arena starts")
    assert page.locator(MY_PILES).count() == 0  # nothing is dealt before the start
    expect(page.locator(MY_PILES)).to_have_count(52, timeout=20_000)
    expect(page.get_by_test_id("arena-state")).to_have_text("Live")
    expect(page.get_by_test_id("arena-clock")).to_contain_text("Ends in")

    # Leave and come back: the same game, as it was left.
    game = current_game(page)
    play(page, line_start(page), MY_PILES)
    page.reload()
    expect(page.locator(MY_PILES)).to_have_count(51)
    assert current_game(page) == game
    expect(page.get_by_test_id("arena-join")).to_be_hidden()


def test_the_results_replay_every_game_once_the_arena_is_over(page: Page, site_database_url: str) -> None:
    code = open_arena(page, minutes=1)
    game = join(page)
    play(page, line_start(page), MY_PILES)
    # The clock runs out (its end moved into the past here), and the server ends the arena.
    server_shell(
        site_database_url,
        "import datetime; from django.utils import timezone; from arenas.models import Arena; "
        "from arenas.services import arena_end; now = timezone.now(); "
        f"Arena.objects.filter(code='{code}').update(starts_at=now - datetime.timedelta(minutes=2), "
        f"ends_at=now - datetime.timedelta(minutes=1)); arena_end(code='{code}', now=now)",
    )
    page.reload()
    expect(page.get_by_test_id("arena-state")).to_have_text("Finished")
    expect(page.get_by_test_id("arena-top")).to_be_hidden()  # no live boards: the results replay them
    page.get_by_test_id("arena-results").click()
    page.wait_for_url(f"**/arenas/{code}/results")
    expect(page.get_by_test_id("arena-seed")).to_be_visible()
    # On a phone the seed breaks across lines instead of running off the screen.
    page.set_viewport_size({"width": 360, "height": 740})
    seed = page.get_by_test_id("arena-seed").bounding_box()
    assert seed and seed["x"] >= 0 and seed["x"] + seed["width"] <= 360 and fits_the_width(page)
    page.get_by_test_id("arena-replay").first.click()
    page.wait_for_url(f"**/games/{game}/replay")
    expect(page.locator(PILE).first).to_be_visible()


def test_a_persian_phone_joins_and_the_whole_board_fits_the_screen(browser: Browser, site_url: str) -> None:
    with visitor_page(browser, site_url, language="fa", size="phone") as phone:
        phone.goto("/")
        phone.get_by_test_id("new-game").click()  # a player first, as most visitors are
        phone.wait_for_url(re.compile(r"/games/\d+$"))
        code = open_arena(phone)
        expect(phone.locator("html")).to_have_attribute("dir", "rtl")
        expect(phone.get_by_test_id("arena-join")).to_have_text(JOIN_FA)
        join(phone)
        phone.wait_for_function(CARDS_HAVE_LANDED)
        assert fits_the_width(phone)
        piles = phone.locator(MY_PILES)
        assert inside_the_screen(phone, piles.first) and inside_the_screen(phone, piles.last)
        for stat in ("timer", "score", "undo"):
            assert inside_the_screen(phone, phone.get_by_test_id(stat)), stat
        assert code


@pytest.mark.parametrize("locale", ["en-GB", "fa-IR"])
def test_the_arena_pages_and_tv_have_no_serious_accessibility_violations(
    browser: Browser, site_url: str, locale: str
) -> None:
    with player_page(browser, site_url, locale=locale) as page:
        found: dict[str, Any] = {}

        def audit(where: str) -> None:
            page.wait_for_load_state("networkidle")
            found[where] = serious_violations(page)

        code = open_arena(page)
        join(page)
        audit("arena")
        page.goto(f"/arenas/{code}/results")
        audit("results")
        page.goto("/arenas")
        expect(page.get_by_test_id("arenas-live").get_by_test_id("arena").first).to_be_visible()
        audit("arenas")
        page.goto("/tv")
        audit("tv")
        assert {where: violations for where, violations in found.items() if violations} == {}


# The site's own arenas of the next two hours, as its periodic job (and `make run`) creates them; and
# their removal, so that no other test meets them.
SCHEDULE = (
    "from django.utils import timezone; from arenas.services import arenas_schedule; "
    "arenas_schedule(now=timezone.now(), hours=2)"
)
UNSCHEDULE = "from arenas.models import Arena; Arena.objects.exclude(kind=Arena.Kind.PLAYERS).delete()"
# What the site's arenas are called, by kind and language.
ARENA_NAMES = {
    "hourly": {"en-GB": "Hourly arena", "fa-IR": "میدان ساعتی"},
    "daily": {"en-GB": "Daily arena", "fa-IR": "میدان روزانه"},
}


@pytest.mark.parametrize("locale", ["en-GB", "fa-IR"])
def test_the_home_page_shows_the_sites_next_arenas_not_a_players_and_opens_one(
    browser: Browser, site_url: str, site_database_url: str, locale: str
) -> None:
    with player_page(browser, site_url, locale=locale) as page:
        players_arena = open_arena(page)  # live now, but a player's: shared by its link, not promoted
        server_shell(site_database_url, SCHEDULE)
        try:
            page.goto("/")
            listed = page.get_by_test_id("home-arenas").get_by_test_id("arena")
            expect(listed.first).to_be_visible()
            shown = [entry.get_attribute("data-code") for entry in listed.all()]
            arenas = page.request.get("/api/arenas").json()
            soonest = [arena["code"] for arena in arenas["upcoming"] if arena["kind"] != "players"][:2]
            assert players_arena not in shown and shown == soonest
            kinds = {arena["code"]: arena["kind"] for arena in arenas["upcoming"]}
            name = ARENA_NAMES[kinds[shown[0]]][locale]
            expect(listed.first.get_by_test_id("arena-link")).to_contain_text(name)
            page.wait_for_load_state("networkidle")
            assert serious_violations(page) == []
            listed.first.get_by_test_id("arena-link").click()
            page.wait_for_url(f"**/arenas/{shown[0]}")
            expect(page.get_by_test_id("arena-title")).to_contain_text(name)
        finally:
            server_shell(site_database_url, UNSCHEDULE)
