"""A plain move or undo on the player's socket is stored from the event loop, on a connection of the
loop's own (realtime/loop_db.py), with no database thread, in one statement with the other moves of the
loop's turn, which skips a game whose row another transaction holds (that move takes the database
threads, as does a move when every such connection is busy); a connection that fails costs one "try
again", never a move."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from games import engine, events, services, store
from games.models import Game, GameEvent
from realtime.loop_db import APPLICATION_NAME, close_loop_connections

from .row_locks import event_pending, row_locked
from .sockets import game_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres", "socket_services_stopped")]


@pytest.fixture
async def code_game(player, winning_game) -> Game:
    game, _ = await sync_to_async(services.game_start)(
        player=player, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )
    return game


async def open_socket(game: Game, player):
    socket = await game_socket(game.pk, player, v=game.version)
    accepted, _ = await socket.connect()
    assert accepted
    return socket


async def answer(socket, message: dict) -> dict:
    await socket.send_json_to(message)
    return await socket.receive_json_from(timeout=5)


async def second_game_and_sockets(code_game: Game, player, winning_game) -> tuple[Game, Any, Any]:
    """Another game on `code_game`'s deal, and a socket on each that has played the deal's first move
    (each socket knows its game from then on)."""
    free_game, _ = await sync_to_async(services.game_start)(
        player=player, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )
    sockets = await open_socket(code_game, player), await open_socket(free_game, player)
    for socket in sockets:
        assert (await answer(socket, {"t": "move", "move": winning_game["moves"][0], "n": 1}))["v"] == 2
    return free_game, *sockets


def threads_refused(monkeypatch) -> None:
    """Make the database threads' move and undo path fail loudly, so a change acknowledged anyway was
    stored from the event loop."""

    def not_on_a_thread(*args, **kwargs):
        raise AssertionError("a plain change went to the database threads")

    monkeypatch.setattr(services, "_play", not_on_a_thread)
    monkeypatch.setattr(events, "append_if_unchanged", not_on_a_thread)


@sync_to_async
def stored_line(game: Game) -> tuple[list[list[int]], list[int]]:
    versions = list(GameEvent.objects.filter(game=game).order_by("v").values_list("v", flat=True))
    return Game.objects.get(pk=game.pk).moves, versions


async def test_a_plain_move_is_stored_from_the_event_loop_and_reaches_the_other_tab(
    code_game, player, winning_game, monkeypatch
):
    first, second = winning_game["moves"][:2]
    mover, other_tab = await open_socket(code_game, player), await open_socket(code_game, player)
    assert (await answer(mover, {"t": "move", "move": first, "n": 1}))["v"] == 2  # known from here on
    assert (await other_tab.receive_json_from(timeout=5))["v"] == 2
    threads_refused(monkeypatch)

    ack = await answer(mover, {"t": "move", "move": second, "n": 2})

    assert (ack["t"], ack["v"], ack["piles"]) == ("ack", 3, 50)
    event = await other_tab.receive_json_from(timeout=5)
    assert (event["t"], event["v"], event["kind"], event["move"]) == ("event", 3, "move", second)
    assert await stored_line(code_game) == ([first, second], [1, 2, 3])
    await mover.disconnect()
    await other_tab.disconnect()


async def test_an_undo_is_stored_from_the_event_loop_and_reaches_the_other_tab(
    code_game, player, winning_game, monkeypatch
):
    first, second = winning_game["moves"][:2]
    mover, other_tab = await open_socket(code_game, player), await open_socket(code_game, player)
    for n, move in enumerate((first, second), start=1):
        assert (await answer(mover, {"t": "move", "move": move, "n": n}))["t"] == "ack"
        assert (await other_tab.receive_json_from(timeout=5))["t"] == "event"
    threads_refused(monkeypatch)

    ack = await answer(mover, {"t": "undo", "n": 3})

    assert (ack["t"], ack["v"], ack["piles"]) == ("ack", 4, 51)
    event = await other_tab.receive_json_from(timeout=5)
    assert (event["v"], event["kind"], event["move"], event["piles"]) == (4, "undo", second, 51)
    assert await stored_line(code_game) == ([first], [1, 2, 3, 4])
    await mover.disconnect()
    await other_tab.disconnect()


async def test_an_undo_with_nothing_to_undo_is_refused_by_the_locking_path(code_game, player, winning_game):
    socket = await open_socket(code_game, player)
    assert (await answer(socket, {"t": "move", "move": winning_game["moves"][0], "n": 1}))["v"] == 2
    assert (await answer(socket, {"t": "undo", "n": 2}))["v"] == 3  # from the loop: the line is empty

    refused = await answer(socket, {"t": "undo", "n": 3})

    assert (refused["t"], refused["code"]) == ("reject", "nothing_to_undo")
    assert await stored_line(code_game) == ([], [1, 2, 3])
    await socket.disconnect()


async def test_each_move_is_checked_on_the_line_the_socket_has_played_so_far(
    code_game, player, winning_game, monkeypatch
):
    """The socket checks a move with one step from the position its last move reached
    (services.KnownGame), and after an undo from the replayed line: every ack has the stored line's
    pile count, and a move that only the position before the last move allows is refused."""
    line = winning_game["moves"][:6]
    socket = await open_socket(code_game, player)
    assert (await answer(socket, {"t": "move", "move": line[0], "n": 1}))["piles"] == 51  # known from here on
    threads_refused(monkeypatch)
    acks = [await answer(socket, {"t": "move", "move": move, "n": n}) for n, move in enumerate(line[1:5], start=2)]
    acks.append(await answer(socket, {"t": "undo", "n": 6}))
    acks += [await answer(socket, {"t": "move", "move": move, "n": n}) for move, n in ((line[4], 7), (line[5], 8))]
    monkeypatch.undo()  # the refusal below is the locking path's
    before_last, now = engine.replay(winning_game["deal"], line[:5]), engine.replay(winning_game["deal"], line)
    only_before_last = [move for move in engine.legal_moves(before_last) if move not in engine.legal_moves(now)]
    assert only_before_last  # this deal's line has such a move

    refused = await answer(socket, {"t": "move", "move": list(only_before_last[0]), "n": 9})

    assert [ack["piles"] for ack in acks] == [50, 49, 48, 47, 48, 47, 46]
    assert (refused["t"], refused["code"]) == ("reject", "illegal_move")
    assert await stored_line(code_game) == (line, list(range(1, 10)))
    await socket.disconnect()


async def test_changes_given_in_one_turn_go_in_one_statement_past_a_game_whose_row_is_held(
    code_game, player, winning_game
):
    """Two games' changes in one turn of the loop, one game's row held by another transaction (a finish,
    a hint): the statement skips that game rather than wait, and stores the other's."""
    other_game, _ = await sync_to_async(services.game_start)(
        player=player, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )
    first = winning_game["moves"][0]

    def change(game: Game) -> dict:
        move = events.PlainChange(
            game_id=game.pk,
            player_id=player.pk,
            version=1,
            kind="move",
            move=first,
            line=[first],
            piles=51,
            at=timezone.now(),
        )
        return move.statement()

    try:
        async with row_locked(code_game):
            held, free = await asyncio.gather(
                *(store.save_change_from_loop(**change(game)) for game in (code_game, other_game))
            )
    finally:
        await close_loop_connections()  # no socket's bus closes them here

    assert held is None  # its caller reads the game again on a database thread
    assert free is not None
    assert await stored_line(code_game) == ([], [1])
    assert await stored_line(other_game) == ([first], [1, 2])


