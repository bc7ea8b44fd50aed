"""The room socket: joining, readiness, the countdown, the start, everyone's progress live, the
standings, a dropped racer coming back; and a clear refusal for everything a client may not do."""

from __future__ import annotations

import asyncio
import datetime
import functools
import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import OperationalError
from django.utils import timezone

from accordion_site.asgi import application
from accounts.models import Player
from games.models import Game
from games.races import broadcast, selectors, services
from games.races.models import MAX_RACERS, Room
from games.services import game_finish, game_move
from games.watching.selectors import live_games
from realtime import presence
from realtime import protocol as realtime_protocol
from realtime.bus import Message, publish
from realtime.consumer import FLOOD_STRIKES
from realtime.protocol import MessageRate
from tests.conftest import player_client
from tests.games.sockets import FROM_THE_SITE, game_socket, refusal, session_cookie_for

from .sockets import racer, room_socket, room_until, until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("socket_services_stopped")]


@pytest.fixture
def quick_countdown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "COUNTDOWN_SECONDS", 0.3)


@pytest.fixture
async def live_room(host, winning_game) -> Room:
    return await sync_to_async(services.room_create)(host=host, deal_code=winning_game["deal_code"], now=timezone.now())


async def both_ready(live_room: Room, host, friend) -> tuple[Any, Any]:
    """The host's and the friend's room sockets, the friend ready: everyone present is, so the countdown
    starts by itself."""
    host_socket = await room_socket(live_room.code, host)
    friend_socket = await room_socket(live_room.code, friend)
    await friend_socket.send_json_to({"t": "ready", "ready": True, "n": 1})
    await room_until(host_socket, lambda room: racer(room, friend).get("ready"))
    return host_socket, friend_socket


async def started(live_room: Room, host, friend) -> tuple[Any, Any, dict[str, Any], dict[str, Any]]:
    """Both racers' sockets past the start signal, with the game each got."""
    host_socket, friend_socket = await both_ready(live_room, host, friend)
    host_start = await until(host_socket, "start")
    friend_start = await until(friend_socket, "start")
    return host_socket, friend_socket, host_start["game"], friend_start["game"]


async def close(*sockets: Any) -> None:
    for socket in sockets:
        await socket.disconnect()


async def test_opening_the_socket_seats_the_player_and_the_others_hear_it(live_room, host, friend):
    host_socket = await room_socket(live_room.code, host)
    assert await host_socket.receive_json_from() == {"t": "welcome", "player": host.pk}
    first = await until(host_socket, "room")
    assert first["state"] == "lobby" and first["host"] == host.pk and first["deal"] is None
    friend_socket = await room_socket(live_room.code, friend)
    room = await room_until(host_socket, lambda room: len(room["racers"]) == 2)
    assert racer(room, friend)["connected"] and room["url"] == f"/race/{live_room.code}"
    await close(host_socket, friend_socket)


async def test_ready_is_acknowledged_and_every_socket_hears_it(live_room, host, friend):
    host_socket, friend_socket = await both_ready(live_room, host, friend)
    assert await until(friend_socket, "ack") == {"t": "ack", "n": 1}
    await close(host_socket, friend_socket)


async def test_when_everyone_present_is_ready_a_countdown_comes_with_the_absolute_start_and_the_servers_clock(
    live_room, host, friend
):
    host_socket, friend_socket = await both_ready(live_room, host, friend)  # nobody presses start
    countdown = await until(friend_socket, "countdown")
    starts_at = datetime.datetime.fromisoformat(countdown["starts_at"].replace("Z", "+00:00"))
    server_now = datetime.datetime.fromisoformat(countdown["server_now"].replace("Z", "+00:00"))
    assert (starts_at - server_now).total_seconds() == pytest.approx(services.COUNTDOWN_SECONDS, abs=0.5)
    await close(host_socket, friend_socket)


