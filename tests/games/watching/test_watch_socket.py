"""The watch socket (docs/api.md, "The watch socket"): a watcher gets the game as it stands, then every
move, undo and finish as it happens, resumes by version, cannot play, and is refused — told why, then
closed with a 4xxx code — when the game is not there to be watched."""

from __future__ import annotations

import datetime
import functools
import json
import logging

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from accounts.models import Player
from games import services
from games.models import Game
from realtime import protocol as realtime_protocol
from realtime.consumer import FLOOD_STRIKES
from realtime.protocol import MessageRate

from ..sockets import game_socket, refusal
from .sockets import HEAR_S, events_heard, frame_heard, heard, watch_socket, watching

pytestmark = pytest.mark.django_db(transaction=True)


async def stored(game: Game) -> Game:
    return await Game.objects.aget(pk=game.pk)


async def test_a_watcher_who_arrives_late_sees_the_game_exactly_as_it_stands(playing_game, watcher, move):
    for index in range(3):
        await move(playing_game, index)
    socket = await watching(playing_game, watcher)

    state = await heard(socket, "state")

    game = await stored(playing_game)
    assert state["v"] == game.version == 4
    assert state["game"]["moves"] == game.moves and state["game"]["piles"] == 49
    assert state["game"]["deal"] == (await sync_to_async(lambda: game.deal.cards)())
    assert state["player"] == {"id": game.player_id, "nickname": "Ada"}
    assert state["race"] is None
    await socket.disconnect()


async def test_each_move_reaches_the_watcher_as_it_happens(playing_game, watcher, move, winning_game):
    socket = await watching(playing_game, watcher)
    await heard(socket, "state")

    await move(playing_game, 0)

    event = await heard(socket, "event")
    assert (event["v"], event["kind"], event["move"], event["piles"]) == (2, "move", winning_game["moves"][0], 51)
    await socket.disconnect()


async def test_an_undo_reaches_the_watcher_with_the_move_it_took_back(
    playing_game, player, watcher, move, winning_game
):
    socket = await watching(playing_game, watcher)
    await heard(socket, "state")
    await move(playing_game, 0)
    await heard(socket, "event")

    await sync_to_async(services.game_undo)(game_id=playing_game.pk, player=player, now=timezone.now())

    event = await heard(socket, "event")
    assert (event["v"], event["kind"], event["move"], event["piles"]) == (3, "undo", winning_game["moves"][0], 52)
    await socket.disconnect()


async def test_the_finish_reaches_the_watcher_with_the_result(playing_game, player, watcher, move):
    socket = await watching(playing_game, watcher)
    await heard(socket, "state")
    await move(playing_game, 0)
    await heard(socket, "event")
    later = timezone.now() + datetime.timedelta(seconds=1)

    await sync_to_async(services.game_finish)(game_id=playing_game.pk, player=player, moves=[], now=later)

    event = await heard(socket, "event")
    assert event["kind"] == "finish" and event["line"] == [] and event["piles"] == 52
    assert event["result"] == {
        "score": 0,
        "piles": 52,
        "won": False,
        "seconds": event["result"]["seconds"],
        "good_game": False,
    }
    await socket.disconnect()


async def test_a_watcher_cannot_play_a_move(playing_game, watcher, winning_game):
    socket = await watching(playing_game, watcher)
    await heard(socket, "state")

    await socket.send_json_to({"t": "move", "move": winning_game["moves"][0], "n": 1})

    assert await heard(socket, "reject") == {
        "t": "reject",
        "n": None,
        "code": "read_only",
        "error": "watchers only watch: this socket takes no messages",
    }
    assert (await stored(playing_game)).version == 1
    await socket.disconnect()


