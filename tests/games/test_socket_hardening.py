"""The sockets against what the internet sends: replays, junk, deep nesting, unknown paths, too many
sockets, and a database or Redis outage. Each gets a `reject` or a clear close; nothing is applied twice,
and a socket opened during an outage works once the outage is over."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable, Collection, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

import pytest
import redis
import redis.asyncio
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import OperationalError
from django.test import override_settings
from django.utils import timezone

from accordion_site.asgi import application
from accounts.models import Player
from games import engine
from games.events import group_name
from games.models import Game
from games.races import services as race_services
from games.races.models import Room
from games.services import game_move, game_start
from realtime.bus import running_bus
from realtime.edges import CLOSE_NOT_FOUND, CLOSE_TOO_MANY, CLOSE_TRY_AGAIN, UNAVAILABLE
from tests.races.sockets import racer, room_socket, room_until, until

from .sockets import FROM_THE_SITE, game_socket, refusal, session_cookie_for
from .watching.sockets import heard, watch_socket

pytestmark = pytest.mark.django_db(transaction=True)

FUZZ_SEEDS = range(4)
FRAMES_PER_SOCKET = 50  # under the burst a socket may send at once: every frame is parsed


@pytest.fixture
async def code_game(player, winning_game) -> Game:
    game, _ = await sync_to_async(game_start)(
        player=player, mode="code", code=winning_game["deal_code"], now=timezone.now()
    )
    return game


async def connected(game: Game, player) -> WebsocketCommunicator:
    socket = await game_socket(game.pk, player, v=game.version)
    accepted, _ = await socket.connect()
    assert accepted
    return socket


async def test_a_move_sent_twice_with_the_same_n_is_applied_once_and_acknowledged_twice(
    code_game, player, winning_game
):
    socket = await connected(code_game, player)
    message = {"t": "move", "move": winning_game["moves"][0], "n": 1}
    await socket.send_json_to(message)
    first = await socket.receive_json_from()
    await socket.send_json_to(message)
    second = await socket.receive_json_from()
    assert first == second and first["t"] == "ack"
    game = await Game.objects.aget(pk=code_game.pk)
    assert game.moves == [winning_game["moves"][0]] and game.version == 2
    await socket.disconnect()


async def test_a_frame_nested_a_thousand_deep_is_rejected_and_the_socket_stays_open(code_game, player):
    socket = await connected(code_game, player)
    await socket.send_to(text_data="[" * 1000)
    answer = await socket.receive_json_from()
    assert answer["t"] == "reject" and answer["code"] == "bad_message"
    await socket.send_json_to({"t": "sync", "v": 0, "n": 2})
    assert (await socket.receive_json_from())["t"] in {"state", "event"}
    await socket.disconnect()


async def test_an_unknown_socket_path_is_refused_with_4404_and_logs_no_error(player, caplog):
    socket = WebsocketCommunicator(application, "/ws/games/-1/", headers=FROM_THE_SITE)
    close_code, message = await refusal(socket)
    assert close_code == CLOSE_NOT_FOUND
    assert message == {"t": "refused", "error": "no such socket", "code": "not_found"}
    assert errors_logged(caplog) == []


@override_settings(SOCKETS_PER_PLAYER=2)
async def test_a_player_past_the_socket_cap_is_refused_with_4429(code_game, player):
    held = [await connected(code_game, player) for _ in range(2)]
    close_code, message = await refusal(await game_socket(code_game.pk, player, v=code_game.version))
    assert close_code == CLOSE_TOO_MANY and message is not None and message["code"] == "too_many_sockets"
    await held[0].disconnect()
    again = await connected(code_game, player)  # a closed socket frees its place
    for socket in [held[1], again]:
        await socket.disconnect()


async def test_a_move_during_a_database_outage_is_rejected_as_try_again_and_can_be_sent_again(
    code_game, player, winning_game
):
    socket = await connected(code_game, player)
    move = {"t": "move", "move": winning_game["moves"][0], "n": 1}
    with mock.patch("games.store.read_game", side_effect=OperationalError("the database is away")):
        await socket.send_json_to(move)
        answer = await socket.receive_json_from()
    assert answer["t"] == "reject" and answer["code"] == "unavailable"
    await socket.send_json_to(move)
    assert (await socket.receive_json_from())["v"] == code_game.version + 1
    await socket.disconnect()


async def test_a_socket_opened_during_a_database_outage_is_closed_with_try_again_later(code_game, player):
    with mock.patch("games.selectors.game_get_for_player", side_effect=OperationalError("the database is away")):
        close_code, message = await refusal(await game_socket(code_game.pk, player))
    assert close_code == CLOSE_TRY_AGAIN and message is not None and message["code"] == "unavailable"


# --- Redis away -------------------------------------------------------------------------------------

# Where every command to Redis leaves the process: the channel layer's subscriptions and publications
# (redis.asyncio), the cache and the watcher counts (redis), one command or a pipeline at a time.
REDIS_COMMANDS: list[tuple[type, str]] = [
    (redis.Redis, "execute_command"),
    (redis.client.Pipeline, "execute"),
    (redis.client.PubSub, "execute_command"),
    (redis.asyncio.Redis, "execute_command"),
    (redis.asyncio.client.Pipeline, "execute"),
    (redis.asyncio.client.PubSub, "execute_command"),
    (redis.asyncio.Connection, "send_packed_command"),  # the bus's own connections (realtime/shards.py)
]
TRY_AGAIN_LATER = (CLOSE_TRY_AGAIN, {"t": "refused", "error": UNAVAILABLE, "code": "unavailable"})


@contextmanager
def redis_away() -> Iterator[None]:
    """Every command sent to Redis fails as it does while the server is down; Redis is back when the
    context ends, with the same clients, as after a restart."""

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    with ExitStack() as stack:
        for owner, name in REDIS_COMMANDS:
            stack.enter_context(mock.patch.object(owner, name, refused))
        yield


def errors_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


def outage_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno == logging.WARNING and "outage" in record.getMessage()
    ]


async def settled(socket: WebsocketCommunicator) -> None:
    """Wait until the socket's handshake is over: a consumer answers messages only after it."""
    await socket.send_to(text_data="{}")
    while (await socket.receive_json_from())["t"] != "reject":
        pass


