from __future__ import annotations

import datetime
import functools
import json

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings
from django.utils import timezone

from games import engine
from games.models import Game
from games.services import game_finish, game_start
from realtime import protocol as realtime_protocol
from realtime.consumer import FLOOD_STRIKES

from .sockets import game_socket, refusal

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def code_game(player, winning_game) -> Game:
    game, _ = await sync_to_async(game_start)(
        player=player, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )
    return game


async def connected(game: Game, player) -> object:
    """A socket that already has the game's current version, so nothing is sent on connect."""
    socket = await game_socket(game.pk, player, v=(await stored(game)).version)
    accepted, _ = await socket.connect()
    assert accepted
    return socket


async def stored(game: Game) -> Game:
    return await Game.objects.aget(pk=game.pk)


async def test_a_legal_move_is_stored_then_acknowledged_with_the_new_version(code_game, player, winning_game):
    socket = await connected(code_game, player)
    await socket.send_json_to({"t": "move", "move": winning_game["moves"][0], "n": 1})
    answer = await socket.receive_json_from()
    assert answer == {"t": "ack", "n": 1, "v": 2, "piles": 51, "status": "playing", "result": None}
    assert (await stored(code_game)).moves == [winning_game["moves"][0]]
    await socket.disconnect()


async def test_undo_is_acknowledged_and_stored(code_game, player, winning_game):
    socket = await connected(code_game, player)
    await socket.send_json_to({"t": "move", "move": winning_game["moves"][0], "n": 1})
    await socket.receive_json_from()
    await socket.send_json_to({"t": "undo", "n": 2})
    answer = await socket.receive_json_from()
    assert answer["t"] == "ack" and answer["n"] == 2 and answer["v"] == 3 and answer["piles"] == 52
    assert (await stored(code_game)).moves == []
    await socket.disconnect()


async def test_an_illegal_move_is_rejected_with_the_reason_and_the_socket_stays_open(code_game, player, winning_game):
    socket = await connected(code_game, player)
    deal = winning_game["deal"]
    bad = next([s, s - 1] for s in range(1, 52) if not engine.cards_match(deal[s], deal[s - 1]))
    await socket.send_json_to({"t": "move", "move": bad, "n": 1})
    answer = await socket.receive_json_from()
    assert answer["t"] == "reject" and answer["n"] == 1 and answer["code"] == "illegal_move"
    assert "do not match" in answer["error"]
    await socket.send_json_to({"t": "move", "move": winning_game["moves"][0], "n": 2})
    assert (await socket.receive_json_from())["t"] == "ack"
    await socket.disconnect()


@pytest.mark.parametrize(
    ("frame", "expected_code"),
    [
        ("{not json", "bad_message"),
        ("[1, 0]", "bad_message"),
        (json.dumps({"t": "teleport", "n": 1}), "unknown_type"),
        (json.dumps({"t": "move", "move": [1, 0]}), "bad_message"),
        (json.dumps({"t": "move", "move": [True, False], "n": 1}), "illegal_move"),
        (json.dumps({"t": "move", "move": "1,0", "n": 1}), "illegal_move"),
        (json.dumps({"t": "move", "move": [10**40, 0], "n": 1}), "illegal_move"),
        (json.dumps({"t": "move", "move": [-1, -2], "n": 1}), "illegal_move"),
        (json.dumps({"t": "move", "move": [1, 0], "n": 1, "pad": "x" * 5000}), "too_large"),
        (json.dumps({"t": "undo", "n": 1}), "nothing_to_undo"),
    ],
)
async def test_bad_messages_get_a_reject_and_change_nothing(code_game, player, frame, expected_code):
    socket = await connected(code_game, player)
    await socket.send_to(text_data=frame)
    answer = await socket.receive_json_from()
    assert answer["t"] == "reject" and answer["code"] == expected_code and answer["error"]
    assert (await stored(code_game)).version == 1
    await socket.send_json_to({"t": "undo", "n": 9})  # still answering
    assert (await socket.receive_json_from())["n"] == 9
    await socket.disconnect()


async def test_a_binary_frame_is_rejected(code_game, player):
    socket = await connected(code_game, player)
    await socket.send_to(bytes_data=b"\x00\x01")
    assert (await socket.receive_json_from())["t"] == "reject"
    await socket.disconnect()


async def test_the_winning_move_finishes_the_game_on_the_server(code_game, player, winning_game):
    socket = await connected(code_game, player)
    for n, move in enumerate(winning_game["moves"], start=1):
        await socket.send_json_to({"t": "move", "move": move, "n": n})
        answer = await socket.receive_json_from()
        assert answer["t"] == "ack", answer
    assert answer["status"] == "finished" and answer["result"]["won"] is True
    game = await stored(code_game)
    assert game.status == "finished" and game.score == answer["result"]["score"]
    await socket.send_json_to({"t": "undo", "n": 99})
    assert (await socket.receive_json_from())["code"] == "game_finished"
    await socket.disconnect()


async def test_a_rest_finish_with_the_socket_line_agrees_with_the_socket(code_game, player, winning_game):
    socket = await connected(code_game, player)
    for n, move in enumerate(winning_game["moves"][:20], start=1):
        await socket.send_json_to({"t": "move", "move": move, "n": n})
        await socket.receive_json_from()
    await socket.disconnect()
    later = timezone.now() + datetime.timedelta(seconds=1)
    game = await sync_to_async(game_finish)(
        game_id=code_game.pk, player=player, moves=winning_game["moves"][:20], now=later
    )
    assert game.piles == 32 and game.score == 200