async def test_at_the_start_signal_each_racer_gets_their_own_game_on_one_deal(
    live_room, host, friend, third, quick_countdown, winning_game
):
    watcher = await room_socket(live_room.code, None)
    host_socket, friend_socket, host_game, friend_game = await started(live_room, host, friend)
    assert host_game["id"] != friend_game["id"]
    assert host_game["deal"] == friend_game["deal"] == winning_game["deal"]
    assert host_game["mode"] == "race" and host_game["started_at"] == friend_game["started_at"]
    room = await room_until(watcher, lambda room: room["state"] == "racing")
    assert room["deal"] == winning_game["deal"]
    assert await watcher.receive_nothing(timeout=0.3)  # a watcher gets no game of its own
    await close(host_socket, friend_socket, watcher)


def holds_a_deal(value: Any) -> bool:
    """Whether a message holds a list of 52 cards anywhere in it."""
    if isinstance(value, dict):
        return any(holds_a_deal(item) for item in value.values())
    if isinstance(value, list):
        return (len(value) == 52 and all(isinstance(card, str) for card in value)) or any(map(holds_a_deal, value))
    return False


async def test_nothing_the_sockets_hear_before_the_start_names_the_deal(
    live_room, host, friend, quick_countdown, winning_game
):
    host_socket, friend_socket = await both_ready(live_room, host, friend)
    heard = []
    while (message := await friend_socket.receive_json_from(timeout=3)).get("state") != "racing":
        heard.append(message)
    assert {message["t"] for message in heard} >= {"welcome", "room", "countdown"}
    assert not any(holds_a_deal(message) or winning_game["deal_code"] in json.dumps(message) for message in heard)
    assert message["deal"] == winning_game["deal"]  # the room that says "racing" brings it
    await close(host_socket, friend_socket)


async def test_every_move_reaches_the_other_racers_room_as_progress(
    live_room, host, friend, quick_countdown, winning_game
):
    host_socket, friend_socket, host_game, _ = await started(live_room, host, friend)
    player_socket = await game_socket(host_game["id"], host, v=1)
    await player_socket.connect()
    for n, move in enumerate(winning_game["moves"][:3], start=1):
        await player_socket.send_json_to({"t": "move", "move": move, "n": n})
        progress = await until(friend_socket, "progress")
        assert progress | {"at": None} == {
            "t": "progress",
            "racer": progress["racer"],
            "player": host.pk,
            "v": n + 1,
            "kind": "move",
            "move": move,
            "line": None,
            "piles": 52 - n,
            "score": 10 * n,
            "moves": n,
            "status": "playing",
            "at": None,
        }
    await close(player_socket, host_socket, friend_socket)


async def test_a_racer_s_win_reaches_the_others_as_progress_with_the_game_s_score(
    live_room, host, friend, quick_countdown, winning_game
):
    host_socket, friend_socket, host_game, _ = await started(live_room, host, friend)
    await sync_to_async(game_finish)(
        game_id=host_game["id"], player=host, moves=winning_game["moves"], now=timezone.now()
    )
    progress = await until(friend_socket, "progress")
    score = (await Game.objects.aget(pk=host_game["id"])).score
    assert (progress["kind"], progress["status"], progress["piles"]) == ("finish", "finished", 1)
    assert progress["score"] == score > 10 * 51  # the win's bonus counts, not the piles alone
    await close(host_socket, friend_socket)


async def test_a_finisher_sees_their_place_at_once_and_the_standings_fill_in_as_the_others_finish(
    live_room, host, friend, quick_countdown, winning_game
):
    host_socket, friend_socket, host_game, friend_game = await started(live_room, host, friend)
    finish = sync_to_async(game_finish)
    await finish(game_id=friend_game["id"], player=friend, moves=[], now=timezone.now())
    so_far = await until(friend_socket, "standings")
    assert not so_far["final"]
    assert [(entry["player"], entry["place"]) for entry in so_far["standings"]] == [(friend.pk, 1)]
    room = await room_until(host_socket, lambda room: room["standings"])
    assert room["state"] == "racing" and room["standings"] == so_far["standings"]  # the host races on

    await finish(game_id=host_game["id"], player=host, moves=winning_game["moves"], now=timezone.now())
    final = await until(friend_socket, "standings")
    assert final["final"]
    assert [(entry["player"], entry["place"], entry["won"]) for entry in final["standings"]] == [
        (host.pk, 1, True),
        (friend.pk, 2, False),
    ]
    room = await room_until(host_socket, lambda room: room["state"] == "finished")
    assert room["standings"] == final["standings"]
    await close(host_socket, friend_socket)