async def other_game(other_player: Player) -> Game:
    game, _ = await sync_to_async(game_start)(player=other_player, mode="new", now=timezone.now())
    return game


async def lobby_of(host: Player, deal_code: str) -> Room:
    return await sync_to_async(race_services.room_create)(host=host, deal_code=deal_code, now=timezone.now())


async def room_refusal(code: str, player: Player) -> tuple[int | None, dict[str, Any] | None]:
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(player))]
    return await refusal(WebsocketCommunicator(application, f"/ws/races/{code}/", headers=headers))


async def move_from_another_tab(game: Game, player: Player, move: list[int]) -> None:
    await sync_to_async(game_move)(game_id=game.pk, player=player, move=move, now=timezone.now())


# For each socket: one already open on another game or room (the process has been serving), a socket
# opened while Redis is away, and what a socket opened once it is back must hear.
SocketThroughAnOutage = Callable[[Game, Player, Player, dict[str, Any]], Awaitable[None]]


async def game_socket_through_an_outage(code_game, player, other_player, winning_game) -> None:
    serving = await connected(await other_game(other_player), other_player)
    await settled(serving)
    with redis_away():
        assert await refusal(await game_socket(code_game.pk, player, v=code_game.version)) == TRY_AGAIN_LATER
    back = await connected(code_game, player)
    await settled(back)
    await move_from_another_tab(code_game, player, winning_game["moves"][0])
    assert (await heard(back, "event"))["v"] == code_game.version + 1
    await asyncio.gather(serving.disconnect(), back.disconnect())


async def watch_socket_through_an_outage(code_game, player, other_player, winning_game) -> None:
    # Serving a player, not a watcher: no watcher count is being written when Redis goes away.
    serving = await connected(await other_game(other_player), other_player)
    await settled(serving)
    with redis_away():
        assert await refusal(await watch_socket(code_game.pk, other_player)) == TRY_AGAIN_LATER
    back = await watch_socket(code_game.pk, player)  # its own player: no badge is asked of the solver
    assert (await back.connect())[0]
    await settled(back)
    await move_from_another_tab(code_game, player, winning_game["moves"][0])
    assert (await heard(back, "event"))["v"] == code_game.version + 1
    await asyncio.gather(serving.disconnect(), back.disconnect())


async def room_socket_through_an_outage(code_game, player, other_player, winning_game) -> None:
    serving = await room_socket((await lobby_of(other_player, winning_game["deal_code"])).code, other_player)
    await settled(serving)
    room = await lobby_of(player, winning_game["deal_code"])
    with redis_away():
        assert await room_refusal(room.code, player) == TRY_AGAIN_LATER
    back = await room_socket(room.code, player)
    await settled(back)
    friend = await room_socket(room.code, other_player)
    await room_until(back, lambda message: racer(message, other_player))
    await asyncio.gather(serving.disconnect(), back.disconnect(), friend.disconnect())