async def test_a_move_on_a_game_whose_row_is_held_waits_on_a_thread_and_holds_up_no_other_games_move(
    code_game, player, winning_game
):
    free_game, stuck, free = await second_game_and_sockets(code_game, player, winning_game)
    first, second = winning_game["moves"][:2]
    async with row_locked(code_game):
        await stuck.send_json_to({"t": "move", "move": second, "n": 2})
        ack = await answer(free, {"t": "move", "move": second, "n": 2})

        assert (ack["t"], ack["v"]) == ("ack", 3)
        assert await stuck.receive_nothing(timeout=0.3)  # waiting for the row
    assert (await stuck.receive_json_from(timeout=5))["v"] == 3
    assert await stored_line(code_game) == ([first, second], [1, 2, 3])
    assert await stored_line(free_game) == ([first, second], [1, 2, 3])
    await stuck.disconnect()
    await free.disconnect()


@override_settings(DATABASE_LOOP_CONNECTIONS=1)
async def test_with_the_loops_only_connection_held_another_games_move_is_stored_from_a_thread(
    code_game, player, winning_game
):
    """The loop's only connection waits for another transaction; another game's plain move does not
    queue behind it: it goes to the database threads and is acknowledged at once."""
    free_game, stuck, free = await second_game_and_sockets(code_game, player, winning_game)
    first, second = winning_game["moves"][:2]
    async with event_pending(code_game, 3):
        await stuck.send_json_to({"t": "move", "move": second, "n": 2})  # on the loop's connection
        await until_a_loop_statement_waits_for_a_lock()

        ack = await answer(free, {"t": "move", "move": second, "n": 2})

        assert (ack["t"], ack["v"]) == ("ack", 3)
    assert (await stuck.receive_json_from(timeout=5))["v"] == 3
    assert await stored_line(code_game) == ([first, second], [1, 2, 3])
    assert await stored_line(free_game) == ([first, second], [1, 2, 3])
    await stuck.disconnect()
    await free.disconnect()


