"""Helpers for room socket tests: a communicator with a player's session, and reading until a message
of some type arrives."""

from __future__ import annotations

from typing import Any

from channels.testing import WebsocketCommunicator

from accordion_site.asgi import application
from accounts.models import Player
from tests.games.sockets import FROM_THE_SITE, session_cookie_for


async def room_socket(code: str, player: Player | None, *, v: int | None = None) -> WebsocketCommunicator:
    """A connected room socket of `player` (a visitor without a player when None), resuming from room
    version `v` when given."""
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(player))]
    path = f"/ws/races/{code}/" if v is None else f"/ws/races/{code}/?v={v}"
    socket = WebsocketCommunicator(application, path, headers=headers)
    accepted, _ = await socket.connect()
    assert accepted
    return socket


async def until(socket: WebsocketCommunicator, kind: str, *, timeout: float = 3) -> dict[str, Any]:
    """Read messages until one of type `kind` comes; return it."""
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if message["t"] == kind:
            return message


async def room_until(socket: WebsocketCommunicator, condition: Any, *, timeout: float = 3) -> dict[str, Any]:
    """Read `room` messages until one satisfies `condition`; return it."""
    while True:
        room = await until(socket, "room", timeout=timeout)
        if condition(room):
            return room


def racer(room: dict[str, Any], player: Player) -> dict[str, Any]:
    """The player's entry in the room's racers ({} when they have no seat)."""
    return next((entry for entry in room["racers"] if entry["player"] == player.pk and not entry["ghost"]), {})