@pytest.mark.parametrize(
    "through_an_outage",
    [game_socket_through_an_outage, watch_socket_through_an_outage, room_socket_through_an_outage],
    ids=["game", "watch", "room"],
)
async def test_a_socket_opened_while_redis_is_away_is_told_to_try_again_later_and_hears_live_once_it_is_back(
    redis_url, code_game, player, other_player, winning_game, caplog, through_an_outage: SocketThroughAnOutage
):
    caplog.set_level(logging.WARNING)
    await through_an_outage(code_game, player, other_player, winning_game)
    assert outage_warnings(caplog), "the refusal is logged"
    assert errors_logged(caplog) == []


async def test_a_game_socket_that_redis_fails_half_way_through_its_handshake_stops_following_the_game(
    redis_url, code_game, player
):
    first = await connected(code_game, player)
    await settled(first)  # the game is followed: the next socket subscribes to nothing, fails later
    with redis_away():
        assert await refusal(await game_socket(code_game.pk, player, v=code_game.version)) == TRY_AGAIN_LATER
    bus = running_bus()
    assert bus is not None and bus.following(group_name(code_game.pk)) == 1, "only the socket still open follows"
    await first.disconnect()


async def test_a_move_while_redis_is_away_is_stored_and_acknowledged_and_another_tab_gets_it_by_version(
    redis_url, code_game, player, winning_game, caplog
):
    tab, other_tab = await connected(code_game, player), await connected(code_game, player)
    await asyncio.gather(settled(tab), settled(other_tab))
    with redis_away():
        await tab.send_json_to({"t": "move", "move": winning_game["moves"][0], "n": 1})
        ack = await tab.receive_json_from()
        async with asyncio.timeout(5):
            while not any("could not be published" in message for message in outage_warnings(caplog)):
                await asyncio.sleep(0.05)
    # An outage is a WARNING with every try, without a traceback: it says nothing an ERROR should.
    assert not [message for message in errors_logged(caplog) if "could not be published" in message]
    assert (ack["t"], ack["v"]) == ("ack", code_game.version + 1)
    assert (await Game.objects.aget(pk=code_game.pk)).moves == [winning_game["moves"][0]]
    assert await other_tab.receive_nothing(), "the event could not be published: the other tab hears nothing"
    await other_tab.send_json_to({"t": "sync", "v": code_game.version, "n": 1})
    event = await other_tab.receive_json_from()
    assert (event["t"], event["v"], event["move"]) == ("event", code_game.version + 1, winning_game["moves"][0])
    await asyncio.gather(tab.disconnect(), other_tab.disconnect())


async def test_a_room_command_while_redis_is_away_is_stored_and_acknowledged_then_the_socket_comes_back_for_the_news(
    redis_url, player, other_player, winning_game, caplog
):
    room = await lobby_of(player, winning_game["deal_code"])
    host = await room_socket(room.code, player)
    friend = await room_socket(room.code, other_player)
    await asyncio.gather(settled(host), settled(friend))
    with redis_away():
        await friend.send_json_to({"t": "ready", "ready": True, "n": 1})
        assert await answer_to(friend) == {"t": "ack", "n": 1}
        told = await friend.receive_json_from()
        closing = await friend.receive_output()
    # The news could not be sent: the socket is closed to come back for it, as a client does after 3503.
    assert (told, closing["code"]) == (TRY_AGAIN_LATER[1], CLOSE_TRY_AGAIN)
    assert outage_warnings(caplog)
    await friend.disconnect()
    again = await room_socket(room.code, other_player)
    assert racer(await until(again, "room"), other_player)["ready"]
    await again.disconnect()
    # Every socket of the friend's is gone, the one closed during the outage too: the seat shows it.
    await room_until(host, lambda message: racer(message, other_player).get("connected") is False)
    await host.disconnect()


async def test_a_room_command_during_a_database_outage_is_rejected_as_try_again_and_the_socket_stays_open(
    player, winning_game
):
    room = await lobby_of(player, winning_game["deal_code"])
    socket = await room_socket(room.code, player)
    await settled(socket)
    with mock.patch.object(race_services, "race_settings", side_effect=OperationalError("the database is away")):
        await socket.send_json_to({"t": "settings", "time_limit": 120, "n": 1})
        answer = await answer_to(socket)
    assert answer == {"t": "reject", "n": 1, "error": UNAVAILABLE, "code": "unavailable"}
    await socket.send_json_to({"t": "settings", "time_limit": 120, "n": 2})
    assert await answer_to(socket) == {"t": "ack", "n": 2}
    assert (await Room.objects.aget(pk=room.pk)).time_limit == 120
    await socket.disconnect()