async def test_a_racer_who_drops_shows_disconnected_and_comes_back_to_where_the_race_is(
    live_room, host, friend, quick_countdown, winning_game
):
    host_socket, friend_socket, host_game, friend_game = await started(live_room, host, friend)
    await friend_socket.disconnect()
    room = await room_until(host_socket, lambda room: racer(room, friend).get("connected") is False)
    assert room["state"] == "racing"
    move = sync_to_async(game_move)
    for step in winning_game["moves"][:2]:
        await move(game_id=host_game["id"], player=host, move=step, now=timezone.now())
    back = await room_socket(live_room.code, friend)
    await until(back, "welcome")
    room = await until(back, "room")
    assert racer(room, friend)["connected"] and racer(room, host)["line"] == winning_game["moves"][:2]
    assert (await until(back, "start"))["game"]["id"] == friend_game["id"]  # their own board again
    await close(host_socket, back)


async def test_a_racer_gets_their_game_when_the_start_arrives_after_a_newer_room(
    live_room, host, friend, quick_countdown, monkeypatch
):
    # Rooms changed by two processes may reach a socket out of order: here the start's room is held
    # back until the next change (the host's tab closing) has been published.
    held: list[Message] = []

    def start_overtaken(message: Message) -> None:
        if message.data and message.data["starts"] and not held:
            held.append(message)
            return
        publish(message)
        while held:
            publish(held.pop())

    monkeypatch.setattr(broadcast, "publish", start_overtaken)
    host_socket, friend_socket = await both_ready(live_room, host, friend)
    await until(friend_socket, "countdown")
    while not held:
        await asyncio.sleep(0.02)
    await host_socket.disconnect()
    room = await room_until(friend_socket, lambda room: racer(room, host).get("connected") is False)
    assert room["state"] == "racing"
    assert (await until(friend_socket, "start"))["game"]["mode"] == "race"
    await close(friend_socket)


async def test_a_host_who_closes_the_tab_in_the_lobby_is_followed_by_a_connected_racer(
    live_room, host, friend, monkeypatch
):
    monkeypatch.setattr(selectors, "HOST_AWAY_SECONDS", 0.3)
    host_socket = await room_socket(live_room.code, host)
    friend_socket = await room_socket(live_room.code, friend)  # not ready: the lobby waits for them
    await room_until(host_socket, lambda room: racer(room, friend).get("connected"))
    await host_socket.disconnect()
    # No message from anyone: the friend's process acts when the host has been away long enough.
    room = await room_until(friend_socket, lambda room: room["host"] == friend.pk)
    assert racer(room, host)["connected"] is False
    await friend_socket.send_json_to({"t": "start", "n": 2})
    await until(friend_socket, "countdown")
    await close(friend_socket)


@pytest.mark.parametrize("code", ["ZZZZZZ", "not-a-code"])
async def test_a_room_that_does_not_exist_is_refused_with_4404(host, code):
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(host))]
    closed_with, message = await refusal(WebsocketCommunicator(application, f"/ws/races/{code}/", headers=headers))
    assert closed_with == 4404 and message is not None and message["code"] == "not_found"


