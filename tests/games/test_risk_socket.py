"""End to end through the player's socket: a program replaying a solver's line at a human pace, with
decoy moves and undos, sends each move over /ws/games/<id>/ at times the test's clock sets; the stored
events are what the assessment reads, and the result is held for review. A simulated person playing
the same way is not."""

from __future__ import annotations

import datetime
import random
from functools import partial

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.utils import timezone

from accounts.models import Player
from games import services
from games.engine.risk import UNDO
from games.models import Game, GameEvent
from realtime import protocol as realtime_protocol
from tests.simulated_players import Play, human, judge_for, random_pauses, scripted

from .sockets import game_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres", "socket_services_stopped")]

NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)


async def play_over_the_socket(nickname: str, make_play, monkeypatch) -> Game:
    """Start today's (the clock's) ranked daily and send `make_play(deal)`'s moves and undos over the
    player's socket, the server's clock set to each event's time."""
    clock = {"now": NOON}
    monkeypatch.setattr(timezone, "now", lambda: clock["now"])
    # The socket's message rate reads the same clock: a person's pace, not the test's own speed.
    elapsed = partial(realtime_protocol.MessageRate, clock=lambda: (clock["now"] - NOON).total_seconds())
    monkeypatch.setattr(realtime_protocol, "MessageRate", elapsed)
    player = await sync_to_async(Player.objects.create)(nickname=nickname)
    game, _ = await sync_to_async(services.game_start)(player=player, mode="daily", now=NOON)
    play: Play = await sync_to_async(make_play)(game.deal.cards)
    socket = await game_socket(game.pk, player, v=game.version)
    accepted, _ = await socket.connect()
    assert accepted
    for number, event in enumerate(play.events, start=1):
        clock["now"] = NOON + datetime.timedelta(seconds=event.seconds)
        if event.kind == UNDO:
            await socket.send_json_to({"t": "undo", "n": number})
        else:
            assert event.move is not None  # these players finish by a move or, losing, over REST below
            await socket.send_json_to({"t": "move", "move": list(event.move), "n": number})
        while (answer := await socket.receive_json_from(timeout=10))["t"] not in ("ack", "reject"):
            pass
        assert answer["t"] == "ack", answer
    await socket.disconnect()
    return await sync_to_async(Game.objects.get)(pk=game.pk)


async def test_a_solver_line_with_decoys_sent_over_the_socket_is_held_once_assessed(monkeypatch):
    rng = random.Random(7)

    def script(deal):
        return scripted(deal, rng, judge_for(deal), pace=random_pauses(rng), decoys="winnable")

    game = await play_over_the_socket("Script", script, monkeypatch)
    kinds = await sync_to_async(list)(GameEvent.objects.filter(game=game).values_list("kind", flat=True))
    assert game.won and "undo" in kinds and game.review == ""  # the timing alone did not hold it

    await sync_to_async(call_command)("assess_games")

    held = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert held.review == "pending"
    assert {"perfect_line", "undos_that_did_not_lose"} <= {reason["code"] for reason in held.risk_reasons}


async def test_a_simulated_person_over_the_socket_is_not_held(monkeypatch):
    def person(deal):
        # A person who won: the socket path ends by the winning move.
        for seed in range(30):
            play = human(deal, random.Random(seed), judge_for(deal))
            if play.won:
                return play
        raise AssertionError("no simulated person won this deal")

    game = await play_over_the_socket("Person", person, monkeypatch)

    await sync_to_async(call_command)("assess_games")

    assessed = await sync_to_async(Game.objects.get)(pk=game.pk)
    assert assessed.won and assessed.assessed_at is not None
    assert assessed.review == "", assessed.risk_reasons