# --- fuzz ---------------------------------------------------------------------------------------------

# What each socket takes, for frames that are nearly right; and the fields those messages carry.
GAME_TYPES = ["move", "undo", "sync", "ping", None]
ROOM_TYPES = ["ready", "start", "kick", "leave", "rematch", "ghost", "settings", "sync", "move", None]
FIELDS = ["v", "move", "ready", "player", "game", "time_limit", "code"]


def random_frame(rng: random.Random, deal_size: int, types: list[str | None] = GAME_TYPES) -> str:
    """Junk of the shapes a fuzzer finds: wrong types, huge numbers, deep nesting, stray bytes, and
    near-valid messages (of `types`) with one field wrong."""
    values: list[Any] = [None, True, -1, 0, 2**31, 10**40, 1.5, "", "x" * rng.randrange(50), [], {}, [1, 0]]
    shape = rng.randrange(6)
    if shape == 0:
        return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(1, 80)))
    if shape == 1:
        return rng.choice("[{") * rng.randrange(1, 1000)
    if shape == 2:
        return json.dumps(rng.choice(values))
    if shape == 3:
        move = [rng.randrange(-2, deal_size + 2), rng.randrange(-2, deal_size + 2)]
        return json.dumps({"t": "move", "move": move, "n": rng.choice([*values, rng.randrange(2**31)])})
    if shape == 4:
        return json.dumps({"t": rng.choice(types), "n": 1, rng.choice(FIELDS): rng.choice(values)})
    frame = json.dumps({"t": "move", "move": [1, 0], "n": 1})
    cut = rng.randrange(len(frame))
    return frame[:cut] + chr(rng.randrange(0x20, 0x7F)) + frame[cut + 1 :]


async def answer_to(socket: WebsocketCommunicator, answers: Collection[str] = ("ack", "reject")) -> dict[str, Any]:
    """The answer to the frame just sent, past what the socket says meanwhile (a room's news)."""
    while True:
        output = await socket.receive_output()
        assert output["type"] == "websocket.send", output  # never a close
        message: dict[str, Any] = json.loads(output["text"])
        if message["t"] in answers:
            return message


async def fuzzed_game_socket(code_game: Game, player: Player, rng: random.Random) -> None:
    socket = await connected(code_game, player)
    for _ in range(FRAMES_PER_SOCKET):
        await socket.send_to(text_data=random_frame(rng, deal_size=52))
        # A `sync` (from version 0, the one whole `v` among the junk) is answered with the game's events.
        await answer_to(socket, ("ack", "reject", "event", "state"))
    while not await socket.receive_nothing():
        assert (await socket.receive_json_from())["t"] in {"event", "state"}
    game = await Game.objects.select_related("deal").aget(pk=code_game.pk)
    assert game.piles == engine.replay(game.deal.cards, game.moves).piles
    await socket.disconnect()


async def fuzzed_watch_socket(code_game: Game, player: Player, rng: random.Random) -> None:
    socket = await watch_socket(code_game.pk, None)
    assert (await socket.connect())[0]
    for _ in range(FRAMES_PER_SOCKET):
        await socket.send_to(text_data=random_frame(rng, deal_size=52))
        assert (await answer_to(socket))["code"] == "read_only"
    assert (await Game.objects.aget(pk=code_game.pk)).version == code_game.version
    await socket.disconnect()


async def fuzzed_room_socket(code_game: Game, player: Player, rng: random.Random) -> None:
    room = await lobby_of(player, await sync_to_async(lambda: code_game.deal.code or "")())
    socket = await room_socket(room.code, player)
    await until(socket, "room")
    for _ in range(FRAMES_PER_SOCKET):
        await socket.send_to(text_data=random_frame(rng, deal_size=52, types=ROOM_TYPES))
        await answer_to(socket)
    await socket.send_json_to({"t": "sync", "n": 2**31 - 1})
    assert (await answer_to(socket)) == {"t": "ack", "n": 2**31 - 1}, "the room still answers"
    await socket.disconnect()


@pytest.mark.parametrize("seed", FUZZ_SEEDS)
@pytest.mark.parametrize(
    "fuzzed", [fuzzed_game_socket, fuzzed_watch_socket, fuzzed_room_socket], ids=["game", "watch", "room"]
)
async def test_random_frames_get_only_answers_never_a_close_or_a_logged_error(code_game, player, seed, fuzzed, caplog):
    await fuzzed(code_game, player, random.Random(seed))
    assert errors_logged(caplog) == []