@pytest.mark.parametrize(
    ("who", "command", "code"),
    [
        ("watcher", {"t": "ready", "ready": True}, "not_racer"),
        ("watcher", {"t": "start"}, "not_racer"),
        ("watcher", {"t": "leave"}, "not_racer"),
        ("friend", {"t": "start"}, "not_host"),
        ("friend", {"t": "kick", "player": 1}, "not_host"),
        ("friend", {"t": "rematch", "confirm": True}, "not_host"),
        ("host", {"t": "rematch"}, "wrong_state"),
        ("host", {"t": "rematch", "confirm": True}, "wrong_state"),
        ("host", {"t": "rematch", "confirm": "yes"}, "bad_message"),
        ("host", {"t": "move", "move": [1, 0]}, "not_started"),
        ("host", {"t": "teleport"}, "unknown_type"),
        ("host", {"t": "ready", "ready": "yes"}, "bad_message"),
        ("host", {"t": "settings", "time_limit": "long"}, "bad_message"),
        ("host", {"t": "settings", "time_limit": 5}, "invalid"),
        ("friend", {"t": "settings", "time_limit": 300}, "not_host"),
    ],
)
async def test_commands_the_room_refuses_get_a_reject_with_a_code(live_room, host, friend, third, who, command, code):
    host_socket = await room_socket(live_room.code, host)
    friend_socket = await room_socket(live_room.code, friend)
    watcher_socket = await room_socket(live_room.code, None)
    socket = {"host": host_socket, "friend": friend_socket, "watcher": watcher_socket}[who]
    await socket.send_json_to({**command, "n": 7})
    answer = await until(socket, "reject")
    assert answer["n"] == 7 and answer["code"] == code and answer["error"]
    assert (await Room.objects.aget(pk=live_room.pk)).state == Room.State.LOBBY
    await close(host_socket, friend_socket, watcher_socket)


async def test_a_move_or_an_undo_sent_to_the_room_after_the_start_belongs_on_the_game_socket(
    live_room, host, friend, quick_countdown, winning_game
):
    host_socket, friend_socket, host_game, _ = await started(live_room, host, friend)
    for n, command in enumerate([{"t": "move", "move": winning_game["moves"][0]}, {"t": "undo"}], start=7):
        await host_socket.send_json_to({**command, "n": n})
        answer = await until(host_socket, "reject")
        assert answer["n"] == n and answer["code"] == "wrong_socket" and "socket" in answer["error"]
    game = await Game.objects.aget(pk=host_game["id"])
    assert game.moves == [] and game.version == host_game["version"]  # nothing was played
    assert (await Room.objects.aget(pk=live_room.pk)).state == Room.State.RACING
    await close(host_socket, friend_socket)


async def test_a_full_room_lets_the_ninth_watch_and_refuses_a_ghost_as_room_full(live_room, host, friend):
    for index in range(MAX_RACERS - 1):
        seated = await Player.objects.acreate(nickname=f"Racer {index}")
        await sync_to_async(services.race_join)(code=live_room.code, player=seated, now=timezone.now())
    # Coming into a full room is no refusal, on the socket or through the API: the latecomer watches.
    ninth = await Player.objects.acreate(nickname="Ninth")
    ninth_socket = await room_socket(live_room.code, ninth)
    room = await until(ninth_socket, "room")
    assert len(room["racers"]) == MAX_RACERS and racer(room, ninth) == {}
    tenth = await Player.objects.acreate(nickname="Tenth")
    joined = await sync_to_async(lambda: player_client(tenth).post(f"/api/races/{live_room.code}/join"))()
    assert joined.status_code == 200 and tenth.pk not in [entry["player"] for entry in joined.json()["racers"]]
    # A ghost takes a seat too: the host's ghost finds none.
    ghost, _ = await sync_to_async(services.game_services.game_start)(player=friend, mode="new", now=timezone.now())
    await sync_to_async(game_finish)(game_id=ghost.pk, player=friend, moves=[], now=timezone.now())
    host_socket = await room_socket(live_room.code, host)
    await host_socket.send_json_to({"t": "ghost", "game": ghost.pk, "n": 3})
    answer = await until(host_socket, "reject")
    assert answer["n"] == 3 and answer["code"] == "room_full" and answer["error"]
    await close(ninth_socket, host_socket)