@sync_to_async
def end_loop_connections() -> int:
    """End the loop's connections server side, as a PostgreSQL restart does, and wait until they are gone.
    Returns how many were ended."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [APPLICATION_NAME],
        )
        ended = cursor.fetchone()[0]
        for _ in range(100):
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
                [APPLICATION_NAME],
            )
            if cursor.fetchone()[0] == 0:
                break
            time.sleep(0.05)
    return ended


@sync_to_async
def until_a_loop_statement_waits_for_a_lock() -> None:
    with connection.cursor() as cursor:
        for _ in range(100):
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND application_name = %s AND wait_event_type = 'Lock'",
                [APPLICATION_NAME],
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.05)
    raise AssertionError("no statement of the loop waits for a lock")


async def test_a_loop_connection_lost_during_a_move_answers_try_again_and_the_move_sent_again_is_stored_once(
    code_game, player, winning_game
):
    first, second = winning_game["moves"][:2]
    socket = await open_socket(code_game, player)
    assert (await answer(socket, {"t": "move", "move": first, "n": 1}))["v"] == 2
    async with event_pending(code_game, 3):
        await socket.send_json_to({"t": "move", "move": second, "n": 2})
        await until_a_loop_statement_waits_for_a_lock()
        assert await end_loop_connections() == 1
        refused = await socket.receive_json_from(timeout=5)
    again = await answer(socket, {"t": "move", "move": second, "n": 2})

    assert (refused["t"], refused["code"]) == ("reject", "unavailable")
    assert (again["t"], again["v"]) == ("ack", 3)
    assert await stored_line(code_game) == ([first, second], [1, 2, 3])
    await socket.disconnect()


async def test_after_the_database_restarts_the_next_moves_are_stored_on_fresh_connections(
    code_game, player, winning_game
):
    """A restart ends every idle loop connection; each is found ended before a move would use it."""
    _, stuck, free = await second_game_and_sockets(code_game, player, winning_game)
    second, third = winning_game["moves"][1:3]
    async with event_pending(code_game, 3):  # two statements in flight at once: two loop connections
        await stuck.send_json_to({"t": "move", "move": second, "n": 2})
        await until_a_loop_statement_waits_for_a_lock()
        assert (await answer(free, {"t": "move", "move": second, "n": 2}))["v"] == 3
    assert (await stuck.receive_json_from(timeout=5))["v"] == 3
    assert await end_loop_connections() == 2

    for socket in (stuck, free):
        moved = await answer(socket, {"t": "move", "move": third, "n": 3})
        assert (moved["t"], moved["v"]) == ("ack", 4)
    await stuck.disconnect()
    await free.disconnect()