async def test_a_watcher_who_floods_is_told_to_slow_down_then_closed_with_4429(
    playing_game, watcher, monkeypatch, caplog
):
    # Refill so slowly that the test's own pace cannot earn a message back.
    monkeypatch.setattr(realtime_protocol, "MessageRate", functools.partial(MessageRate, per_second=1e-9))
    socket = await watching(playing_game, watcher)
    for _ in range(realtime_protocol.MESSAGE_BURST):
        await socket.send_to(text_data="junk")
        assert (await heard(socket, "reject"))["code"] == "read_only"
    await socket.send_to(text_data="junk")
    assert await heard(socket, "reject") == {
        "t": "reject",
        "n": None,
        "code": "rate_limited",
        "error": "too many messages: slow down",
    }
    for _ in range(FLOOD_STRIKES):
        await socket.send_to(text_data="junk")
    while (output := await socket.receive_output(timeout=HEAR_S))["type"] != "websocket.close":
        message = json.loads(output["text"])
        assert message["t"] != "reject" or message["code"] == "rate_limited", message
    assert output["code"] == 4429
    assert any(record.levelno == logging.WARNING and "flooding" in record.getMessage() for record in caplog.records), (
        "the close is logged, as the player's socket's is"
    )


async def test_a_game_that_does_not_exist_is_refused_with_4404(watcher):
    code, message = await refusal(await watch_socket(424242, watcher))
    assert code == 4404 and message is not None and message["code"] == "not_found"


async def test_a_game_that_has_ended_is_refused_with_4404_and_a_pointer_to_its_replay(playing_game, player, watcher):
    await sync_to_async(services.game_finish)(game_id=playing_game.pk, player=player, moves=[], now=timezone.now())

    code, message = await refusal(await watch_socket(playing_game.pk, watcher))

    assert code == 4404
    assert message == {
        "t": "refused",
        "code": "game_finished",
        "error": f"game {playing_game.pk} has ended: watch its replay at /games/{playing_game.pk}/replay",
    }


async def test_a_player_who_does_not_let_others_watch_cannot_be_watched(playing_game, player, watcher):
    await Player.objects.filter(pk=player.pk).aupdate(watchable=False)

    code, message = await refusal(await watch_socket(playing_game.pk, watcher))

    assert code == 4403 and message is not None and message["code"] == "not_watchable"
    assert message["error"] == "Ada does not let others watch their games"


async def test_a_visitor_who_has_not_played_can_watch_a_shared_deal(playing_game):
    socket = await watching(playing_game, None)
    assert (await heard(socket, "state"))["v"] == 1
    await socket.disconnect()


async def test_someone_playing_the_same_deal_cannot_watch_until_their_own_game_ends(
    playing_game, watcher, winning_game
):
    await sync_to_async(services.game_start)(
        player=watcher, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )

    code, message = await refusal(await watch_socket(playing_game.pk, watcher))

    assert code == 4403 and message is not None and message["code"] == "spoiler"


@pytest.fixture
async def daily_game(player) -> Game:
    game, _ = await sync_to_async(services.game_start)(player=player, mode="daily", now=timezone.now())
    return game


async def test_todays_daily_is_refused_to_anyone_but_its_player(daily_game, watcher):
    for viewer in (watcher, None):
        code, message = await refusal(await watch_socket(daily_game.pk, viewer))

        assert code == 4403
        assert message == {
            "t": "refused",
            "code": "spoiler",
            "error": "this game is on today's daily deal: its moves stay hidden until the day ends (midnight UTC)",
        }


async def finished_own_attempt(player: Player) -> None:
    """`player` takes today's daily and ends it at once, as a throwaway guest would."""
    own, _ = await sync_to_async(services.game_start)(player=player, mode="daily", now=timezone.now())
    await sync_to_async(services.game_finish)(game_id=own.pk, player=player, moves=[], now=timezone.now())


async def test_todays_daily_stays_refused_after_the_watcher_finishes_their_own_attempt(daily_game, watcher):
    await finished_own_attempt(watcher)

    code, message = await refusal(await watch_socket(daily_game.pk, watcher))

    assert code == 4403 and message is not None and message["code"] == "spoiler"