async def test_a_flooding_room_socket_is_told_to_slow_down_then_closed(live_room, host, monkeypatch):
    monkeypatch.setattr(realtime_protocol, "MessageRate", functools.partial(MessageRate, per_second=1e-9))
    socket = await room_socket(live_room.code, host)
    await until(socket, "room")
    for _ in range(realtime_protocol.MESSAGE_BURST):
        await socket.send_to(text_data="junk")
        assert (await until(socket, "reject"))["code"] == "bad_message"
    await socket.send_to(text_data="junk")
    assert (await until(socket, "reject"))["code"] == "rate_limited"
    for _ in range(FLOOD_STRIKES):
        await socket.send_to(text_data="junk")
    while (output := await socket.receive_output(timeout=2))["type"] != "websocket.close":
        assert json.loads(output["text"])["code"] == "rate_limited"
    assert output["code"] == 4429


async def test_the_race_starts_on_time_even_when_no_message_comes(live_room, host, quick_countdown):
    socket = await room_socket(live_room.code, host)
    await socket.send_json_to({"t": "start", "n": 1})
    await until(socket, "countdown")
    await asyncio.sleep(services.COUNTDOWN_SECONDS)
    assert (await until(socket, "start"))["game"]["mode"] == "race"
    assert await Game.objects.filter(race_code=live_room.code).aexists()
    await close(socket)


async def test_a_socket_that_comes_back_to_a_process_with_no_one_left_in_the_room_hears_progress(
    live_room, host, friend, quick_countdown, winning_game
):
    host_socket, friend_socket, host_game, _ = await started(live_room, host, friend)
    await close(host_socket, friend_socket)  # this process forgets the room
    back = await room_socket(live_room.code, friend)
    await room_until(back, lambda room: room["state"] == "racing")
    await sync_to_async(game_move)(
        game_id=host_game["id"], player=host, move=winning_game["moves"][0], now=timezone.now()
    )
    progress = await until(back, "progress")
    assert (progress["player"], progress["v"], progress["piles"]) == (host.pk, 2, 51)
    await close(back)


async def test_sync_sends_the_room_again_with_every_racers_line(live_room, host, friend, quick_countdown, winning_game):
    host_socket, friend_socket, host_game, _ = await started(live_room, host, friend)
    await sync_to_async(game_move)(
        game_id=host_game["id"], player=host, move=winning_game["moves"][0], now=timezone.now()
    )
    await until(friend_socket, "progress")
    await friend_socket.send_json_to({"t": "sync", "n": 5})
    room = await until(friend_socket, "room")
    assert racer(room, host)["line"] == [winning_game["moves"][0]] and racer(room, host)["v"] == 2
    assert await until(friend_socket, "ack") == {"t": "ack", "n": 5}
    await close(host_socket, friend_socket)


async def finished(live_room: Room, host, friend) -> tuple[Any, Any]:
    """Both racers' sockets after a race both ended."""
    host_socket, friend_socket, host_game, friend_game = await started(live_room, host, friend)
    for game, player in ((host_game, host), (friend_game, friend)):
        await sync_to_async(game_finish)(game_id=game["id"], player=player, moves=[], now=timezone.now())
    await room_until(host_socket, lambda room: room["state"] == "finished")
    await room_until(friend_socket, lambda room: room["state"] == "finished")
    return host_socket, friend_socket


