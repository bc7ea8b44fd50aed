"""The player's socket follows the game's event stream: resume by version, events made elsewhere
(REST finish, hints, other tabs), gaps filled by `sync`, and no socket waiting behind another's
database work."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games import services
from games.engine import solver
from games.models import Game

from .row_locks import row_locked
from .sockets import game_socket

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def code_game(player, winning_game) -> Game:
    game, _ = await sync_to_async(services.game_start)(
        player=player, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )
    return game


async def play(game: Game, player, moves: list[list[int]]) -> None:
    for move in moves:
        await sync_to_async(services.game_move)(game_id=game.pk, player=player, move=move, now=timezone.now())


async def open_socket(game: Game, player, *, v: int | None):
    socket = await game_socket(game.pk, player, v=v)
    accepted, _ = await socket.connect()
    assert accepted
    return socket


async def test_a_socket_resuming_a_few_versions_back_gets_exactly_the_missed_events(code_game, player, winning_game):
    await play(code_game, player, winning_game["moves"][:4])  # versions 2..5
    socket = await open_socket(code_game, player, v=3)
    missed = [await socket.receive_json_from() for _ in range(2)]
    assert [(event["t"], event["v"], event["move"]) for event in missed] == [
        ("event", 4, winning_game["moves"][2]),
        ("event", 5, winning_game["moves"][3]),
    ]
    assert await socket.receive_nothing(timeout=0.2)
    await socket.disconnect()


async def test_a_socket_that_is_up_to_date_is_sent_nothing_on_connect(code_game, player):
    socket = await open_socket(code_game, player, v=1)
    assert await socket.receive_nothing(timeout=0.2)
    await socket.disconnect()


@pytest.mark.parametrize("v", [None, 0, 999])
async def test_a_socket_without_a_version_too_far_behind_or_ahead_gets_the_whole_state(
    code_game, player, winning_game, monkeypatch, v
):
    from games import consumers

    monkeypatch.setattr(consumers, "MAX_CATCH_UP_EVENTS", 3)
    await play(code_game, player, winning_game["moves"][:4])
    socket = await open_socket(code_game, player, v=v)
    state = await socket.receive_json_from()
    assert state["t"] == "state" and state["v"] == 5
    assert state["game"]["moves"] == winning_game["moves"][:4] and state["game"]["version"] == 5
    assert await socket.receive_nothing(timeout=0.2)
    await socket.disconnect()


async def test_a_client_that_saw_a_gap_gets_the_missing_events_with_sync(code_game, player, winning_game):
    socket = await open_socket(code_game, player, v=1)
    await play(code_game, player, winning_game["moves"][:3])
    live = [await socket.receive_json_from() for _ in range(3)]
    assert [event["v"] for event in live] == [2, 3, 4]
    await socket.send_json_to({"t": "sync", "v": 2, "n": 7})
    again = [await socket.receive_json_from() for _ in range(2)]
    assert [(event["t"], event["v"]) for event in again] == [("event", 3), ("event", 4)]
    await socket.disconnect()


async def test_a_rest_finish_reaches_an_open_socket(code_game, player, winning_game):
    socket = await open_socket(code_game, player, v=1)
    line = winning_game["moves"][:10]
    await sync_to_async(services.game_finish)(game_id=code_game.pk, player=player, moves=line, now=timezone.now())
    event = await socket.receive_json_from()
    assert event["kind"] == "finish" and event["v"] == 2 and event["line"] == line
    assert event["result"] == {"score": 100, "piles": 42, "won": False, "seconds": 0, "good_game": False}
    await socket.disconnect()


async def test_a_hint_reaches_an_open_socket(code_game, player, winning_game, monkeypatch):
    advice = solver.HintResult(status="move", move=tuple(winning_game["moves"][0]))
    monkeypatch.setattr(services, "solver_run", lambda *args, **kwargs: advice)
    socket = await open_socket(code_game, player, v=1)
    await sync_to_async(services.game_hint)(
        game_id=code_game.pk, player=player, accept_unranked=True, now=timezone.now()
    )
    event = await socket.receive_json_from()
    assert (event["kind"], event["v"], event["move"], event["piles"]) == ("hint", 2, None, 52)
    await socket.disconnect()


async def test_a_socket_stuck_behind_a_row_lock_does_not_delay_another_games_ack(player, winning_game, postgres):
    """Database work from sockets runs concurrently: one game's move waiting for a row lock leaves
    another game's move free to be stored and acknowledged."""
    start = sync_to_async(services.game_start)
    locked_game, _ = await start(player=player, mode="code", code=winning_game["deal_code"], now=timezone.now())
    free_game, _ = await start(player=player, mode="new", now=timezone.now())
    async with row_locked(locked_game):
        stuck = await open_socket(locked_game, player, v=1)
        free = await open_socket(free_game, player, v=1)
        await stuck.send_json_to({"t": "move", "move": winning_game["moves"][0], "n": 1})
        free_move = next_legal_move(free_game)
        await free.send_json_to({"t": "move", "move": free_move, "n": 1})
        assert (await free.receive_json_from(timeout=5))["t"] == "ack"
        assert await stuck.receive_nothing(timeout=0.3)  # still waiting for the lock
    assert (await stuck.receive_json_from(timeout=5))["t"] == "ack"
    await stuck.disconnect()
    await free.disconnect()


def next_legal_move(game: Game) -> list[int]:
    from games import engine

    return list(engine.legal_moves(engine.Position.from_deal(game.deal.cards))[0])
