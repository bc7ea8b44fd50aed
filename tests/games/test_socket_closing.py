"""A player who closes the tab while a move of theirs is being stored: the move stands, the answer that
can no longer be written is dropped quietly, and the socket stops listening on the process's bus
(realtime/bus.py) as any other closed socket does; the same for a racer's command and a watcher's
stray frame. Between the client's close and Daphne's disconnect message, Daphne (autobahn) raises
`Disconnected` from every send; the wrapper below does the same."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accordion_site.asgi import application
from games import engine
from games.events import group_name
from games.models import Game
from games.races import services as races
from games.services import game_start
from realtime.bus import bus

from .sockets import FROM_THE_SITE, session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)

STORED_WITHIN_S = 5.0


class ClosedByTheClient:
    """The site's application behind a connection that the client has begun to close: once `closed`
    is set, every frame the server writes raises as Daphne's does."""

    def __init__(self) -> None:
        self.closed = asyncio.Event()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        async def send_while_open(message: dict[str, Any]) -> None:
            if self.closed.is_set() and message["type"] == "websocket.send":
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        return await application(scope, receive, send_while_open)


async def socket_to(app: ClosedByTheClient, path: str, player: Any) -> WebsocketCommunicator:
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(player))]
    socket = WebsocketCommunicator(app, path, headers=headers)
    accepted, _ = await socket.connect()
    assert accepted
    return socket


def problems(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]


async def version_of(game: Game) -> int:
    return (await Game.objects.aget(pk=game.pk)).version


async def until_version(game: Game, version: int) -> None:
    async with asyncio.timeout(STORED_WITHIN_S):
        while await version_of(game) < version:
            await asyncio.sleep(0.02)


async def test_a_move_sent_just_before_the_tab_closes_is_stored_and_its_socket_leaves_quietly(player, caplog):
    game, _ = await sync_to_async(game_start)(player=player, mode="new", now=timezone.now())
    move = engine.legal_moves(engine.replay(game.deal.cards, []))[0]
    app = ClosedByTheClient()
    socket = await socket_to(app, f"/ws/games/{game.pk}/", player)
    assert (await socket.receive_json_from())["t"] == "state"  # sent once the socket follows the game
    assert bus().following(group_name(game.pk)) == 1

    with caplog.at_level(logging.INFO):
        app.closed.set()
        await socket.send_json_to({"t": "move", "move": list(move), "n": 1})
        await until_version(game, game.version + 1)
        await socket.disconnect()  # raises what the consumer raised, had it failed

    assert bus().following(group_name(game.pk)) == 0
    assert problems(caplog) == []


async def test_a_race_command_answered_after_the_tab_closed_leaves_the_room_socket_quietly(player, caplog):
    room = await sync_to_async(races.room_create)(host=player, now=timezone.now())
    app = ClosedByTheClient()
    socket = await socket_to(app, f"/ws/races/{room.code}/", player)
    while (await socket.receive_json_from())["t"] != "room":
        pass  # the welcome first

    with caplog.at_level(logging.INFO):
        app.closed.set()
        await socket.send_json_to({"t": "ready", "ready": True, "n": 1})
        await socket.disconnect()

    assert problems(caplog) == []


async def test_a_watcher_who_sends_a_frame_as_the_tab_closes_leaves_quietly(player, other_player, caplog):
    game, _ = await sync_to_async(game_start)(player=player, mode="new", now=timezone.now())
    app = ClosedByTheClient()
    socket = await socket_to(app, f"/ws/watch/{game.pk}/", other_player)
    assert (await socket.receive_json_from())["t"] == "state"

    with caplog.at_level(logging.INFO):
        app.closed.set()
        await socket.send_json_to({"t": "move", "move": [1, 0], "n": 1})  # answered "read only"
        await socket.disconnect()

    assert problems(caplog) == []
