"""Watchers' and live-list sockets for the tests, and waiting for what they hear."""

from __future__ import annotations

from typing import Any

from channels.testing import WebsocketCommunicator

from accordion_site.asgi import application
from accounts.models import Player
from games.models import Game

from ..sockets import FROM_THE_SITE, session_cookie_for

# Time enough for a socket message a test waits for (the counts are written every half second).
HEAR_S = 5.0
CONNECT_S = 30.0


async def watch_socket(game_id: int, viewer: Player | None, *, v: int | None = None) -> WebsocketCommunicator:
    """An unconnected communicator for /ws/watch/<id>/ (resuming after version `v`) with `viewer`'s session."""
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(viewer))]
    query = "" if v is None else f"?v={v}"
    return WebsocketCommunicator(application, f"/ws/watch/{game_id}/{query}", headers=headers)


async def live_socket(viewer: Player | None) -> WebsocketCommunicator:
    headers = [*FROM_THE_SITE, (b"cookie", await session_cookie_for(viewer))]
    return WebsocketCommunicator(application, "/ws/live/", headers=headers)


async def watching(game: Game, viewer: Player | None, *, v: int | None = None) -> WebsocketCommunicator:
    """A connected watcher; its first messages (the state, the count) are left for the test to read."""
    socket = await watch_socket(game.pk, viewer, v=v)
    # Generous: a test may open a hundred at once, and the machine is shared.
    accepted, _ = await socket.connect(timeout=CONNECT_S)
    assert accepted
    return socket


async def heard(socket: WebsocketCommunicator, kind: str, *, timeout: float = HEAR_S) -> dict[str, Any]:
    """The next message of type `kind`, skipping others (counts and badges come when they come)."""
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if message["t"] == kind:
            return message  # type: ignore[no-any-return]


async def count_heard(socket: WebsocketCommunicator, watchers: int, *, timeout: float = HEAR_S) -> None:
    """Wait until the socket is told that `watchers` are watching."""
    while (await heard(socket, "crowd", timeout=timeout))["watchers"] != watchers:
        pass


async def counted(game: Game, viewer: Player | None) -> WebsocketCommunicator:
    """A connected watcher that has been counted (its first `crowd` comes after it is)."""
    socket = await watching(game, viewer)
    await heard(socket, "crowd", timeout=CONNECT_S)
    return socket


async def last_count(socket: WebsocketCommunicator, *, quiet: float = 1.5) -> int | None:
    """The last count the socket is told before it hears nothing for `quiet` seconds."""
    count = None
    while not await socket.receive_nothing(timeout=quiet):
        message = await socket.receive_json_from()
        if message["t"] == "crowd":
            count = message["watchers"]
    return count
