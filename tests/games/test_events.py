"""Every change to a game is one stored event, appended with the change: versions 1..n without gaps,
and replaying the events gives the stored game."""

from __future__ import annotations

import asyncio
import datetime
import threading
import time
from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
from games import engine, events, services
from games.engine import solver
from games.errors import GameError
from games.models import Game, GameEvent
from tests.api_client import post
from tests.conftest import player_client

from .sockets import game_socket

NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)


def later(seconds: float) -> datetime.datetime:
    return NOON + datetime.timedelta(seconds=seconds)


def code_game(player: Player, winning_game: dict) -> Game:
    game, _ = services.game_start(player=player, mode="code", code=winning_game["deal_code"], now=NOON)
    return game


def stored_events(game: Game) -> list[GameEvent]:
    return list(GameEvent.objects.filter(game=game).order_by("v"))


def line_from_events(game: Game) -> list[list[int]]:
    """Replay the stored events as a client would, checking each event's pile count on the way."""
    line: list[list[int]] = []
    for event in stored_events(game):
        if event.kind == GameEvent.Kind.UNDO:
            assert line.pop() == event.move
        elif event.kind == GameEvent.Kind.FINISH and event.line is not None:
            line = event.line
        elif event.move is not None:
            line.append(event.move)
        assert engine.replay(game.deal.cards, line).piles == event.piles, event
    return line


def advise(advice: solver.HintResult) -> Callable[..., solver.HintResult]:
    return lambda *args, **kwargs: advice


@pytest.mark.django_db
def test_a_start_is_event_one(player, winning_game):
    game = code_game(player, winning_game)
    [start] = stored_events(game)
    assert (start.v, start.kind, start.piles, start.at) == (1, "start", 52, NOON)
    assert game.version == 1


@pytest.mark.django_db
def test_moves_undos_hints_and_the_finish_each_append_one_event_with_the_next_version(
    player, winning_game, monkeypatch
):
    game = code_game(player, winning_game)
    first, second = winning_game["moves"][:2]
    services.game_move(game_id=game.pk, player=player, move=first, now=later(1))
    services.game_move(game_id=game.pk, player=player, move=second, now=later(2))
    services.game_undo(game_id=game.pk, player=player, now=later(3))
    monkeypatch.setattr(services, "solver_run", advise(solver.HintResult(status="move", move=tuple(second))))
    services.game_hint(game_id=game.pk, player=player, accept_unranked=True, now=later(4))
    services.game_finish(game_id=game.pk, player=player, moves=[first], now=later(5))
    kinds = [(event.v, event.kind, event.move, event.at) for event in stored_events(game)]
    assert kinds == [
        (1, "start", None, NOON),
        (2, "move", first, later(1)),
        (3, "move", second, later(2)),
        (4, "undo", second, later(3)),
        (5, "hint", None, later(4)),
        (6, "finish", None, later(5)),
    ]
    assert Game.objects.get(pk=game.pk).version == 6


@pytest.mark.django_db
def test_a_refused_change_appends_no_event(player, winning_game):
    game = code_game(player, winning_game)
    with pytest.raises(GameError):
        services.game_undo(game_id=game.pk, player=player, now=later(1))
    with pytest.raises(GameError):
        services.game_move(game_id=game.pk, player=player, move=[1, 5], now=later(1))
    assert [event.kind for event in stored_events(game)] == ["start"]


@pytest.mark.django_db
def test_the_winning_move_is_a_finish_event_carrying_the_move_and_the_result(player, winning_game):
    game = code_game(player, winning_game)
    for second, move in enumerate(winning_game["moves"], start=1):
        services.game_move(game_id=game.pk, player=player, move=move, now=later(second))
    finish = stored_events(game)[-1]
    assert (finish.kind, finish.move, finish.piles) == ("finish", winning_game["moves"][-1], 1)
    game.refresh_from_db()
    [out] = events.events_after(game=game, v=game.version - 1, limit=50) or []
    assert '"result": {"score": ' in out.frame and '"won": true' in out.frame


@pytest.mark.django_db
def test_a_finish_with_a_line_played_offline_carries_the_line_so_the_events_replay_to_the_game(player, winning_game):
    game = code_game(player, winning_game)
    services.game_move(game_id=game.pk, player=player, move=winning_game["moves"][0], now=later(1))
    offline_line = winning_game["moves"][:30]
    services.game_finish(game_id=game.pk, player=player, moves=offline_line, now=later(60))
    game.refresh_from_db()
    assert stored_events(game)[-1].line == offline_line
    assert line_from_events(game) == game.moves == offline_line


@pytest.mark.django_db
def test_events_after_a_version_are_the_missed_ones_in_order(player, winning_game):
    game = code_game(player, winning_game)
    for second, move in enumerate(winning_game["moves"][:5], start=1):
        services.game_move(game_id=game.pk, player=player, move=move, now=later(second))
    game.refresh_from_db()
    missed = events.events_after(game=game, v=3, limit=50)
    assert [event.v for event in missed or []] == [4, 5, 6]
    # A client that has every version (a reconnect, a socket opened on a game just handed out) costs no read.
    with CaptureQueriesContext(connection) as up_to_date:
        assert events.events_after(game=game, v=game.version, limit=50) == []
    assert up_to_date.captured_queries == []


@pytest.mark.django_db
def test_too_many_missed_events_or_an_unknown_version_mean_the_whole_state_instead(player, winning_game):
    game = code_game(player, winning_game)
    for second, move in enumerate(winning_game["moves"][:5], start=1):
        services.game_move(game_id=game.pk, player=player, move=move, now=later(second))
    game.refresh_from_db()
    assert events.events_after(game=game, v=0, limit=3) is None
    assert events.events_after(game=game, v=game.version + 1, limit=50) is None