async def test_a_finished_daily_sends_no_missed_moves_to_a_watcher_resuming_with_a_version(daily_game, player, watcher):
    # The first two moves of the day's winning line, then the end: what a resuming watcher was sent.
    line = daily_game.deal.solution[:2]
    for move in line:
        await sync_to_async(services.game_move)(game_id=daily_game.pk, player=player, move=move, now=timezone.now())
    await sync_to_async(services.game_finish)(game_id=daily_game.pk, player=player, moves=line, now=timezone.now())
    await finished_own_attempt(watcher)

    code, message = await refusal(await watch_socket(daily_game.pk, watcher, v=1))

    assert code == 4403 and message is not None and message["code"] == "spoiler"


async def test_its_own_player_may_watch_their_daily_game(daily_game, player):
    socket = await watching(daily_game, player)

    state = await heard(socket, "state")
    assert state["game"]["id"] == daily_game.pk and state["game"]["deal"] == daily_game.deal.cards
    await socket.disconnect()


async def test_a_watcher_that_reconnects_with_its_version_gets_each_missed_move_once(
    playing_game, watcher, move, winning_game
):
    first = await watching(playing_game, watcher)
    await heard(first, "state")
    await move(playing_game, 0)
    assert (await heard(first, "event"))["v"] == 2
    await first.disconnect()
    await move(playing_game, 1)
    await move(playing_game, 2)

    again = await watching(playing_game, watcher, v=2)
    await move(playing_game, 3)

    versions = [(event["v"], event["move"]) for event in await events_heard(again, 3)]
    assert versions == [(3, winning_game["moves"][1]), (4, winning_game["moves"][2]), (5, winning_game["moves"][3])]
    await again.disconnect()


async def test_a_watcher_that_reconnects_after_the_end_gets_the_finish_then_a_normal_close(
    playing_game, player, watcher, move
):
    await move(playing_game, 0)
    await sync_to_async(services.game_finish)(game_id=playing_game.pk, player=player, moves=[], now=timezone.now())

    socket = await watching(playing_game, watcher, v=2)

    finish = await heard(socket, "event")
    assert (finish["v"], finish["kind"]) == (3, "finish")
    while (output := await socket.receive_output(timeout=HEAR_S))["type"] != "websocket.close":
        pass
    assert output["code"] == 1000
    await socket.disconnect()


@pytest.mark.usefixtures("long_tick")
async def test_moves_made_within_one_tick_reach_a_watcher_as_one_frame(playing_game, watcher, move, winning_game):
    socket = await watching(playing_game, watcher)
    await heard(socket, "state")
    await move(playing_game, 0)
    assert (await heard(socket, "event"))["v"] == 2  # the first after a quiet spell goes at once

    await move(playing_game, 1)
    await move(playing_game, 2)

    frame = await frame_heard(socket, "events")
    assert [(event["v"], event["move"]) for event in frame["events"]] == [
        (3, winning_game["moves"][1]),
        (4, winning_game["moves"][2]),
    ]
    await socket.disconnect()


async def test_every_watcher_gets_the_same_moves_in_order(playing_game, watcher, other_player, move):
    sockets = [await watching(playing_game, viewer) for viewer in (watcher, other_player, None)]
    for socket in sockets:
        await heard(socket, "state")

    for index in range(4):
        await move(playing_game, index)

    for socket in sockets:
        versions = [event["v"] for event in await events_heard(socket, 4)]
        assert versions == [2, 3, 4, 5]
        await socket.disconnect()


@pytest.mark.usefixtures("long_tick")
async def test_the_players_own_socket_still_gets_each_event_at_once(playing_game, player, watcher, move):
    tab = await game_socket(playing_game.pk, player, v=1)
    assert (await tab.connect())[0]
    socket = await watching(playing_game, watcher)
    await heard(socket, "state")
    await move(playing_game, 0)
    await move(playing_game, 1)

    assert [(await heard(tab, "event"))["v"] for _ in range(2)] == [2, 3]
    await tab.disconnect()
    await socket.disconnect()
