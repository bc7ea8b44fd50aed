"""The player's socket in real Chromium against a real Daphne (docs/api.md, "The player's socket"): a
second tab follows the first from the game's events alone, refusals arrive with their close codes and
are not retried, and the board view draws read-only and small boards for watchers and races."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Request, WebSocket, expect

from .player import PILE, end_game, open_board, play, start_code_game

pytestmark = pytest.mark.e2e

WINNING_GAME = json.loads((Path(__file__).parents[1] / "vectors" / "winning_game.json").read_text())
# A refused link would retry within a second (its first backoff is 0.5 s): watch for three.
NO_RETRY_WATCH_MS = 3000
NO_SUCH_GAME = 2_000_000_000

# Records the close code of every socket the page opens (Playwright's own WebSocket events carry none).
RECORD_CLOSE_CODES = """
window.socketCloseCodes = [];
window.WebSocket = class extends window.WebSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener("close", (event) => window.socketCloseCodes.push(event.code));
  }
};
"""


def board(page: Page) -> list[tuple[str | None, str | None]]:
    return [(p.get_attribute("data-top"), p.get_attribute("data-height")) for p in page.locator(PILE).all()]


def record_sockets(page: Page) -> list[WebSocket]:
    """The sockets `page` opens from now on."""
    opened: list[WebSocket] = []
    page.on("websocket", lambda socket: opened.append(socket))
    return opened


def test_a_second_tab_shows_a_move_made_in_the_first_without_reading_the_game_again(page: Page) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    second = page.context.new_page()
    second.goto(f"/games/{game}")
    open_board(second)
    expect(second.get_by_test_id("connection")).to_have_attribute("data-state", "live")
    reads: list[str] = []

    def note_read(request: Request) -> None:
        if re.search(rf"/api/games/{game}$", request.url):
            reads.append(request.url)

    second.on("request", note_read)

    play(page, WINNING_GAME["moves"][0])

    expect(second.locator(PILE)).to_have_count(51)
    assert board(second) == board(page)
    expect(second.get_by_test_id("piles-count")).to_have_text("51")
    assert reads == []


def test_a_second_tab_shows_the_days_rank_of_a_ranked_game_finished_in_the_first(page: Page) -> None:
    page.goto("/")
    page.get_by_test_id("daily").click()
    game = open_board(page)
    second = page.context.new_page()
    second.goto(f"/games/{game}")
    open_board(second)
    expect(second.get_by_test_id("connection")).to_have_attribute("data-state", "live")

    end_game(page)

    expect(second.get_by_test_id("result")).to_be_visible()
    expect(second.locator('[data-role="result-note"]')).to_contain_text("on the day's leaderboard")
    expect(second.get_by_test_id("result-board-link")).to_be_visible()


def test_someone_elses_game_shows_why_the_socket_was_refused_and_never_retries(
    page: Page, other_player_page: Page
) -> None:
    game = start_code_game(page, WINNING_GAME["deal_code"])
    stranger = other_player_page
    stranger.add_init_script(RECORD_CLOSE_CODES)
    sockets = record_sockets(stranger)

    stranger.goto(f"/games/{game}")

    expect(stranger.get_by_test_id("unavailable")).to_contain_text("is playing this game")
    stranger.wait_for_function("window.socketCloseCodes.length > 0")
    assert stranger.evaluate("window.socketCloseCodes") == [4403]
    stranger.wait_for_timeout(NO_RETRY_WATCH_MS)
    assert len(sockets) == 1
    expect(stranger.locator(PILE)).to_have_count(0)


def test_a_socket_for_a_game_that_does_not_exist_closes_with_4404_and_is_not_retried(page: Page) -> None:
    page.goto("/")  # the game page itself answers 404 for a missing game: open the link from here
    sockets = record_sockets(page)

    refusal: dict[str, Any] = page.evaluate(
        """async (path) => {
            const { GameLink } = await import("/static/js/link.js");
            return new Promise((resolve) => {
                new GameLink({
                    wsPath: path, currentLine: () => [], onGame() {}, onChange() {}, onAdopt() {},
                    onRefused: resolve,
                }).start();
            });
        }""",
        f"/ws/games/{NO_SUCH_GAME}/",
    )

    assert (refusal["closeCode"], refusal["code"]) == (4404, "not_found")
    page.wait_for_timeout(NO_RETRY_WATCH_MS)
    # The home page's TV may follow a live game of its own; only the missing game's sockets count.
    assert len([socket for socket in sockets if "/ws/games/" in socket.url]) == 1


def test_the_board_view_draws_a_read_only_row_and_a_smaller_one_for_races(page: Page) -> None:
    page.goto("/")
    line = WINNING_GAME["moves"][:5]

    page.evaluate(
        """async ({ deal, line }) => {
            const { BoardView } = await import("/static/js/board/view.js");
            const { replay } = await import("/static/js/rules.js");
            const piles = replay(deal, line);
            for (const [id, options] of [["watched", { interactive: false }], ["miniature", { size: "small" }]]) {
                const container = document.createElement("div");
                container.id = id;
                document.body.append(container);
                new BoardView(container, options).show(piles, { movable: [1, 2] });
            }
        }""",
        {"deal": WINNING_GAME["deal"], "line": line},
    )

    for board_id in ("watched", "miniature"):
        piles = page.locator(f"#{board_id} {PILE}")
        expect(piles).to_have_count(52 - len(line))
        expect(piles.first).to_have_attribute("data-top", re.compile(r"^[A2-9TJQK][CDHS]$"))
        focusable = page.evaluate(
            """(id) => [...document.querySelectorAll(`#${id} [data-testid="pile"]`)].filter((pile) => {
                pile.focus();
                return document.activeElement === pile || pile.tagName === "BUTTON";
            }).length""",
            board_id,
        )
        assert focusable == 0, f"{board_id}: a read-only pile can be focused"
        expect(page.locator(f"#{board_id} {PILE}.movable")).to_have_count(0)
    watched = page.locator(f"#watched {PILE}").first.bounding_box()
    miniature = page.locator(f"#miniature {PILE}").first.bounding_box()
    assert watched and miniature
    assert miniature["width"] < watched["width"] / 1.5