@pytest.mark.django_db
def test_an_event_is_published_only_after_its_transaction_commits(
    player, winning_game, monkeypatch, django_capture_on_commit_callbacks
):
    published: list[int] = []
    monkeypatch.setattr(events, "publish", lambda event: published.append(event.v))
    with django_capture_on_commit_callbacks(execute=True):
        game = code_game(player, winning_game)
        with pytest.raises(RuntimeError), transaction.atomic():
            services.game_move(game_id=game.pk, player=player, move=winning_game["moves"][0], now=later(1))
            raise RuntimeError("the surrounding transaction rolls back")
        assert published == []  # nothing is announced before the commit
    assert published == [1]  # the start only: the rolled-back move was never announced
    assert [event.kind for event in stored_events(game)] == ["start"]


@pytest.mark.django_db(transaction=True)
def test_concurrent_moves_undos_hints_and_a_rest_finish_give_versions_without_gaps(
    player, winning_game, monkeypatch, postgres
):
    """Many writers race on one game (PostgreSQL row locks): each accepted change is one event,
    versions run 1..n, and the events replay to the stored game."""
    monkeypatch.setattr(services, "solver_run", advise(solver.HintResult(status="move", move=(1, 0))))
    game = code_game(player, winning_game)
    line = winning_game["moves"]
    barrier = threading.Barrier(6)

    def writer(index: int) -> None:
        barrier.wait()
        try:
            for step in range(12):
                try:
                    current = Game.objects.get(pk=game.pk)
                    if current.status == Game.Status.FINISHED:
                        break
                    if (index + step) % 4 == 3 and current.moves:
                        services.game_undo(game_id=game.pk, player=player, now=later(step))
                    elif (index + step) % 7 == 6:
                        services.game_hint(game_id=game.pk, player=player, accept_unranked=True, now=later(step))
                    else:
                        move = line[len(current.moves)]
                        services.game_move(game_id=game.pk, player=player, move=move, now=later(step))
                except GameError:
                    pass  # another writer changed the game first: refused, nothing stored
            if index == 5:
                current = Game.objects.get(pk=game.pk)
                services.game_finish(game_id=game.pk, player=player, moves=current.moves, now=later(99))
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    game.refresh_from_db()
    versions = [event.v for event in stored_events(game)]
    assert versions == list(range(1, game.version + 1))
    assert game.version > 12
    assert game.status == "finished" and stored_events(game)[-1].kind == "finish"
    assert line_from_events(game) == game.moves


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("postgres", "socket_services_stopped")
async def test_two_sockets_and_rest_racing_on_one_game_give_each_change_one_version_that_both_sockets_hear(
    player, winning_game, monkeypatch
):
    """The sockets' moves and undos are stored from the event loop with no row lock, REST's hints and finish
    on threads with one: racing together, each accepted change is still one event, versions run 1..n,
    the events replay to the stored game, and each socket hears every version once (its own as an ack)."""
    monkeypatch.setattr(services, "solver_run", advise(solver.HintResult(status="move", move=(1, 0))))
    game = await sync_to_async(code_game)(player, winning_game)
    cards, sockets = winning_game["deal"], []
    for _ in range(2):
        socket = await game_socket(game.pk, player, v=1)
        assert (await socket.connect())[0]
        sockets.append(socket)
    heard: list[list[dict]] = [[], []]

    @sync_to_async
    def stored_moves() -> list[list[int]] | None:
        current = Game.objects.get(pk=game.pk)
        return None if current.status == Game.Status.FINISHED else current.moves

    async def answer(index: int, message: dict) -> dict:
        await sockets[index].send_json_to(message)
        while True:
            reply = await sockets[index].receive_json_from(timeout=10)
            heard[index].append(reply)
            if reply["t"] in ("ack", "reject") and reply.get("n") == message["n"]:
                return reply

    async def play(index: int) -> None:
        for n in range(1, 16):
            moves = await stored_moves()
            if moves is None:
                return
            legal = engine.legal_moves(engine.replay(cards, moves))
            if ((index + n) % 4 == 3 and moves) or not legal:
                await answer(index, {"t": "undo", "n": n})
            else:
                await answer(index, {"t": "move", "move": list(legal[0]), "n": n})

    def rest() -> tuple[int, int]:
        client, hints = player_client(player), 0
        try:
            for _ in range(3):
                time.sleep(0.02)
                hints += post(client, f"/api/games/{game.pk}/hint", {"accept_unranked": True})[0] == 200
            while len(Game.objects.get(pk=game.pk).moves) < 4:
                time.sleep(0.005)
            moves = Game.objects.get(pk=game.pk).moves
            return hints, post(client, f"/api/games/{game.pk}/finish", {"moves": moves})[0]
        finally:
            connection.close()

    (hints, finish_status), *_ = await asyncio.gather(sync_to_async(rest, thread_sensitive=False)(), play(0), play(1))

    stored = await sync_to_async(Game.objects.get)(pk=game.pk)
    events = await sync_to_async(stored_events)(stored)
    acks = [reply for replies in heard for reply in replies if reply["t"] == "ack"]
    assert finish_status == 200 and stored.status == "finished" and events[-1].kind == "finish"
    assert [event.v for event in events] == list(range(1, stored.version + 1))
    assert len(events) == 1 + len(acks) + hints + 1  # the start, every ack, every hint, the finish
    assert await sync_to_async(line_from_events)(stored) == stored.moves
    for index, socket in enumerate(sockets):
        while not any(reply.get("v") == stored.version for reply in heard[index]):
            heard[index].append(await socket.receive_json_from(timeout=5))
        versions = [reply["v"] for reply in heard[index] if reply["t"] in ("ack", "event")]
        assert sorted(versions) == list(range(2, stored.version + 1))
        await socket.disconnect()