async def test_a_rematch_anyone_asks_for_starts_when_everyone_present_agrees(live_room, host, friend, quick_countdown):
    host_socket, friend_socket = await finished(live_room, host, friend)
    await friend_socket.send_json_to({"t": "rematch", "n": 3})  # not the host: asks all the same
    asked = await room_until(host_socket, lambda room: racer(room, friend).get("rematch"))
    assert asked["state"] == "finished" and not racer(asked, host)["rematch"]  # the host sees who agreed

    await host_socket.send_json_to({"t": "rematch", "n": 4})
    room = await room_until(friend_socket, lambda room: room["round"] == 2)
    assert room["deal"] is None and {entry["player"] for entry in room["racers"]} == {host.pk, friend.pk}
    assert all(entry["connected"] and entry["ready"] for entry in room["racers"])
    # Everyone agreed, so everyone is ready: the next race counts down at once.
    assert (await until(friend_socket, "countdown"))["starts_at"]
    await close(host_socket, friend_socket)


async def test_the_host_confirms_a_rematch_without_waiting_and_the_others_are_not_ready_in_it(
    live_room, host, friend, quick_countdown
):
    host_socket, friend_socket = await finished(live_room, host, friend)
    await host_socket.send_json_to({"t": "rematch", "confirm": True, "n": 3})
    room = await room_until(friend_socket, lambda room: room["round"] == 2)
    assert room["state"] == "lobby" and not racer(room, friend)["ready"]
    assert room["waiting"] == [racer(room, friend)["racer"]]  # the start waits for the friend
    await close(host_socket, friend_socket)


async def test_a_ghost_races_live_at_its_own_pace(host, friend, quick_countdown, winning_game):
    # The friend's win, its moves 0.1 s apart: the ghost's first three moves come within a second.
    start = timezone.now() - datetime.timedelta(seconds=30)
    ghost, _ = await sync_to_async(services.game_services.game_start)(
        player=friend, mode="code", code=winning_game["deal_code"], now=start
    )
    for index, move in enumerate(winning_game["moves"]):
        at = start + datetime.timedelta(seconds=0.5 + index / 10)
        await sync_to_async(game_move)(game_id=ghost.pk, player=friend, move=move, now=at)
    room = await sync_to_async(services.room_create)(host=host, ghost_game_id=ghost.pk, now=timezone.now())
    socket = await room_socket(room.code, host)
    await socket.send_json_to({"t": "start", "n": 1})
    await until(socket, "start")
    heard = [await until(socket, "progress", timeout=3) for _ in range(3)]
    assert [(entry["player"], entry["v"], entry["move"]) for entry in heard] == [
        (friend.pk, 2 + index, move) for index, move in enumerate(winning_game["moves"][:3])
    ]
    await close(socket)


async def test_a_ghost_race_whose_player_closed_the_tab_ends_and_leaves_the_live_list(
    host, friend, quick_countdown, winning_game, monkeypatch
):
    monkeypatch.setattr(selectors, "RACE_AWAY_SECONDS", 0.3)
    start = timezone.now() - datetime.timedelta(seconds=30)
    ghost, _ = await sync_to_async(services.game_services.game_start)(
        player=friend, mode="code", code=winning_game["deal_code"], now=start
    )
    await sync_to_async(game_finish)(game_id=ghost.pk, player=friend, moves=winning_game["moves"][:3], now=start)
    room = await sync_to_async(services.room_create)(host=host, ghost_game_id=ghost.pk, now=timezone.now())
    socket = await room_socket(room.code, host)
    await socket.send_json_to({"t": "start", "n": 1})
    game = (await until(socket, "start"))["game"]
    listed = await sync_to_async(live_games)(now=timezone.now())
    assert game["id"] in {entry.id for entry in listed}
    await socket.disconnect()  # the tab closes; no other socket of the room is open anywhere

    for _ in range(50):  # nobody reads the room: this process ends it once the player has been away
        if await Game.objects.filter(pk=game["id"], status=Game.Status.FINISHED).aexists():
            break
        await asyncio.sleep(0.1)
    assert (await Room.objects.aget(pk=room.pk)).state == Room.State.FINISHED
    listed = await sync_to_async(live_games)(now=timezone.now())
    assert game["id"] not in {entry.id for entry in listed}


