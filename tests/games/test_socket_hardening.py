"""A player's socket against what the internet sends: replays, junk, deep nesting, unknown paths, too
many sockets, and a database outage. Each gets a `reject` or a clear close; nothing is applied twice."""

from __future__ import annotations

import json
import random
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import OperationalError
from django.test import override_settings
from django.utils import timezone

from accordion_site.asgi import application
from accordion_site.sockets import CLOSE_NO_SUCH_SOCKET, CLOSE_TOO_MANY_SOCKETS, CLOSE_TRY_AGAIN
from games import engine
from games.models import Game
from games.services import game_start

from .sockets import FROM_THE_SITE, game_socket, refusal

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


async def test_an_unknown_socket_path_is_refused_with_4404(player):
    socket = WebsocketCommunicator(application, "/ws/games/-1/", headers=FROM_THE_SITE)
    close_code, message = await refusal(socket)
    assert close_code == CLOSE_NO_SUCH_SOCKET
    assert message == {"t": "refused", "error": "no such socket", "code": "not_found"}


@override_settings(SOCKETS_PER_PLAYER=2)
async def test_a_player_past_the_socket_cap_is_refused_with_4429(code_game, player):
    held = [await connected(code_game, player) for _ in range(2)]
    close_code, message = await refusal(await game_socket(code_game.pk, player, v=code_game.version))
    assert close_code == CLOSE_TOO_MANY_SOCKETS and message["code"] == "too_many_sockets"
    await held[0].disconnect()
    again = await connected(code_game, player)  # a closed socket frees its place
    for socket in [held[1], again]:
        await socket.disconnect()


async def test_a_move_during_a_database_outage_is_rejected_as_try_again_and_can_be_sent_again(
    code_game, player, winning_game
):
    socket = await connected(code_game, player)
    move = {"t": "move", "move": winning_game["moves"][0], "n": 1}
    with mock.patch("games.services.game_move", side_effect=OperationalError("the database is away")):
        await socket.send_json_to(move)
        answer = await socket.receive_json_from()
    assert answer["t"] == "reject" and answer["code"] == "unavailable"
    await socket.send_json_to(move)
    assert (await socket.receive_json_from())["v"] == code_game.version + 1
    await socket.disconnect()


async def test_a_socket_opened_during_a_database_outage_is_closed_with_try_again_later(code_game, player):
    with mock.patch("games.selectors.game_get_for_player", side_effect=OperationalError("the database is away")):
        close_code, message = await refusal(await game_socket(code_game.pk, player))
    assert close_code == CLOSE_TRY_AGAIN and message["code"] == "unavailable"


def random_frame(rng: random.Random, deal_size: int) -> str:
    """Junk of the shapes a fuzzer finds: wrong types, huge numbers, deep nesting, stray bytes, and
    near-valid messages with one field wrong."""
    values = [None, True, -1, 0, 2**31, 10**40, 1.5, "", "x" * rng.randrange(50), [], {}, [1, 0]]
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
        return json.dumps({"t": rng.choice(["move", "undo", "sync", "ping", None]), "n": 1, "v": rng.choice(values)})
    frame = json.dumps({"t": "move", "move": [1, 0], "n": 1})
    cut = rng.randrange(len(frame))
    return frame[:cut] + chr(rng.randrange(0x20, 0x7F)) + frame[cut + 1 :]


@pytest.mark.parametrize("seed", FUZZ_SEEDS)
async def test_random_frames_get_only_answers_never_a_crash_and_the_game_stays_a_replay_of_its_line(
    code_game, player, seed
):
    rng = random.Random(seed)
    socket = await connected(code_game, player)
    for _ in range(FRAMES_PER_SOCKET):
        await socket.send_to(text_data=random_frame(rng, deal_size=52))
        answer = await socket.receive_json_from()
        assert answer["t"] in {"reject", "ack"}, answer
    assert await socket.receive_nothing()
    game = await Game.objects.select_related("deal").aget(pk=code_game.pk)
    assert game.piles == engine.replay(game.deal.cards, game.moves).piles
    await socket.disconnect()