async def test_another_players_socket_is_told_why_then_closed_with_4403(code_game, other_player):
    code, message = await refusal(await game_socket(code_game.pk, other_player))
    assert code == 4403
    error = f"game {code_game.pk} belongs to another player"
    assert message == {"t": "refused", "code": "not_your_game", "error": error}


async def test_a_visitor_without_a_session_cannot_connect(code_game):
    code, message = await refusal(await game_socket(code_game.pk, None))
    assert code == 4403 and message is not None and message["code"] == "not_your_game"


@pytest.mark.parametrize("game_id", [424242, 10**30])
async def test_a_socket_for_a_missing_game_is_told_why_then_closed_with_4404(player, game_id):
    code, message = await refusal(await game_socket(game_id, player))
    assert code == 4404 and message is not None and message["code"] == "not_found"


async def test_a_socket_from_a_foreign_origin_is_refused(code_game, player):
    # Channels' origin validator refuses the handshake before any consumer runs.
    code, message = await refusal(await game_socket(code_game.pk, player, origin=b"https://evil.example"))
    assert code is not None and message is None


async def test_the_players_other_tab_receives_the_move_as_an_event(code_game, player, winning_game):
    first_tab = await connected(code_game, player)
    second_tab = await connected(code_game, player)
    await first_tab.send_json_to({"t": "move", "move": winning_game["moves"][0], "n": 1})
    assert (await first_tab.receive_json_from())["t"] == "ack"
    event = await second_tab.receive_json_from()
    assert event == {
        "t": "event",
        "game": code_game.pk,
        "v": 2,
        "kind": "move",
        "move": winning_game["moves"][0],
        "piles": 51,
        "at": event["at"],
        "line": None,
        "result": None,
    }
    assert await first_tab.receive_nothing(timeout=0.2)  # the mover's own change is not echoed back
    await first_tab.disconnect()
    await second_tab.disconnect()


async def test_two_tabs_taking_turns_each_play_on_the_line_the_other_stored(code_game, player, winning_game):
    """Each tab keeps the game as its last move left it; the other tab's moves make that stale, and
    the next move is still checked against the stored line (games.services.game_move's `known`)."""
    first, second, third, fourth = winning_game["moves"][:4]
    deal = winning_game["deal"]
    after_second = engine.legal_moves(engine.replay(deal, [first, second]))
    stale_only = next(move for move in engine.legal_moves(engine.replay(deal, [first])) if move not in after_second)
    tab_a = await connected(code_game, player)
    tab_b = await connected(code_game, player)

    async def answer(tab, message):
        await tab.send_json_to(message)
        while (frame := await tab.receive_json_from())["t"] == "event":
            pass
        return frame

    assert (await answer(tab_a, {"t": "move", "move": first, "n": 1}))["v"] == 2
    assert (await answer(tab_b, {"t": "move", "move": second, "n": 1}))["v"] == 3
    refused = await answer(tab_a, {"t": "move", "move": list(stale_only), "n": 2})  # legal where A last was
    assert refused["t"] == "reject" and refused["code"] == "illegal_move"
    assert (await answer(tab_a, {"t": "move", "move": third, "n": 3}))["v"] == 4
    assert (await answer(tab_a, {"t": "move", "move": fourth, "n": 4}))["v"] == 5
    game = await stored(code_game)
    assert game.moves == [first, second, third, fourth] and game.version == 5
    await tab_a.disconnect()
    await tab_b.disconnect()


async def test_a_socket_idle_for_over_six_seconds_on_redis_still_hears_events(
    code_game, player, winning_game, redis_url
):
    """A consumer silent past redis-py 8's socket_timeout (~5 s) still hears events (docs/architecture.md)."""
    layers = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": redis_url}], "prefix": "test-idle"},
        }
    }
    with override_settings(CHANNEL_LAYERS=layers):
        listener = await connected(code_game, player)
        player_tab = await connected(code_game, player)
        assert await listener.receive_nothing(timeout=6.5)
        await player_tab.send_json_to({"t": "move", "move": winning_game["moves"][0], "n": 1})
        assert (await player_tab.receive_json_from(timeout=5))["t"] == "ack"
        assert (await listener.receive_json_from(timeout=5))["t"] == "event"
        await listener.disconnect()
        await player_tab.disconnect()


async def test_a_flooding_socket_is_told_to_slow_down_then_closed(code_game, player, monkeypatch):
    # Refill so slowly that the test's own pace cannot earn a message back.
    monkeypatch.setattr(
        realtime_protocol, "MessageRate", functools.partial(realtime_protocol.MessageRate, per_second=1e-9)
    )
    socket = await connected(code_game, player)
    for _ in range(realtime_protocol.MESSAGE_BURST):
        await socket.send_to(text_data="junk")
        assert (await socket.receive_json_from())["code"] == "bad_message"
    await socket.send_to(text_data="junk")
    answer = await socket.receive_json_from()
    assert answer == {"t": "reject", "n": None, "error": "too many messages: slow down", "code": "rate_limited"}
    for _ in range(FLOOD_STRIKES):
        await socket.send_to(text_data="junk")
    while (output := await socket.receive_output(timeout=2))["type"] != "websocket.close":
        assert json.loads(output["text"])["code"] == "rate_limited"
    assert output["code"] == 4429
    assert (await stored(code_game)).version == 1