async def test_a_room_socket_closed_in_a_database_outage_is_stored_as_away_once_the_database_is_back(
    live_room, host, friend, monkeypatch
):
    monkeypatch.setattr(presence, "REFRESH_S", 0.05)
    host_socket = await room_socket(live_room.code, host)
    friend_socket = await room_socket(live_room.code, friend)
    await room_until(host_socket, lambda room: racer(room, friend).get("connected") is True)
    store_presence = services.race_presence

    def outage_once(**kwargs: Any) -> services.RoomNews:
        monkeypatch.setattr(services, "race_presence", store_presence)  # the database is back for the next try
        raise OperationalError("connection refused")

    monkeypatch.setattr(services, "race_presence", outage_once)
    await friend_socket.disconnect()

    # Without the retry the friend would show as connected for good, and hold up a start that waits for them.
    room = await room_until(host_socket, lambda room: racer(room, friend).get("connected") is False)
    assert room["state"] == "lobby"
    await close(host_socket)


async def test_sockets_open_before_the_host_picks_a_ghost_of_todays_daily_are_refused_and_hear_none_of_it(
    live_room, host, third, quick_countdown
):
    # The host's own attempt at today's daily: three moves of its winning line 0.1 s apart, then the end.
    now = timezone.now()
    played = now - datetime.timedelta(seconds=30)
    daily, _ = await sync_to_async(services.game_services.game_start)(player=host, mode="daily", now=played)
    line = daily.deal.solution[:3]
    for index, move in enumerate(line):
        at = played + datetime.timedelta(seconds=0.5 + index / 10)
        await sync_to_async(game_move)(game_id=daily.pk, player=host, move=move, now=at)
    done = played + datetime.timedelta(seconds=1)
    daily = await sync_to_async(game_finish)(game_id=daily.pk, player=host, moves=line, now=done)
    # A player who has finished their own attempt is kept out like anyone else.
    own, _ = await sync_to_async(services.game_services.game_start)(player=third, mode="daily", now=now)
    await sync_to_async(game_finish)(game_id=own.pk, player=third, moves=[], now=now)
    host_socket = await room_socket(live_room.code, host)
    visitor = await room_socket(live_room.code, None)  # no cookie: it watches
    watcher = await room_socket(live_room.code, third)
    await watcher.send_json_to({"t": "leave", "n": 1})  # gives up the seat: it watches
    await until(watcher, "ack")

    await host_socket.send_json_to({"t": "ghost", "game": daily.pk, "n": 1})

    for socket in (visitor, watcher):
        refused = await until(socket, "refused")
        assert refused["code"] == "spoiler"
        assert await socket.receive_output(timeout=3) == {"type": "websocket.close", "code": 4403}
    await host_socket.send_json_to({"t": "start", "n": 2})
    racing = await room_until(host_socket, lambda room: room["state"] == "racing")
    assert racing["deal"] == daily.deal.cards  # to the host alone
    assert (await until(host_socket, "start"))["game"]["deal"] == daily.deal.cards
    heard = [await until(host_socket, "progress") for _ in line]
    assert [entry["move"] for entry in heard] == line  # the ghost's moves, to the host alone
    for socket in (visitor, watcher):
        assert await socket.receive_nothing(timeout=0.5)
    await close(host_socket, visitor, watcher)


async def test_a_room_socket_resuming_at_the_room_s_version_is_not_sent_the_room_again(live_room):
    """A visitor watching the lobby reconnects: with the version it has, nothing is sent again."""
    first = await room_socket(live_room.code, None)
    room = await until(first, "room")
    await close(first)

    resumed = await room_socket(live_room.code, None, v=room["version"])
    assert (await resumed.receive_json_from())["t"] == "welcome"
    assert await resumed.receive_nothing(timeout=0.3)  # nothing changed since: nothing to send
    behind = await room_socket(live_room.code, None, v=room["version"] - 1)
    assert (await until(behind, "room"))["version"] >= room["version"]
    await close(resumed, behind)
