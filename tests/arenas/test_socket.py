"""The arena socket (/ws/arenas/<code>/): the first frame, batched standings, next, ended, refusals."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accordion_site.asgi import application
from accounts.models import Player
from arenas import services
from arenas.models import Arena
from tests.games.sockets import FROM_THE_SITE, session_cookie_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("socket_services_stopped")]


async def arena_socket(code: str, player: Player | None) -> WebsocketCommunicator:
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(player))]
    socket = WebsocketCommunicator(application, f"/ws/arenas/{code}/", headers=headers)
    accepted, _ = await socket.connect()
    assert accepted
    return socket


async def until(socket: WebsocketCommunicator, kind: str, *, timeout: float = 5) -> dict[str, Any]:
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if message["t"] == kind:
            return message


join = sync_to_async(services.arena_join)


async def test_the_first_frame_is_the_arena_with_its_standings(player: Player, live_arena: Arena) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    socket = await arena_socket(live_arena.code, player)
    first = await socket.receive_json_from(timeout=5)
    assert first["t"] == "arena"
    assert first["arena"]["code"] == live_arena.code and first["arena"]["state"] == "live"
    assert first["arena"]["players"] == 1
    assert [row["nickname"] for row in first["standings"]] == ["Ada"]
    assert first["me"]["rank"] == 1
    await socket.disconnect()


async def test_an_unknown_arena_is_refused_with_4404(player: Player) -> None:
    socket = await arena_socket("NOSUCH", player)
    refused = await socket.receive_json_from(timeout=5)
    assert refused["t"] == "refused" and refused["code"] == "not_found"
    assert (await socket.receive_output(timeout=5))["code"] == 4404


async def test_a_spectator_command_is_refused(player: Player, other_player: Player, live_arena: Arena) -> None:
    await join(code=live_arena.code, player=player, now=timezone.now())
    for who in (other_player, None):
        socket = await arena_socket(live_arena.code, who)
        first = await until(socket, "arena")
        assert first["me"] is None
        await socket.send_json_to({"t": "next", "n": 1})
        refused = await until(socket, "reject")
        assert (refused["n"], refused["code"]) == (1, "not_participant")
        await socket.disconnect()
